"""The library's variable names without declaring the library (no sympy, no formulas).

`napkin check` of an expression in units only needs to know which names are variables. The
names are kept in the user's cache (`napkinmath.cache`, which checks every entry before it is
read) under a key that hashes the library's source (the formula modules, the declaration code
and the unit definitions), so that any change to the library makes a new key. A missing entry,
or one that fails a check, is recomputed by declaring the library and written again; an
unwritable cache only means the names are computed each time.
"""

from __future__ import annotations

import contextlib

from napkinmath import caches
from napkinmath.catalog.snapshot import names_digest
from napkinmath.library import declare


@caches.memo(
    None,
    invalidated_by=caches.LIBRARY,
    fixed=True,
    reason="the library's names, read by every check of a name (61 times in "
    "tools/cache_value.py's workload); 1 ms to build (2026-12-07, 2 cores)",
)
def variable_names() -> frozenset[str]:
    """Every library variable's name: from the cache when its entry checks out for this
    source (`napkinmath.cache`), else by declaring the library (and writing the entry)."""
    from napkinmath import cache as disk

    if declare.user_active():  # your variables in force: named here, never stored
        from napkinmath.catalog.lookup import variables

        return frozenset(variables())
    try:
        key = names_digest()
    except OSError:  # a source file cannot be read: no key, no cache
        key = None
    name = f"variables-{key}"
    if key is not None:
        payload = disk.read(name, source=key, limit=_LIMIT)
        if payload is not None:
            with contextlib.suppress(UnicodeDecodeError):
                lines = payload.decode("utf-8").split("\n")
                if (
                    lines[0] == "napkinmath variables"
                    and len(lines) > 1
                    and all(map(str.isidentifier, lines[1:]))
                ):
                    return frozenset(lines[1:])
    from napkinmath.catalog.lookup import variables

    names = frozenset(variables())
    if key is not None:
        text = "\n".join(["napkinmath variables", *sorted(names)])
        disk.write(name, source=key, payload=text.encode("utf-8"))
    return names


#: the variable names' entry is about 20 kB; one far larger is not ours
_LIMIT = 1_000_000
