"""The library's variable names without declaring the library (no sympy, no formulas).

`napkin check` of an expression in units only needs to know which names are variables. The
names are kept in the user's cache directory (``$XDG_CACHE_HOME/napkinmath``, else
``~/.cache/napkinmath``) in a file keyed by a hash of the library's source (the formula
modules, the declaration code and the unit definitions), so that any change to the library
makes a new key. A missing or unreadable file is recomputed by declaring the library; the
file is written atomically (two processes may race: each writes a whole file), and an
unwritable directory only means the names are computed each time.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import tempfile
from functools import cache
from pathlib import Path

_FORMAT = "1"  # bump when the file's layout changes


def _sources() -> list[Path]:
    """The files whose content decides the variable names."""
    here = Path(__file__).resolve().parent
    spec = importlib.util.find_spec("napkinmath.formulas")  # imports no formula
    folders = list(spec.submodule_search_locations or []) if spec else []
    found = [p for folder in folders for p in Path(folder).glob("*.py")]
    found += [here / "declare.py", here.parent / "units.txt"]
    return sorted(found, key=lambda p: (p.name, str(p)))


def source_digest() -> str:
    """A hash of the library's source (see `_sources`)."""
    digest = hashlib.sha256(_FORMAT.encode())
    for path in _sources():
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def cache_dir() -> Path:
    """Where napkinmath keeps what it can recompute."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "napkinmath")


@cache
def variable_names() -> frozenset[str]:
    """Every library variable's name: from the cache when it matches the source, else by
    declaring the library (and writing the cache)."""
    try:
        path = cache_dir() / f"variables-{source_digest()}.txt"
    except OSError:  # a source file cannot be read: no key, no cache
        path = None
    if path is not None:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            if lines and lines[0] == "napkinmath variables" and len(lines) > 1:
                return frozenset(lines[1:])
        except (OSError, UnicodeDecodeError):
            pass
    from napkinmath.library.lookup import variables

    names = frozenset(variables())
    if path is not None:
        _write(path, "\n".join(["napkinmath variables", *sorted(names)]) + "\n")
    return names


def _write(path: Path, text: str) -> None:
    """Write `text` to `path` atomically; give up silently where the folder is unwritable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError:
        pass
