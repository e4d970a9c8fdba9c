"""The declared library kept on disk, so that a solve needs neither sympy nor the formula modules.

Declaring the library imports sympy and builds every formula (most of a cold start). Once
declared, its names, units, bounds, defaults, sources and expression trees (`tree`; their print
layouts are made from them when printed, `napkinmath.library.tree_layout`) are written to the
user's cache directory in
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
never code. Entries of other sources untouched for `STALE_DAYS` are removed when the library
is stored or read from the shipped file. The stored form itself (the rows of variables,
formulas and constraints, and reading them back) is `napkinmath.library.stored`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from napkinmath import cache as disk
from napkinmath import caches
from napkinmath.errors import InputError
from napkinmath.files import read_regular_file
from napkinmath.library import declare, stored

#: (declare.py, the formula modules and units.txt are hashed as `formula_sources`; of the
#: snapshot, `stored.py` decides what is stored, this module only reads and writes it;
#: `operators.py` defines the layer's operators that formulas/operators.py adds up, and the
#: print layouts shipped beside each rearrangement are made by `print_layout.py`)
#: the library's folder: the files hashed below and the shipped data live there
LIBRARY = Path(__file__).resolve().parents[1] / "library"
_ENGINE = ("tree.py", "stored.py", "functions.py", "numeric.py", "operators.py", "print_layout.py")
#: (the solver's
#: own code, solving/invert, plan, cancel and singular, is not hashed: what it ships are facts
#: about the formulas (their roots, which coupled blocks are singular, their joint solutions,
#: the compositions that cancel), true whatever code found them, and the tests check them by
#: content, not by the code's hash: every shipped root and block solution substituted back
#: into its formulas, a sample of roots against what sympy finds now, and the singularity
#: facts against the tree-based decision, tests/test_shipped_rearrangements.py and
#: tests/test_singular.py)


#: the variable names' entry format (`napkinmath.catalog.names`): bump when it changes
_NAMES_FORMAT = "1"


def formula_sources() -> list[Path]:
    """The files whose content decides the variable names."""
    engine = Path(__file__).resolve().parents[1]
    spec = importlib.util.find_spec("napkinmath.formulas")  # imports no formula
    folders = list(spec.submodule_search_locations or []) if spec else []
    found = [p for folder in folders for p in Path(folder).glob("*.py")]
    found += [engine / "library" / "declare.py", engine / "units.txt"]
    return sorted(found, key=lambda p: (p.name, str(p)))


def names_digest() -> str:
    """A hash of what decides the variable names (`formula_sources`): the key of their
    entry on disk (`napkinmath.catalog.names`)."""
    return _digest(_NAMES_FORMAT, formula_sources())


def digest() -> str | None:
    """A hash of everything the stored library and rearrangements depend on: the library's
    source (`source_digest`), Python's version and sympy's release file; None when a source
    cannot be read (then nothing is stored)."""
    spec = importlib.util.find_spec("sympy")
    source = source_digest()
    if spec is None or spec.origin is None or source is None:
        return None
    try:
        release = (Path(spec.origin).parent / "release.py").read_bytes()
    except OSError:
        return None
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return hashlib.sha256(f"{source}:{python}\0".encode() + release).hexdigest()[:24]


@caches.memo(
    None,
    invalidated_by="never: the files it hashes are fixed in a process",
    reason="hashes the library's source files (2 ms); every read of a shipped rearrangement "
    "compares it (867 in tools/cache_value.py's workload, 1.4 s without it) (2026-12-07, "
    "2 cores)",
)
def source_digest() -> str | None:
    """A hash of the library's own source only (its formulas, units and the code that
    declares, lays out and rearranges them): the key of the rearrangements shipped with the
    package (`napkinmath.solving.shipped`), which hold for any Python and sympy version."""
    return _hashed(_library_files())


def code_digest() -> str | None:
    """A hash of the code and units the library's source holds beside its formula modules
    (declare.py, units.txt and the files of `_ENGINE`): where it is the same, a rebuild of
    the shipped rearrangements may keep what the last build found for each formula whose
    declared row is unchanged (tools/build_rearrangements.py)."""
    sources = [LIBRARY / "declare.py", LIBRARY.parent / "units.txt"]
    return _hashed(sources + [LIBRARY / name for name in _ENGINE])


def _library_files() -> list[Path]:
    return list(formula_sources()) + [LIBRARY / name for name in _ENGINE]


def _hashed(paths: list[Path]) -> str | None:
    try:
        return _digest(stored.FORMAT, paths)
    except OSError:
        return None


def _digest(format_: str, paths: list[Path]) -> str:
    """A hash of the format's tag and each file's name and content, in the order given."""
    hashed = hashlib.sha256(format_.encode())
    for path in paths:
        hashed.update(path.name.encode() + b"\0" + path.read_bytes())
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
SHIPPED = LIBRARY / "rearrangements" / "library.json"


def shipping_off() -> bool:
    """Whether NAPKIN_NO_SHIPPED=1 (tests of the disk cache set it) turns off what is shipped
    with the package: the declared library and its rearrangements (`napkinmath.solving.shipped`)."""
    return os.environ.get("NAPKIN_NO_SHIPPED", "") not in ("", "0")


def read_shipped(path: Path, limit: int) -> object | None:
    """The JSON in `path`, a file shipped with the package, read at most `limit` bytes from a
    regular file; None when it is missing, not a regular file, larger or not JSON."""
    try:
        payload = read_regular_file(
            path,
            noun="file shipped with napkinmath",
            rule="what is shipped is read only from regular files",
            limit=limit,
        )
        return json.loads(payload)
    except (InputError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def shipped() -> dict | None:
    """The shipped library's JSON object (`SHIPPED`, at most `LIMITS["library"]` bytes) when
    it was built from this source (`source_digest`), else None; None too while shipping is
    off (`shipping_off`)."""
    if shipping_off():
        return None
    data = read_shipped(SHIPPED, LIMITS["library"])
    if not isinstance(data, dict) or data.get("napkinmath") != "library":
        return None
    source = source_digest()
    return data if source is not None and data.get("source") == source else None


# --- the library --------------------------------------------------------------------------


def save_once() -> None:
    """Store the declared library unless this source's file is already there and reads."""
    if read("library") is None:
        save()


