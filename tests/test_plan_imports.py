"""Which heavy modules a plan report pulls in, in a fresh process as `napkin` runs it: with a
warm cache a text report imports neither sympy (its sweeps and sensitivities run on the
stored trees, elasticities differentiated forward through them) nor matplotlib, and an HTML
report draws its plots on bare matplotlib Figures, never importing pyplot, and prints its
MathML from the stored layouts, never importing sympy."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import helpers
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE = EXAMPLES / "startup-7b.toml"
#: every example plan: sweeps, sensitivities, comparisons, an optimization, a gap budget
PLANS = [p.name for p in helpers.example_plans()]

#: what only some plans or outputs need: files written (-o), optimizations, a gap budget,
#: a "did you mean" for a misspelled name
PARTS = (
    "napkinmath.writing",
    "napkinmath.cli.whatif",
    "napkinmath.scenario.optimizing",
    "napkinmath.whatif.gap",
    "difflib",
)
PROBE = f"""
import json, sys
from napkinmath.cli.main import main
status = main(sys.argv[1:])
heavy = ("matplotlib", "matplotlib.pyplot", "sympy")
print(json.dumps({{"status": status, "modules": [m for m in heavy if m in sys.modules],
                  "parts": [m for m in {PARTS!r} if m in sys.modules]}}))
"""


def _plan(tmp_path: Path, *extra: str, plan: Path = EXAMPLE) -> dict:
    """Run `napkin plan PLAN *extra` twice in fresh processes sharing one cache folder
    (the first warms the cache) and return what the second one imported."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("NAPKIN_NO_CACHE", None)
    args = [sys.executable, "-c", PROBE, "plan", str(plan), *extra]
    subprocess.run(args, capture_output=True, text=True, env=env, check=True, cwd=tmp_path)
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=True, cwd=tmp_path)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", PLANS)
def test_text_plan_with_a_warm_cache_imports_neither_sympy_nor_matplotlib(tmp_path, name):
    seen = _plan(tmp_path, plan=EXAMPLES / name)
    assert seen["status"] == 0
    assert seen["modules"] == []


def test_text_plan_to_stdout_imports_only_what_its_parts_need(tmp_path):
    """startup-7b has sections, sensitivities and a sweep, but no optimization and no gap
    budget, and its report goes to standard output: the modules of those stay unimported
    (each costs a cold `napkin plan` some milliseconds)."""
    seen = _plan(tmp_path)
    assert seen["status"] == 0
    assert seen["parts"] == []


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs [plot]")
def test_html_plan_draws_without_pyplot_and_prints_math_without_sympy(tmp_path):
    out = tmp_path / "report.html"
    seen = _plan(tmp_path, "-o", str(out))
    assert seen["status"] == 0
    page = out.read_text(encoding="utf-8")
    assert "<svg" in page
    # the first step's formula and its rearranged line, as the layouts print them
    assert "<mi>train_compute</mi><mo>=</mo>" in page
    assert "<mo>⇒</mo><mi>n_gpus</mi>" in page
    assert "<mtext>7B param</mtext><mo>×</mo><mtext>1T token</mtext>" in page  # substituted
    assert seen["modules"] == ["matplotlib"]
