"""Benchmark: every speed figure as a ratio against a baseline measured in the same run.

    python tests/benchmark.py              # the table; no assertion, timings vary by machine
    python tests/benchmark.py --quick      # fewer runs and a 300-question sweep
    python tests/benchmark.py --audit      # also the suggestion audit (minutes)

1. Cold start, each in a fresh process against a fresh `python -c "import sympy, pint,
   networkx"` (the two alternate, so that drift in the machine's speed hits both alike):
   `napkin solve` W12 with compiled bytecode and without it (PYTHONDONTWRITEBYTECODE=1
   recompiles napkinmath's sources on every start), `napkin --help`, `napkin --version`,
   `napkin hardware H100-SXM`, a pure-unit `napkin check`, and the plan file
   examples/startup-7b.toml as text and as HTML (`-o html`); and the first solve after an
   install (an empty cache directory: the library is read from the file shipped with the
   package, `napkinmath.catalog.snapshot.SHIPPED`).
2. Warm, in one process: a repeated W12 solve; W12's shape with new values every call; new
   shapes (the first answer of answerable random questions); new under-determined questions
   (the first refusal, suggestions included) and a repeated one. Baselines: the W12
   arithmetic by hand with pint quantities, and on floats.
3. A sweep of random questions (those of tests/test_properties.py, another seed): median, p99
   and max time per question, and how many took over 1 s.
4. A 1,000-row claims table of the examples' rows, varied, per row against a single
   `nm.check` of a row.
5. First-time questions: the sweep's questions (another seed) in a fresh process on a fresh
   install (an empty cache: the first question also reads the shipped library), with the
   rearrangements shipped with the package (`napkinmath.solving.shipped`), against the same
   questions without them (solved with sympy as they come; the library declared and stored
   on disk first, as before it was shipped): median, p99, max and how many took over 200 ms.
Each figure is printed with its spread: a cold figure as the median of its runs (min … max),
against the median of the dependency imports, and the median of the per-pair ratios with
their min … max (each run against the import run just before it); a warm figure as the
median of its repeats (min … max), or of its questions (p10 … p90), the ratio that of the
medians.
With --audit, the under-determined questions of the sweep are audited: how many got no
suggestion although one input (any library variable) or two (of the 20 nearest the target)
would determine them, and how many single suggestions, given a plausible value, end in a
disagreement with a default assumption.
"""

from __future__ import annotations

import compileall
import contextlib
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

from helpers import W12

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
NAPKIN = ["-m", "napkinmath.cli"]
PLAN = os.path.join(ROOT, "examples", "startup-7b.toml")
PLAN_HTML = os.path.join(tempfile.gettempdir(), "napkin-benchmark-startup-7b.html")
DEPS = ["-c", "import sympy, pint, networkx"]
COLD = {
    "cold `napkin solve` W12 (bytecode)": W12,
    "cold `napkin --help`": ["--help"],
    "cold `napkin --version`": ["--version"],
    "cold `napkin hardware H100-SXM`": ["hardware", "H100-SXM"],
    "cold `napkin check` of units only": ["check", "140 GB / (400 Gb/s)", "--expect", "0.35 s"],
    "cold `napkin plan examples/startup-7b.toml`": ["plan", PLAN],
    "cold `napkin plan examples/startup-7b.toml -o html`": ["plan", PLAN, "-o", PLAN_HTML],
}


def _env(bytecode: bool) -> dict[str, str]:
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        compileall.compile_dir(str(ROOT), quiet=1, rx=re.compile(r"[\\/](\.|build|tests)"))
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        for folder in ("engine", "formulas", "hardware"):
            for cache in list(Path(ROOT, folder).rglob("__pycache__")):
                shutil.rmtree(cache, ignore_errors=True)
    return env


def _run(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], capture_output=True, env=env, check=False)
    return time.perf_counter() - start


