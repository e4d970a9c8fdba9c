"""Hardware records: accelerators and their specifications, each value with its source;
which records are in force (the shipped ones, or yours laid over them: `using`) and looking
one up by name or alias (`find`, `get`).

Records are data (TOML files in this folder), loaded and checked here. A record's values are
keyed by library variable name (``peak_flops``, ``gpus_per_node``), so that ``gpu="H100-SXM"``
binds them in a solve. A key that names no variable would bind nothing, silently (a record
that says ``n_experts_per_token`` where the formulas read ``experts_per_token``), so the
loader refuses it unless it is declared reference-only metadata in `METADATA_KEYS`. The
format and the shipped records are `napkinmath.hardware.records`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from napkinmath import arguments, caches
from napkinmath.errors import UnknownNameError
from napkinmath.hardware.records import KINDS as KINDS
from napkinmath.hardware.records import METADATA_KEYS as METADATA_KEYS
from napkinmath.hardware.records import RECORD_FIELDS as RECORD_FIELDS
from napkinmath.hardware.records import Overlay as Overlay
from napkinmath.hardware.records import Record as Record
from napkinmath.hardware.records import RecordError as RecordError
from napkinmath.hardware.records import Value as Value
from napkinmath.hardware.records import build_index as build_index
from napkinmath.hardware.records import check_keys as check_keys
from napkinmath.hardware.records import load_toml as load_toml
from napkinmath.hardware.records import normalized_name as normalized_name
from napkinmath.hardware.records import shipped as shipped
from napkinmath.hardware.records import shipped_index, shipped_record
from napkinmath.hardware.records import shown as shown
from napkinmath.text.visible import quoted

_ACTIVE: ContextVar[Overlay | None] = ContextVar("napkinmath_user_records", default=None)


def records() -> dict[str, Record]:
    """Every record, by id: the shipped ones and, inside `using`, the user's laid over them."""
    active = _ACTIVE.get()
    return shipped() if active is None else active.records


def listed() -> dict[str, Record]:
    """Every record, for display: `records` inside `using`, else the shipped ones unchecked
    (`shown`: no formulas loaded)."""
    active = _ACTIVE.get()
    return shown() if active is None else active.records


def scope() -> Overlay | None:
    """The user records in force (None: only the shipped ones), for keying caches."""
    return _ACTIVE.get()


caches.scope_by(caches.RECORDS, _ACTIVE.get)  # `scope`, the ContextVar's own getter


@contextmanager
def using(paths: object) -> Iterator[Overlay | None]:
    """Lay the user's records files `paths` (a path or a list of paths; None: none) over the
    shipped records for the duration of the block; see `napkinmath.hardware.user`."""
    if paths is None:
        yield _ACTIVE.get()
        return
    from napkinmath.hardware.user import overlay

    token = _ACTIVE.set(overlay(paths))
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)


def find(name: str) -> str | None:
    """The id of the record called `name` (case, dashes and spaces ignored), or None."""
    name = arguments.name(
        name, "name", kind="hardware record", example="H100", listing="napkin hardware"
    )
    active = _ACTIVE.get()
    index = shipped_index() if active is None else active.index
    return index.get(normalized_name(name))


def get(name: str, *, checked: bool = True) -> Record:
    """The record called `name` (case, dashes and spaces ignored; aliases accepted); for
    display, without `checked`, the shipped records' keys are not checked against the library
    (see `shown`)."""
    checked = arguments.flag(checked, "checked")
    record_id = find(name)
    if record_id is None:
        import difflib

        known = sorted(listed())
        close = (
            []
            if arguments.is_long(name)
            else difflib.get_close_matches(name, known, n=3, cutoff=0.4)
        )
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise UnknownNameError(
            f"unknown hardware {quoted(name)}: {hint}known records are {', '.join(known)} "
            "(list them with `napkin hardware`)"
        )
    active = _ACTIVE.get()
    if active is not None:
        return active.records[record_id]
    return shipped_record(record_id, checked)
