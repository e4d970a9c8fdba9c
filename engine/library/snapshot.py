"""The declared library kept on disk, so that a solve needs neither sympy nor the formula modules.

Declaring the library imports sympy and builds every formula (most of a cold start). Once
declared, its names, units, bounds, defaults, sources and expression trees (`tree`) with their
print layouts (`napkinmath.rendering.exprprint`) are written to the user's cache directory in
a JSON file keyed by a hash of everything that decides them: the formula modules, the code that
declares, lays out and inverts them, the unit definitions and sympy's version. The next process
reads that file instead; objects read back make their sympy counterparts on first use.

The same file is shipped with the package (`SHIPPED`, written with the rearrangements by
`tools/build_rearrangements.py`, keyed by the source alone): while it was built from this
source it is read first, so that even the first question of a fresh install imports neither
sympy nor the formula modules, and nothing of the library is written to the cache.

Rearrangements (a formula solved for one of its variables, or a coupled block solved jointly)
are kept beside it in a folder keyed the same way, one small file each, as sympy finds them
(`napkinmath.solving.invert`): a question asked before in any process is answered without
sympy. Every entry goes through `napkinmath.cache`, which checks it (a regular file within its
size limit, made for this source, its digest matching its content) before it is parsed, and
removes one that fails so that it is rebuilt; what is parsed is data, checked node by node,
never code. Entries of other sources untouched for `STALE_DAYS` are removed when a library
entry is written.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from napkinmath import cache as disk
from napkinmath import caches
from napkinmath.errors import InputError
from napkinmath.files import read_regular_file
from napkinmath.library import declare
from napkinmath.library.names import _sources

_FORMAT = "2"  # bump when an entry's layout changes
#: (declare.py, the formula modules and units.txt are hashed as `names._sources`)
_ENGINE = ("tree.py", "snapshot.py", "functions.py", "numeric.py")
#: (the planner's singularity facts are stored with the rearrangements: plan.py decides them,
#: the suggestion search, solving/suggest.py, only asks for them; so are the compositions of
#: variables that cancel, which cancel.py works out)
_OTHERS = (
    ("rendering", "exprprint.py"),
    ("solving", "invert.py"),
    ("solving", "plan.py"),
    ("solving", "cancel.py"),
    ("solving", "singular.py"),
)


@caches.memo(None, invalidated_by="never: the files it hashes are fixed in a process")
def digest() -> str | None:
    """A hash of everything the stored library and rearrangements depend on; None when a
    source cannot be read (then nothing is stored)."""
    spec = importlib.util.find_spec("sympy")
    if spec is None or spec.origin is None:
        return None
    return _hashed([*_library_files(), Path(spec.origin).parent / "release.py"], sys.version_info)


@caches.memo(None, invalidated_by="never: the files it hashes are fixed in a process")
def source_digest() -> str | None:
    """A hash of the library's own source only (its formulas, units and the code that
    declares, lays out and rearranges them): the key of the rearrangements shipped with the
    package (`napkinmath.solving.shipped`), which hold for any Python and sympy version."""
    return _hashed(_library_files(), None)


def _library_files() -> list[Path]:
    here = Path(__file__).resolve().parent
    paths = list(_sources()) + [here / name for name in _ENGINE]
    return paths + [here.parent / folder / name for folder, name in _OTHERS]


def _hashed(paths: list[Path], python: Any) -> str | None:
    version = f":{python[:2]}" if python is not None else ""
    hashed = hashlib.sha256(f"{_FORMAT}{version}".encode())
    try:
        for path in paths:
            hashed.update(path.name.encode() + b"\0" + path.read_bytes())
    except OSError:
        return None
    return hashed.hexdigest()[:24]


#: the declared library's entry is about 200 kB, a rearrangement's a few kB; far larger ones
#: are not ours and are never read
LIMITS = {"library": 32_000_000, "inversions": 4_000_000}


def name(kind: str) -> str | None:
    """The cache entry of `kind` ('library') or the subfolder ('inversions') for this
    source, or None when the source cannot be hashed."""
    key = digest()
    return None if key is None else f"{kind}-{key}"


def read(kind: str) -> dict | None:
    """The stored JSON object of `kind`, or None when missing, failing the cache's checks
    (`napkinmath.cache.read`) or not shaped as ours."""
    entry, key = name(kind), digest()
    if entry is None or key is None:
        return None
    payload = disk.read(entry, source=key, limit=LIMITS[kind])
    if payload is None:
        return None
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("napkinmath") != kind:
        return None
    return data


def write(kind: str, data: dict) -> None:
    entry, key = name(kind), digest()
    if entry is not None and key is not None:
        text = json.dumps({"napkinmath": kind, **data}, ensure_ascii=False, separators=(",", ":"))
        disk.write(entry, source=key, payload=text.encode("utf-8"))


#: the declared library shipped with the package, beside its rearrangements
SHIPPED = Path(__file__).resolve().parent / "rearrangements" / "library.json"


def shipped() -> dict | None:
    """The shipped library's JSON object (`SHIPPED`, at most `LIMITS["library"]` bytes of a
    regular file) when it was built from this source (`source_digest`), else None; None
    too with NAPKIN_NO_SHIPPED=1 in the environment (tests of the disk cache set it)."""
    if os.environ.get("NAPKIN_NO_SHIPPED", "") not in ("", "0"):
        return None
    source = source_digest()
    try:
        payload = read_regular_file(
            SHIPPED,
            noun="shipped library",
            rule="the shipped library is read only from a regular file",
            limit=LIMITS["library"],
        )
        data = json.loads(payload)
    except (InputError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("napkinmath") != "library":
        return None
    return data if source is not None and data.get("source") == source else None


# --- the library --------------------------------------------------------------------------


def declared() -> dict | None:
    """The declared library as stored: its variables, formulas and constraints as rows (in
    declaration order); None when a part has no stored form."""
    from napkinmath.library.tree import NoTreeError

    try:
        return {
            "variables": [_variable(v) for v in declare.VARIABLES.values()],
            "formulas": [_formula(f) for f in declare.FORMULAS.values()],
            "constraints": [_constraint(c) for c in declare.CONSTRAINTS.values()],
        }
    except (NoTreeError, TypeError, ValueError):
        return None


def save_once() -> None:
    """Store the declared library unless this source's file is already there and reads."""
    if read("library") is None:
        save()


