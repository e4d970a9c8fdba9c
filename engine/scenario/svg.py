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


def render(draw: Callable) -> str:
    """Call `draw(ax)` on a fresh figure and return the figure as an <svg> element that
    scales to its container (no XML prolog, no fixed size, no date)."""
    # a bare Figure, not pyplot: no GUI backend probed, no figure manager to close
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(
        {"svg.hashsalt": HASH_SALT, "svg.fonttype": "path", "font.family": "DejaVu Sans"}
    ):
        fig = Figure(figsize=(7, 4.2))
        draw(fig.subplots())
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
