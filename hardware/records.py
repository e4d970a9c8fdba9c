"""The records' format and the shipped records: a record's fields and values (`Record`,
`Value`), reading and checking a records file (`load_toml`), the names that find a record
(`build_index`), and the records shipped in this folder, parsed whole once (`shipped`,
`shown`). Which records are in force, and looking one up, is `napkinmath.hardware`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import TYPE_CHECKING

from napkinmath import caches

if TYPE_CHECKING:
    import pint

RECORD_FIELDS = {"name", "kind", "aliases", "note", "source", "url", "date"}
KINDS = ("accelerator", "link", "storage", "model")
_VALUE_FIELDS = {
    "value",
    "qualifier",
    "source",
    "url",
    "date",
    "assumption",
    "note",
    "alternatives",
}

#: Record keys that are deliberately no library variable: shown by `napkin hardware` and
#: readable as ``RECORD.key`` in `napkin check` expressions, but bound to nothing in a solve,
#: because no formula reads them. Every other key must be a library variable (`nm.variables()`).
#: Add a key here only with the reason it is reference-only; a key a formula should read
#: belongs in `napkinmath.formulas` as a variable instead.
METADATA_KEYS: dict[str, str] = {
    # DeepSeek-V3 MLA: per-head query/key width without RoPE. The MLA KV cache holds the
    # compressed latent and the RoPE key (kv_lora_rank, qk_rope_head_dim), not this.
    "qk_nope_head_dim": "MLA per-head query/key width without RoPE (not cached; reference)",
    # DeepSeek-V3 MLA: per-head value width, likewise absent from the cache formula.
    "v_head_dim": "MLA per-head value width (not cached; reference)",
    # S3: request-rate ceilings per partitioned prefix. storage_bandwidth carries the estimate
    # derived from them; no formula counts requests per second of an object store.
    "read_request_rate": "object-store GET/HEAD ceiling per prefix (reference)",
    "write_request_rate": "object-store PUT/COPY/POST/DELETE ceiling per prefix (reference)",
    # Meta's Tectonic: the burst peak beside the sustained storage_bandwidth, which is what
    # the formulas read; the peak is shown so the two are not confused.
    "storage_peak_bandwidth": "peak (burst) throughput beside the sustained figure (reference)",
    # Dense INT4 tensor peaks (A10, A40, RTX 4090, MI250X datasheets). No precision selects
    # them: 4-bit weights (weight_bytes_per_param = 0.5) are usually dequantized onto BF16 or
    # FP8 matmuls, so an "int4" precision picking this peak would overstate the compute.
    "peak_flops_int4": "peak dense INT4 tensor throughput (reference: no precision selects it)",
}


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
    #: where a user's value is written ("prices.toml:3"); "" for a shipped record
    origin: str = ""

    @cached_property
    def quantity(self) -> pint.Quantity:
        """The value as a Quantity, parsed on first use (records load without parsing)."""
        from napkinmath.text.values import parse_quantity

        return parse_quantity(self.text)

    def provenance(self) -> str:
        """'dense BF16; NVIDIA H100 datasheet (2023-06)'; a user's value adds where it is
        written: '...; ACME contract (2026-10, your record prices.toml:3)' (whether it
        is an assumption is `assumption`, shown by whoever displays it)."""
        parts = [self.qualifier] if self.qualifier else []
        mine = f", your record {self.origin}" if self.origin else ""
        dated = f" ({self.date}{mine})" if self.date or mine else ""
        parts.append(f"{self.source}{dated}")
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
    #: the user's records file that defined or changed this record; "" for a shipped one
    origin: str = ""


class RecordError(ValueError):
    """A record that fails a check, with the record id and key it concerns (to find its line)."""

    def __init__(self, message: str, record_id: str, key: str | None = None) -> None:
        super().__init__(message)
        self.record_id, self.key = record_id, key


def normalized_name(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


#: the TOML types each field takes, and how a message names them
_TEXT, _DATE = (str,), (str, int, _dt.date)
_FIELD_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "name": (_TEXT, "text"),
    "kind": (_TEXT, "text"),
    "note": (_TEXT, "text"),
    "source": (_TEXT, "text"),
    "url": (_TEXT, "text"),
    "qualifier": (_TEXT, "text"),
    "date": (_DATE, 'a date such as "2026-10"'),
    "assumption": ((bool,), "true or false"),
    "value": ((str, int, float), 'a value with its unit, such as "989 TFLOP/(s*GPU)"'),
}


def _toml_type(value: object) -> str:
    """How a TOML value is named in a message: 'a table', 'an array', 'a number', ..."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return (
            "an array of tables"
            if value and all(isinstance(v, dict) for v in value)
            else "an array"
        )
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a date or time" if isinstance(value, (_dt.date, _dt.time)) else "a value"


