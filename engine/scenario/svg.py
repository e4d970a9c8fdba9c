"""Plots as inline SVG text, the same bytes on every run (matplotlib, lazily imported)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

#: a fixed salt for the ids matplotlib writes into an SVG (otherwise random per run)
HASH_SALT = "napkinmath"


#: said once in a report, where its plots would be, when matplotlib is missing
LEFT_OUT = (
    "Plots are left out of this report: matplotlib is not installed (pip install "
    "'napkinmath[plot]' draws them); the tables carry the same numbers."
)
#: said in place of each plot left out
PLOT_LEFT_OUT = "Plot left out: matplotlib is not installed (pip install 'napkinmath[plot]')."


def can_plot() -> bool:
    """Whether matplotlib, the optional 'plot' extra, can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def wants_plots(plan) -> bool:
    """Whether the report of `plan` draws any plot (a sweep, a tornado chart, an
    optimization's objective against its first numeric decision)."""
    from napkinmath.scenario.optimizing import can_plot as optimization_plots

    return (
        bool(plan.sweeps)
        or any(s.sensitivities for s in plan.sections)
        or any(optimization_plots(o) for o in getattr(plan, "optimizations", []))
    )


#: a plot's size in inches: wide for a desktop page and print, narrow for a phone, which shows
#: it near its own width, its text a point larger (no text under 10 px on a 390 px screen)
WIDE = (7.0, 4.2)
NARROW = (4.0, 3.6)
SIZES = (WIDE, NARROW)


def _wrap_labels(ax) -> None:
    """Long words-with-spaces text of `ax` (its title, axis labels, and category labels)
    folded onto more lines, so that a narrow figure keeps its width and its text size."""
    import textwrap

    from matplotlib.ticker import FixedLocator

    def fold(text: str, width: int) -> str:
        return "\n".join(textwrap.fill(line, width) for line in text.split("\n"))

    ax.set_title(fold(ax.get_title(), 36))
    ax.set_xlabel(fold(ax.get_xlabel(), 40))
    ax.set_ylabel(fold(ax.get_ylabel(), 34))
    if isinstance(ax.yaxis.get_major_locator(), FixedLocator):
        labels = [fold(t.get_text(), 22) for t in ax.get_yticklabels()]
        ax.set_yticks(ax.get_yticks(), labels)
        # each line of a category label about 1.8 lines of text high, and room for the
        # title and the x axis: the figure grows rather than the labels overlap
        lines = sum(label.count("\n") + 1 for label in labels)
        high = lines * 1.8 * ax.yaxis.get_ticklabels()[0].get_fontsize() / 72 + 1.4
        width, height = ax.figure.get_size_inches()
        ax.figure.set_size_inches(width, max(height, high))


def render(draw: Callable, size: tuple[float, float] = WIDE) -> str:
    """Call `draw(ax)` on a fresh figure `size` inches and return the figure as an <svg>
    element that scales to its container (no XML prolog, no fixed size, no date). The narrow
    size lays the axes out to fit their labels (constrained layout), so that long labels
    shrink the axes rather than widen the figure."""
    # a bare Figure, not pyplot: no GUI backend probed, no figure manager to close
    import matplotlib
    from matplotlib.figure import Figure

    narrow = size != WIDE
    with matplotlib.rc_context(
        {
            "svg.hashsalt": HASH_SALT,
            "svg.fonttype": "path",
            "font.family": "DejaVu Sans",
            "font.size": 11 if narrow else 10,
        }
    ):
        fig = Figure(figsize=size, layout="constrained" if narrow else None)
        ax = fig.subplots()
        draw(ax)
        if narrow:
            _wrap_labels(ax)
        out = io.StringIO()
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = out.getvalue()
    text = text[text.index("<svg") :]
    # no metadata (it names creativecommons.org and purl.org) and no namespace URIs: an
    # <svg> inside HTML needs neither, and the page then holds no URL at all
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    text = re.sub(r' xmlns(:xlink)?="[^"]*"', "", text)
    # scale with the page: drop the fixed size, keep the viewBox
    text = re.sub(
        r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 width="100%"', text, count=1
    )
    return text.strip()
