"""The user's own records: TOML files in the format of ``hardware/*.toml``, laid over the shipped.

    napkin solve train_cost ... --gpu our-gpu --records ours.toml
    nm.solve("train_cost", ..., gpu="H100", records="prices.toml")

A file is checked by the shipped loader (`load_toml`: unknown fields and keys, values without
value, source and date) and, unlike the shipped files, every value is parsed at once (a bad
unit, a dimension that does not fit the key); each failure is an `InputError` naming the file
and line. A record named like a shipped one (its id or an alias) changes that record: your
values replace the shipped values of the same key and the others stay, with their sources;
any other name is a new record. Your values are labelled as yours in every derivation
("H100-SXM: ...; ACME contract (2026-10, your record prices.toml:3)"). Of several files, a
later one wins.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from napkinmath import arguments, caches
from napkinmath.errors import InputError, NapkinError
from napkinmath.hardware.records import (
    METADATA_KEYS,
    RECORD_FIELDS,
    Overlay,
    Record,
    RecordError,
    build_index,
    load_toml,
    normalized_name,
    shipped,
)
from napkinmath.text.visible import visible

if TYPE_CHECKING:
    from napkinmath.files import Document

_HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
#: the largest records file read (a records file holds a few hundred lines, some 20 kB)
MAX_FILE_BYTES = 1_000_000
_ASSIGN = re.compile(r"^\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)\s*=")


def overlay(paths: object) -> Overlay:
    """The shipped records with the files `paths` (a path or a list of paths) laid over them."""
    files = record_paths(paths)
    stamps: list[tuple[str, object, object]] = []
    for path in files:
        if path.lower().endswith(".json"):  # a config.json, and the index beside it
            stamps.append((path, _stamp(path), _stamp(_index_of(path))))
            continue
        try:
            info = os.stat(path)
        except OSError as exc:
            raise InputError(
                f"records file {path}: {exc.strerror or exc}; give the path of a "
                "TOML file in the format of napkinmath's hardware/*.toml",
                "records",
            ) from None
        stamps.append((path, info.st_mtime_ns, info.st_size))
    return _overlay(tuple(stamps))


def _index_of(path: str) -> str:
    return os.path.join(os.path.dirname(path), "model.safetensors.index.json")


def _stamp(path: str) -> tuple[int, int] | None:
    """A file's time and size (None: no such file; the reader says why, if it is needed)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def record_paths(paths: object) -> tuple[str, ...]:
    """`paths` (a path or a non-empty list of paths) as absolute paths, or an InputError."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if (
        not isinstance(paths, (list, tuple))
        or not paths
        or not all(isinstance(p, (str, os.PathLike)) for p in paths)
    ):
        raise InputError(
            f"records={arguments.shown(paths)}: expected the path of a TOML "
            "records file, or a list of paths",
            "records",
        )
    what = "the path of a TOML records file"
    return tuple(os.path.abspath(arguments.path(p, "records", what=what)) for p in paths)


@caches.memo(
    32,
    invalidated_by="a change of a records file: keyed by its path, size and time",
    reason="your records files read once per change of their stamps: a solve with --records "
    "reads them on every call (2026-12-07, 2 cores)",
)
def _overlay(stamps: tuple[tuple[str, object, object], ...]) -> Overlay:
    merged = dict(shipped())
    index = build_index(merged.values())
    for path, _, _ in stamps:
        found, explicit = _load(path)
        for record in found.values():
            _lay(record, merged, index, record.id in explicit)
    return Overlay(merged, build_index(merged.values()), tuple(p for p, _, _ in stamps))


def _lay(
    record: Record, merged: dict[str, Record], index: dict[str, str], explicit_kind: bool
) -> None:
    """Add `record` to `merged`, or lay its values over the record of the same name."""
    target = index.get(normalized_name(record.id))
    for alias in record.aliases:
        other = index.get(normalized_name(alias))
        if other is not None and other != (target or record.id):
            raise InputError(
                f"{_at(record.origin)}: the alias {alias!r} of {record.id} already "
                f"names the record {other}; choose another alias",
                "records",
            )
    if target is None:
        merged[record.id] = record
    else:
        base = merged[target]
        if record.kind != base.kind and explicit_kind:
            raise InputError(
                f"{_at(record.origin)}: {record.id} names the {base.kind} record "
                f"{target}, but says kind = {record.kind!r}; drop the kind, or "
                "give your record another name",
                "records",
            )
        merged[target] = replace(
            base,
            name=record.name if record.name != record.id else base.name,
            values={**base.values, **record.values},
            aliases=tuple(dict.fromkeys((*base.aliases, *record.aliases))),
            note=record.note or base.note,
            origin=record.origin,
        )
    for name in (record.id, *record.aliases):
        index[normalized_name(name)] = target or record.id


def _at(origin: str) -> str:
    """'ours.toml:7' as 'ours.toml, line 7', as the loader's other errors say it."""
    path, _, line = origin.rpartition(":")
    return f"{path}, line {line}" if line.isdigit() else origin


def shown_path(path: str) -> str:
    """How a user's file is named in messages and record ids: from here, else absolute."""
    return _shown(path)


def _shown(path: str) -> str:
    return visible(os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path)


