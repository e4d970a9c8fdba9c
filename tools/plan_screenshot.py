#!/usr/bin/env python3
"""Render a plan as HTML and open it in headless Chromium: a screenshot and the DOM.

    python tools/plan_screenshot.py examples/startup-7b.toml out/    # -> out/plan.html,
                                                                     #    out/plan.png (desktop),
                                                                     #    out/plan-phone.png,
                                                                     #    out/plan.dom.html

Chromium runs with no network features (no QUIC, background networking, component updates or
sync) and a throwaway profile. Install it on Debian with
``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
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
    run(browser, html, f"--screenshot={files['desktop']}", "--window-size=1200,3000")
    run(browser, html, f"--screenshot={files['phone']}", "--window-size=412,2400")
    files["dom"].write_text(run(browser, html, "--dump-dom"), encoding="utf-8")
    return files


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for kind, path in shoot(Path(argv[0]), Path(argv[1])).items():
        print(f"{kind}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
