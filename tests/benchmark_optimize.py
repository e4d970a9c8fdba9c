"""Benchmark: `nm.optimize` on the 405B layout search, against Calculon's search on the same grid.

    python tests/benchmark_optimize.py [--quick] [--repeats N] [--calculon PATH]
                                       [--calculon-configs N] [--calculon-seconds S]

Prints a table; no assertion on time (the aims of issue 24 are reported as met or not). The
script re-executes itself pinned to one CPU core (os.sched_setaffinity before the exec, so
every thread and subprocess inherits it) with numpy's thread pools at one thread: every
figure is a one-core figure.

1. napkinmath: maximise mfu_predicted for Llama-3-405B on 16,384 H100s, seq_len 8,192, a 16 Mi
   token global batch, over tp (the default domain: powers of two up to a node that divide the
   heads: 1, 2, 4, 8), pp (powers of two 1..128), batch_size (the micro-batch, 1..64 sequences),
   recompute (none, selective, full), zero_stage (0..3) and virtual_pipeline_stages (1, 2, 4, 8,
   16), dp derived: 4 · 8 · 64 · 3 · 4 · 5 = 122,880 candidates, each evaluated (vectorised).
   Warm: the median in-process time of a repeat call (after one untimed call), with its spread;
   a 1-candidate search (the winner alone) measures the fixed part of a call (the planned
   question's lookups, the winner's full Result, its neighbours).
   Cold: a fresh `python -c` per run timing `import napkinmath` and the first optimize call
   (planning included), with the disk cache of sympy's rearrangements warm (one untimed run
   first) and empty (a new XDG_CACHE_HOME each run). The first call of this process is shown too.
2. Baselines in the same run, on a grid of the same size: one bare numpy pass
   (`np.sqrt(np.arange(N))`), and a plain-Python loop over the same itertools.product grid that
   computes dp and the micro-batch count of each point (the cheapest honest per-point loop).
3. Calculon (github.com/calculon-ai/calculon; its code needs only psutil), found with
   --calculon PATH or $CALCULON_PATH, and skipped with the reason when absent. Its model is
   given Llama-3-405B's shapes in its application format (hidden 16,384, feed-forward 53,248,
   128 heads of 128, 126 blocks, seq 8,192; written to a temporary file here, multi-head
   attention as Calculon has no grouped-query option) and its own systems/h100_80g_nvl8.json.
   The same grid in its terms: tensor_par, pipeline_par, data_par = 16,384 / (tp · pp),
   microbatch_size, activation_recompute (none / attn_only / full), optimizer_sharding
   (zero_stage 0 → off, 1..3 → on: Calculon models ZeRO-1 only), pipeline_interleaving; batch
   2,048 sequences; rs_ag tensor-parallel communication (sequence parallelism), data-parallel
   overlap when dp > 1, no offload, tp on the NVLink network, pp and dp on the scale-out one.
   Configurations that Calculon's Execution refuses up front (its asserts: dp must divide the
   batch, the micro-batch the local batch, sharding needs dp > 1, interleaving needs pp > 1) are
   dropped before timing, as its optimal_execution enumerator never generates them; a seeded
   random sample of the rest is evaluated in this process exactly as optimal_execution.search
   does (Llm(app, logger).compile(syst, Execution.from_json(...)); run(syst);
   get_stats_json(False), Llm.Error counted as an evaluated, rejected configuration), until
   --calculon-configs configurations or --calculon-seconds have been done.

Ratios: napkinmath warm candidates/s over each baseline's rate, and over Calculon's
configurations/s, both per candidate and, conservatively, per structurally valid layout (the
napkinmath time divided among only those candidates whose dp and micro-batch count are whole
and ≥ 1, all the others counted as overhead).
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import napkinmath as nm

N_GPUS = 16_384
SEQ_LEN = 8_192
GLOBAL_TOKENS = 16 * 2**20
GLOBAL_SEQUENCES = GLOBAL_TOKENS // SEQ_LEN  # 2,048
TP = (1, 2, 4, 8)  # what the default tp domain gives for this model on 8-GPU nodes (checked)
PP = tuple(2**k for k in range(8))
BATCH = tuple(range(1, 65))
RECOMPUTE = ("none", "selective", "full")
ZERO = (0, 1, 2, 3)
VPS = (1, 2, 4, 8, 16)
OVER: dict[str, Any] = {
    "tp": None,
    "pp": "powers of two:1..128",
    "dp": None,
    "batch_size": "1..64",
    "recompute": None,
    "zero_stage": "0..3",
    "virtual_pipeline_stages": "1,2,4,8,16",
}
#: the winner alone: a 1-candidate search measures the fixed part of a warm call
ONE: dict[str, Any] = {
    "tp": "4",
    "pp": "2",
    "dp": None,
    "batch_size": "1",
    "recompute": "full",
    "zero_stage": "3",
    "virtual_pipeline_stages": "16",
}
GIVENS: dict[str, Any] = {
    "model": "llama-3-405b",
    "gpu": "H100",
    "n_gpus": N_GPUS,
    "seq_len": SEQ_LEN,
    "global_batch_tokens": "16Mi",
}
CALL = (
    f"nm.optimize('mfu_predicted', maximize=True, over={OVER!r}, "
    + ", ".join(f"{k}={v!r}" for k, v in GIVENS.items())
    + ")"
)
COLD = f"""
import json, time
t0 = time.perf_counter()
import napkinmath as nm
t1 = time.perf_counter()
o = {CALL}
t2 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t2 - t1, "count": o.count}}))
"""
# Llama-3-405B (meta-llama/Llama-3.1-405B config.json) in Calculon's application format
CALCULON_APP = {
    "hidden": 16384,
    "feedforward": 53248,
    "seq_size": SEQ_LEN,
    "attn_heads": 128,
    "attn_size": 128,
    "num_blocks": 126,
}
CALCULON_RECOMPUTE = {"none": "none", "selective": "attn_only", "full": "full"}


def fmt(seconds: float) -> str:
    """A time with a unit that keeps three or four significant figures."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} µs"


