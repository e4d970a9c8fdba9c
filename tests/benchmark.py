"""Benchmark: cold start and repeated solves, each against a baseline measured in the same run.

    python tests/benchmark.py            # prints a table; no assertion, timings vary by machine

1. Cold start: `napkin solve` for W12 in a fresh process, against a fresh process that only
   imports napkinmath's three dependencies (`python -c "import sympy, pint, networkx"`).
   The two alternate, so that drift in the machine's speed hits both alike. Measured with
   compiled bytecode, as after a normal install, and without it (PYTHONDONTWRITEBYTECODE=1,
   as on this project's CI machines, recompiles napkinmath's sources on every start while the
   dependencies keep the bytecode pip wrote).
2. Repeated solve: the median time of `nm.solve` for W12 in a warm process, against the same
   arithmetic written by hand on floats (unit conversions included).
"""

from __future__ import annotations

import compileall
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W12_CLI = ["-m", "napkinmath.cli", "solve", "n_gpus", "params=7B", "tokens=1T",
           "train_time=3 weeks", "mfu=0.4", "--gpu", "H100-SXM"]
DEPS = ["-c", "import sympy, pint, networkx"]


def cold(runs: int, bytecode: bool) -> tuple[float, float]:
    """Median wall times of fresh `napkin solve` and dependency-import processes, alternating."""
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        compileall.compile_dir(str(ROOT), quiet=1, rx=re.compile(r"[\\/](\.|build|tests)"))
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        for folder in ("engine", "formulas", "hardware"):
            for cache in list(Path(ROOT, folder).rglob("__pycache__")):
                shutil.rmtree(cache, ignore_errors=True)
    times: dict[str, list[float]] = {"napkin": [], "deps": []}
    for _ in range(runs):
        for name, args in (("deps", DEPS), ("napkin", W12_CLI)):
            start = time.perf_counter()
            subprocess.run([sys.executable, *args], check=True, capture_output=True, env=env)
            times[name].append(time.perf_counter() - start)
    return statistics.median(times["napkin"]), statistics.median(times["deps"])


def by_hand() -> float:
    """W12 by hand: GPUs = 6 N D / (T * peak * MFU), with the unit conversions."""
    params, tokens = 7 * 1e9, 1 * 1e12
    seconds = 3 * 7 * 86_400.0
    peak = 989.5 * 1e12  # the H100-SXM record: 1,979 / 2 TFLOP/(s*GPU)
    return 6 * params * tokens / (seconds * peak * 0.4)


def warm(repeat: int = 7, number: int = 200) -> tuple[float, float]:
    import napkinmath as nm

    def solve():
        return nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4,
                        gpu="H100-SXM")

    assert abs(solve().value.magnitude - by_hand()) < 1e-9 * by_hand()
    ours = min(timeit.repeat(solve, repeat=repeat, number=number)) / number
    base = min(timeit.repeat(by_hand, repeat=repeat, number=number * 100)) / (number * 100)
    return ours, base


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    cold(1, bytecode=True)  # warm the file cache and write the bytecode
    rows = []
    for bytecode in (True, False):
        napkin, deps = cold(runs, bytecode)
        label = "with bytecode" if bytecode else "no bytecode cache"
        rows.append((f"cold `napkin solve` W12 vs import deps ({label})",
                     f"{napkin * 1e3:.0f} ms", f"{deps * 1e3:.0f} ms", f"{napkin / deps:.2f}"))
    ours, base = warm()
    rows.append(("repeated nm.solve W12 vs hand arithmetic", f"{ours * 1e3:.3f} ms",
                 f"{base * 1e6:.3f} µs", f"{ours / base:.0f}"))
    print(f"{'measurement':<62}{'median':>11}{'baseline':>12}{'ratio':>8}")
    for label, median, baseline, ratio in rows:
        print(f"{label:<62}{median:>11}{baseline:>12}{ratio:>8}")


if __name__ == "__main__":
    main()
