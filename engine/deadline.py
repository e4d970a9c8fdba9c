"""Bounded symbolic work: sympy stopped when it runs past its share of a question's time.

sympy's `solve` and `simplify` have no bound of their own: a Groebner basis for a coupled
block, or a polynomial of high degree, can run for minutes. Every call to them made while a
question is answered runs inside `bounded`, which stops it after its CPU seconds and raises
`OutOfTimeError` in the caller, who then takes a stated fallback (a numeric solution, a decision
by the Jacobian's rank, no cancellation) and says so in the derivation:

    with deadline.question():                  # one question: SYMBOLIC seconds of sympy
        try:
            with deadline.bounded("solving x from f"):
                roots = sympy.solve(residual, x)
        except deadline.OutOfTimeError:
            roots = ...                            # the fallback

How: a timer thread watches the asking thread's CPU clock and, once the bound is spent,
raises an exception inside that thread (CPython's `PyThreadState_SetAsyncExc`), which
`bounded` turns into `OutOfTimeError` at its edge. Time is the thread's CPU time, not the wall
clock, so a loaded machine does not cut work short (a wall-clock cap of `WALL_FACTOR` times
the bound catches a thread that sleeps). Within `question`, every bounded call draws on one
allowance, so a question that meets many slow blocks still spends at most `SYMBOLIC` seconds
in sympy; outside one (the build of the shipped set, a test) each call has its own bound.
Nothing decided under a spent bound is kept on disk. State is per thread: one thread's
bound never stops another's work.
"""

from __future__ import annotations

import ctypes
import functools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from napkinmath import caches
from napkinmath.errors import NapkinError

P = ParamSpec("P")
R = TypeVar("R")

#: CPU seconds one question may spend in sympy in all (issue 44's aim: about 2 s a question)
SYMBOLIC = 2.0
#: CPU seconds one call to sympy may take: room for the slowest rearrangement a library
#: question meets on a fresh cache (a coupled checkpoint block takes 0.94 s), so that a busy
#: machine does not cut it off in one run and not in the next (answers would then differ)
PER_CALL = 1.5
#: a bounded call is stopped after this many times its bound on the wall clock, whatever
#: its CPU time (a thread that waits)
WALL_FACTOR = 20.0
#: seconds between interruptions of a block that runs on past its bound
AGAIN = 0.25
#: CPU seconds left that count as a bound spent
SPENT = 0.02
#: the shortest bound armed (less is a bound spent: the timer must not fire before the
#: block is entered)
SHORTEST = 0.01
#: interruptions sent to a block that runs on past its bound, at most
SENT_AT_MOST = 8


class OutOfTimeError(NapkinError):
    """A bounded piece of symbolic work ran out of its time (`what` says which). Callers
    take a fallback; one that reaches the user reads as napkinmath's own error."""

    def __init__(self, what: str, seconds: float) -> None:
        # the message names no seconds: what is left of a question's allowance varies from
        # run to run by milliseconds, and the same question must print the same bytes
        super().__init__(f"{what}: stopped at its time bound" if seconds else what)
        self.what = what
        #: the CPU seconds it was given
        self.seconds = seconds


class _Cut(BaseException):
    """Raised by a `bounded` block that ends inside one whose bound ran out: it unwinds to
    that one, which reports it."""


class _Interrupt(BaseException):
    """Raised inside the bounded thread by the timer; `bounded` turns it into `OutOfTimeError`
    (a BaseException, so that sympy's own `except Exception` clauses let it through)."""


@dataclass
class _Frame:
    """One `bounded` call in progress."""

    thread: int
    cpu_start: float
    wall_start: float
    limit: float
    active: bool = True
    fired: bool = False
    sent: int = 0  # interruptions sent
    checking: bool = False  # the timer is deciding whether to send one
    timer: threading.Timer | None = field(default=None, repr=False)


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.frames: list[_Frame] = []
        #: CPU seconds of symbolic work left to the question being answered (None: none is)
        self.allowance: float | None = None
        #: how many bounds ran out in this thread so far (see `cutoffs`)
        self.cutoffs: int = 0
        #: extra factor on every bound (`generous`)
        self.scale: float = 1.0


_state = _PerThread()


def _cpu_of(thread: int) -> float | None:
    """The CPU seconds thread `thread` has used, or None where the platform cannot tell."""
    try:
        return time.clock_gettime(time.pthread_getcpuclockid(thread))
    except (AttributeError, OSError):
        return None


def _check(frame: _Frame) -> None:
    """The timer: stop the frame's thread once its bound is spent, else look again later.
    `checking` is up while it decides and sends, so that `_close` can wait for it: no lock
    is ever held by the bounded thread, where an interruption could strand it."""
    used = _cpu_of(frame.thread)
    wall = time.monotonic() - frame.wall_start
    if (
        used is not None
        and used - frame.cpu_start < frame.limit
        and wall < (frame.limit * WALL_FACTOR)
    ):
        _arm(frame, max(frame.limit - (used - frame.cpu_start), 0.01))
        return
    frame.checking = True
    try:
        if not frame.active:
            return
        frame.fired = True
        frame.sent += 1
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(frame.thread), ctypes.py_object(_Interrupt)
        )
    finally:
        frame.checking = False
    # again later while the block runs on (a few times): an interruption that lands in a
    # finaliser or a weakref callback is printed and dropped by Python ("Exception ignored")
    if frame.sent < SENT_AT_MOST:
        _arm(frame, AGAIN)


