"""What each memo buys on a workload: its hits, its misses, and the time its misses took.

    python tools/cache_value.py            # a table, largest estimated saving first
    python tools/cache_value.py --json

Every `napkinmath.caches.memo` is wrapped, before any module that declares one is imported,
so that the time of each miss (the function's own work, the memos it calls included) is
measured. A memo's estimated saving is its hits times its mean miss: what the workload
would have spent again without it (an upper bound where a memo above it would have caught
the same calls). The workload is what the speed guardrails of issue 45 measure and what a
person asks first: W12 with 300 new values, 150 questions of tests/test_properties.py's
generator (first answers and refusals), a plan file as text, and the optimiser over the
405B layout space of tests/benchmark_optimize.py, a range, samples and a sweep, the example
claims tables and a comparison. Module states (`caches.state`) are listed
by size only.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from napkinmath import caches  # noqa: E402  (before any module that declares a memo)

SPENT: dict[str, list[float]] = {}


def _timed_memo(original: Callable[..., Any]) -> Callable[..., Any]:
    def memo(*args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Any]:
        decorate = original(*args, **kwargs)

        def wrap(function: Callable[..., Any]) -> Any:
            name = f"{function.__module__}.{function.__qualname__}"
            SPENT[name] = []

            @functools.wraps(function)
            def timed(*a: Any, **k: Any) -> Any:
                start = time.perf_counter()
                try:
                    return function(*a, **k)
                finally:
                    SPENT[name].append(time.perf_counter() - start)

            return decorate(timed)

        return wrap

    return memo


caches.memo = _timed_memo(caches.memo)  # type: ignore[assignment]


def workload() -> dict[str, float]:
    """Run the workload; seconds per part."""
    import benchmark_optimize
    import test_properties as props

    import napkinmath as nm

    parts: dict[str, float] = {}
    start = time.perf_counter()
    for i in range(300):
        nm.solve(
            "n_gpus",
            params=f"{7 + i * 1e-6:.6f}B",
            tokens="1T",
            train_time="3 weeks",
            mfu=0.4,
            gpu="H100-SXM",
        )
    parts["W12, 300 new values"] = time.perf_counter() - start
    start = time.perf_counter()
    for question in props.questions(150, seed=4242):
        props.answer(question)
    parts["150 first questions"] = time.perf_counter() - start
    start = time.perf_counter()
    str(nm.plan(str(ROOT / "examples" / "startup-7b.toml")))
    parts["plan file as text"] = time.perf_counter() - start
    start = time.perf_counter()
    benchmark_optimize.optimize()
    parts["optimiser, 405B space"] = time.perf_counter() - start
    start = time.perf_counter()
    w12 = {"params": "7B", "tokens": "1T", "train_time": "3 weeks", "gpu": "H100-SXM"}
    str(nm.solve("n_gpus", mfu="0.3..0.5", **w12))
    str(nm.solve("n_gpus", mfu="0.3 to 0.5", samples=2000, seed=1, **w12))
    nm.sweep("n_gpus", over={"mfu": (0.3, 0.6)}, **w12).to_csv()
    parts["a range, samples and a sweep"] = time.perf_counter() - start
    start = time.perf_counter()
    for name in ("claims.csv", "claims.toml"):
        str(nm.check_claims(str(ROOT / "examples" / name)))
    str(
        nm.compare(
            "train_time",
            gpu=["H100-SXM", "A100-SXM-80GB", "H200"],
            mfu=0.4,
            params="7B",
            tokens="1T",
            n_gpus=64,
        )
    )
    parts["claims tables and a comparison"] = time.perf_counter() - start
    return parts


def measure() -> dict[str, Any]:
    parts = workload()
    rows = []
    for name, cache in caches.registered().items():
        spent = SPENT.get(name, [])
        info = None
        if cache.kind != "state":
            wrapper = _find(name)
            info = wrapper.cache_info() if wrapper is not None else None
        hits = info.hits if info else 0
        misses = len(spent)
        mean = sum(spent) / misses if misses else 0.0
        rows.append(
            {
                "cache": name.removeprefix("napkinmath."),
                "kind": cache.kind,
                "hits": hits,
                "misses": misses,
                "miss_seconds": sum(spent),
                "saved_seconds": hits * mean,
                "entries": cache.size(),
            }
        )
    rows.sort(key=lambda r: -r["saved_seconds"])
    return {"workload_seconds": parts, "caches": rows}


def _find(name: str) -> Any:
    module_name, _, rest = name.rpartition(".")
    module = sys.modules.get(module_name)
    while module is None and "." in module_name:  # a method: Class.method
        module_name, _, outer = module_name.rpartition(".")
        rest = f"{outer}.{rest}"
        module = sys.modules.get(module_name)
    found: Any = module
    for part in rest.split("."):
        found = getattr(found, part, None)
    return found if hasattr(found, "cache_info") else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    result = measure()
    if parser.parse_args().json:
        print(json.dumps(result, indent=2))
        return
    for part, seconds in result["workload_seconds"].items():
        print(f"{part}: {seconds:.2f} s")
    print(f"{'cache':58} {'kind':8} {'hits':>8} {'misses':>7} {'miss s':>8} {'saved s':>8}")
    for r in result["caches"]:
        print(
            f"{r['cache']:58} {r['kind']:8} {r['hits']:8d} {r['misses']:7d} "
            f"{r['miss_seconds']:8.3f} {r['saved_seconds']:8.3f}"
        )


if __name__ == "__main__":
    main()