def cold(runs: int) -> list[tuple[str, list[float], list[float]]]:
    """(label, seconds of each run, seconds of the dependency import run just before it):
    pair by pair, so that each run has its own baseline."""
    rows = []
    env = _env(bytecode=True)
    _run(NAPKIN + W12, env)  # warm the file cache
    for label, args in COLD.items():
        ours, deps = [], []
        for _ in range(runs):
            deps.append(_run(DEPS, env))
            ours.append(_run(NAPKIN + args, env))
        rows.append((label, ours, deps))
    env = _env(bytecode=False)
    ours, deps = [], []
    for _ in range(runs):
        deps.append(_run(DEPS, env))
        ours.append(_run(NAPKIN + W12, env))
    rows.append(("cold `napkin solve` W12 (no bytecode cache)", ours, deps))
    env = _env(bytecode=True)
    ours, deps = [], []
    for _ in range(runs):  # the first solve after an install: the library is declared
        with tempfile.TemporaryDirectory() as empty:
            deps.append(_run(DEPS, env))
            ours.append(_run(NAPKIN + W12, {**env, "XDG_CACHE_HOME": empty}))
    rows.append(("cold `napkin solve` W12, empty cache (first run)", ours, deps))
    return rows


def by_hand() -> float:
    """W12 on floats: GPUs = 6 N D / (T * peak * MFU), with the unit conversions."""
    params, tokens = 7 * 1e9, 1 * 1e12
    seconds = 3 * 7 * 86_400.0
    peak = 989.5 * 1e12  # the H100-SXM record: 1,979 / 2 TFLOP/(s*GPU)
    return 6 * params * tokens / (seconds * peak * 0.4)


def by_hand_pint():
    """W12 with pint quantities, as one would write it by hand."""
    from napkinmath.units import ureg

    q = ureg.Quantity
    compute = q(6, "FLOP/(param*token)") * q(7e9, "param") * q(1e12, "token")
    return (compute / (q(3, "week") * q(989.5, "TFLOP/(s*GPU)") * 0.4)).to("GPU")


def _repeats(fn, number: int, repeat: int = 5) -> list[float]:
    """Seconds per call of each of `repeat` runs of `number` calls."""
    return [t / number for t in timeit.repeat(fn, repeat=repeat, number=number)]


def warm(quick: bool) -> dict[str, list[float]]:
    """Seconds per call: of each repeat (a repeated call, new values, the baselines), or of
    each question (new shapes, new under-determined questions)."""
    import test_properties as props

    import napkinmath as nm

    def w12(params: str = "7B"):
        return nm.solve(
            "n_gpus", params=params, tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM"
        )

    assert abs(w12().value.magnitude - by_hand()) < 1e-9 * by_hand()
    assert abs(by_hand_pint().magnitude - by_hand()) < 1e-9 * by_hand()
    number = 100 if quick else 300
    out = {
        "float": _repeats(by_hand, number * 100),
        "pint": _repeats(by_hand_pint, number),
        "repeated": _repeats(w12, number),
    }
    fresh = iter(f"{7 + i * 1e-6:.6f}B" for i in range(10**7))
    out["new values"] = _repeats(lambda: w12(next(fresh)), number)

    questions = props.questions(400 if quick else 1200, seed=4242)
    for q in questions[:50]:  # warm the library's compiled formulas a little
        props.answer(q)
    new_ok, new_under = [], []
    for q in questions[50:]:
        start = time.perf_counter()
        kind, _ = props.answer(q)
        spent = time.perf_counter() - start
        if kind == "ok":
            new_ok.append(spent)
        elif kind in ("UnderDeterminedError", "NotInvertibleError"):
            new_under.append((spent, q))
    out["new shape"] = new_ok
    out["new under-determined"] = [t for t, _ in new_under]
    repeat_q = new_under[0][1]
    out["repeated under-determined"] = _repeats(lambda: props.answer(repeat_q), number)
    return out


def sweep(n: int, seed: int = 777) -> tuple[list[float], list[tuple]]:
    """Seconds per question, and the under-determined questions with their refusals."""
    import test_properties as props

    questions = props.questions(n, seed)
    times, refused = [], []
    for q in questions:
        start = time.perf_counter()
        kind, found = props.answer(q)
        times.append(time.perf_counter() - start)
        if kind in ("UnderDeterminedError", "NotInvertibleError"):
            refused.append((q, found))
    return times, refused


def _error(q):
    import napkinmath as nm

    target, values, gpu = q
    try:
        nm.solve(target, gpu=gpu, **values)
    except nm.UnderDeterminedError as exc:
        return exc
    return None


