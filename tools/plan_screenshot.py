#!/usr/bin/env python3
"""Render a plan as HTML and open it in headless Chromium: screenshots, the DOM, the layout.

    python tools/plan_screenshot.py examples/startup-7b.toml out/

writes out/plan.html, out/plan.png (a desktop, 1280 px wide), out/plan-phone.png (a phone,
390 px) and out/plan.dom.html, and prints how the page lays out at each width (`layout`):
the names that break across lines, the tables that scroll sideways, the smallest plot text.

Chromium runs with no network features (no QUIC, background networking, component updates or
sync) and a throwaway profile. Install it on Debian with
``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from html import escape
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def chromium() -> str | None:
    """The Chromium executable on PATH, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def run(browser: str, html: Path, *args: str, timeout: float = 120) -> str:
    """Run headless Chromium on `html` with extra `args`; returns its stdout."""
    with tempfile.TemporaryDirectory(prefix="napkin-chromium-") as profile:
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *args, html.resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


#: a script run beside the page (in an iframe of the width asked, as headless Chromium will
#: not lay a window out narrower than 500 px): what a reader would trip on, counted into the
#: host's <body> data attributes (the report itself has no script)
LAYOUT = """<script>
window.addEventListener('load', () => {
const doc = document.getElementById('page').contentDocument;
const named = [...doc.querySelectorAll('td code, li > code')];
const broken = named.filter(c => c.getClientRects().length > 1).map(c => c.textContent);
const wide = [...doc.querySelectorAll('.scroll')].filter(
  d => d.scrollWidth > d.clientWidth + 1);
const shown = [...doc.querySelectorAll('svg')].filter(s => s.getBoundingClientRect().width > 0);
const sizes = shown.flatMap(s => [...s.querySelectorAll('g[transform*="scale("]')])
  .filter(g => g.querySelector('use'))
  .map(g => Math.abs(g.getScreenCTM().d) * 100)  // matplotlib's glyphs: 100 units an em
  .filter(px => px > 0);
const b = document.body.dataset;
b.names = named.length;
b.broken = broken.join(' ');
b.scrolls = wide.map(
  d => d.closest('section').id + ':' + d.scrollWidth + '/' + d.clientWidth).join(' ');
b.plots = shown.length;
b.plotText = sizes.length ? Math.min(...sizes).toFixed(1) : '';
b.pageWidth = doc.documentElement.scrollWidth;
b.viewport = doc.defaultView.innerWidth;
});
</script>"""


def layout(browser: str, html: Path, width: int) -> dict[str, object]:
    """How the page at `html` lays out `width` CSS px wide: the names in tables and lists
    that break across lines, the sections whose table scrolls sideways, the smallest plot
    text in px, and the page's own width (wider than `width`: the page scrolls sideways)."""
    probe = html.with_name(f"{html.stem}.layout-{width}.html")
    page = escape(html.read_text(encoding="utf-8"), quote=True)
    probe.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
        f'<iframe id="page" style="width:{width}px;height:2000px;border:0" srcdoc="{page}">'
        f"</iframe>{LAYOUT}</body></html>",
        encoding="utf-8",
    )
    try:
        dom = run(browser, probe, "--dump-dom", f"--window-size={max(width, 500) + 20},2000")
    finally:
        probe.unlink()
    body = dom[dom.index("<body") :].split(">")[0]
    found = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body))
    if "names" not in found:
        raise RuntimeError(f"the layout script did not run: {body[:500]}")
    return {
        "names": int(found["names"]),
        "broken": found["broken"].split(),
        "scrolls": found["scrolls"].split(),
        "plots": int(found["plots"]),
        "plot_text_px": float(found["plot-text"]) if found["plot-text"] else None,
        "page_width": int(found["page-width"]),
        "viewport": int(found["viewport"]),
    }


def shoot(plan_file: Path, out: Path) -> dict[str, Path]:
    """Write the plan's HTML report to `out` and its screenshots and DOM next to it."""
    import napkinmath as nm

    browser = chromium()
    if browser is None:
        raise SystemExit(
            "chromium is not installed: apt-get install -y --no-install-recommends chromium"
        )
    out.mkdir(parents=True, exist_ok=True)
    html = nm.plan(plan_file).write(out / "plan.html")
    files = {
        "html": html,
        "desktop": out / "plan.png",
        "phone": out / "plan-phone.png",
        "dom": out / "plan.dom.html",
    }
    run(browser, html, f"--screenshot={files['desktop']}", "--window-size=1280,3000")
    run(browser, html, f"--screenshot={files['phone']}", "--window-size=390,2400")
    files["dom"].write_text(run(browser, html, "--dump-dom"), encoding="utf-8")
    return files


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    files = shoot(Path(argv[0]), Path(argv[1]))
    for kind, path in files.items():
        print(f"{kind}: {path}")
    browser = chromium()
    assert browser is not None  # shoot() found it
    for width in (390, 1280):
        print(f"layout at {width} px: {layout(browser, files['html'], width)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
