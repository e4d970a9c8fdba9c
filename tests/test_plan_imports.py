"""Which heavy modules a plan report pulls in, in a fresh process as `napkin` runs it: a text
report imports no matplotlib at all, and an HTML report draws its plots on bare matplotlib
Figures, never importing pyplot. sympy is not checked: the plan's sensitivity still builds
its chain from sympy expressions, so even a warm cache imports it (issue 28, not yet done)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "startup-7b.toml"

PROBE = """
import json, sys
from napkinmath.cli.main import main
status = main(sys.argv[1:])
print(json.dumps({"status": status, "modules": sorted(
    m for m in ("matplotlib", "matplotlib.pyplot", "sympy") if m in sys.modules)}))
"""


def _plan(tmp_path: Path, *extra: str) -> dict:
    """Run `napkin plan EXAMPLE *extra` twice in fresh processes sharing one cache folder
    (the first warms the cache) and return what the second one imported."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = [sys.executable, "-c", PROBE, "plan", str(EXAMPLE), *extra]
    subprocess.run(args, capture_output=True, text=True, env=env, check=True, cwd=tmp_path)
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=True, cwd=tmp_path)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_text_plan_with_a_warm_cache_imports_no_matplotlib(tmp_path):
    seen = _plan(tmp_path)
    assert seen["status"] == 0
    assert "matplotlib" not in seen["modules"]


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs [plot]")
def test_html_plan_draws_without_pyplot(tmp_path):
    out = tmp_path / "report.html"
    seen = _plan(tmp_path, "-o", str(out))
    assert seen["status"] == 0
    assert "<svg" in out.read_text(encoding="utf-8")
    assert "matplotlib" in seen["modules"]
    assert "matplotlib.pyplot" not in seen["modules"]