def _document(path: str, shown: str, private: bool = False) -> Document:
    """A records file read and parsed (`napkinmath.files.read_document`): a regular file of
    at most MAX_FILE_BYTES, UTF-8, valid TOML nested at most MAX_DEPTH deep."""
    from napkinmath.files import read_document

    try:
        return read_document(
            path,
            noun="records file",
            limit=MAX_FILE_BYTES,
            shown=shown,
            kind="toml",
            private=private,
            rule="records are read only from regular files",
        )
    except InputError as exc:
        text = str(exc)
        if "not valid TOML" in text:
            text += "; the format is that of napkinmath's hardware/*.toml"
        raise InputError(
            f"records file {text}" if text.startswith(shown) else text, "records"
        ) from None


def _load(path: str) -> tuple[dict[str, Record], frozenset[str]]:
    """The records of one user file, and the ids of those that say their kind; a .json file
    is a Hugging Face config.json, read as one model record (`config_json.load`)."""
    shown = _shown(path)
    if path.lower().endswith(".json"):
        from napkinmath.hardware.config_json import load

        record, _ = load(path, shown)
        return {record.id: record}, frozenset()
    document = _document(path, shown)
    explicit = frozenset(
        record_id
        for record_id, table in document.data.items()
        if isinstance(table, dict) and "kind" in table
    )
    lines = Lines(document.text)
    try:
        loaded = load_toml(document.data)
    except RecordError as exc:
        line = lines.of(exc.record_id, exc.key)
        raise InputError(f"{shown}{f', line {line}' if line else ''}: {exc}", "records") from None
    out = {}
    for record in loaded.values():
        values = {}
        for key, value in record.values.items():
            line = lines.of(record.id, key)
            _check_value(record.id, key, value.text, f"{shown}, line {line}")
            values[key] = replace(value, origin=f"{shown}:{line}")
        origin = f"{shown}:{lines.of(record.id, None)}"
        out[record.id] = replace(record, values=values, origin=origin)
    return out, explicit


def check_named_file(path: str, shown: str) -> None:
    """Check that the file `path`, named by another file (a plan's [records] files), is a
    records file in shape, before its records are read: every top-level entry a table, each
    with a record's fields or a value table. The errors name no key or table of the file,
    and quote none of its text (the reader of a plan may not be meant to see the files it
    names); a file of the right shape is then read as any records file is."""
    data = _document(path, shown, private=True).data
    for table in data.values():
        if not isinstance(table, dict):
            held = "an entry that is not a table"
        elif not any(
            key in RECORD_FIELDS or (isinstance(sub, dict) and "value" in sub)
            for key, sub in table.items()
        ):
            held = "a table with no record fields and no value tables"
        else:
            continue
        raise InputError(
            f"records file {shown}: not a records file (its top level holds "
            f"{held}); a records file has the format of napkinmath's "
            "hardware/*.toml: [H100-SXM] with name, kind, source and date, and a "
            "table for each value, [H100-SXM.peak_flops] with value, source and "
            "date",
            "records",
        )


def _check_value(record_id: str, key: str, text: str, where: str) -> None:
    """Parse `text` and check its dimension against the variable `key` (InputError if not)."""
    from napkinmath.catalog.lookup import variables
    from napkinmath.text.values import parse_quantity, to_quantity

    try:
        quantity = parse_quantity(text)
        if key not in METADATA_KEYS:
            to_quantity(quantity, variables()[key])
    except NapkinError as exc:
        raise InputError(f"{where}: {record_id}.{key} = {text!r}: {exc}", "records") from None


def locate(text: str, record_id: str, key: str | None) -> int | None:
    """The line (1-based) of `record_id`'s `key` in TOML `text` ([id.key] or key = ... under
    [id]), else of the [id] header (or [[id]], or id = ... outside any table); None if none
    is found."""
    return Lines(text).of(record_id, key)


class Lines:
    """Where each record and key of a TOML text sits, from one pass over it (a file of many
    records is scanned once, not once per value)."""

    def __init__(self, text: str) -> None:
        self.values: dict[tuple[str, str], int] = {}  # [id.key], or key = ... under [id]
        self.headers: dict[str, int] = {}  # [id], [[id]]
        self.firsts: dict[str, int] = {}  # the first [id...] header, or id = ... at the top
        table: list[str] = []
        for number, line in enumerate(text.splitlines(), 1):
            match = _HEADER.match(line)
            if match:
                table = [_unquote(p) for p in _split_dotted(match.group(1))]
                if len(table) == 1:
                    self.headers.setdefault(table[0], number)
                if table:
                    self.firsts.setdefault(table[0], number)
                if len(table) == 2:
                    self.values.setdefault((table[0], table[1]), number)
                continue
            assign = _ASSIGN.match(line)
            if assign:
                name = _unquote(assign.group(1))
                if not table:
                    self.firsts.setdefault(name, number)
                elif len(table) == 1:
                    self.values.setdefault((table[0], name), number)

    def of(self, record_id: str, key: str | None) -> int | None:
        """As `locate`."""
        value = self.values.get((record_id, key)) if key is not None else None
        return value or self.headers.get(record_id) or self.firsts.get(record_id)


def _split_dotted(text: str) -> list[str]:
    return [p.strip() for p in re.findall(r"\"[^\"]*\"|'[^']*'|[^.]+", text)]


def _unquote(text: str) -> str:
    text = text.strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" else text
