"""The user's own constraints on an optimisation: ``train_time <= 3 weeks``.

Written as ``--require "time_per_output_token <= 50 ms"``, as ``require={"train_time":
"<= 3 weeks"}``, or as a given whose value starts with a comparison (``train_time="<= 3
weeks"``). Each is NAME OP VALUE with OP one of <=, <, >=, > (≤ and ≥ too); the value is
read in the variable's unit, never evaluated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from napkinmath import arguments
from napkinmath.catalog.lookup import variable
from napkinmath.errors import InputError
from napkinmath.library.declare import Variable
from napkinmath.text.values import to_quantity

_OPERATORS = {"<=": "<=", "≤": "<=", "<": "<", ">=": ">=", "≥": ">=", ">": ">", "=<": "<="}
_COMPARISON = re.compile(r"^\s*(<=|=<|>=|≤|≥|<|>)\s*(.+?)\s*$", re.S)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|=<|>=|≤|≥|<|>)\s*(.+?)\s*$", re.S)


@dataclass(frozen=True)
class Requirement:
    """name op limit, the limit in base units; `text` as the user wrote it."""

    variable: Variable
    op: str
    limit: float
    text: str

    @property
    def name(self) -> str:
        return self.variable.name

    @property
    def upper(self) -> bool:
        """True for an upper limit (<, <=)."""
        return self.op.startswith("<")

    def holds(self, value):
        """Elementwise: the requirement holds at `value` (base units)."""
        if self.op == "<=":
            return value <= self.limit
        if self.op == "<":
            return value < self.limit
        if self.op == ">=":
            return value >= self.limit
        return value > self.limit

    def share(self, value):
        """The value as a fraction of its limit (above 1: violated); for a lower limit the
        limit as a fraction of the value."""
        import numpy as np

        with np.errstate(all="ignore"):
            if self.upper:
                return np.where(self.limit != 0, value / self.limit, np.inf)
            return np.where(value != 0, self.limit / value, np.inf)

    @property
    def symbol(self) -> str:
        return {"<=": "≤", "<": "<", ">=": "≥", ">": ">"}[self.op]


def comparison(value: object) -> tuple[str, str] | None:
    """('<=', '3 weeks') for a given written '<= 3 weeks'; None for a plain value."""
    if not isinstance(value, str):
        return None
    match = _COMPARISON.match(value)
    return (_OPERATORS[match.group(1)], match.group(2)) if match else None


def requirement(name: str, op: str, value: object) -> Requirement:
    var = variable(name)
    try:
        q = to_quantity(value, var)
    except InputError as exc:
        q = _per_token(value, var)
        if q is None:
            raise InputError(
                f"requirement {name} {op} {arguments.shown(value)}: {exc}", name
            ) from None
    base = float(q.m_as(var.unit)) * var.base_factor
    if not math.isfinite(base):
        raise InputError(
            f"requirement {name} {op} {arguments.shown(value)}: the limit must be finite", name
        )
    written = value.strip() if isinstance(value, str) else arguments.shown(value)
    return Requirement(var, op, base, f"{name} {_symbol(op)} {written}")


def _per_token(value: object, var: Variable):
    """A limit per token of one sequence written without 'sequence/token' ('50 ms' for
    time_per_output_token, as latencies are quoted), or None."""
    if not isinstance(value, str) or "sequence" not in str(var.unit):
        return None
    try:
        return to_quantity(f"{value} * sequence/token", var)
    except InputError:
        return None


def _symbol(op: str) -> str:
    return {"<=": "≤", "<": "<", ">=": "≥", ">": ">"}[op]


def parse(text: object) -> Requirement:
    """'train_time <= 3 weeks' as a Requirement."""
    if not isinstance(text, str):
        raise InputError(
            f"require {arguments.shown(text)}: write NAME OP VALUE, such as "
            "'train_time <= 3 weeks'",
            "require",
        )
    match = _REQUIREMENT.match(text)
    if not match:
        raise InputError(
            f"require {arguments.shown(text)}: write NAME OP VALUE with OP one of <=, <, >=, >, "
            "such as 'time_per_output_token <= 50 ms'",
            "require",
        )
    name, op, value = match.groups()
    return requirement(name, _OPERATORS[op], value)


def collect(require: object, givens: dict[str, object]) -> list[Requirement]:
    """The requirements of `require` (a mapping name -> '<= value', or a list of texts) and
    of the givens written with a comparison (taken out of `givens`)."""
    found: list[Requirement] = []
    if isinstance(require, str):
        require = [require]
    if isinstance(require, Mapping):
        for name, value in require.items():
            parsed = comparison(value)
            if parsed is None:
                raise InputError(
                    f"require {name}={arguments.shown(value)}: start the value with <=, <, >= or "
                    "> (require={'train_time': '<= 3 weeks'})",
                    str(name),
                )
            found.append(requirement(str(name), *parsed))
    elif require is not None:
        if not isinstance(require, Iterable):
            raise InputError(
                f"require={arguments.shown(require)}: expected texts such as "
                "'train_time <= 3 weeks'",
                "require",
            )
        found.extend(parse(item) for item in require)
    for name, value in list(givens.items()):
        parsed = comparison(value)
        if parsed is not None:
            del givens[name]
            found.append(requirement(name, *parsed))
    return found
