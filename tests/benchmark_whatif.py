"""Benchmark: what-if sweeps and Monte Carlo, and the plain solve before and after the what-if work.

    python tests/benchmark_whatif.py [cold runs]   # prints a table; no assertion on time

Every ratio is against a baseline measured in the same run; timed pairs alternate, so that
drift in the machine's speed hits both alike. The W12 chain is: train_compute = 6·params·tokens,
n_gpus = train_compute / (mfu · peak_flops · train_time) with the H100-SXM's 989.5 TFLOP/(s·GPU),
then the engine's rounding steps to whole 8-GPU nodes.

1. Sweep: `nm.sweep("n_gpus", over={"mfu": ..., "params": ...})`, a 1000×1000 grid (10^6
   points) with tokens=1T, train_time=3 weeks, against hand-written numpy of the same formulas
   on the same grid (meshgrid, ceil to whole nodes included). Measured with the axes given as
   arrays (converted and bounds-checked in one vectorised step) and as text ('0.2..0.6:lin:1000',
   one conversion per axis). A 1-point sweep measures the one-time part: planning the question
   and the centre solve. Median of 7 runs each; values checked equal to 1e-9 once, untimed.
2. Monte Carlo: `nm.solve(..., mfu="0.3 to 0.5", samples=100_000, seed=0)` and its 5th, 50th
   and 95th percentiles, against hand numpy drawing the same lognormal (5th/95th percentiles at
   0.3 and 0.5) from the same seed and taking the same percentiles. `samples=1` measures the
   one-time part. Median of 7 runs; the percentiles are checked equal to 1e-9 once.
   Axis conversion: a 10^4-value array axis against one numpy multiply of it, and the
   refusal of an axis one value over the cap (MAX_AXIS_POINTS, the grid's MAX_POINTS), which
   reads its length before any value; median and the spread (min … max) of 21 runs.
   Small what-ifs, warm, against hand numpy of the same arithmetic (`bench_small`): a 10^4
   sweep (text and array axis), a range answer, a sensitivity, a comparison of 10 GPUs;
   median and spread of 31 alternating runs.
3. Plain solve, after against before: the working tree against commit e618b7a (the last commit
   before the what-if work), extracted with `git archive` into a temporary importable tree that
   PYTHONPATH puts ahead of the editable install. Cold: the wall time of a fresh
   `python -c "import napkinmath as nm; nm.solve(W12)"`, bytecode compiled for both, alternating
   (9 runs each unless given). Warm: the median in-process time of that solve (timeit, in a
   subprocess per tree, five alternating subprocesses each). For information: a fresh
   `python -c "import numpy"`, whether numpy is loaded after a plain solve (pint.compat imports
   it when it is installed, napkinmath does not), and the plain solve with numpy blocked.
"""

from __future__ import annotations

import compileall
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import napkinmath as nm

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "e618b7a"

# W12 by hand, in base units
FLOP_PER_PARAM_TOKEN = 6.0
PARAMS = 7e9
TOKENS = 1e12
TRAIN_TIME_S = 3 * 7 * 86_400.0
PEAK_FLOPS = 989.5e12
GPUS_PER_NODE = 8.0
Z90 = 1.6448536269514722  # the standard normal's 95th percentile
GIVENS = {"tokens": "1T", "train_time": "3 weeks", "gpu": "H100-SXM"}

SIDE = 1000
MFU_AXIS = np.linspace(0.2, 0.6, SIDE)
PARAMS_AXIS = np.linspace(1e9, 70e9, SIDE)
TEXT_AXES = {"mfu": f"0.2..0.6:lin:{SIDE}", "params": f"1B..70B:lin:{SIDE}"}
SAMPLES = 100_000
SEED = 0

