"""The library as JSON for `napkin formulas|vars|hardware|graph --format json`: each listing
a document that names its schema (docs/json.md), in sorted order, numbers as numbers.

    {"schema": "napkinmath-variables/1", "variables": [{"name": "mfu", "unit": "", ...}]}
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


def _number(x: float) -> float | None:
    """A bound as JSON holds it: infinite ends as null."""
    return None if math.isinf(x) else float(x)


def _quantity(q: Any) -> dict[str, object]:
    from napkinmath.units import format_quantity, format_unit

    return {
        "value": float(q.magnitude),
        "unit": format_unit(q.units, style="ascii"),
        "text": format_quantity(q),
    }


def formulas(found: Iterable[Any]) -> dict[str, object]:
    """Each formula: name, title, subject, its equation as `napkin formulas` prints it, its
    variables, source and flags; by subject, then name."""
    from napkinmath.rendering.result import equation_text

    return {
        "formulas": [
            {
                "name": f.name,
                "title": f.title,
                "subject": f.subject,
                "equation": equation_text(f),
                "variables": sorted(v.name for v in f.variables),
                "source": f.source,
                "forward_only": bool(f.forward_only),
                "derived": bool(f.derived),
            }
            for f in sorted(found, key=lambda f: (f.subject, f.name))
        ]
    }


def variables(found: Iterable[Any]) -> dict[str, object]:
    """Each variable: name, unit, meaning, bounds (null: unbounded) and default assumption."""
    from napkinmath.units import format_unit

    rows = []
    for v in sorted(found, key=lambda v: v.name):
        b = v.bounds
        rows.append(
            {
                "name": v.name,
                "unit": format_unit(v.unit, style="ascii"),
                "description": v.description,
                "bounds": {
                    "low": _number(b.lo),
                    "high": _number(b.hi),
                    "low_inclusive": bool(b.lo_inclusive),
                    "high_inclusive": bool(b.hi_inclusive),
                    "text": str(b),
                },
                "default": None
                if v.default is None
                else {**_quantity(v.default.value), "assumption": v.default.note},
            }
        )
    return {"variables": rows}


def records(found: Iterable[Any]) -> dict[str, object]:
    """Each record's id, kind and name (and the file it came from, for your own), by id."""
    return {
        "records": [
            {"id": r.id, "kind": r.kind, "name": r.name, "origin": r.origin or None}
            for r in sorted(found, key=lambda r: r.id)
        ]
    }


def record(r: Any) -> dict[str, object]:
    """One record in full: every value with its source, date, URL and the other published
    figures, by key."""
    return {
        "id": r.id,
        "kind": r.kind,
        "name": r.name,
        "aliases": sorted(r.aliases),
        "origin": r.origin or None,
        "note": r.note or None,
        "values": [
            {
                "key": v.key,
                **_quantity(v.quantity),
                "label": v.label(),
                "source": v.source or None,
                "date": str(v.date) if v.date else None,
                "url": v.url or None,
                "assumption": bool(v.assumption),
                "also_published": {str(k): str(w) for k, w in sorted(v.alternatives.items())},
            }
            for v in sorted(r.values.values(), key=lambda v: v.key)
        ],
    }


def graph(g: Any, target: str | None, depth: int) -> dict[str, object]:
    """The formulas around `target` (every formula without one), each with the variables it
    links, and those variables; sorted."""
    found = sorted(name for kind, name in g.nodes if kind == "formula")
    return {
        "center": target,
        "depth": depth if target else None,
        "formulas": [
            {"name": name, "variables": sorted(v for _, v in g.neighbors(("formula", name)))}
            for name in found
        ],
        "variables": sorted(name for kind, name in g.nodes if kind == "variable"),
    }