def audit(refused: list[tuple]) -> tuple[int, int, int, int]:
    """(no suggestion, of which one or two inputs would do; single suggestions tried, of which
    end in a disagreement with a default)."""
    import random

    import test_properties as props

    import napkinmath as nm
    from napkinmath.solving import plan, suggest
    from napkinmath.solving.solver import bind

    names = sorted(nm.variables())
    empty = would_do = tried = clash = 0
    rng = random.Random(5)
    for (target, values, gpu), _message in refused:
        exc = _error((target, values, gpu))
        if exc is None:
            continue
        if not exc.suggestions:
            empty += 1
            knowns = frozenset(bind((target,), values, gpu=gpu))
            near = suggest._distances((target,))
            nearest = sorted(
                (n for n in near if n not in knowns and n != target), key=lambda n: (near[n], n)
            )[:20]
            options = [(n,) for n in names if n not in knowns and n != target]
            options += [(a, b) for i, a in enumerate(nearest) for b in nearest[i + 1 :]]
            if any(
                isinstance(plan.structural_plan((target,), knowns | set(o)), plan.SolvePlan)
                for o in options
            ):
                would_do += 1
            continue
        for suggestion in exc.suggestions:
            if " and " in suggestion:
                continue
            tried += 1
            var = nm.variables()[suggestion]
            more = {**values, suggestion: props._plausible(var, rng, {})}
            try:
                nm.solve(target, gpu=gpu, **more)
            except nm.InconsistentError as problem:
                clash += "(assumption)" in str(problem)
            except nm.NapkinError:
                pass
    return empty, would_do, tried, clash


