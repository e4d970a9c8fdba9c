"""HTML for notebooks (`_repr_html_`): one frame and style for every kind of answer, and
escaped text, tables and lists in it.

The frame carries `tex2jax_ignore` and `mathjax_ignore` (the classes MathJax 2 and 3 skip)
and no '$' is left in the markup (`esc` writes it `&#36;`), so a MathJax pass over the page,
where there is one, leaves it alone; the math itself is MathML
(`napkinmath.rendering.mathml`), which browsers render with no network.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from napkinmath.text.sources import Sources
from napkinmath.text.visible import visible

#: notebook output's palette, drawn from the host (JupyterLab, VS Code, light or dark): borders
#: and tints grey at partial opacity over its background, red and green mixed into its text
#: colour. The answers' frame (below) and a plan's (`napkinmath.scenario.report_html`) share it.
HOST_LINE = "rgba(128,128,128,.45)"
HOST_TINT = "rgba(128,128,128,.14)"
HOST_INFEASIBLE = "rgba(229,72,77,.2)"
HOST_BAD = "color-mix(in srgb,#e5484d 75%,currentColor)"
HOST_GOOD = "color-mix(in srgb,#30a46c 75%,currentColor)"

#: the frame's style, scoped to it. Its rules carry the class twice (`.napkin.napkin td`,
#: specificity 0,2,1), so they outrank JupyterLab's `.jp-RenderedHTMLCommon td` rules
#: (right-aligned cells, centred tables) at equal or lower specificity: the frame's <style>
#: comes later in the page. Colours come from the host, so a dark theme reads as well as a
#: light one: text inherits the host's colour, tints and borders are grey at partial opacity
#: over the host's background, muted text is faded, and the warning and ok colours mix red or
#: green into the host's text colour (`color-mix`; a browser without it keeps the plain
#: colour before it).
CSS = (
    ".napkin{line-height:1.45;max-width:60rem}"
    ".napkin.napkin table{border-collapse:collapse;margin:.4rem 0;color:inherit;"
    "table-layout:auto}"
    f".napkin.napkin th,.napkin.napkin td{{border:1px solid {HOST_LINE};"
    "padding:.2rem .5rem;text-align:left;vertical-align:top;color:inherit;max-width:none}"
    f".napkin.napkin th{{background:{HOST_TINT};font-weight:600}}"
    ".napkin.napkin td.num,.napkin.napkin th.num{text-align:right;white-space:nowrap}"
    ".napkin .eq{margin:.1rem 0 .1rem 1rem;overflow-x:auto;overflow-y:hidden}"
    ".napkin .muted,.napkin .legend{opacity:.78;font-size:.9em}"
    f".napkin .warning{{color:#c62828;color:{HOST_BAD};"
    "font-weight:600}"
    f".napkin .ok{{color:#2e7d32;color:{HOST_GOOD}}}"
    ".napkin ol.steps>li{margin:.5rem 0}"
    ".napkin code{white-space:nowrap}"
    ".napkin a{color:inherit}"
)


def esc(text: object) -> str:
    """User or record text for the page: markup characters as entities, invisible and
    control characters shown as escapes, '$' as `&#36;` (never TeX to MathJax)."""
    return html.escape(visible(str(text), keep="\n"), quote=True).replace("$", "&#36;")


def frame(kind: str, parts: Iterable[str]) -> str:
    """The answer's HTML in its frame: `<div class="napkin napkin-KIND ...">` with the style."""
    return (
        f'<div class="napkin napkin-{kind} tex2jax_ignore mathjax_ignore">'
        f"<style>{CSS}</style>\n" + "\n".join(parts) + "\n</div>"
    )


def headline(lines: Iterable[str]) -> list[str]:
    return [f'<p class="answer"><strong>{esc(line)}</strong></p>' for line in lines]


def warnings(found: Iterable[str]) -> list[str]:
    return [f'<p class="warning">Warning: {esc(w)}</p>' for w in found]


def table(headers: list[str], rows: Iterable[list[str]], numeric: Iterable[int] = ()) -> str:
    """A table of escaped cells; the columns in `numeric` align right."""
    right = set(numeric)

    def cell(tag: str, i: int, text: str) -> str:
        return (
            f'<{tag} class="num">{esc(text)}</{tag}>'
            if i in right
            else f"<{tag}>{esc(text)}</{tag}>"
        )

    head = "".join(cell("th", i, h) for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(cell("td", i, c) for i, c in enumerate(r)) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def givens(rows: Iterable[tuple[str, str, str]]) -> str:
    """The givens as a table: the name (code), its value, where it came from."""
    body = "".join(
        f"<tr><td><code>{esc(n)}</code></td><td>{esc(v)}</td><td>{esc(o)}</td></tr>"
        for n, v, o in rows
    )
    return (
        "<table><thead><tr><th>given</th><th>value</th><th>from</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def lines_block(heading: str, lines: Iterable[str]) -> list[str]:
    """A heading and its lines as a list (checks, constraints, set-aside values)."""
    items = [line.strip() for line in lines if line.strip()]
    if not items:
        return []
    return [f"<p>{esc(heading)}</p><ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>"]


def sources_list(sources: Sources) -> list[str]:
    if not sources:
        return []
    return [
        "<p>Sources:</p><ol>"
        + "".join(f'<li value="{n}">{esc(s)}</li>' for n, s in sources.entries())
        + "</ol>"
    ]