def _check_fields(where: str, table: dict, record_id: str, key: str | None) -> None:
    """Each field of a record or value table of the type it takes (RecordError if not)."""
    fields = RECORD_FIELDS if key is None else _VALUE_FIELDS
    for name, value in table.items():
        if name in fields and name in _FIELD_TYPES:
            types, wanted = _FIELD_TYPES[name]
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                raise RecordError(
                    f"{where}.{name}: expected {wanted}, got {_toml_type(value)}",
                    record_id,
                    key or name,
                )
    aliases = table.get("aliases")
    if (
        key is None
        and aliases is not None
        and not (isinstance(aliases, list) and all(isinstance(a, str) for a in aliases))
    ):
        raise RecordError(
            f"{where}.aliases: expected an array of names, such as "
            f'aliases = ["X1"], got {_toml_type(aliases)}',
            record_id,
            "aliases",
        )
    alternatives = table.get("alternatives")
    if (
        key is not None
        and alternatives is not None
        and not (
            isinstance(alternatives, dict)
            and all(isinstance(v, str) for v in alternatives.values())
        )
    ):
        raise RecordError(
            f"{where}.alternatives: expected a table of other published figures "
            f'and where each is published, such as {{ "192 GB" = "GTC 2024 '
            f'keynote" }}, got {_toml_type(alternatives)}',
            record_id,
            key,
        )


def _load_value(record_id: str, key: str, table: dict, defaults: dict) -> Value:
    unknown = set(table) - _VALUE_FIELDS
    if unknown:
        raise RecordError(
            f"{record_id}.{key}: unknown fields {sorted(unknown)} (a value "
            f"takes {', '.join(sorted(_VALUE_FIELDS))})",
            record_id,
            key,
        )
    _check_fields(f"{record_id}.{key}", table, record_id, key)
    source = table.get("source", defaults.get("source", ""))
    date = str(table.get("date", defaults.get("date", "")))
    # a value that cites its own source does not inherit the record's link to another document
    url = table.get("url", "" if "source" in table else defaults.get("url", ""))
    if "value" not in table or not source or not date:
        raise RecordError(
            f"{record_id}.{key}: every value needs value, source and date", record_id, key
        )
    return Value(
        key=key,
        text=str(table["value"]),
        source=source,
        date=date,
        qualifier=table.get("qualifier", ""),
        url=url,
        assumption=bool(table.get("assumption", False)),
        note=table.get("note", ""),
        alternatives=dict(table.get("alternatives", {})),
    )


def check_keys(record_id: str, keys: Iterable[str]) -> None:
    """Refuse a record key that is neither a library variable nor in `METADATA_KEYS`.

    Raises ValueError naming the record, the key and the closest variable name, e.g. for
    ``n_experts_per_token``: "did you mean experts_per_token?".
    """
    from napkinmath.catalog.lookup import variables

    known = variables()
    for key in keys:
        if key in known or key in METADATA_KEYS:
            continue
        import difflib

        close = difflib.get_close_matches(key, [*known, *METADATA_KEYS], n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]}?" if close else " (`napkin vars` lists the variables)"
        raise RecordError(
            f"hardware record {record_id!r}: key {key!r} is no library variable, so it would "
            f"bind nothing in a solve{hint} (a reference-only key must be declared in "
            "napkinmath.hardware.METADATA_KEYS with its reason)",
            record_id,
            key,
        )


