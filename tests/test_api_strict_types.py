"""A user's script type-checks precisely under `mypy --strict` (issue 27): the public calls
(solve, check, check_claims, sweep, compare, optimize, gap, plan, audit), their answers and `.value`
reveal real types, not `Any`, and a misspelt name (`nm.sovle`) is an error.

The package is laid out as `napkinmath` the way tools/typecheck.py lays it out (the editable
install's import hook is not one mypy can follow); the script is checked with --strict and the
package's own modules are followed silently (their errors are tools/typecheck.py's business).
The script runs as well, so that the types it is checked against are the ones it meets.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import helpers
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))


W12 = 'params="7B", tokens="1T", train_time="3 weeks", gpu="H100-SXM"'
PLAN = (ROOT / "examples" / "startup-7b.toml").as_posix()
AUDITED = (ROOT / "tests" / "fixtures" / "audit" / "estimate.md").as_posix()

#: the script, each reveal_type followed by the type it must reveal (a part of it)
SCRIPT = f'''
from typing import TYPE_CHECKING

import napkinmath as nm

r = nm.solve("n_gpus", mfu=0.4, {W12})
reveal_type(r)  # expect: Revealed type is "napkinmath.answer.result.Result"
reveal_type(r.value)  # expect: Revealed type is "pint.registry.Quantity[float]"
reveal_type(r.to_dict())  # expect: dict[str, object]
reveal_type(r.value.to("GPU").magnitude)  # expect: float
reveal_type(r.to_frame())  # expect: DataFrame
q = nm.solve("n_gpus", mfu="0.3..0.5", ranges=True, {W12})
reveal_type(q)  # expect: Revealed type is "napkinmath.whatif.answers.RangeResult"
reveal_type(q.value.low)  # expect: pint.registry.Quantity[float]
reveal_type(nm.solve("n_gpus", mfu=(0.3, 0.5), {W12}))  # expect: Result | napkinmath
reveal_type(r.values)  # expect: dict[str, pint.registry.Quantity[float]]
s = nm.solve("n_gpus", mfu="0.3 to 0.5", samples=200, seed=1, {W12})
reveal_type(s)  # expect: napkinmath.whatif.answers.SampleResult
reveal_type(s.value)  # expect: pint.registry.Quantity[float]
reveal_type(s.interval.low)  # expect: pint.registry.Quantity[float]
t = nm.sweep("n_gpus", over={{"mfu": [0.3, 0.4]}}, {W12})
reveal_type(t)  # expect: napkinmath.whatif.table.Table
reveal_type(t.to_dict())  # expect: dict[str, object]
reveal_type(t.to_pandas())  # expect: DataFrame
if TYPE_CHECKING:  # checked, not run (no figure drawn)
    reveal_type(t.plot())  # expect: matplotlib.axes._axes.Axes
    reveal_type(t.plot("sweep.png"))  # expect: pathlib.Path
c = nm.compare("n_gpus", gpu="H100-SXM,MI300X", params="7B", tokens="1T",
               train_time="3 weeks", mfu=0.4)
reveal_type(c)  # expect: napkinmath.whatif.compare.Comparison
k = nm.check("70e9 param * 16 byte/param", expect="1.1 TB")
reveal_type(k)  # expect: napkinmath.checking.outcome.CheckResult
reveal_type(k.value)  # expect: pint.registry.Quantity[float]
reveal_type(k.to_dict())  # expect: dict[str, object]
reveal_type(nm.check_claims([{{"expression": "2 * 3", "claimed": "6"}}]))  # expect: ClaimsReport
o = nm.optimize("n_gpus", over={{"n_gpus": "whole nodes"}}, params="7B", tokens="1T",
                train_time="<= 3 weeks", mfu=0.4, gpu="H100-SXM")
reveal_type(o)  # expect: napkinmath.whatif.optimum.Optimum
step = nm.solve("step_time_predicted", model="llama-3-70b", gpu="H100", n_gpus=1024, tp=8,
                pp=4, dp=32, seq_len=8192, global_batch_tokens="16Mi", batch_size=1)
reveal_type(nm.gap(step, step_time="12.4 s"))  # expect: napkinmath.whatif.gap.GapBudget
p = nm.plan("{PLAN}")
reveal_type(p)  # expect: napkinmath.scenario.answer.Plan
reveal_type(nm.audit("{AUDITED}"))  # expect: napkinmath.checking.audit.AuditReport
nm.sovle("n_gpus")  # error: Module has no attribute "sovle"
'''


def _mypy(script: str) -> tuple[str, int]:
    return helpers.mypy_strict(script)


@pytest.fixture(scope="module")
def checked() -> dict[int, list[str]]:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[dev]' installs it)")
    out, _ = _mypy(SCRIPT)
    found: dict[int, list[str]] = {}
    for line in out.splitlines():
        hit = re.match(r".*user_script\.py:(\d+): (?:note|error): (.*)", line)
        if hit:
            found.setdefault(int(hit[1]), []).append(hit[2])
    return found


def _expected() -> list[tuple[int, str, str]]:
    rows = []
    for number, line in enumerate(SCRIPT.splitlines(), 1):
        hit = re.search(r"# (expect|error): (.*)$", line)
        if hit:
            rows.append((number, hit[1], hit[2]))
    return rows


def test_every_public_call_reveals_a_precise_type(checked):
    reveals = [row for row in _expected() if row[1] == "expect"]
    assert len(reveals) == SCRIPT.count("reveal_type(") > 15
    for number, _, wanted in reveals:
        notes = [n for n in checked.get(number, []) if n.startswith("Revealed type is")]
        assert len(notes) == 1, (number, checked.get(number))
        assert wanted in notes[0], (number, notes[0])
        assert "Any" not in notes[0], (number, notes[0])


def test_a_misspelt_name_is_an_error_and_nothing_else_is(checked):
    errors = {n: [m for m in ms if "Revealed type" not in m] for n, ms in checked.items()}
    errors = {n: ms for n, ms in errors.items() if ms}
    (typo,) = [number for number, kind, _ in _expected() if kind == "error"]
    assert list(errors) == [typo], errors
    assert 'Module has no attribute "sovle"; maybe "solve"?' in errors[typo][0]


def test_the_script_names_the_public_calls():
    calls = ("solve", "check", "check_claims", "sweep", "compare", "optimize", "gap", "plan")
    for call in (*calls, "audit"):
        assert f"nm.{call}(" in SCRIPT


def test_the_script_runs_and_meets_the_types_it_was_checked_with(capsys):
    """Run as Python (typing.reveal_type prints the runtime type), the misspelt call aside."""
    lines = [line for line in SCRIPT.splitlines() if "nm.sovle" not in line]
    source = "from typing import reveal_type\n" + "\n".join(lines)
    exec(compile(source, "user_script.py", "exec"), {})  # the test's own text, not user input
    shown = re.findall(r"Runtime type is '(\w+)'", capsys.readouterr().err)
    assert shown[0] == "Result" and "SampleResult" in shown and shown[-1] == "AuditReport", shown