SOLVE = (
    "nm.solve('n_gpus', params='7B', tokens='1T', train_time='3 weeks', mfu=0.4, gpu='H100-SXM')"
)
COLD = f"import napkinmath as nm; {SOLVE}"
WARM = f"""
import json, statistics, sys, timeit
import napkinmath as nm
solve = lambda: {SOLVE}
solve()
times = timeit.repeat(solve, repeat=15, number=50)
print(json.dumps({{"per_call": statistics.median(times) / 50, "file": nm.__file__,
                  "numpy": "numpy" in sys.modules}}))
"""
NO_NUMPY = f"""
import sys
sys.modules["numpy"] = None  # any `import numpy` now raises ImportError
try:
    import napkinmath as nm
    r = {SOLVE}
    ok = abs(r.value.m_as("GPU") - 58.48445717066232) < 1e-6
    print("works" if ok else f"wrong answer: {{r.value}}")
except Exception as exc:
    print(f"{{type(exc).__name__}}: {{exc}}")
"""

Row = tuple[str, str, str, str]


def fmt(seconds: float) -> str:
    """A time with a unit that keeps three or four significant figures."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} µs"


def alternate(funcs: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median wall time of each function, running them in turn `runs` times."""
    times: dict[str, list[float]] = {name: [] for name in funcs}
    for _ in range(runs):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def close(ours: np.ndarray, hand: np.ndarray, what: str) -> None:
    """Stop the benchmark if the engine's numbers and the hand numbers differ."""
    ours, hand = np.asarray(ours, dtype=float), np.asarray(hand, dtype=float)
    if ours.shape != hand.shape or not np.allclose(ours, hand, rtol=1e-9, atol=0):
        worst = float(np.max(np.abs(ours / hand - 1))) if ours.shape == hand.shape else math.nan
        raise SystemExit(f"{what}: engine and hand numpy differ (worst relative {worst:.3g})")


# 1. sweep


