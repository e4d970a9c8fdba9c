"""Record values inside a given's text, written RECORD.key ("H100-SXM.peak_flops"): the
records text/ reads them from.

The records live above text/ (`napkinmath.hardware` parses its values with text/), so text/
imports none: the package passes their lookup in when it is imported (`use`, called once in
`napkinmath/__init__.py`), and text/ reads a record through the two Protocols below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from napkinmath.errors import NapkinError

if TYPE_CHECKING:
    import pint


class RecordValue(Protocol):
    """One value of a record (`napkinmath.hardware.Value`)."""

    @property
    def source(self) -> str: ...

    @property
    def date(self) -> str: ...

    @property
    def quantity(self) -> pint.Quantity: ...

    def provenance(self) -> str: ...


class Record(Protocol):
    """A record (`napkinmath.hardware.Record`): its id and its values by key."""

    @property
    def id(self) -> str: ...

    @property
    def values(self) -> Mapping[str, RecordValue]: ...


_lookup: Callable[[str], Record] | None = None


def use(lookup: Callable[[str], Record]) -> None:
    """Read records through `lookup` (a record's name or alias to the record in force, or
    an UnknownNameError): set once by the package as it is imported."""
    global _lookup
    _lookup = lookup


def record(name: str) -> Record:
    """The record called `name`, as the records in force hold it."""
    if _lookup is None:  # only if text/ were used without the package's __init__
        raise NapkinError(f"{name!r}: no records to read RECORD.key values from")
    return _lookup(name)
