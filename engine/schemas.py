"""The name and version of each kind of JSON document napkinmath writes (docs/json.md,
docs/schema/KIND.schema.json). A number changes only when a field is removed or changes
meaning; new fields keep it."""

from __future__ import annotations

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
    "error": "napkinmath-error/1",
}


def answer_kind(result: object) -> str:
    """The kind of a solve's answer: 'range', 'samples' or 'answer'."""
    name = type(result).__name__
    return {"RangeResult": "range", "SampleResult": "samples"}.get(name, "answer")


def tagged(kind: str, data: dict) -> dict:
    """`data` with its schema first."""
    return {"schema": SCHEMAS[kind], **data}
