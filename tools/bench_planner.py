"""Planner timings over random questions (tests/test_properties.py), sympy's inversions excluded.

    python tools/bench_planner.py [N] [SEED]

A first pass answers every question (sympy inverts what it needs, cached in process); the
planner's caches are then cleared and the questions asked again as new shapes: the time
inside the planner (`make_plan` and the analyses of consistency checks) per question, and
the whole answer's time; each is then asked again at once (repeated). Times are the
process's CPU time (the machine may be shared).
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_properties as props

from napkinmath.solving import consistency, plan, solver, suggest

UNDER = ("UnderDeterminedError", "NotInvertibleError")
spent = [0.0]
#: CPU time of this process: the machine is shared, and waiting for a core is not planning
clock = time.process_time
depth = [0]


def _timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if depth[0]:
            return fn(*args, **kwargs)
        depth[0] += 1
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[0] += clock() - start
            depth[0] -= 1

    return wrapper


def _clear() -> None:
    modules = [plan, suggest] + [
        m for name, m in sys.modules.items() if name.startswith("napkinmath.solving.planning_")
    ]
    for module in modules:
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
    for fn in (consistency.closure, consistency._selection, solver._rounding_plan):
        getattr(fn, "__wrapped__", fn).cache_clear() if not hasattr(
            fn, "cache_clear"
        ) else fn.cache_clear()


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main(n: int = 700, seed: int = 4242) -> None:
    qs = props.questions(n, seed=seed)
    for q in qs:  # sympy's inversions, once
        props.answer(q)
    solver.make_plan = _timed(solver.make_plan)
    consistency._analyse = _timed(consistency._analyse)
    consistency._blocks = _timed(consistency._blocks)
    _clear()
    for q in qs[:50]:
        props.answer(q)
    rows, again = [], []
    for q in qs[50:]:
        spent[0] = 0.0
        start = clock()
        kind, _ = props.answer(q)
        rows.append((kind, clock() - start, spent[0]))
        start = clock()
        props.answer(q)
        again.append((kind, clock() - start))
    ok = [r for r in rows if r[0] == "ok"]
    under = [r for r in rows if r[0] in UNDER]
    ms = 1e3
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r[0]] = kinds.get(r[0], 0) + 1
    print(f"{len(rows)} questions: {kinds}")
    print(
        f"new shape, planning: median {statistics.median(r[2] for r in ok) * ms:.2f} ms; "
        f"whole answer {statistics.median(r[1] for r in ok) * ms:.2f} ms"
    )
    print(
        f"new under-determined, whole answer: median "
        f"{statistics.median(r[1] for r in under) * ms:.2f} ms; planning "
        f"{statistics.median(r[2] for r in under) * ms:.2f} ms"
    )
    plans = [r[2] for r in rows]
    totals = [r[1] for r in rows]
    print(
        f"planning over all: p99 {_pct(plans, 0.99) * ms:.1f} ms, max {max(plans) * ms:.1f} ms;"
        f" whole answers p99 {_pct(totals, 0.99) * ms:.1f} ms, max {max(totals) * ms:.1f} ms;"
        f" planning total {sum(plans):.2f} s of {sum(totals):.2f} s"
    )
    print(
        f"repeated: median {statistics.median(t for _, t in again) * ms:.2f} ms (answered "
        f"{statistics.median(t for k, t in again if k == 'ok') * ms:.2f} ms, under-determined "
        f"{statistics.median(t for k, t in again if k in UNDER) * ms:.2f} ms), "
        f"max {max(t for _, t in again) * ms:.1f} ms"
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
