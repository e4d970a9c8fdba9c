"""The declared library as JSON rows: what the snapshot stores in the cache and ships with the
package (`napkinmath.catalog.snapshot`), and how rows are read back, checked, into the
library's registries.

A variable's row holds its name, unit, description, LaTeX, bounds, default, display unit,
roundings and domain facts (whole, typical range, mistaken for); a formula's or
constraint's its fields and its two sides as expression trees (`napkinmath.library.tree`;
their print layouts are made from the trees when printed, `napkinmath.library.tree_layout`).
What is read back is data, checked field by field and node by node (a tree may name only its
formula's variables), never code. This module decides the stored form, so its source is
hashed into the key of every stored and shipped entry (`snapshot.digest`); the code that
reads and writes the entries is not.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from napkinmath.library import declare

#: bump when a row's layout changes
FORMAT = "5"


def declared() -> dict | None:
    """The declared library as stored: its variables, formulas and constraints as rows (in
    declaration order); None when a part has no stored form."""
    from napkinmath.library.tree import NoTreeError

    try:
        return {
            "variables": [_variable(v) for v in declare.VARIABLES.values()],
            "formulas": [_formula(f) for f in declare.FORMULAS.values()],
            "constraints": [_constraint(c) for c in declare.CONSTRAINTS.values()],
        }
    except (NoTreeError, TypeError, ValueError):
        return None


def _variable(v: declare.Variable) -> list:
    b = v.bounds
    default = None
    if v.default is not None:
        magnitude = v.default.value.magnitude
        if type(magnitude) not in (int, float) or v.default.value.units != v.unit:
            raise TypeError(f"default of {v.name}")
        default = [magnitude, v.default.note]
    if v.unit_text is None:
        raise TypeError(f"unit of {v.name}")
    return [
        v.name,
        v.unit_text,
        v.description,
        v.latex,
        [b.lo, b.hi, b.lo_inclusive, b.hi_inclusive],
        default,
        v.display_unit,
        list(v.rounding),
        v.whole,
        None if v.typical is None else list(dataclasses.astuple(v.typical)),
        list(v.mistaken_for),
    ]


def _formula(f: declare.Formula) -> list:
    return [
        f.name,
        f.title,
        f.source,
        f.subject,
        f.note,
        f.forward_only,
        f.derived,
        list(f.derived_from),
        [v.name for v in f.variables],
        f.assumption,
        *f.trees,
    ]


def _constraint(c: declare.Constraint) -> list:
    return [
        c.name,
        c.title,
        c.strict,
        c.source,
        c.subject,
        c.message,
        [v.name for v in c.variables],
        c.per,
        list(c.touch),
        c.refuse,
        *c.trees,
    ]


def fill(data: dict | None) -> bool:
    """Fill the library's registries from `data`, a stored library's JSON object (see
    `declared`); False (registries untouched) when it is None or does not read."""
    if data is None:
        return False
    try:
        variables = {row[0]: _read_variable(row) for row in data["variables"]}
        formulas = {row[0]: _read_formula(row, variables) for row in data["formulas"]}
        constraints = {row[0]: _read_constraint(row, variables) for row in data["constraints"]}
    except (KeyError, IndexError, TypeError, ValueError, RecursionError):
        return False
    for name, variable in variables.items():
        declare.VARIABLES._put(name, variable)
    for name, f in formulas.items():
        declare.FORMULAS._put(name, f)
    declare.CONSTRAINTS.update(constraints)
    declare._FROM_SNAPSHOT.update(
        [("var", n) for n in variables]
        + [("formula", n) for n in formulas]
        + [("constraint", n) for n in constraints]
    )
    return True


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("expected text")
    return value


def _read_variable(row: list) -> declare.Variable:
    (
        name,
        unit,
        description,
        latex,
        bounds,
        default,
        display_unit,
        rounding,
        whole,
        typical,
        mistaken_for,
    ) = row
    lo, hi, lo_inclusive, hi_inclusive = bounds
    if not all(isinstance(x, (int, float)) and not math.isnan(x) for x in (lo, hi)):
        raise TypeError("bounds")
    if default is not None:
        magnitude, note = default
        if type(magnitude) not in (int, float):
            raise TypeError("default")
        default = (magnitude, _string(note))
    return declare.Variable(
        _string(name),
        _string(unit),
        _string(description),
        None,
        _string(latex),
        declare.Bounds(lo, hi, bool(lo_inclusive), bool(hi_inclusive)),
        default,
        None if display_unit is None else _string(display_unit),
        tuple(_string(r) for r in rounding),
        bool(whole),
        None if typical is None else _typical(typical),
        tuple(_string(n) for n in mistaken_for),
    )


def _typical(row: list) -> declare.Typical:
    lo, hi, hard_lo, hard_hi, what = row
    if not all(
        isinstance(x, (int, float)) and math.isfinite(x) for x in (lo, hi, hard_lo, hard_hi)
    ):
        raise TypeError("typical")
    return declare.Typical(lo, hi, hard_lo, hard_hi, _string(what))


def _read_formula(row: list, variables: dict[str, declare.Variable]) -> declare.Formula:
    (
        name,
        title,
        source,
        subject,
        note,
        forward_only,
        derived,
        derived_from,
        names,
        assumption,
        *stored,
    ) = row
    f = declare.Formula(
        _string(name),
        _string(title),
        None,
        _string(source),
        _string(subject),
        _string(note),
        bool(forward_only),
        bool(derived),
        tuple(_string(n) for n in derived_from),
        tuple(variables[n] for n in names),
        bool(assumption),
    )
    _attach(f, stored)
    return f


def _read_constraint(row: list, variables: dict[str, declare.Variable]) -> declare.Constraint:
    name, title, strict, source, subject, message, names, per, touch, refuse, *stored = row
    c = declare.Constraint(
        _string(name),
        _string(title),
        None,
        None,
        bool(strict),
        _string(source),
        _string(subject),
        _string(message),
        tuple(variables[n] for n in names),
        _string(per),
        tuple(_string(t) for t in touch),
        bool(refuse),
    )
    _attach(f=c, stored=stored)
    return c


def _attach(f: declare.Formula | declare.Constraint, stored: list) -> None:
    """The two trees, checked: a tree may read only the formula's own variables."""
    from napkinmath.library import tree

    if len(stored) != 2:
        raise ValueError("expected two trees")
    trees = (tree.from_json(stored[0]), tree.from_json(stored[1]))
    if not (tree.names(trees[0]) | tree.names(trees[1])) <= {v.name for v in f.variables}:
        raise ValueError(f"{f.name}: a tree reads a variable the formula does not have")
    f.__dict__["trees"] = trees