def sweep_by_hand(
    mfu_axis: np.ndarray, params_axis: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n_gpus, n_gpus_whole_nodes, n_nodes at every point of the grid (first axis slowest)."""
    mfu, params = (g.ravel() for g in np.meshgrid(mfu_axis, params_axis, indexing="ij"))
    train_compute = FLOP_PER_PARAM_TOKEN * params * TOKENS
    n_gpus = train_compute / (mfu * PEAK_FLOPS * TRAIN_TIME_S)
    n_nodes = np.ceil(n_gpus / GPUS_PER_NODE)
    return n_gpus, GPUS_PER_NODE * n_nodes, n_nodes


def sweep_ours(over: dict[str, object], targets: str | list[str] = "n_gpus") -> nm.Table:
    return nm.sweep(targets, over=over, **GIVENS)


def in_gpus(table: nm.Table, name: str) -> np.ndarray:
    """A table column in GPU, whatever unit the table chose to show it in."""
    column = table.column(name)
    return np.asarray(column.values) * nm.Quantity(1.0, column.unit).m_as("GPU")


def check_sweep() -> None:
    arrays = {"mfu": MFU_AXIS, "params": PARAMS_AXIS}
    hand_gpus, hand_whole, _ = sweep_by_hand(MFU_AXIS, PARAMS_AXIS)
    table = sweep_ours(arrays, ["n_gpus", "n_gpus_whole_nodes"])
    close(in_gpus(table, "n_gpus"), hand_gpus, "sweep n_gpus (array axes)")
    close(in_gpus(table, "n_gpus_whole_nodes"), hand_whole, "sweep n_gpus_whole_nodes")
    close(table["mfu"], np.repeat(MFU_AXIS, SIDE), "sweep order (mfu slowest)")
    text = sweep_ours(dict(TEXT_AXES))
    close(in_gpus(text, "n_gpus"), hand_gpus, "sweep n_gpus (text axes)")


def bench_sweep() -> tuple[list[Row], str]:
    check_sweep()
    arrays = {"mfu": MFU_AXIS, "params": PARAMS_AXIS}
    one = {"mfu": [0.4], "params": [7e9]}
    medians = alternate(
        {
            "arrays": lambda: sweep_ours(arrays),
            "hand": lambda: sweep_by_hand(MFU_AXIS, PARAMS_AXIS),
            "text": lambda: sweep_ours(dict(TEXT_AXES)),
            "one": lambda: sweep_ours(one),
        },
        runs=7,
    )
    hand = medians["hand"]
    rows = [
        (
            f"sweep W12, {SIDE}×{SIDE} grid, axes as arrays vs hand numpy",
            fmt(medians["arrays"]),
            fmt(hand),
            f"{medians['arrays'] / hand:.1f}",
        ),
        (
            f"sweep W12, {SIDE}×{SIDE} grid, axes as text vs hand numpy",
            fmt(medians["text"]),
            fmt(hand),
            f"{medians['text'] / hand:.1f}",
        ),
        (
            "  1-point sweep (planning + centre solve) vs hand numpy 10^6",
            fmt(medians["one"]),
            fmt(hand),
            f"{medians['one'] / hand:.2f}",
        ),
    ]
    note = (
        f"one-time part (1-point sweep) = {medians['one'] / medians['arrays']:.1%} of the "
        f"array sweep, {medians['one'] / medians['text']:.1%} of the text sweep"
    )
    return rows, note


def bench_axis() -> list[Row]:
    """A 10^4-value array axis converted, and an over-long one refused, vs a numpy multiply."""
    from napkinmath.whatif.spread import MAX_AXIS_POINTS, to_axis

    var = nm.variables()["params"]
    values = np.linspace(1e9, 7e10, 10_000)
    over = np.full(MAX_AXIS_POINTS + 1, 7e9)
    assert np.array_equal(to_axis(values, var).values, to_axis(values.tolist(), var).values)

    def refuse() -> None:
        try:
            to_axis(over, var)
        except nm.InputError:
            return
        raise AssertionError("an over-long axis was not refused")

    funcs: dict[str, Callable[[], object]] = {
        "axis": lambda: to_axis(values, var),
        "hand": lambda: values * 1.0,
        "refuse": refuse,
    }
    times: dict[str, list[float]] = {name: [] for name in funcs}
    for _ in range(21):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    hand = statistics.median(times["hand"])

    def shown(name: str) -> str:
        t = times[name]
        return f"{fmt(statistics.median(t))} ({fmt(min(t))} … {fmt(max(t))})"

    return [
        (
            f"  array axis of 10^4 values converted: {shown('axis')}",
            fmt(statistics.median(times["axis"])),
            fmt(hand),
            f"{statistics.median(times['axis']) / hand:.0f}",
        ),
        (
            f"  axis of {MAX_AXIS_POINTS + 1:,} values refused: {shown('refuse')}",
            fmt(statistics.median(times["refuse"])),
            fmt(hand),
            f"{statistics.median(times['refuse']) / hand:.2f}",
        ),
    ]


def _spread(times: list[float]) -> str:
    return f"{fmt(statistics.median(times))} ({fmt(min(times))} … {fmt(max(times))})"


def bench_small() -> list[Row]:
    """Small what-ifs asked again and again (warm), each against hand numpy of the same
    arithmetic: a 10^4-point sweep of W12 over mfu (axis as text and as an array), a range
    answer (mfu 0.3 to 0.5: the chain at the box's two corners), a sensitivity (the chain
    at 2 points per input and the centre), a comparison of 10 GPUs (the chain per GPU)."""
    mfu = np.linspace(0.2, 0.6, 10_000)
    kw = {"params": "7B", **GIVENS}
    plain = {k: v for k, v in kw.items() if k != "gpu"}
    gpus = ["H100-SXM", "H200-SXM", "B200", "A100-SXM-80GB", "MI300X", "MI325X", "L40S"]
    gpus += ["H100-PCIe", "Gaudi3", "Trainium2"]
    peaks = np.array(
        [nm.hardware.get(g).values["peak_flops"].quantity.m_as("FLOP/s/GPU") for g in gpus]
    )
    centre = nm.solve("n_gpus", mfu=0.4, **kw)
    inputs = len(centre.givens)

    def chain(mfu_values: np.ndarray, peak: np.ndarray | float = PEAK_FLOPS) -> np.ndarray:
        n = FLOP_PER_PARAM_TOKEN * PARAMS * TOKENS / (mfu_values * peak * TRAIN_TIME_S)
        return np.ceil(n / GPUS_PER_NODE) * GPUS_PER_NODE

    corners, points = np.array([0.3, 0.5]), np.full(2 * inputs + 1, 0.4)
    pairs: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        (
            "sweep W12 over 10^4 mfu values, axis as text",
            lambda: nm.sweep("n_gpus", over={"mfu": "0.2..0.6:lin:10000"}, **kw),
            lambda: chain(np.linspace(0.2, 0.6, 10_000)),
        ),
        (
            "sweep W12 over 10^4 mfu values, axis as an array",
            lambda: nm.sweep("n_gpus", over={"mfu": mfu}, **kw),
            lambda: chain(mfu),
        ),
        (
            "range answer W12, mfu 0.3 to 0.5 (4 steps)",
            lambda: nm.solve("n_gpus", mfu="0.3 to 0.5", **kw, ranges=True),
            lambda: chain(corners),
        ),
        (
            f"sensitivity of W12 ({inputs} inputs)",
            lambda: centre.sensitivity(),
            lambda: chain(points),
        ),
        (
            "compare W12 across 10 GPUs",
            lambda: nm.compare("n_gpus", gpu=gpus, mfu=0.4, **plain),
            lambda: chain(np.full(len(gpus), 0.4), peaks),
        ),
    ]
    rows = []
    for label, ours, hand in pairs:
        ours(), hand()
        times: dict[str, list[float]] = {"ours": [], "hand": []}
        for _ in range(31):
            for name, func in (("ours", ours), ("hand", hand)):
                start = time.perf_counter()
                func()
                times[name].append(time.perf_counter() - start)
        mine, base = statistics.median(times["ours"]), statistics.median(times["hand"])
        rows.append(
            (f"  {label}: {_spread(times['ours'])}", fmt(mine), fmt(base), f"{mine / base:.0f}")
        )
    return rows


# 2. Monte Carlo


def mc_by_hand(n: int = SAMPLES) -> np.ndarray:
    """The 5th, 50th and 95th percentiles of n_gpus over `n` lognormal draws of mfu."""
    rng = np.random.default_rng(SEED)
    low, high = math.log(0.3), math.log(0.5)
    mfu = rng.lognormal((low + high) / 2, (high - low) / (2 * Z90), n)
    keep = (mfu > 0) & (mfu <= 1)
    n_gpus = FLOP_PER_PARAM_TOKEN * PARAMS * TOKENS / (mfu * PEAK_FLOPS * TRAIN_TIME_S)
    n_nodes = np.ceil(n_gpus / GPUS_PER_NODE)
    whole = GPUS_PER_NODE * n_nodes
    n_gpus, whole, n_nodes = n_gpus[keep], whole[keep], n_nodes[keep]  # as the engine keeps
    return np.percentile(n_gpus, [5, 50, 95])


def mc_ours(n: int = SAMPLES) -> list[float]:
    r = nm.solve(
        "n_gpus",
        params="7B",
        tokens="1T",
        train_time="3 weeks",
        mfu="0.3 to 0.5",
        gpu="H100-SXM",
        samples=n,
        seed=SEED,
    )
    return [r.percentile("n_gpus", q).m_as("GPU") for q in (5, 50, 95)]


def bench_mc() -> tuple[list[Row], str]:
    close(np.array(mc_ours()), mc_by_hand(), "Monte Carlo percentiles of n_gpus")
    medians = alternate({"ours": mc_ours, "hand": mc_by_hand, "one": lambda: mc_ours(1)}, runs=7)
    hand = medians["hand"]
    rows = [
        (
            f"Monte Carlo W12, {SAMPLES:,} samples vs hand numpy",
            fmt(medians["ours"]),
            fmt(hand),
            f"{medians['ours'] / hand:.1f}",
        ),
        (
            "  samples=1 (planning + centre solve) vs hand numpy 10^5",
            fmt(medians["one"]),
            fmt(hand),
            f"{medians['one'] / hand:.2f}",
        ),
    ]
    note = f"one-time part (samples=1) = {medians['one'] / medians['ours']:.1%} of the run"
    return rows, note


# 3. plain solve, before and after


def before_tree(folder: Path) -> Path:
    """Commit BEFORE as an importable tree: folder/napkinmath with formulas/ and hardware/."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BEFORE, "engine", "formulas", "hardware"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    tree = folder / "tree"
    tree.mkdir()
    (folder / "engine").rename(tree / "napkinmath")
    (folder / "formulas").rename(tree / "napkinmath" / "formulas")
    (folder / "hardware").rename(tree / "napkinmath" / "hardware")
    compileall.compile_dir(str(tree), quiet=1)
    return tree


def python(code: str, env: dict[str, str]) -> str:
    run = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    )
    return run.stdout.strip()


