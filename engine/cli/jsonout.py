"""JSON on the command line: every document `--format json` prints names its schema.

    {"schema": "napkinmath-answer/1", "targets": {...}, "givens": [...], ...}
    {"schema": "napkinmath-error/1", "error": {"type": "InputError", "message": "...", ...}}

The schemas (JSON Schema, draft 2020-12) and what each field means are in docs/json.md and
napkinmath/schema/*.schema.json (engine/schema/). A schema's number changes only when a field
is removed or changes meaning; new fields may appear within a version.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from napkinmath.errors import NapkinError
from napkinmath.schemas import SCHEMAS, answer_kind

if TYPE_CHECKING:
    from napkinmath import RangeResult, Result, SampleResult
    from napkinmath.whatif.sensitivity import Sensitivity

__all__ = ["SCHEMAS"]


class UsageError(NapkinError):
    """A command line that argparse refuses (an unknown option, a missing argument)."""


def document(kind: str, data: dict) -> str:
    """`data` as JSON text with its schema first; never NaN or Infinity."""
    from napkinmath.text.visible import finite_json, json_visible

    return json_visible(
        json.dumps(
            finite_json({"schema": SCHEMAS[kind], **data}),
            indent=2,
            ensure_ascii=False,
            allow_nan=False,
        )
    )  # no raw U+202E


def answer(
    result: Result | RangeResult | SampleResult, sensitivity: Sensitivity | None = None
) -> str:
    """A solve's answer: a single answer, a range, or Monte Carlo samples; with
    `sensitivity` (`--sensitivity`), its table as the field "sensitivity", by target."""
    kind = answer_kind(result)
    data = result.to_dict()
    if sensitivity is not None:
        data["sensitivity"] = {sensitivity.target: sensitivity.to_dict()}
    return document(kind, data)


def error(exc: BaseException, status: int) -> str:
    """An error as JSON: its type, the message, and what it names (variable, suggestions)."""
    detail: dict[str, object] = {
        "type": type(exc).__name__ if isinstance(exc, NapkinError) else "InternalError",
        "message": str(exc),
        "exit_status": status,
        "variable": getattr(exc, "variable", None),
    }
    for field in ("targets", "suggestions"):
        value = getattr(exc, field, None)
        if isinstance(value, (list, tuple)):
            detail[field] = [str(item) for item in value]
    position = getattr(exc, "position", None)
    if isinstance(exc, NapkinError) and isinstance(position, int):
        detail["position"] = position
    reconciliation = getattr(exc, "reconciliation", None)  # `napkin solve --explain`
    if isinstance(reconciliation, dict):
        detail["reconciliation"] = reconciliation
    return document("error", {"error": detail})
