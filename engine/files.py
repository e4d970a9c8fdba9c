"""Reading a file named by the user, safely: only a regular file, at most a given size,
never blocking. A FIFO, a device (/dev/zero), a directory or a pseudo-file of /proc or /sys
(which would print the process environment) is refused before anything is read, and no
error quotes what a refused file holds.

    data = read_regular_file("ours.toml", noun="records file", limit=5_000_000,
                             rule="records are read only from regular files")
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from napkinmath.errors import InputError
from napkinmath.text.visible import visible


def read_regular_file(path: str | Path, *, noun: str, rule: str, limit: int,
                      shown: str | None = None) -> bytes:
    """The bytes of the file `path`, or an InputError that names it (`shown`, else the path
    with its control characters escaped): "no such {noun}", "not a regular file (a FIFO, a
    named pipe); {rule}", "larger than {limit} bytes; a {noun} is limited to {limit}"."""
    shown = visible(str(path)) if shown is None else shown
    real = os.path.realpath(path)
    for top in ("/proc", "/sys"):  # "regular" files there have size 0 and secret contents
        if real == top or real.startswith(top + os.sep):
            raise InputError(f"{shown}: not a regular file (a pseudo-file of {top}); {rule}")
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO without a writer returns
    except FileNotFoundError:
        raise InputError(f"no such {noun}: {shown}") from None
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or type(exc).__name__}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown}: not a regular file ({file_kind(info.st_mode)}); {rule}")
        if info.st_size > limit:
            raise InputError(f"{shown}: larger than {limit:,} bytes ({info.st_size:,}); a "
                             f"{noun} is limited to {limit:,}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or type(exc).__name__}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputError(f"{shown}: larger than {limit:,} bytes; a {noun} is limited to "
                         f"{limit:,}")
    if info.st_size == 0 and size:  # a "regular" file of size 0 with contents: /proc-like
        raise InputError(f"{shown}: not a regular file (a pseudo-file: its size is 0 but it "
                         f"has contents); {rule}")
    return b"".join(chunks)


def file_kind(mode: int) -> str:
    """'a directory', 'a FIFO, a named pipe', ... for a file that is not a regular one."""
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO, a named pipe"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "an unusual kind of file")