def save() -> None:
    """Store the declared library (nothing when a part has no stored form), and remove the
    files of other sources that have not been written for `STALE_DAYS`."""
    from napkinmath.library.user import user_active

    if user_active():  # the library is stored without your formulas, or not at all
        return
    data = declared()
    if data is None:
        return
    write("library", data)
    _prune()


#: files of another source (an older napkinmath) untouched this long are removed; one still in
#: use is written again by its own process, at the cost of declaring its library once
STALE_DAYS = 30


def _prune() -> None:
    """Remove entries of other sources untouched for `STALE_DAYS`, and pint's pickled
    registries that napkinmath wrote before it stopped using them (a pickle is code)."""
    current = digest()
    cutoff = time.time() - STALE_DAYS * 86_400
    for old in disk.entries():
        kind, _, key = old.name.removesuffix(".json").removesuffix(".txt").partition("-")
        try:
            if kind == "pint" or (
                kind in ("library", "inversions", "variables")
                and key != current
                and old.lstat().st_mtime < cutoff
            ):
                shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
        except OSError:
            pass


def _variable(v: declare.Variable) -> list:
    b = v.bounds
    default = None
    if v.default is not None:
        magnitude = v.default.value.magnitude
        if type(magnitude) not in (int, float) or v.default.value.units != v.unit:
            raise TypeError(f"default of {v.name}")
        default = [magnitude, v.default.note]
    if v.unit_text is None:
        raise TypeError(f"unit of {v.name}")
    return [
        v.name,
        v.unit_text,
        v.description,
        v.latex,
        [b.lo, b.hi, b.lo_inclusive, b.hi_inclusive],
        default,
        v.display_unit,
        list(v.rounding),
    ]


def _formula(f: declare.Formula) -> list:
    from napkinmath.rendering import exprprint

    return [
        f.name,
        f.title,
        f.source,
        f.subject,
        f.note,
        f.forward_only,
        f.derived,
        list(f.derived_from),
        [v.name for v in f.variables],
        f.assumption,
        *f.trees,
        *map(exprprint.to_json, f.layouts),
    ]


