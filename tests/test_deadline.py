"""Bounded symbolic work (`napkinmath.deadline`, issue 44): a bound stops the work inside it
and raises `OutOfTimeError` in the thread that ran it, never in another; a question's bounds
share one allowance; a bound spent is counted, so that nothing decided under it is kept.
The time limits here catch a hang (each is many times the bound), they are not benchmarks."""

from __future__ import annotations

import threading
import time

import pytest

import napkinmath as nm
from napkinmath import deadline
from napkinmath.deadline import OutOfTimeError


def _spin(seconds: float) -> int:
    """Pure-Python work for about `seconds` of CPU (what sympy's loops look like)."""
    end, n = time.thread_time() + seconds, 0
    while time.thread_time() < end:
        n += 1
    return n


def test_a_bound_stops_the_work_inside_it_and_names_it():
    start = time.monotonic()
    before = deadline.cutoffs()
    cut = "^spinning: stopped at its time bound$"
    with pytest.raises(OutOfTimeError, match=cut), deadline.bounded("spinning", 0.2):
        _spin(30)
    assert time.monotonic() - start < 10
    assert deadline.cutoffs() == before + 1
    assert isinstance(OutOfTimeError("x", 1.0), nm.NapkinError)  # never a foreign exception


def test_work_that_finishes_in_time_is_untouched():
    before = deadline.cutoffs()
    with deadline.bounded("quick", 5.0):
        assert _spin(0.05) > 0
    # the work's own errors pass through unchanged
    with pytest.raises(ZeroDivisionError), deadline.bounded("dividing", 5.0):
        _ = 1 / 0
    assert deadline.cutoffs() == before


def test_a_question_shares_one_allowance_between_its_bounds():
    start = time.thread_time()
    stopped = []
    with deadline.question(0.4):
        for i in range(5):
            try:
                with deadline.bounded(f"step {i}", 1.0):
                    _spin(30)
            except OutOfTimeError as e:
                stopped.append(str(e))
    assert len(stopped) == 5
    assert time.thread_time() - start < 3  # 0.4 s in all, not 5 x 1 s
    assert "not tried, the question's time for symbolic work is spent" in stopped[-1]


def test_an_inner_bound_never_outlasts_the_outer_one():
    start = time.thread_time()
    with pytest.raises(OutOfTimeError, match="outer"), deadline.bounded("outer", 0.3):
        try:
            with deadline.bounded("inner", 20.0):
                _spin(30)
        except OutOfTimeError:  # the inner one may not swallow the outer's cut
            pytest.fail("the outer bound's cut was reported as the inner's")
    assert time.thread_time() - start < 5


def test_generous_scales_the_bounds_for_the_build():
    with deadline.generous(4.0), deadline.bounded("scaled", 0.1):
        _spin(0.25)  # 0.4 s allowed
    with pytest.raises(OutOfTimeError), deadline.bounded("not scaled", 0.1):
        _spin(30)


def test_one_threads_bound_never_stops_another_threads_work():
    results: dict[str, object] = {}

    def bounded_spin() -> None:
        try:
            with deadline.bounded("spinning", 0.3):
                _spin(30)
            results["bounded"] = "finished"
        except OutOfTimeError:
            results["bounded"] = "stopped"

    def free_spin() -> None:
        try:
            results["free"] = _spin(1.5) > 0
        except BaseException as e:  # an interrupt meant for the other thread
            results["free"] = repr(e)

    threads = [threading.Thread(target=bounded_spin), threading.Thread(target=free_spin)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == {"bounded": "stopped", "free": True}


@pytest.mark.parametrize("hook", ["settrace", "setprofile"])
def test_bounds_hold_under_a_debugger_or_profiler(hook):
    """Under a trace or profile function (a debugger, coverage, cProfile) a bound still stops
    its block, and nothing is left pending: withdrawing an undelivered interruption once left
    CPython 3.11 spinning forever there."""
    import subprocess
    import sys

    code = f"""
import sys, time
from napkinmath import deadline
sys.{hook}(lambda *a: None)
stopped = 0
for i in range(30):
    try:
        with deadline.bounded("spin", 0.02 + 0.001 * i):
            end = time.thread_time() + 5
            while time.thread_time() < end:
                pass
    except deadline.OutOfTimeError:
        stopped += 1
    sum(x for x in range(100))  # a generator after the exit: where the spin once began
print(stopped)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "30"


def test_a_value_a_fallback_decided_is_not_kept_in_memory():
    """A memo of what the library determines keeps no value computed while a bound ran out
    (here: the first call's work is cut off and falls back), so a later question with its
    whole allowance left decides afresh, as a fresh process would."""
    from napkinmath import caches

    calls: list[str] = []
    slow = [True]

    @caches.memo(4, invalidated_by=caches.LIBRARY)
    def decided(key: str) -> str:
        calls.append(key)
        try:
            with deadline.bounded("deciding", 0.05):
                _spin(30 if slow[0] else 0.001)
        except OutOfTimeError:
            return "by the fallback"
        return "in full"

    assert decided("x") == "by the fallback"
    slow[0] = False
    assert decided("x") == "in full"  # computed again: the fallback's value was not kept
    assert decided("x") == "in full" and calls == ["x", "x"]  # this one is kept
