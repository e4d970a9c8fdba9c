"""The user's records files in force for one question (``records=``, ``--records FILE``).

    with user_records("ours.toml"):
        nm.solve("train_cost", ..., gpu="our-gpu")

`napkinmath.hardware.using` lays the files over the shipped records for the block; here the
caches that hold values read from records by text ("H100-SXM.peak_flops" given as a value)
are emptied on the way in and out, so that no answer mixes the two sets.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def user_records(paths: object) -> Iterator[None]:
    """Lay the records files `paths` (a path, a list of paths, or None for none) over the
    shipped records while the block runs."""
    if paths is None:
        yield
        return
    from napkinmath.hardware import using

    with using(paths):
        _clear()
        try:
            yield
        finally:
            _clear()


def _clear() -> None:
    from napkinmath.solving import solver
    from napkinmath.text.values import parse_quantity

    parse_quantity.cache_clear()
    solver._cached_given.cache_clear()