def save() -> None:
    """Store the declared library (nothing when a part has no stored form), and remove the
    files of other sources that have not been written for `STALE_DAYS`."""
    if declare.user_active():  # the library is stored without your formulas, or not at all
        return
    data = stored.declared()
    if data is None:
        return
    write("library", data)
    prune()


#: files of another source (an older napkinmath) untouched this long are removed; one still in
#: use is written again by its own process, at the cost of declaring its library once
STALE_DAYS = 30


def prune() -> None:
    """Remove entries of other sources untouched for `STALE_DAYS`, and pint's pickled
    registries that napkinmath wrote before it stopped using them (a pickle is code): when
    the library is stored, and when it is read from the shipped file (which stores nothing,
    so that an upgrade from a release with another source still clears what that left)."""
    current: dict[str, Callable[[], str | None]] = {
        "library": digest,
        "inversions": digest,
        "variables": names_digest,
    }
    cutoff = time.time() - STALE_DAYS * 86_400
    for old in disk.entries():  # (the source is hashed only for an entry old enough to go)
        kind, _, key = old.name.removesuffix(".json").removesuffix(".txt").partition("-")
        try:
            if kind == "pint" or (
                kind in current and old.lstat().st_mtime < cutoff and key != current[kind]()
            ):
                shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
        except OSError:
            pass


def load() -> bool:
    """Fill the library's registries from the shipped file, else the stored one; False
    (registries untouched) when neither is there for this source and reads."""
    if declare.VARIABLES or declare.FORMULAS:
        return False
    if stored.fill(shipped()):
        prune()
        return True
    return stored.fill(read("library"))
