"""A report's plots as files beside it: SVG for Markdown, PDF for LaTeX (pdflatex includes
PDF), the same plots the HTML report draws inline, the same bytes on every run.

For ``-o report.md`` the plots go to ``report-figures/sweep-1.svg``, ... and the report links
them by that relative path; a stem that is not plain (a space, a quote, a non-ASCII letter)
gives the folder ``report-figures`` so that no link or \\includegraphics needs quoting.
"""

from __future__ import annotations

import io
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from napkinmath.errors import InputError

#: a fixed salt for the ids matplotlib writes into an SVG (otherwise random per run)
HASH_SALT = "napkinmath"
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,80}")


def folder_for(report: Path) -> str:
    """The name of the folder beside `report` that its plots are written to."""
    stem = report.stem
    return f"{stem}-figures" if _PLAIN.fullmatch(stem) else "report-figures"


class Figures:
    """The plots one report draws, by file name, as `kind` ('svg' or 'pdf') files in the
    folder `link` (relative to the report; '' for the report's own folder)."""

    def __init__(self, kind: str, link: str = "") -> None:
        self.kind = kind
        self.link = link
        #: file name -> its bytes, in the order drawn
        self.files: dict[str, bytes] = {}

    def add(self, stem: str, draw: Callable) -> str:
        """Draw `draw(ax)` as the next `stem-N` file and return its path from the report.
        A plot that cannot be drawn raises the plot's own InputError."""
        number = sum(1 for name in self.files if name.startswith(f"{stem}-")) + 1
        name = f"{stem}-{number}.{self.kind}"
        self.files[name] = drawn(draw, self.kind)
        return f"{self.link}/{name}" if self.link else name

    def write(self, beside: Path, inputs=()) -> None:
        """Write the files into their folder beside the report at `beside`, each as
        `napkinmath.writing` writes a report (never through a link, atomically)."""
        from napkinmath.writing import write_output

        if not self.files:
            return
        folder = beside.parent / self.link if self.link else beside.parent
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            folder.mkdir()
            info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode):
            raise InputError(
                f"cannot write the report's plots into {folder}: it is a link or a file, "
                "not a folder; remove it or name the report otherwise"
            )
        for name, data in self.files.items():
            write_output(folder / name, data, inputs=inputs)


def drawn(draw: Callable, kind: str) -> bytes:
    """A fresh 7 x 4.2 in figure with `draw(ax)` on it, as SVG or PDF bytes with no date,
    fixed ids, and fonts as outlines (SVG paths, PDF TrueType: never Type 3 bitmaps)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings: dict = {
        "svg.hashsalt": HASH_SALT,
        "svg.fonttype": "path",
        "pdf.fonttype": 42,
        "font.family": "DejaVu Sans",
    }
    metadata = (
        {"Date": None}
        if kind == "svg"
        else {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
    )
    with matplotlib.rc_context(settings):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        try:
            draw(ax)
            out = io.BytesIO()
            fig.savefig(out, format=kind, bbox_inches="tight", metadata=metadata)
        finally:
            plt.close(fig)
    return out.getvalue()
