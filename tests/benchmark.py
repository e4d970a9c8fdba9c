"""Benchmark: cold start and repeated solves, each against a baseline measured in the same run.

    python tests/benchmark.py            # prints a table; no assertion, timings vary by machine

1. Cold start: `napkin solve` for W12 in a fresh process, against a fresh process that only
   imports napkinmath's three dependencies (`python -c "import sympy, pint, networkx"`).
2. Repeated solve: the median time of `nm.solve` for W12 in a warm process, against the same
   arithmetic written by hand on floats (unit conversions included).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import timeit

W12_CLI = ["-m", "napkinmath.cli", "solve", "n_gpus", "params=7B", "tokens=1T",
           "train_time=3 weeks", "mfu=0.4", "--gpu", "H100-SXM"]
DEPS = ["-c", "import sympy, pint, networkx"]


def cold(args: list[str], runs: int) -> float:
    """Median wall time of `python ARGS` in fresh processes."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def by_hand() -> float:
    """W12 by hand: GPUs = 6 N D / (T * peak * MFU), with the unit conversions."""
    params, tokens = 7 * 1e9, 1 * 1e12
    seconds = 3 * 7 * 86_400.0
    peak = 989 * 1e12
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
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    cold(DEPS, 1)  # warm the file cache
    deps = cold(DEPS, runs)
    napkin = cold(W12_CLI, runs)
    ours, base = warm()
    print(f"{'measurement':<44}{'median':>12}{'baseline':>12}{'ratio':>9}")
    print(f"{'cold `napkin solve` W12 vs import deps':<44}{napkin * 1e3:>10.0f}ms"
          f"{deps * 1e3:>10.0f}ms{napkin / deps:>9.2f}")
    print(f"{'repeated nm.solve W12 vs hand arithmetic':<44}{ours * 1e3:>10.3f}ms"
          f"{base * 1e6:>10.3f}µs{ours / base:>9.0f}")


if __name__ == "__main__":
    main()
