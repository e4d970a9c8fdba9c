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
from typing import Any


@contextmanager
def user_records(paths: object) -> Iterator[None]:
    """Lay the records files `paths` (a path, a list of paths, or None for none) over the
    shipped records while the block runs."""
    if paths is None:
        yield
        return
    from napkinmath.hardware import using

    with using(paths):  # the caches that read records key by them (`caches.scope_by`)
        yield


def config_model(model: object, records: object) -> tuple[str, tuple[str, ...]]:
    """model= as the path of a Hugging Face config.json: the id of its record and the records
    files to lay over the shipped (those in force, `records`, then the config), so that the
    config reads as a model record (`napkinmath.hardware.config_json`)."""
    import os

    from napkinmath import arguments
    from napkinmath.hardware import scope
    from napkinmath.hardware.user import record_paths, shown_path

    what = "the path of a Hugging Face config.json"
    text = os.fspath(model) if isinstance(model, os.PathLike) else str(model)
    path = os.path.abspath(arguments.path(text.strip(), "model", what=what))
    active = scope()
    files = (
        *(active.files if active is not None else ()),
        *(record_paths(records) if records is not None else ()),
        path,
    )
    return shown_path(path), tuple(dict.fromkeys(files))


def config_warning(record_id: str) -> str | None:
    """The cross-check warning of the config record `record_id` (in force), if any."""
    from napkinmath.hardware import get

    note = get(record_id).note
    at = note.find("WARNING: ")
    return note[at + len("WARNING: ") :] if at >= 0 else None


#: the kinds of record, in the words a message uses
_KIND_WORDS = {
    "accelerator": "accelerator",
    "link": "link",
    "storage": "storage tier",
    "model": "model",
}


def bound_records(names: Any, option: str = "gpu", labels: list[str] | None = None) -> Any:
    """The records a solve binds through `option` (gpu= or model=): None, one name, or, for
    a list of records of different kinds (an accelerator, a storage tier, a link), a tuple
    of their names in the order given (one name if the list names one record). Two records
    of the same kind are an InputError naming both and their kind; `labels` are how the
    user wrote each name ("--gpu H100", "gpu=MI300X"), for that message."""
    if names is None or isinstance(names, str):
        return names
    from napkinmath.hardware.config_json import is_config_path

    one = isinstance(names, (list, tuple)) and len(names) == 1
    if option == "model" and one and is_config_path(names[0]):
        return names[0]  # a config.json: solve reads it (`config_model`)
    if (
        not isinstance(names, (list, tuple))
        or not names
        or not all(isinstance(n, str) for n in names)
    ):
        return names  # the solve's own checks say what a record name is
    from napkinmath.errors import InputError
    from napkinmath.hardware import get

    shown = (
        labels
        if labels is not None and len(labels) == len(names)
        else [f"{option}={n!r}" for n in names]
    )
    seen: dict[str, tuple[str, str, str]] = {}  # kind: (record id, name, label)
    kept: list[str] = []
    for name, label in zip(names, shown, strict=True):
        record = get(name)
        if (record.kind == "model") != (option == "model"):
            wanted = (
                "a model record" if option == "model" else "an accelerator, storage or link record"
            )
            other = "--model" if record.kind == "model" else "--gpu"
            raise InputError(
                f"{label} names {record.id}, a {record.kind} record; {option}= "
                f"takes {wanted} (give it as {other} {record.id}; list them with "
                f"`napkin hardware`)",
                option,
            )
        if record.kind in seen:
            first_id, _, first_label = seen[record.kind]
            if first_id == record.id:
                continue  # the same record twice (by two of its names)
            kind = _KIND_WORDS.get(record.kind, record.kind)
            raise InputError(
                f"{first_label} and {label} are both {kind} records ({first_id}, {record.id}): "
                f"records of different kinds bind together (an accelerator, a storage tier, a "
                f"link, a model), two of one kind cannot; keep one, or rank them with napkin "
                f"compare TARGET --{option} {first_id},{record.id} (nm.compare)",
                option,
            )
        seen[record.kind] = (record.id, name, label)
        kept.append(name)
    return kept[0] if len(kept) == 1 else tuple(kept)


def each_record(gpu: object) -> tuple[str, ...]:
    """gpu= as a tuple of record names (none, one, or several of different kinds)."""
    if gpu is None:
        return ()
    return (gpu,) if isinstance(gpu, str) else tuple(gpu)  # type: ignore[arg-type]


def main_record(gpu: object) -> str | None:
    """Of the gpu= records, the one whose peaks a precision or --achievable reads: the
    accelerator if one is bound, else the first."""
    if gpu is None or isinstance(gpu, str):
        return gpu
    from napkinmath.hardware import get

    names = each_record(gpu)
    return next((n for n in names if get(n).kind == "accelerator"), names[0] if names else None)