def rate(per_second: float) -> str:
    return f"{per_second:,.0f}/s" if per_second >= 100 else f"{per_second:.1f}/s"


def spread(times: list[float]) -> str:
    return f"{fmt(min(times))}..{fmt(max(times))}"


PINNED = "NAPKINMATH_BENCH_PINNED"
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pin_one_core() -> str:
    """Re-execute this script on one CPU with one-thread numpy pools, once; say where it runs."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity here)"
    if os.environ.get(PINNED) is None:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        env = {**os.environ, PINNED: str(cpu), **dict.fromkeys(THREADS, "1")}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    return f"pinned to CPU {os.environ[PINNED]} of {os.cpu_count()}, numpy pools at 1 thread"


def alternate(funcs: dict[str, Callable[[], object]], runs: int) -> dict[str, list[float]]:
    """Wall times of each function, running them in turn `runs` times."""
    times: dict[str, list[float]] = {name: [] for name in funcs}
    for _ in range(runs):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    return times


def optimize(over: dict[str, Any] = OVER) -> Any:
    return nm.optimize("mfu_predicted", maximize=True, over=dict(over), **GIVENS)


def grid() -> itertools.product[tuple[Any, ...]]:
    return itertools.product(TP, PP, BATCH, RECOMPUTE, ZERO, VPS)


def structural(tp: int, pp: int, b: int) -> bool:
    """dp whole and ≥ 1, and the micro-batch count whole and ≥ 1 (napkinmath's layout rules)."""
    dp, left = divmod(N_GPUS, tp * pp)
    return left == 0 and dp >= 1 and GLOBAL_SEQUENCES % (dp * b) == 0


def python_loop() -> int:
    """The cheapest honest plain-Python pass over the grid: dp and micro-batches of each point."""
    kept = 0
    for tp, pp, b, _rc, _zero, _vps in grid():
        dp = N_GPUS / (tp * pp)
        if GLOBAL_SEQUENCES / (dp * b) >= 1:
            kept += 1
    return kept


def cold_runs(repeats: int, cache: str) -> list[dict[str, float]]:
    """Fresh processes: `cache` is 'warm' (one shared, pre-filled cache) or 'empty'."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        shared = Path(tmp) / "shared"
        base = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}

        def once(folder: Path) -> dict[str, float]:
            env = {**base, "XDG_CACHE_HOME": str(folder)}
            run = subprocess.run(
                [sys.executable, "-c", COLD], check=True, capture_output=True, text=True, env=env
            )
            return dict(json.loads(run.stdout))

        if cache == "warm":
            once(shared)  # fills the cache, untimed
        for i in range(repeats):
            out.append(once(shared if cache == "warm" else Path(tmp) / f"empty{i}"))
    return out


# Calculon


def calculon_home(given: str | None) -> tuple[Path | None, str]:
    text = given or os.environ.get("CALCULON_PATH", "")
    if not text:
        return None, "no --calculon PATH and no $CALCULON_PATH"
    home = Path(text).expanduser()
    for need in ("calculon/llm/llm.py", "systems/h100_80g_nvl8.json"):
        if not (home / need).is_file():
            return None, f"{home / need} not found (not a Calculon checkout?)"
    return home, ""


def calculon_grid() -> list[tuple[int, int, int, int, str, bool, int]]:
    """The grid mapped to Calculon's execution, without the duplicates and without what its
    Execution asserts against (its enumerator never generates those)."""
    keep = set()
    for tp, pp, b, rc, zero, vps in grid():
        dp, left = divmod(N_GPUS, tp * pp)
        sharding = zero > 0
        if left or GLOBAL_SEQUENCES % dp or (GLOBAL_SEQUENCES // dp) % b:
            continue
        if (sharding and dp == 1) or (pp == 1 and vps != 1):
            continue
        keep.add((tp, pp, dp, b, CALCULON_RECOMPUTE[rc], sharding, vps))
    return sorted(keep)


def calculon_exe(
    tp: int, pp: int, dp: int, b: int, rc: str, sharding: bool, vps: int
) -> dict[str, Any]:
    return {
        "num_procs": N_GPUS,
        "tensor_par": tp,
        "pipeline_par": pp,
        "data_par": dp,
        "tensor_par_net": 0,
        "pipeline_par_net": 1,
        "data_par_net": 1,
        "batch_size": GLOBAL_SEQUENCES,
        "microbatch_size": b,
        "datatype": "float16",
        "fused_activation": True,
        "attention_type": "multihead",
        "activation_recompute": rc,
        "pipeline_interleaving": vps,
        "optimizer_sharding": sharding,
        "tensor_par_comm_type": "rs_ag",
        "tensor_par_overlap": "none",
        "seq_par_ag_redo": False,
        "data_par_overlap": dp > 1,
        "weight_offload": False,
        "activations_offload": False,
        "optimizer_offload": False,
        "training": True,
    }


def bench_calculon(home: Path, n_max: int, seconds: float) -> dict[str, Any]:
    sys.path.insert(0, str(home))
    try:
        import calculon  # type: ignore[import-not-found]
        from calculon.llm import Llm  # type: ignore[import-not-found]
    except ImportError as exc:
        return {"skip": f"Calculon at {home} does not import: {exc}"}
    with tempfile.TemporaryDirectory() as tmp:
        app_file = Path(tmp) / "llama-3-405b.json"
        app_file.write_text(json.dumps(CALCULON_APP, indent=2))
        app = Llm.Application(calculon.io.read_json_file(str(app_file)))
    syst = calculon.System(calculon.io.read_json_file(str(home / "systems/h100_80g_nvl8.json")))
    configs = calculon_grid()
    sample = random.Random(0).sample(configs, min(n_max or len(configs), len(configs)))
    good = bad = 0
    best: tuple[float, Any] = (-1.0, None)
    times: list[float] = []
    fit_times: list[float] = []
    early: list[float] = []  # refused in compile, before the model is built
    reasons: dict[str, int] = {}
    start = time.perf_counter()
    for point in sample:
        exe_json = calculon_exe(*point)
        t0 = time.perf_counter()
        try:  # as calculon.llm.optimal_execution.OptimalExecution.search does
            model = Llm(app, logging.Logger("sub"))
            model.compile(syst, Llm.Execution.from_json(exe_json))
            model.run(syst)
            stats = model.get_stats_json(False)
            good += 1
            fit_times.append(time.perf_counter() - t0)
            if stats["sample_rate"] > best[0]:
                best = (stats["sample_rate"], point)
        except Llm.Error as exc:
            bad += 1
            reason = str(exc.args[0]).split(" needs ")[0] if exc.args else type(exc).__name__
            reasons[reason] = reasons.get(reason, 0) + 1
            if getattr(model, "_compiled", False) is False:
                early.append(time.perf_counter() - t0)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > seconds:
            break
    total = time.perf_counter() - start
    n = len(times)
    blocks = [times[i * n // 5 : (i + 1) * n // 5] for i in range(5)]
    block_rates = [len(b) / sum(b) for b in blocks if b]
    return {
        "grid": len(configs),
        "n": n,
        "good": good,
        "bad": bad,
        "total": total,
        "rate": n / total,
        "block_rates": block_rates,
        "median_per_config": statistics.median(times),
        "median_fit": statistics.median(fit_times) if fit_times else float("nan"),
        "early": len(early),
        "full_rate": (n - len(early)) / (sum(times) - sum(early)) if n > len(early) else 0.0,
        "reasons": sorted(reasons.items(), key=lambda kv: -kv[1]),
        "best": best,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and configurations")
    parser.add_argument("--repeats", type=int, default=None, help="repeats per timing (≥ 5)")
    parser.add_argument("--calculon", default=None, help="a Calculon checkout ($CALCULON_PATH)")
    parser.add_argument(
        "--calculon-configs", type=int, default=None, help="configurations (0: its whole grid)"
    )
    parser.add_argument("--calculon-seconds", type=float, default=None, help="time cap")
    args = parser.parse_args()
    pinned = pin_one_core()
    repeats = args.repeats or (5 if args.quick else 9)
    if repeats < 5:
        raise SystemExit("--repeats: give at least 5 (the spread needs them)")
    n_calculon = args.calculon_configs
    if n_calculon is None:
        n_calculon = 300 if args.quick else 0  # 0: the whole grid
    s_calculon = args.calculon_seconds or (10.0 if args.quick else 120.0)

    # first call of this process (planning included), then the checks, untimed
    t0 = time.perf_counter()
    o = optimize()
    first = time.perf_counter() - t0
    count = o.count
    n_grid = len(TP) * len(PP) * len(BATCH) * len(RECOMPUTE) * len(ZERO) * len(VPS)
    tp_domain = next(d for d in o.domains if d.name == "tp")
    if count != n_grid or tuple(int(v) for v in tp_domain.values) != TP:
        raise SystemExit(f"napkinmath searched {count} candidates, the hand grid has {n_grid}")
    n_layouts = sum(structural(tp, pp, b) for tp, pp, b, *_ in grid())
    if python_loop() < n_layouts:
        raise SystemExit("the plain-Python loop keeps fewer points than the layout rules")
    one = optimize(ONE)
    if one.count != 1 or one.best_candidate.point != o.best_candidate.point:
        raise SystemExit(f"the 1-candidate search gives {one.best_candidate.point}")
    arange = np.arange(count, dtype=float)

    warm = alternate(
        {
            "napkin": optimize,
            "one": lambda: optimize(ONE),
            "numpy": lambda: np.sqrt(arange),
            "python": python_loop,
        },
        runs=repeats,
    )
    med = {k: statistics.median(v) for k, v in warm.items()}
    cold_warm_cache = cold_runs(repeats, "warm")
    cold_empty = cold_runs(repeats, "empty")
    home, why = calculon_home(args.calculon)
    cal: dict[str, Any] = bench_calculon(home, n_calculon, s_calculon) if home else {"skip": why}

    napkin_rate = count / med["napkin"]
    rows: list[tuple[str, str, str, str]] = [
        (
            f"napkinmath warm optimize, {count:,} candidates",
            fmt(med["napkin"]),
            spread(warm["napkin"]),
            rate(napkin_rate),
        ),
        (
            "  1-candidate optimize, warm (the fixed part)",
            fmt(med["one"]),
            spread(warm["one"]),
            "",
        ),
        (
            "  the search less the fixed part",
            fmt(med["napkin"] - med["one"]),
            "-",
            rate((count - 1) / (med["napkin"] - med["one"])),
        ),
        (
            "  baseline: np.sqrt(np.arange(N)), same N",
            fmt(med["numpy"]),
            spread(warm["numpy"]),
            rate(count / med["numpy"]),
        ),
        (
            "  baseline: plain-Python loop over the same grid",
            fmt(med["python"]),
            spread(warm["python"]),
            rate(count / med["python"]),
        ),
    ]
    for label, runs in (
        ("napkinmath cold, fresh process, disk cache warm", cold_warm_cache),
        ("napkinmath cold, fresh process, disk cache empty", cold_empty),
    ):
        firsts = [r["first"] for r in runs]
        both = [r["first"] + r["import"] for r in runs]
        rows.append((label, fmt(statistics.median(firsts)), spread(firsts), ""))
        rows.append(
            (
                "  the same with `import napkinmath`",
                fmt(statistics.median(both)),
                spread(both),
                rate(count / statistics.median(both)),
            )
        )
    rows.append(("napkinmath first call in this process (1 run)", fmt(first), "-", ""))

    print(f"napkinmath {nm.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}")
    print(f"{pinned}; {repeats} repeats per timing (median, then min..max)\n")
    width = max(len(r[0]) for r in rows) + 2
    print(f"{'measurement':<{width}}{'median':>10}{'spread':>22}{'rate':>16}")
    for label, median, spr, rt in rows:
        print(f"{label:<{width}}{median:>10}{spr:>22}{rt:>16}")

    print(
        f"\nsearch: {count:,} candidates, {n_layouts:,} structurally valid layouts, "
        f"{o.feasible_count:,} feasible; best {o.best_candidate.point}"
    )
    print(
        f"ratios: napkinmath warm / np.sqrt pass of the same size = "
        f"{med['napkin'] / med['numpy']:.0f}x the time; "
        f"napkinmath candidates/s / plain-Python loop points/s = "
        f"{napkin_rate / (count / med['python']):.1f}"
    )
    cold_total = statistics.median(r["first"] + r["import"] for r in cold_empty)
    cold_cached = statistics.median(r["first"] + r["import"] for r in cold_warm_cache)
    print(
        f"aim ≥ 10^5 candidates in ≤ 1 s on one core: warm {fmt(med['napkin'])} "
        f"({'met' if med['napkin'] <= 1 else 'NOT met'}); cold with the import, disk cache "
        f"warm {fmt(cold_cached)} ({'met' if cold_cached <= 1 else 'NOT met'}), disk cache "
        f"empty {fmt(cold_total)} ({'met' if cold_total <= 1 else 'NOT met'})"
    )

    print()
    if "skip" in cal:
        print(f"Calculon: SKIPPED: {cal['skip']}")
        return
    per_layout = n_layouts / med["napkin"]
    print(
        f"Calculon ({home}): {cal['n']:,} of its {cal['grid']:,} configurations on this grid "
        f"evaluated in {fmt(cal['total'])} ({cal['good']} fit, {cal['bad']} raised Llm.Error)"
    )
    print(
        f"  {rate(cal['rate'])} configurations (median {fmt(cal['median_per_config'])} each; "
        f"rate over 5 blocks {min(cal['block_rates']):.1f}..{max(cal['block_rates']):.1f}/s); "
        f"its whole grid would take ≈ {fmt(cal['grid'] / cal['rate'])}"
    )
    print(
        f"  median {fmt(cal['median_fit'])} per configuration that fits; Llm.Error reasons: "
        + "; ".join(f"{reason} ({n})" for reason, n in cal["reasons"])
    )
    print(
        f"  {cal['early']:,} refused in compile before the model is built; over the other "
        f"{cal['n'] - cal['early']:,} (modelled in full) {rate(cal['full_rate'])}"
    )
    print(
        f"  best of the sample: sample_rate {cal['best'][0]:.4g}/s at "
        f"(tp, pp, dp, mbs, recompute, sharding, interleaving) = {cal['best'][1]}"
    )
    ratio = napkin_rate / cal["rate"]
    conservative = per_layout / cal["rate"]
    print(
        f"ratio napkinmath warm candidates/s / Calculon configurations/s = {ratio:,.0f}x; "
        f"per structurally valid layout only = {conservative:,.0f}x "
        f"(aim ≥ 100x: {'met' if min(ratio, conservative) >= 100 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