def _constraint(c: declare.Constraint) -> list:
    from napkinmath.rendering import exprprint

    return [
        c.name,
        c.title,
        c.strict,
        c.source,
        c.subject,
        c.message,
        [v.name for v in c.variables],
        c.per,
        list(c.touch),
        *c.trees,
        *map(exprprint.to_json, c.layouts),
    ]


def load() -> bool:
    """Fill the library's registries from the shipped file, else the stored one; False
    (registries untouched) when neither is there for this source and reads."""
    if declare.VARIABLES or declare.FORMULAS:
        return False
    return _filled(shipped()) or _filled(read("library"))


def _filled(data: dict | None) -> bool:
    """Fill the registries from `data`, a library's JSON object; False (untouched) when it
    is None or does not read."""
    if data is None:
        return False
    try:
        variables = {row[0]: _read_variable(row) for row in data["variables"]}
        formulas = {row[0]: _read_formula(row, variables) for row in data["formulas"]}
        constraints = {row[0]: _read_constraint(row, variables) for row in data["constraints"]}
    except (KeyError, IndexError, TypeError, ValueError, RecursionError):
        return False
    declare.VARIABLES.update(variables)
    declare.FORMULAS.update(formulas)
    declare.CONSTRAINTS.update(constraints)
    declare._FROM_SNAPSHOT.update(
        [("var", n) for n in variables]
        + [("formula", n) for n in formulas]
        + [("constraint", n) for n in constraints]
    )
    return True


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("expected text")
    return value


def _read_variable(row: list) -> declare.Variable:
    name, unit, description, latex, bounds, default, display_unit, rounding = row
    lo, hi, lo_inclusive, hi_inclusive = bounds
    if not all(isinstance(x, (int, float)) and not math.isnan(x) for x in (lo, hi)):
        raise TypeError("bounds")
    if default is not None:
        magnitude, note = default
        if type(magnitude) not in (int, float):
            raise TypeError("default")
        default = (magnitude, _string(note))
    return declare.Variable(
        _string(name),
        _string(unit),
        _string(description),
        None,
        _string(latex),
        declare.Bounds(lo, hi, bool(lo_inclusive), bool(hi_inclusive)),
        default,
        None if display_unit is None else _string(display_unit),
        tuple(_string(r) for r in rounding),
    )


def _read_formula(row: list, variables: dict[str, declare.Variable]) -> declare.Formula:
    (
        name,
        title,
        source,
        subject,
        note,
        forward_only,
        derived,
        derived_from,
        names,
        assumption,
        *stored,
    ) = row
    f = declare.Formula(
        _string(name),
        _string(title),
        None,
        _string(source),
        _string(subject),
        _string(note),
        bool(forward_only),
        bool(derived),
        tuple(_string(n) for n in derived_from),
        tuple(variables[n] for n in names),
        bool(assumption),
    )
    _attach(f, stored)
    return f


def _read_constraint(row: list, variables: dict[str, declare.Variable]) -> declare.Constraint:
    name, title, strict, source, subject, message, names, per, touch, *stored = row
    c = declare.Constraint(
        _string(name),
        _string(title),
        None,
        None,
        bool(strict),
        _string(source),
        _string(subject),
        _string(message),
        tuple(variables[n] for n in names),
        _string(per),
        tuple(_string(t) for t in touch),
    )
    _attach(f=c, stored=stored)
    return c


def _attach(f: declare.Formula | declare.Constraint, stored: list) -> None:
    """Trees and layouts, checked: a tree may read only the formula's own variables."""
    from napkinmath.library import tree
    from napkinmath.rendering import exprprint

    if len(stored) != 4:
        raise ValueError("expected two trees and two layouts")
    trees = (tree.from_json(stored[0]), tree.from_json(stored[1]))
    if not (tree.names(trees[0]) | tree.names(trees[1])) <= {v.name for v in f.variables}:
        raise ValueError(f"{f.name}: a tree reads a variable the formula does not have")
    f.__dict__["trees"] = trees
    f.__dict__["layouts"] = (exprprint.from_json(stored[2]), exprprint.from_json(stored[3]))
