"""The library's rearrangements, built once and shipped with the package.

Every library formula solved for each of its variables depends only on the library's
source, so `tools/build_rearrangements.py` solves them all with sympy and writes them to
`napkinmath/library/rearrangements/`: an index (the source's digest,
`napkinmath.catalog.snapshot.source_digest`, and the formulas it holds) and one JSON file per
formula, `{variable: [tree, ...]}` (a root's print layout is made from its tree,
`napkinmath.library.tree_layout`), beside `facts.json` (the planner's
singularity facts and cancelling compositions that a broad set of questions reaches) and
the coupled blocks solved jointly, in `JOINT_SHARDS` files by their key's digest (those the
questions reach, every block of two formulas and every block of three of one subject that
is not singular; a block looked up reads one shard). A first-time question then reads the
one file of each formula it needs instead of importing sympy. What is read is data, checked node by
node (`tree.from_json`, `print_layout.from_json`), never code; every file is read at most
`LIMIT` bytes; an index of another source (the package edited since it was built), a
missing file or a malformed one is ignored, and the question falls back to the cache on disk
and to sympy. Never used while your formulas are in force (`napkinmath.catalog.user`), nor
with NAPKIN_NO_SHIPPED=1 in the environment (read once, at the first question).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from napkinmath import caches

FOLDER = Path(__file__).resolve().parent.parent / "library" / "rearrangements"
INDEX = "index.json"
FACTS = "facts.json"
FACT_KINDS = ("singular", "joint", "cancel")
#: the coupled blocks' files, `joint-0.json` to `joint-f.json` (by a key's digest)
JOINT_SHARDS = 16
#: the largest file read (the largest formula's file is about 60 kB)
LIMIT = 2_000_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _read(path: Path) -> object | None:
    """The JSON in `path`, read at most LIMIT bytes from a regular file, or None."""
    from napkinmath.catalog.snapshot import read_shipped

    return read_shipped(path, LIMIT)


@caches.memo(
    None,
    invalidated_by=caches.LIBRARY,
    fixed=True,
    reason="each shipped file is read and parsed once: without it, 300 first-time questions "
    "(tests/test_properties.py's generator, seed 7, a fresh cache) read 954 files, 1.27 s of "
    "their 7.8 s (facts.json alone, 267 kB, takes 2.9 ms a read), against README's aim of no "
    "first-time question over 200 ms (2026-12-06, 2 cores)",
)
def _file(name: str) -> object | None:
    """The shipped JSON file `name` (the index, the facts, a formula's roots, a shard of
    coupled blocks), read once; None where missing or unreadable."""
    return _read(FOLDER / name)


def _index() -> dict[str, object] | None:
    """The shipped index when it was built from this source (None otherwise, and with
    NAPKIN_NO_SHIPPED=1, which tests of the disk cache set): the set may be read."""
    from napkinmath.catalog.snapshot import shipping_off, source_digest

    if shipping_off():
        return None
    index = _file(INDEX)
    if not isinstance(index, dict) or index.get("napkinmath") != "rearrangements":
        return None
    source = source_digest()
    if (
        source is None
        or index.get("source") != source
        or not isinstance(index.get("formulas"), list)
    ):
        return None
    return index


def _holds(formula: str) -> bool:
    """Whether the shipped set, built from this source, holds `formula`'s rearrangements."""
    index = _index()
    names = index.get("formulas") if index is not None else None
    return isinstance(names, list) and bool(_NAME.match(formula)) and formula in names


def _entries(formula: str) -> dict[str, object] | None:
    data = _file(f"{formula}.json")
    if not isinstance(data, dict) or data.get("formula") != formula:
        return None
    roots = data.get("roots")
    return roots if isinstance(roots, dict) else None


def _fact(kind: str, key: str) -> object | None:
    """A shipped singularity fact or cancelling composition (`kind`) by key; None when not
    shipped for this source."""
    if kind not in FACT_KINDS or _index() is None:
        return None
    data = _file(FACTS)
    facts = data.get(kind) if isinstance(data, dict) else None
    return facts.get(key) if isinstance(facts, dict) else None


def joint_shard(key: str) -> str:
    """The file of a coupled block's key: `joint-<first hex digit of its SHA-256>.json`."""
    return f"joint-{hashlib.sha256(key.encode('utf-8')).hexdigest()[0]}.json"


def _joint(name: str) -> dict[str, object]:
    """The coupled blocks of one shard (see `joint_shard`); empty when not for this source."""
    if _index() is None:
        return {}
    data = _file(name)
    return data if isinstance(data, dict) else {}


def value(kind: str, key: str) -> object | None:
    """The shipped entry of `kind` ('roots', 'singular', 'joint', 'cancel') for `key`, as
    `napkinmath.solving.invert`'s store keeps it (JSON data, parsed and checked there), or
    None when not shipped for this source or while your formulas are in force."""
    from napkinmath.library.declare import user_active

    if user_active():
        return None
    if kind == "roots":
        formula, _, variable = key.partition("\t")
        if not _holds(formula):
            return None
        return (_entries(formula) or {}).get(variable)
    if kind == "joint":
        return _joint(joint_shard(key)).get(key)
    return _fact(kind, key)