def claims(rows: int) -> tuple[float, list[float], int]:
    """(seconds per row of a table, seconds of each single check of a row, rows checked)."""
    import napkinmath as nm

    with open(Path(ROOT, "examples", "claims.csv"), encoding="utf-8") as handle:
        base = [r for r in csv.DictReader(line for line in handle if not line.startswith("#"))]
    table = []
    for i in range(rows):
        row = dict(base[i % len(base)])
        factor = 1 + (i // len(base)) * 1e-3
        number, _, unit = row["claimed"].partition(" ")
        row["claimed"] = f"{float(number) * factor:.6g} {unit}"
        row["id"] = f"{row['id']}-{i}"
        table.append(row)
    single = []
    for row in base:
        context = dict(p.strip().split("=", 1) for p in row["context"].split(";") if "=" in p)
        what = row["expression"] or row["quantity"]
        start = time.perf_counter()
        with contextlib.suppress(nm.NapkinError):
            nm.check(what, expect=row["claimed"], **context)
        single.append(time.perf_counter() - start)
    start = time.perf_counter()
    report = nm.check_claims(table)
    spent = time.perf_counter() - start
    checked = sum(1 for r in report.rows if r.status != "unchecked")
    return spent / rows, single, checked


FIRST_TIME = """
import statistics, sys, time
sys.path.insert(0, {tests!r})
from napkinmath.solving import shipped
if {off}:
    shipped.FOLDER = shipped.FOLDER.parent / "not-shipped"
import test_properties as props
times = []
for q in props.questions({n}, 4242):
    start = time.perf_counter()
    props.answer(q)
    times.append(time.perf_counter() - start)
print(" ".join(map(repr, times)))
"""


def first_time(n: int) -> dict[str, list[float]]:
    """Seconds per first-time question, each in a fresh process: with the shipped library
    and rearrangements on an empty cache (a fresh install), and without the shipped
    rearrangements on a cache that holds the declared library only."""
    found = {}
    for label, off in (("without", True), ("shipped", False)):
        folder = tempfile.mkdtemp(prefix="napkin-first-")
        env = {**os.environ, "XDG_CACHE_HOME": folder}
        if off:
            declare = "import napkinmath as nm; nm.solve('train_compute', params='7B', tokens='1T')"
            subprocess.run([sys.executable, "-c", declare], env=env, check=True)
            for stored in Path(folder, "napkinmath").glob("inversions-*"):
                shutil.rmtree(stored)
        code = FIRST_TIME.format(tests=os.path.dirname(os.path.abspath(__file__)), off=off, n=n)
        run = subprocess.run(
            [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
        )
        found[label] = [float(t) for t in run.stdout.split()]
        shutil.rmtree(folder, ignore_errors=True)
    return found


def main() -> None:
    quick = "--quick" in sys.argv
    rows: list[tuple[str, str, str, str]] = []

    def row(label: str, ours: list[float], base: list[float], base_label: str) -> None:
        """A figure as its median and spread (see `_spread`) against the baseline's median;
        the ratio is of the medians."""
        ratio = statistics.median(ours) / statistics.median(base)
        rows.append(
            (
                label,
                _spread(ours),
                f"{_shown(statistics.median(base))} {base_label}",
                f"{ratio:.2f}x",
            )
        )

    def paired(label: str, ours: list[float], base: list[float]) -> None:
        """A cold figure: each run against the dependency import run just before it, the
        median ratio with its spread over the pairs."""
        ratios = [a / b for a, b in zip(ours, base, strict=True)]
        rows.append(
            (
                label,
                _spread(ours),
                f"{_shown(statistics.median(base))} import deps",
                f"{statistics.median(ratios):.2f}x ({min(ratios):.2f} … {max(ratios):.2f})",
            )
        )

    for label, ours, deps in cold(3 if quick else 9):
        paired(label, ours, deps)
    w = warm(quick)
    for label in ("repeated", "new values"):
        row(f"warm W12 solve, {label}", w[label], w["pint"], "pint by hand")
    row("warm W12 solve, repeated", w["repeated"], w["float"], "floats by hand")
    row("warm new shape (first answer, per question)", w["new shape"], w["pint"], "pint by hand")
    row(
        "warm new under-determined question (per question)",
        w["new under-determined"],
        w["pint"],
        "pint by hand",
    )
    row(
        "warm repeated under-determined question",
        w["repeated under-determined"],
        w["pint"],
        "pint by hand",
    )
    per_row, single, checked = claims(1000)
    row(f"claims table, 1,000 rows ({checked} checked), per row", [per_row], single, "one check")
    n = 300 if quick else 1000
    times, refused = sweep(n)
    ordered = sorted(times)
    print(f"{'measurement':<58}{'ours: median (spread)':>34}{'baseline':>26}  ratio")
    for label, ours, base, ratio in rows:
        print(f"{label:<58}{ours:>34}{base:>26}  {ratio}")
    print(
        f"\nsweep of {n} random questions: median {_shown(statistics.median(times))}, "
        f"p99 {_shown(ordered[int(0.99 * n)])}, max {_shown(ordered[-1])}, "
        f"{sum(t > 1 for t in times)} over 1 s; median / pint by hand "
        f"{statistics.median(times) / statistics.median(w['pint']):.0f}x"
    )
    first = first_time(150 if quick else 500)
    for label, times in first.items():
        ordered = sorted(times)
        said = (
            "without the shipped rearrangements"
            if label == "without"
            else "fresh install, the shipped library and rearrangements"
        )
        print(
            f"first-time questions ({said}, {len(times)}): median "
            f"{_shown(statistics.median(times))}, p99 "
            f"{_shown(ordered[int(0.99 * len(times))])}, max {_shown(ordered[-1])}, "
            f"{sum(t > 0.2 for t in times)} over 200 ms"
        )
    if "--audit" in sys.argv:
        empty, would_do, tried, clash = audit(refused)
        print(
            f"suggestion audit of {len(refused)} under-determined questions: {empty} with no "
            f"suggestion, {would_do} of them determinable with one or two more inputs; "
            f"{tried} single suggestions given a plausible value, {clash} of them disagree "
            "with a default assumption"
        )


def _spread(times: list[float]) -> str:
    """'median (min … max)' of some seconds; the middle 80% (p10 … p90) of a long list of
    different questions, whose extremes are the sweep's business."""
    if len(times) == 1:
        return _shown(times[0])
    if len(times) > 20:
        cuts = statistics.quantiles(times, n=10)
        low, high, said = cuts[0], cuts[-1], "p10 … p90 "
    else:
        low, high, said = min(times), max(times), ""
    return f"{_shown(statistics.median(times))} ({said}{_shown(low)} … {_shown(high)})"


def _shown(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} µs"


if __name__ == "__main__":
    main()