def load_toml(
    text: str | dict, loaded: dict[str, Record] | None = None, *, keys: bool = True
) -> dict[str, Record]:
    """The records of one TOML document (its text, or its table as parsed), checked, added
    to `loaded` (a new dict if None).

    Raises ValueError for an unknown field, a value without value/source/date, a record
    defined twice, an unknown kind, or (unless not `keys`) a key that binds nothing
    (`check_keys`, which loads the formula library)."""
    import tomllib  # here, not at import: a shipped record's file is parsed only when needed

    loaded = {} if loaded is None else loaded
    document = tomllib.loads(text) if isinstance(text, str) else text
    for record_id, table in document.items():
        if not isinstance(table, dict):
            raise RecordError(_not_a_record(record_id, table), record_id)
        _check_fields(record_id, table, record_id, None)
        defaults = {k: table[k] for k in ("source", "url", "date") if k in table}
        values = {
            key: _load_value(record_id, key, sub, defaults)
            for key, sub in table.items()
            if isinstance(sub, dict)
        }
        unknown = {k for k, v in table.items() if not isinstance(v, dict)} - RECORD_FIELDS
        if unknown:
            first = sorted(unknown)[0]
            raise RecordError(
                f"{record_id}: unknown fields {sorted(unknown)} (a record takes "
                f"{', '.join(sorted(RECORD_FIELDS))} and value tables, each "
                f"its own table: [{record_id}.{first}] with value, source and "
                f"date; {first} here is {_toml_type(table[first])})",
                record_id,
                first,
            )
        if record_id in loaded:
            raise RecordError(f"hardware record {record_id!r} is defined twice", record_id)
        if table.get("kind", "accelerator") not in KINDS:
            raise RecordError(
                f"{record_id}: kind must be one of {', '.join(KINDS)}", record_id, "kind"
            )
        if keys:
            check_keys(record_id, values)
        loaded[record_id] = Record(
            record_id,
            table.get("name", record_id),
            table.get("kind", "accelerator"),
            values,
            tuple(table.get("aliases", ())),
            table.get("note", ""),
        )
    return loaded


def _not_a_record(name: str, value: object) -> str:
    """Why a top-level TOML value is no record: ``[[accelerator]]`` (an array of tables),
    ``x = 1`` outside any table."""
    shape = (
        "a record is one table named by its id, [H100-SXM], with name, kind, source, "
        "date and a table for each value, [H100-SXM.peak_flops] with value, source and "
        "date (the format of napkinmath's hardware/*.toml)"
    )
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return f"[[{name}]] is an array of tables; {shape}"
    return f"{name} is {_toml_type(value)} outside any table; {shape}"


@caches.memo(
    None,
    invalidated_by=caches.SHIPPED,
    fixed=True,
    reason="the shipped records checked against the library once per process; every record a "
    "question names reads it (185 reads in tools/cache_value.py's workload) (2026-12-07, "
    "2 cores)",
)
def shipped() -> dict[str, Record]:
    """The records shipped with napkinmath, by id, their keys checked against the library."""
    loaded = shown()
    for record in loaded.values():
        check_keys(record.id, record.values)
    return loaded


def shown() -> dict[str, Record]:
    """The shipped records, for display: as `shipped`, without checking the keys against the
    formula library (so `napkin hardware` loads no formulas; `shipped` checks them)."""
    return _read()[0]


def shipped_index() -> dict[str, str]:
    """The shipped records' names and aliases, normalized, to their ids (`build_index`)."""
    return _read()[1]


@caches.memo(
    None,
    invalidated_by=caches.SHIPPED,
    fixed=True,
    reason="the shipped records files parsed once per process (39 ms); every record looked up "
    "reads them (124 reads in tools/cache_value.py's workload, 4.9 s) (2026-12-07, 2 "
    "cores)",
)
def _read() -> tuple[dict[str, Record], dict[str, str]]:
    """Every shipped record by id, the files parsed whole in name order, unchecked against
    the library, and the index of their names and aliases (`build_index`)."""
    loaded: dict[str, Record] = {}
    package = resources.files("napkinmath.hardware")
    for name in sorted(item.name for item in package.iterdir() if item.name.endswith(".toml")):
        text = package.joinpath(name).read_text("utf-8")
        for record_id, record in load_toml(text, keys=False).items():
            if record_id in loaded:
                raise RecordError(f"hardware record {record_id!r} is defined twice", record_id)
            loaded[record_id] = record
    return loaded, build_index(loaded.values())


def shipped_record(record_id: str, checked: bool) -> Record:
    """The shipped record `record_id`; with `checked`, from the records whose keys were
    checked against the library once (`shipped`)."""
    return (shipped() if checked else shown())[record_id]


@dataclass(frozen=True, eq=False)
class Overlay:
    """The shipped records with a user's records files laid over them (`using`)."""

    records: dict[str, Record]
    index: dict[str, str]
    files: tuple[str, ...]


def build_index(loaded: Iterable[Record]) -> dict[str, str]:
    """Normalized names and aliases -> record id; a name of two records is an error."""
    return _build_index((record.id, record.aliases) for record in loaded)


def _build_index(names: Iterable[tuple[str, tuple[str, ...]]]) -> dict[str, str]:
    index: dict[str, str] = {}
    for record_id, aliases in names:
        for name in (record_id, *aliases):
            other = index.setdefault(normalized_name(name), record_id)
            if other != record_id:
                raise ValueError(f"the name {name!r} belongs to both {other} and {record_id}")
    return index
