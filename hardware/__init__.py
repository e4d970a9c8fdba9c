"""Hardware records: accelerators and their specifications, each value with its source.

Records are data (TOML files in this folder), loaded and checked here. A record's values are
keyed by library variable name where one exists (``peak_flops``, ``gpus_per_node``), so that
``gpu="H100-SXM"`` binds them in a solve; other keys are shown for reference only.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources

import pint

from napkinmath.errors import UnknownNameError
from napkinmath.text.values import parse_quantity

_RECORD_FIELDS = {"name", "kind", "aliases", "note", "source", "url", "date"}
KINDS = ("accelerator", "link", "storage", "model")
_VALUE_FIELDS = {"value", "qualifier", "source", "url", "date", "assumption", "note",
                 "alternatives"}


@dataclass(frozen=True)
class Value:
    """One specification value with its provenance."""

    key: str
    text: str
    source: str
    date: str
    qualifier: str = ""
    url: str = ""
    assumption: bool = False
    note: str = ""
    #: other published figures for the same value, e.g. {"192 GB": "GTC 2024 keynote"}
    alternatives: dict[str, str] = field(default_factory=dict)

    @cached_property
    def quantity(self) -> pint.Quantity:
        """The value as a Quantity, parsed on first use (records load without parsing)."""
        return parse_quantity(self.text)

    def provenance(self) -> str:
        """'dense BF16; NVIDIA H100 datasheet (2023-06)' (whether it is an assumption is
        `assumption`, shown by whoever displays it)."""
        parts = [self.qualifier] if self.qualifier else []
        parts.append(f"{self.source} ({self.date})")
        return "; ".join(parts)

    def label(self) -> str:
        """The provenance, marked 'assumption: ...' when the value is one."""
        return ("assumption: " if self.assumption else "") + self.provenance()


@dataclass(frozen=True)
class Record:
    """A piece of hardware (or a price list) with named values."""

    id: str
    name: str
    kind: str
    values: dict[str, Value]
    aliases: tuple[str, ...] = ()
    note: str = ""


def _normalize(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _load_value(record_id: str, key: str, table: dict, defaults: dict) -> Value:
    unknown = set(table) - _VALUE_FIELDS
    if unknown:
        raise ValueError(f"{record_id}.{key}: unknown fields {sorted(unknown)}")
    source = table.get("source", defaults.get("source", ""))
    date = str(table.get("date", defaults.get("date", "")))
    # a value that cites its own source does not inherit the record's link to another document
    url = table.get("url", "" if "source" in table else defaults.get("url", ""))
    if "value" not in table or not source or not date:
        raise ValueError(f"{record_id}.{key}: every value needs value, source and date")
    return Value(key=key, text=str(table["value"]),
                 source=source, date=date, qualifier=table.get("qualifier", ""),
                 url=url,
                 assumption=bool(table.get("assumption", False)), note=table.get("note", ""),
                 alternatives=dict(table.get("alternatives", {})))


@cache
def records() -> dict[str, Record]:
    """Every hardware record, by id, loaded from the TOML files of this package."""
    loaded: dict[str, Record] = {}
    for item in sorted(resources.files(__name__).iterdir(), key=lambda p: p.name):
        if not item.name.endswith(".toml"):
            continue
        data = tomllib.loads(item.read_text(encoding="utf-8"))
        for record_id, table in data.items():
            defaults = {k: table[k] for k in ("source", "url", "date") if k in table}
            values = {key: _load_value(record_id, key, sub, defaults)
                      for key, sub in table.items() if isinstance(sub, dict)}
            unknown = {k for k, v in table.items() if not isinstance(v, dict)} - _RECORD_FIELDS
            if unknown:
                raise ValueError(f"{record_id}: unknown fields {sorted(unknown)}")
            if record_id in loaded:
                raise ValueError(f"hardware record {record_id!r} is defined twice")
            if table.get("kind", "accelerator") not in KINDS:
                raise ValueError(f"{record_id}: kind must be one of {', '.join(KINDS)}")
            loaded[record_id] = Record(record_id, table.get("name", record_id),
                                       table.get("kind", "accelerator"), values,
                                       tuple(table.get("aliases", ())), table.get("note", ""))
    return loaded


@cache
def _index() -> dict[str, str]:
    index: dict[str, str] = {}
    for record in records().values():
        for name in (record.id, *record.aliases):
            other = index.setdefault(_normalize(name), record.id)
            if other != record.id:
                raise ValueError(f"the name {name!r} belongs to both {other} and {record.id}")
    return index


def get(name: str) -> Record:
    """The record called `name` (case, dashes and spaces ignored; aliases accepted)."""
    record_id = _index().get(_normalize(name))
    if record_id is None:
        known = sorted(records())
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.4)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise UnknownNameError(
            f"unknown hardware {name!r}: {hint}known records are {', '.join(known)} "
            "(list them with `napkin hardware`)")
    return records()[record_id]
