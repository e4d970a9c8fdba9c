"""The name and version of each kind of JSON document napkinmath writes (docs/json.md), and
its JSON Schema, shipped with the package (napkinmath/schema/KIND.schema.json: `schema(kind)`).
A number changes only when a field is removed or changes meaning; new fields keep it."""

from __future__ import annotations

import json
from importlib import resources

from napkinmath.errors import InputError

#: schema name of each kind of document, with its version
SCHEMAS = {
    "answer": "napkinmath-answer/1",
    "range": "napkinmath-range/1",
    "samples": "napkinmath-samples/1",
    "check": "napkinmath-check/1",
    "claims": "napkinmath-claims/1",
    "table": "napkinmath-table/1",
    "optimum": "napkinmath-optimum/1",
    "plan": "napkinmath-plan/1",
    "formulas": "napkinmath-formulas/1",
    "variables": "napkinmath-variables/1",
    "records": "napkinmath-records/1",
    "record": "napkinmath-record/1",
    "graph": "napkinmath-graph/1",
    "gap": "napkinmath-gap/1",
    "error": "napkinmath-error/1",
}


def answer_kind(result: object) -> str:
    """The kind of a solve's answer: 'range', 'samples' or 'answer'."""
    name = type(result).__name__
    return {"RangeResult": "range", "SampleResult": "samples"}.get(name, "answer")


def tagged(kind: str, data: dict) -> dict:
    """`data` with its schema first."""
    return {"schema": SCHEMAS[kind], **data}


def schema(kind: str) -> dict[str, object]:
    """The JSON Schema (draft 2020-12) of the document `kind` ('answer', 'gap', ...), as
    shipped in the package, so a consumer validates without the repository."""
    if kind not in SCHEMAS:
        known = ", ".join(sorted(SCHEMAS))
        raise InputError(f"schema {kind!r}: no such document; one of {known}", "kind")
    text = resources.files("napkinmath").joinpath("schema", f"{kind}.schema.json").read_text()
    found: dict[str, object] = json.loads(text)
    return found
