"""The on-disk cache: one place that decides where it is, what may be read from it and how.

napkinmath keeps what it can recompute (the declared library, the library's variable names,
sympy's rearrangements) in ``$XDG_CACHE_HOME/napkinmath`` (a relative ``XDG_CACHE_HOME`` is
ignored, as the XDG convention says), else ``~/.cache/napkinmath``. Nothing read from it is
believed until it is checked, and nothing read from it is ever code:

* The folder is used only when it is a directory that this user owns and that neither group
  nor others may write (napkinmath creates it with mode 0700); otherwise there is no cache.
* An entry is opened without following a symbolic link and without blocking, and read only
  when it is a regular file of at most its kind's size limit (a FIFO, a device, a link to
  /dev/zero or an oversized file is removed, never read).
* An entry is a header line and a payload. The header names the format, the source digest the
  entry was made for (a hash of the library's source: see `napkinmath.catalog.snapshot`) and
  a SHA-256 of that digest, the entry's name and the payload. An entry whose header does not
  read, whose source is not the current one, or whose digest does not match its payload (cut
  short, edited, moved from another entry's name) is removed and rebuilt by its caller.
* Payloads are JSON or plain text, parsed by their callers into data that is checked node by
  node (`napkinmath.library.tree.from_json`); pickles are never written or read.

The digest catches an entry that is damaged, edited by hand or by a tool, or copied from
another entry or source. It is not a signature: someone who can write this user's cache folder
can write a consistent entry, just as they could write this user's other files; such an entry
is still only data (a wrong formula, never code), which is why the folder must be the user's
alone. Writes are atomic (a temporary file in the folder, then a rename) and private (mode
0600); where the folder cannot be written the work is simply done again.

    payload = cache.read("library-KEY", source=KEY, limit=LIBRARY_BYTES)
    cache.write("library-KEY", source=KEY, payload=b"...")

With ``NAPKIN_NO_CACHE=1`` nothing is read or written (`napkinmath.caches`, which also lists
the in-memory caches; `clear` removes every entry).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from pathlib import Path

from napkinmath import caches

#: bump when the header's layout changes
FORMAT = "napkinmath-cache-1"
#: the longest header line read (format, name-free digests and a length)
_HEADER_BYTES = 200


def folder() -> Path | None:
    """The cache folder's path (which may not exist yet), or None when there is no absolute
    place for it (no usable ``XDG_CACHE_HOME`` and no absolute home directory)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored (XDG base directories)
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base, "napkinmath")


def _trusted(path: Path) -> bool:
    """Whether `path` is a directory this user owns that group and others cannot write."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    owner_ok = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISDIR(info.st_mode) and owner_ok and not info.st_mode & 0o022


def _place(name: str) -> Path | None:
    """The path of entry `name` ('library-KEY' or 'inversions-KEY/roots-HASH'), or None when
    the cache (or the entry's subfolder) is not usable."""
    top = folder()
    if top is None or not _trusted(top):
        return None
    where = top / name
    if where.parent != top and not _trusted(where.parent):
        return None
    return where


def _seal(source: str, name: str, payload: bytes) -> str:
    hashed = hashlib.sha256(f"{FORMAT}\0{source}\0{name}\0".encode())
    hashed.update(payload)
    return hashed.hexdigest()


def read(name: str, *, source: str, limit: int) -> bytes | None:
    """The payload of entry `name` made for `source`, or None when it is absent or fails a
    check (then it is removed, so that the caller's rebuilt entry takes its place)."""
    if not caches.ENABLED:
        return None
    where = _place(name)
    if where is None:
        return None
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_NOCTTY", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    try:
        fd = os.open(where, flags)
    except FileNotFoundError:
        return None
    except OSError:  # a symbolic link (ELOOP), a FIFO we may not open, a permission
        _remove(where)
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit + _HEADER_BYTES:
            data = None
        else:
            data = _read_at_most(fd, limit + _HEADER_BYTES)
    except OSError:
        data = None
    finally:
        os.close(fd)
    payload = None if data is None else _opened(data, source, name)
    if payload is None or len(payload) > limit:
        _remove(where)
        return None
    return payload


def _read_at_most(fd: int, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return None if size > limit else b"".join(chunks)


def _opened(data: bytes, source: str, name: str) -> bytes | None:
    """The payload of an entry's bytes when its header matches, else None."""
    header, newline, payload = data.partition(b"\n")
    if not newline or len(header) > _HEADER_BYTES:
        return None
    fields = header.split(b" ")
    if len(fields) != 4 or fields[0] != FORMAT.encode() or fields[1] != source.encode():
        return None
    if (
        fields[2] != str(len(payload)).encode()
        or fields[3] != _seal(source, name, payload).encode()
    ):
        return None
    return payload


def write(name: str, *, source: str, payload: bytes) -> None:
    """Store `payload` as entry `name` for `source`: whole, atomically, readable only by this
    user; nothing happens where the cache folder cannot be made or written."""
    top = folder()
    if top is None or not caches.ENABLED:
        return
    where = top / name
    try:
        for part in (top, where.parent) if where.parent != top else (top,):
            if not part.exists():  # made private; an existing folder is checked as it is
                part.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _trusted(part):
                return
        header = f"{FORMAT} {source} {len(payload)} {_seal(source, name, payload)}\n"
        handle, temporary = tempfile.mkstemp(dir=where.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(header.encode() + payload)
            os.replace(temporary, where)  # replaces a link or a FIFO; never writes through one
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError:
        pass


def _remove(where: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(where)  # a file, a link or a FIFO; a directory stays (and stays unread)


def entries() -> list[Path]:
    """The names in the cache folder (for pruning), or [] when it is not usable."""
    top = folder()
    if top is None or not _trusted(top):
        return []
    try:
        return sorted(top.iterdir())
    except OSError:
        return []


def clear() -> None:
    """Remove every entry of the cache folder (its subfolders of entries included); the
    folder itself stays."""
    import shutil

    for path in entries():
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
