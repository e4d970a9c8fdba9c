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


#: a plot's size in inches: one drawing that reads on a 390 px phone, which shows it about
#: its own width (11 pt text stays above 10 px), and on a desktop, where the page shows it at
#: most 28rem wide (the same text about 13 px)
SIZE = (4.2, 3.6)


def _wrap_labels(ax) -> None:
    """Long words-with-spaces text of `ax` (its title, axis labels, and category labels)
    folded onto more lines, so that the figure keeps its width and its text size."""
    import textwrap

    from matplotlib.ticker import FixedLocator

    def fold(text: str, width: int) -> str:
        return "\n".join(textwrap.fill(line, width) for line in text.split("\n"))

    ax.title.set_text(fold(ax.get_title(), 34))  # set_title would reset the title's pad
    ax.set_xlabel(fold(ax.get_xlabel(), 46))
    ax.set_ylabel(fold(ax.get_ylabel(), 36))
    if isinstance(ax.yaxis.get_major_locator(), FixedLocator):
        labels = [fold(t.get_text(), 20) for t in ax.get_yticklabels()]
        ax.set_yticks(ax.get_yticks(), labels)
        # each line of a category label 1.25 lines of text high, 0.8 of a line between two
        # labels, and room for the title and the x axis: the figure grows rather than the
        # labels overlap
        lines = sum(label.count("\n") + 1 for label in labels)
        size = ax.yaxis.get_ticklabels()[0].get_fontsize() / 72  # inches
        high = (1.25 * lines + 0.8 * len(labels)) * size + 1.2
        width, height = ax.figure.get_size_inches()
        ax.figure.set_size_inches(width, max(height, high))


def render(draw: Callable, size: tuple[float, float] = SIZE) -> str:
    """Call `draw(ax)` on a fresh figure `size` inches and return the figure as an <svg>
    element that scales to its container (no XML prolog, no fixed size, no date). The axes
    are laid out to fit their labels (constrained layout) and long labels folded, so that
    they shrink the axes rather than widen the figure and shrink its text."""
    # a bare Figure, not pyplot: no GUI backend probed, no figure manager to close
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(
        {
            "svg.hashsalt": HASH_SALT,
            "svg.fonttype": "path",
            "font.family": "DejaVu Sans",
            "font.size": 11,
        }
    ):
        fig = Figure(figsize=size, layout="constrained")
        ax = fig.subplots()
        draw(ax)
        _wrap_labels(ax)
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
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
