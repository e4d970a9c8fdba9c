"""Every in-memory cache of napkinmath, behind one seam: what each keeps, keys on, and what
invalidates it; `clear_caches` empties them all.

A solve passes several layers of caches, outermost first:

1. the planner's caches (`solving.plan`, `solving.suggest`, `solving.planning_graph`,
   `solving.cancel`, `solving.consistency`, `solving.solver.plan_for`): plans, analyses and
   suggestions, keyed by the targets and the known names, never by values (no answer is
   kept: each is worked out afresh from its plan);
2. the rearrangements and readings (`solving.invert`, `text.values`, `text.expr`,
   `library.print_layout`): sympy's work per formula and unknown, pint's per text;
3. the records (`napkinmath.hardware`): the shipped files read and scanned once;
4. the disk cache (`napkinmath.cache`: the declared library, the variable names, the
   rearrangements and yes/no facts), shared by processes and checked on every read.

Every cached function is declared with `memo` (functools' LRU cache, registered here); each
module-level state that keeps work between calls registers with `state`. The library is
fixed once loaded in a process, and so are pint's registry and the shipped records, so most
caches are never invalidated: they are keyed by everything else they read. docs/caches.md
is the map of them all (written by `cache_map`; `tests/test_caches.py` keeps it current).

    napkinmath.clear_caches()            # every in-memory cache; disk=True: the disk too
    NAPKIN_NO_CACHE=1 napkin solve ...   # caches off, for debugging (read once at import)

With ``NAPKIN_NO_CACHE=1`` (any value but "" and "0") every `memo` is a pass-through
(``lru_cache(maxsize=0)``: each call computes), the module states keep nothing, and the disk
cache reads and writes nothing; answers are the same, only slower. Two kinds of thing stay:
objects' own ``cached_property`` values, which live and die with their object, and what is
derived from what a process holds fixed alone (`memo` with ``fixed=True``: the library as
integers, its formulas by variable, the shipped records and rearrangements as read), which
holds no question's values and would be the same whenever it was computed again;
recomputing it on every call turned a refusal into many minutes of the same work. Both are
listed in the map (kind "fixed").
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")

#: False when NAPKIN_NO_CACHE is set (read once, at import): nothing is kept anywhere
ENABLED = os.environ.get("NAPKIN_NO_CACHE", "") in ("", "0")

# --- what invalidates a cache, in the words the map uses -----------------------------------
#: a cache of what the formula library (its formulas and variables) determines
LIBRARY = (
    "the library: fixed once loaded; keyed by the formulas in force too (yours, inside "
    "`napkinmath.catalog.user.user_formulas`, in that context only)"
)
#: a cache of what pint's registry determines
UNITS = "never: the unit registry is fixed in a process"
#: a cache of what the shipped records files hold
SHIPPED = "never: the shipped records files are fixed in a process"
#: a cache of a function of its arguments alone
NOTHING = "never: a function of its key alone"
#: a cache of values that may read records by text ("H100-SXM.peak_flops")
RECORDS = (
    "the records in force: keyed by them too (yours, inside "
    "`napkinmath.solving.records.user_records`, in that context only)"
)

#: what a memo of a scoped kind (`LIBRARY`, `RECORDS`) keys on besides its parameters: the
#: formulas or records in force in the calling context (`scope_by`); None where nothing is
#: laid over the library's or the shipped ones
_SCOPES: dict[str, Callable[[], object]] = {}
#: the entries a scoped memo declared unbounded keeps at most (one set per scope in force)
SCOPED_SIZE = 4096
#: the entries a scoped memo of fewer keeps at least: one per scope a process may use at once
SCOPES_AT_ONCE = 8


#: bumped whenever a bound on symbolic work runs out in any thread (`fell_back`): a scoped
#: memo that sees it move while it computes keeps nothing, as the value was decided by a
#: fallback (a block taken as full rank, a step solved numerically) that a question with
#: its whole allowance left might not take; so no answer depends on what was asked before
_FALLBACKS = itertools.count(1)
_fallback = [0]


def fell_back() -> None:
    """Note that a bound ran out (`napkinmath.deadline`)."""
    _fallback[0] = next(_FALLBACKS)


def fallbacks() -> int:
    """Moves whenever a bound runs out: a state that stores a value only when this did not
    move while computing it keeps nothing a fallback decided (as scoped memos do)."""
    return _fallback[0]


def scope_by(invalidated_by: str, current: Callable[[], object]) -> None:
    """Key every memo `invalidated_by` this (`LIBRARY`, `RECORDS`) by `current()` as well:
    the user's formulas or records in force in the calling thread or context. So nothing
    one caller lays over the library reaches another's answers, and no cache is ever
    cleared on entering or leaving such a block."""
    _SCOPES[invalidated_by] = current


class Cache(NamedTuple):
    """One registered cache."""

    name: str  # where it lives: 'napkinmath.solving.plan.analyse_formulas'
    key: str  # what it keys on
    invalidated_by: str  # what makes an entry stale, and so clears it
    clear: Callable[[], None]
    size: Callable[[], int]  # its entries now
    kind: str  # 'function' (a memo), 'fixed' (a memo kept with caches off) or 'state'
    #: what it buys, measured, and the guardrail it is kept for ("" where none is stated yet)
    reason: str = ""


_REGISTRY: dict[str, Cache] = {}


def memo(
    maxsize: int | None,
    *,
    invalidated_by: str,
    key: str = "",
    fixed: bool = False,
    reason: str = "",
) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """Cache a function (functools.lru_cache with `maxsize`; None: unbounded) and register it.

    `key` says what it keys on where its parameters do not say it all (default: its
    parameters); `invalidated_by`, what makes an entry stale (`LIBRARY`, `RECORDS`, ...).
    `fixed`: the function derives its value from what a process holds fixed alone (the
    loaded library, pint's registry, the shipped files), nothing a question gives; it is
    kept with caches off too (see the module's docstring), and cleared as any other.
    `reason`: what it buys, measured, and the figure it is kept for (the map lists it)."""

    def decorate(function: Callable[..., T]) -> functools._lru_cache_wrapper[T]:
        kept = ENABLED or fixed
        name = f"{function.__module__}.{function.__qualname__}"
        if invalidated_by in (LIBRARY, RECORDS):
            cached = _scoped(function, invalidated_by, maxsize if kept else 0)
        else:
            cached = functools.lru_cache(maxsize=maxsize if kept else 0)(function)
        _REGISTRY[name] = Cache(
            name,
            key or _parameters(function),
            invalidated_by,
            cached.cache_clear,
            lambda: cached.cache_info().currsize,
            "fixed" if fixed else "function",
            reason,
        )
        return cached

    return decorate


def _scoped(
    function: Callable[..., T], invalidated_by: str, maxsize: int | None
) -> functools._lru_cache_wrapper[T]:
    """`function` cached with the scope in force (`scope_by`) as the first part of its key."""

    def unscoped(_scope: object, /, *args: Any, **kwargs: Any) -> T:
        return function(*args, **kwargs)

    if maxsize is None:
        maxsize = SCOPED_SIZE
    elif maxsize:  # room for a few scopes at once (threads asking with and without yours)
        maxsize = max(maxsize, SCOPES_AT_ONCE)
    inner = functools.lru_cache(maxsize=maxsize)(unscoped)

    current: list[Callable[[], object]] = []  # the scope's getter, once registered

    @functools.wraps(function)
    def scoped(*args: Any, **kwargs: Any) -> T:
        if not current:
            found = _SCOPES.get(invalidated_by)
            if found is not None:  # else not registered yet: nothing is laid over it yet
                current.append(found)
        seen = _fallback[0]
        value = inner(current[0]() if current else None, *args, **kwargs)
        if _fallback[0] != seen:  # decided by a fallback somewhere below: not kept
            inner.cache_clear()
        return value

    scoped.cache_clear = inner.cache_clear  # type: ignore[attr-defined]
    scoped.cache_info = inner.cache_info  # type: ignore[attr-defined]
    scoped.cache_parameters = inner.cache_parameters  # type: ignore[attr-defined]
    return scoped  # type: ignore[return-value]


def state(
    name: str,
    *,
    key: str,
    invalidated_by: str,
    clear: Callable[[], Any],
    size: Callable[[], int],
    reason: str = "",
) -> None:
    """Register a module-level state `name` ('napkinmath.catalog.user._LAYERED') that keeps
    work between calls, with how to `clear` it and count its entries, and `reason`: what it
    buys, measured, and the guardrail it is kept for."""
    _REGISTRY[name] = Cache(name, key, invalidated_by, clear, size, "state", reason)


def _parameters(function: Callable[..., Any]) -> str:
    code = function.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return ", ".join(names) if names else "nothing (computed once)"


def registered() -> dict[str, Cache]:
    """Every cache registered so far, by name (a module's caches register when it is first
    imported; `load_all` imports every module that has some)."""
    return dict(_REGISTRY)


def sizes() -> dict[str, int]:
    """The entries each registered cache holds now, by name."""
    return {name: entry.size() for name, entry in _REGISTRY.items()}


def clear_caches() -> None:
    """Empty every in-memory cache and module state registered (those of modules not yet
    imported are empty already). The next question computes again what it needs; the disk
    cache is `napkinmath.cache`'s (`napkinmath.clear_caches(disk=True)` clears both)."""
    for entry in list(_REGISTRY.values()):
        entry.clear()


#: the modules that register caches, for the map (`load_all`)
MODULES = (
    "napkinmath.cache",
    "napkinmath.text.values",
    "napkinmath.library.declare",
    "napkinmath.catalog.names",
    "napkinmath.catalog.user",
    "napkinmath.catalog.snapshot",
    "napkinmath.solving.solver",
    "napkinmath.solving.consistency",
    "napkinmath.solving.invert",
    "napkinmath.solving.plan",
    "napkinmath.solving.suggest",
    "napkinmath.solving.planning_graph",
    "napkinmath.solving.planner",
    "napkinmath.solving.shipped",
    "napkinmath.hardware.records",
    "napkinmath.hardware.user",
)

#: per-object caches (functools.cached_property), by class: kept by their object, gone with it
PROPERTIES = {
    "Variable": "unit, default, symbol, base_factor, dimensionality: from its declaration",
    "_Expressions": "trees and layouts of a formula's or constraint's sides: from its "
    "declaration (or its stored trees)",
    "Formula": "equation: from its stored trees",
    "Constraint": "_sides: from its stored trees",
    "Value": "quantity: a record value's text, parsed on first use",
    "Given": "base: the given's value in base units",
    "Result": "_roundoff: the names the answer's rounding steps touch",
    "Comparison": "_used_by_label, common: from the comparison's answers",
}


def load_all() -> dict[str, Cache]:
    """Import every module with caches (`MODULES`), then `registered`."""
    import importlib

    for module in MODULES:
        importlib.import_module(module)
    return registered()


def cache_map() -> str:
    """The map of every cache (docs/caches.md): name, key, what invalidates it."""
    lines = [
        "# The caches",
        "",
        "Written by `napkinmath.caches.cache_map()` (`python -m napkinmath.caches > "
        "docs/caches.md`); `tests/test_caches.py` checks it is current. See the "
        "docstring of `napkinmath.caches` for the layers, `napkinmath.clear_caches()` "
        "and `NAPKIN_NO_CACHE=1`.",
        "",
        "## Functions and module states (cleared by `napkinmath.clear_caches()`)",
        "",
        "Kind: `function`, a memo; `fixed`, a memo of what the process holds fixed alone "
        "(the loaded library, the registry, the shipped files), kept with "
        "`NAPKIN_NO_CACHE=1` too; `state`, a module-level state.",
        "",
        "| cache | kind | key | invalidated by |",
        "| --- | --- | --- | --- |",
    ]
    for name, entry in sorted(load_all().items()):
        if not name.startswith("napkinmath."):
            continue  # a test's own
        short = name.removeprefix("napkinmath.")
        lines.append(f"| `{short}` | {entry.kind} | {entry.key} | {entry.invalidated_by} |")
    reasons = [
        f"- `{name.removeprefix('napkinmath.')}`: {entry.reason}"
        for name, entry in sorted(load_all().items())
        if entry.reason and name.startswith("napkinmath.")
    ]
    if reasons:
        lines += ["", "## Why some are kept (measured)", "", *reasons]
    lines += [
        "",
        "## Per-object caches (`functools.cached_property`, never cleared: they go "
        "with their object)",
        "",
        "| class | what it keeps, from what |",
        "| --- | --- |",
    ]
    lines += [
        f"| `{name.removeprefix('napkinmath.')}` | {what} |" for name, what in PROPERTIES.items()
    ]
    lines += [
        "",
        "## On disk (`napkinmath.cache`; `clear_caches(disk=True)` removes them)",
        "",
        "| entry | key | invalidated by |",
        "| --- | --- | --- |",
        "| `library-KEY` (the declared library) | KEY: the digest of the library's "
        "source (`catalog.snapshot.digest`) | a change of a formula module, of the "
        "engine files that decide stored facts, of sympy or of Python; never read "
        "nor written while your formulas are in force (`library.declare.user_active`) |",
        "| `inversions-KEY/KIND-HASH` (rearrangements, joint roots, yes/no facts such "
        "as singular blocks) | KEY as above; HASH: the formulas and unknowns | as above, "
        "and likewise never while your formulas are in force |",
        "| `variables-KEY` (the library's variable names) | KEY: the digest of the "
        "formula modules (`catalog.snapshot.names_digest`) | a change of a formula "
        "module |",
        "",
        "## Shipped with the package (read-only, read before the disk cache)",
        "",
        "| file | key | invalidated by |",
        "| --- | --- | --- |",
        "| `library/rearrangements/` (`solving.shipped`: every formula's rearrangements, "
        "one file per formula, and `facts.json`) | the digest of the library's source in "
        "its `index.json` (`catalog.snapshot.source_digest`) | a change of a formula "
        "module or of the engine files that decide them: the set is then ignored until "
        "`python tools/build_rearrangements.py` rebuilds it; never read while your "
        "formulas are in force |",
        "| `library/rearrangements/library.json` (`catalog.snapshot.shipped`: the declared "
        "library, read before the disk's `library-KEY`) | the digest of the library's source "
        "in the file | as above: ignored while stale (or with NAPKIN_NO_SHIPPED=1), and the "
        "library is then read from the disk cache or declared; your formulas are put in "
        "force on top of it |",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":  # run as a script, this file is not the module the others import
    from napkinmath.caches import cache_map as _the_map

    print(_the_map(), end="")
