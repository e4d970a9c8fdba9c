"""Writing an output file named by the user, safely: never over an input of the same
command, never through a symbolic link, and atomically.

    write_output("grid.csv", text, inputs=[("records file", "ours.toml")])

* An output that is the same file as an input (the plan file, a records file: compared by
  device and inode, so another spelling or a hard link is caught too) is refused.
* A symbolic link at the output path is refused, as ``O_NOFOLLOW`` would: a link planted where
  a report is written (a shared folder, a checkout) cannot aim the write at another file.
  A link to a character device or a pipe (``/dev/stdout``) is followed: writing there
  replaces nothing.
* A regular file is written to a new file beside it and renamed over it (``os.replace``),
  so that a failed write (a full disk, Ctrl-C) leaves the old file whole and no reader sees
  half a report; an existing file keeps its permissions. A character device (``/dev/null``)
  or a pipe with a reader is written in place; a pipe without a reader is an error, never a
  wait.
* OSErrors name the output path, never the temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from napkinmath.errors import InputError
from napkinmath.text.visible import visible

#: (what it is, its path): "plan file", "records file", ...
Inputs = Iterable[tuple[str, "str | Path"]]


def write_output(path: str | Path, data: str | bytes, *, inputs: Inputs = ()) -> None:
    """Write `data` (text as UTF-8) to `path` as the module says, or raise an InputError (an
    input, a link, a directory) or an OSError naming `path`."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if check_output(path, inputs) == "stream":
        _write_stream(os.fspath(path), payload)
    else:
        _write_replacing(os.fspath(path), payload)


def check_output(path: str | Path, inputs: Inputs = ()) -> str:
    """'file' (a regular file, or none yet) or 'stream' (a character device, a pipe): where
    `path` may be written; an InputError if it is an input, a link, or no file to write."""
    name = os.fspath(path)
    shown = visible(name)
    if not name or "\x00" in name:
        raise InputError(f"{shown!r}: not a file name for the output")
    try:
        info = os.lstat(name)
    except FileNotFoundError:
        return "file"
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from None
    if stat.S_ISLNK(info.st_mode):
        try:
            target = os.stat(name)
        except OSError:
            target = None
        if target is not None and (stat.S_ISCHR(target.st_mode) or stat.S_ISFIFO(target.st_mode)):
            return "stream"
        raise InputError(
            f"{shown} is a symbolic link (to {visible(os.readlink(name))}); "
            "napkin writes no output through a link, so that no link can aim it "
            "at another file: remove the link, or give the path of the file "
            "itself"
        )
    if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
        return "stream"
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{shown} is a directory; give a file name for the output")
    if not stat.S_ISREG(info.st_mode):
        from napkinmath.files import file_kind

        raise InputError(
            f"{shown} is {file_kind(info.st_mode)}; napkin writes an output only "
            "to a regular file, a character device (/dev/null) or a pipe"
        )
    for role, source in inputs:
        if _same(name, source):
            also = (
                ""
                if os.fspath(source) == name
                else f" ({visible(os.fspath(source))}, by another name)"
            )
            raise InputError(
                f"{shown} is this command's {role}{also}: writing the output "
                "there would overwrite it; give another file for the output"
            )
    return "file"


def check_distinct(paths: Iterable[str | Path | None]) -> None:
    """An InputError when two of a command's outputs (--csv, --json, --plot) are one file:
    the second would overwrite the first."""
    seen: list[str] = []
    for path in paths:
        if not path:
            continue
        name = os.fspath(path)
        for other in seen:
            if os.path.abspath(other) == os.path.abspath(name) or _same(other, name):
                raise InputError(
                    f"{visible(name)} is named for two outputs of this command: "
                    "the second would overwrite the first; give each its own file"
                )
        seen.append(name)


def _same(one: str | Path, other: str | Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except (OSError, ValueError):
        return False


def _write_replacing(name: str, payload: bytes) -> None:
    """Write a new file beside `name`, then rename it over `name` (which may not exist)."""
    folder = os.path.dirname(os.path.abspath(name))
    flags = (
        os.O_WRONLY
        | os.O_CREAT
        | os.O_EXCL
        | getattr(os, "O_CLOEXEC", 0)
        | getattr(os, "O_NOFOLLOW", 0)
    )
    try:
        mode = stat.S_IMODE(os.stat(name).st_mode)
    except OSError:
        mode = None  # a new file: 0o666 less the umask, as open() gives
    temp = ""
    try:
        fd = -1
        for _ in range(100):  # a random name: taken only by a freak
            candidate = os.path.join(folder, f".napkin-{secrets.token_hex(6)}.tmp")
            try:
                fd = os.open(candidate, flags, 0o666)
            except FileExistsError:
                continue
            temp = candidate
            break
        if fd < 0:
            raise FileExistsError(errno.EEXIST, "no free name for a temporary file")
        try:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            _write_all(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name)
        temp = ""
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from None
    finally:
        if temp:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _write_stream(name: str, payload: bytes) -> None:
    """Write into a character device or a pipe, in place; a pipe without a reader fails
    at once (the non-blocking open) instead of waiting."""
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO opened for writing with no reader
            raise InputError(
                f"{visible(name)} is a pipe that no process reads; start its "
                "reader first, or write to a file"
            ) from None
        raise OSError(exc.errno, exc.strerror, name) from None
    try:
        os.set_blocking(fd, True)
        _write_all(fd, payload)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        raise OSError(exc.errno, exc.strerror, name) from None
    finally:
        os.close(fd)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]