def _arm(frame: _Frame, after: float) -> None:
    """Look at `frame` again in `after` seconds (a daemon timer; none once it is closed)."""
    if not frame.active:
        return
    timer = threading.Timer(after, _check, (frame,))
    timer.daemon = True
    frame.timer = timer
    timer.start()


def _close(frame: _Frame) -> None:
    """Stop watching `frame` (idempotent: `bounded`'s exit retries it when an interruption
    lands meanwhile). Once `active` is down no timer sends again; one deciding now is waited
    for; an interruption sent but not yet delivered is taken here, by entering a Python
    function (`_deliver`: Python checks for one on entry), so that it raises inside the
    exit, which catches it. (Withdrawing it with PyThreadState_SetAsyncExc(thread, NULL)
    instead leaves CPython 3.11 spinning forever under a trace or profile function.)"""
    frame.active = False
    timer = frame.timer
    if timer is not None:
        timer.cancel()
    while frame.checking:
        time.sleep(0.0005)
    if frame.fired:
        _deliver()


def _deliver() -> None:
    """Nothing: a pending interruption is raised on entering it."""


def bounded(what: str, seconds: float = PER_CALL) -> _Bound:
    """Run the block for at most `seconds` of this thread's CPU time (less when the
    question's allowance has less left); `OutOfTimeError` when it runs out, or at once when
    the allowance is already spent."""
    return _Bound(what, seconds)


class _Bound:
    """The context manager `bounded` returns (a class, not a generator, so that its exit
    runs as one piece: an interruption arriving while it runs is caught there too)."""

    def __init__(self, what: str, seconds: float) -> None:
        self.what, self.seconds = what, seconds
        self.frame: _Frame | None = None

    def __enter__(self) -> None:
        import sympy  # noqa: F401  (imported whole before any bound: never cut off mid-import)

        state = _state
        limit = self.seconds * state.scale
        if state.allowance is not None:
            limit = min(limit, state.allowance)
        for outer in state.frames:
            limit = min(limit, outer.limit - (time.thread_time() - outer.cpu_start))
        if limit < SHORTEST:
            _ran_out(state)
            spent = "not tried, the question's time for symbolic work is spent"
            raise OutOfTimeError(f"{self.what}: {spent}", 0.0)
        frame = _Frame(threading.get_ident(), time.thread_time(), time.monotonic(), limit)
        state.frames.append(frame)
        self.frame = frame
        try:
            _arm(frame, limit)  # last: the timer cannot fire before `SHORTEST` has passed
        except _Interrupt:  # it did (a thread paused here): never leave the frame behind
            self._exit()
            raise OutOfTimeError(self.what, limit) from None

    def __exit__(self, kind: type[BaseException] | None, error: object, trace: object) -> None:
        while True:  # until the timer is stopped and no interruption is pending
            try:
                self._exit()
                return
            except _Interrupt:
                continue

    def _exit(self) -> None:
        """Stop the timer; raise `OutOfTimeError` where this bound ran out (the block's own
        interruption, or whatever it raised meanwhile, is replaced), `_Cut` where an
        enclosing one did; else let the block's own outcome stand."""
        frame, state = self.frame, _state
        assert frame is not None
        _close(frame)
        if state.frames and state.frames[-1] is frame:
            state.frames.pop()
            used = time.thread_time() - frame.cpu_start
            if state.allowance is not None:
                state.allowance = max(state.allowance - used, 0.0)
        if frame.fired:  # an enclosing bound whose time is spent too answers for it
            now = time.thread_time()
            for outer in state.frames:
                if outer.limit - (now - outer.cpu_start) <= SPENT:
                    outer.fired = True
        if any(outer.fired for outer in state.frames):
            raise _Cut
        if frame.fired:
            _ran_out(state)
            raise OutOfTimeError(self.what, frame.limit) from None


def _ran_out(state: _PerThread) -> None:
    """Count a bound run out, here (`cutoffs`: nothing is stored on disk) and for the memos
    (`caches.fell_back`: nothing is kept in memory)."""
    state.cutoffs += 1
    caches.fell_back()


@contextmanager
def question(seconds: float = SYMBOLIC) -> Iterator[None]:
    """One question's allowance of symbolic work: every `bounded` call inside draws on it.
    Nested questions (an optimisation's solves) share the outermost one's."""
    state = _state
    if state.allowance is not None:
        yield
        return
    state.allowance = seconds * state.scale
    try:
        yield
    finally:
        state.allowance = None


def cutoffs() -> int:
    """How many bounds have run out in this thread: a decision made while it grew took a
    fallback somewhere, and is not kept on disk (nor in memory: `caches.fell_back`)."""
    return _state.cutoffs


@contextmanager
def generous(factor: float) -> Iterator[None]:
    """Every bound times `factor` while the block runs (the build of the shipped set, which
    may spend minutes on a block that a question must not)."""
    state = _state
    before = state.scale
    state.scale = before * factor
    try:
        yield
    finally:
        state.scale = before


def per_question(function: Callable[P, R]) -> Callable[P, R]:
    """`function` with each call one question (`question`): a public entry point."""

    @functools.wraps(function)
    def bounded_question(*args: P.args, **kwargs: P.kwargs) -> R:
        with question():
            return function(*args, **kwargs)

    return bounded_question