def bench_plain(cold_runs: int) -> list[Row]:
    base = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    }
    compileall.compile_dir(str(ROOT), quiet=1, rx=re.compile(r"[\\/](\.|build|tests)"))
    with tempfile.TemporaryDirectory() as tmp:
        tree = before_tree(Path(tmp))
        envs = {"after": base, "before": {**base, "PYTHONPATH": str(tree)}}
        homes = {"after": ROOT / "engine", "before": tree / "napkinmath"}
        for name, env in envs.items():
            found = Path(python("import napkinmath; print(napkinmath.__file__)", env))
            if found.parent != homes[name]:
                raise SystemExit(f"{name}: napkinmath comes from {found}, not {homes[name]}")

        def fresh(code: str, env: dict[str, str]) -> Callable[[], object]:
            return lambda: python(code, env)

        alternate(
            {"after": fresh(COLD, envs["after"]), "before": fresh(COLD, envs["before"])}, runs=1
        )  # file cache
        cold = alternate(
            {
                "after": fresh(COLD, envs["after"]),
                "before": fresh(COLD, envs["before"]),
                "numpy": fresh("import numpy", base),
            },
            runs=cold_runs,
        )
        warm: dict[str, list[float]] = {"after": [], "before": []}
        loaded: dict[str, bool] = {}
        for _ in range(5):
            for name, env in envs.items():
                out = json.loads(python(WARM, env))
                warm[name].append(out["per_call"])
                loaded[name] = out["numpy"]
        without_numpy = python(NO_NUMPY, envs["after"])
    after, before = statistics.median(warm["after"]), statistics.median(warm["before"])
    return [
        (
            f"cold plain solve W12, fresh process: after vs before ({BEFORE})",
            fmt(cold["after"]),
            fmt(cold["before"]),
            f"{cold['after'] / cold['before']:.2f}",
        ),
        (
            f"warm plain solve W12, in process: after vs before ({BEFORE})",
            fmt(after),
            fmt(before),
            f"{after / before:.2f}",
        ),
        ('  info: fresh `python -c "import numpy"`', fmt(cold["numpy"]), "-", "-"),
        (
            "  info: numpy in sys.modules after a plain solve (after, before)",
            "yes" if loaded["after"] else "no",
            "yes" if loaded["before"] else "no",
            "-",
        ),
        (f"  info: plain solve without numpy: {without_numpy}", "-", "-", "-"),
    ]


def main() -> None:
    cold_runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    sweep_rows, sweep_note = bench_sweep()
    mc_rows, mc_note = bench_mc()
    rows = [*sweep_rows, *bench_axis(), *bench_small(), *mc_rows, *bench_plain(cold_runs)]
    width = max(len(r[0]) for r in rows) + 2
    print(f"{'measurement':<{width}}{'napkinmath':>12}{'baseline':>12}{'ratio':>8}")
    for label, median, baseline, ratio in rows:
        print(f"{label:<{width}}{median:>12}{baseline:>12}{ratio:>8}")
    print(f"\n{sweep_note}\n{mc_note}")


if __name__ == "__main__":
    main()
