"""Reading the names in a checked expression: record values, given values, units, variables.

The order, first match wins: ``RECORD.key``; a value given in the call; the napkinmath
variable when it is the whole expression; a unit of the registry (plurals included); any
other napkinmath variable, from the gpu=/model= records or solved from the givens.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pint

from napkinmath.checking.budget import FAILED_SOLVE_COST, SOLVE_COST, Meter
from napkinmath.errors import InputError, NapkinError, ParseError, UnderDeterminedError
from napkinmath.text.escape import shown_value
from napkinmath.text.evaluation import (
    evaluate,
    resolve_record_value,
    resolve_unit,
    unknown_unit_message,
)
from napkinmath.text.expr import parse_with_notes
from napkinmath.units import Quantity, format_quantity, format_unit

if TYPE_CHECKING:
    from napkinmath.answer.result import Result
    from napkinmath.hardware import Record
    from napkinmath.library.declare import Variable


def variable_names() -> frozenset[str]:
    from napkinmath.catalog.names import variable_names

    return variable_names()


def _variables() -> Mapping[str, Variable]:
    from napkinmath.catalog.lookup import variables

    return variables()


@dataclass
class Resolved:
    """How one NAME of the expression was read."""

    name: str
    quantity: pint.Quantity
    origin: str  # "unit", "given", "record", "computed"
    note: str = ""
    record: Record | None = None  # the hardware/model Record for a record value
    key: str = ""  # the record key


class Names:
    """The resolver of `check`: record values, given values, units, library variables."""

    def __init__(
        self,
        text: str,
        given: dict[str, pint.Quantity],
        gpu: str | Sequence[str] | None,
        model: str | None,
        whole_name: bool,
        tolerance: float,
    ) -> None:
        self.text = text
        self.given = given
        self.gpu = gpu
        self.model = model
        self.whole_name = whole_name
        self.tolerance = tolerance
        self.resolved: dict[int, Resolved] = {}
        self.notes: dict[str, None] = {}
        self.used: set[str] = set()
        self.derivations: dict = {}
        self._variables: dict[str, Resolved] = {}
        self._records: list | None = None
        #: the work meter: a table's (shared by its rows, with their solve answers) or this
        #: check's own
        self.meter = Meter()
        #: implicit literals ("400 Gb/s") of the expression, found once (see evidence)
        self.literals: list | None = None
        #: words beside the claim (a comment, a row's source): the units they name are
        #: context for the slips offered (a GiB/s in a comment for GB vs GiB)
        self.beside = ""

    def note(self, text: str) -> None:
        self.notes[text] = None

    def __call__(self, name: str, pos: int) -> pint.Quantity:
        found = self._lookup(name, pos)
        self.resolved[pos] = found
        return found.quantity

    def _lookup(self, name: str, pos: int) -> Resolved:
        if "." in name:
            return self._record_ref(name, pos)
        if name in self.given:
            self.used.add(name)
            return Resolved(name, self.given[name], "given", "given")
        known = variable_names()  # names only: a unit needs no formulas (nor sympy)
        if self.whole_name and name in known:
            return self.variable(name, pos)
        unit_notes: list[str] = []
        try:
            quantity = resolve_unit(name, pos, self.text, unit_notes)
        except ParseError:
            if name in known:
                return self.variable(name, pos)
            raise self._unknown(name, pos) from None
        for text in unit_notes:
            self.note(text)
        if name in known and self._record_value(name) is not None:
            self.note(
                f"'{name}' is read as the unit {format_unit(quantity.units)}, not the "
                f"variable {name}: give {name}=... to use the variable"
            )
        return Resolved(name, quantity, "unit")

    def _record_ref(self, name: str, pos: int) -> Resolved:
        from napkinmath.hardware import get

        quantity = resolve_record_value(name, pos, self.text)
        record_name, _, key = name.rpartition(".")
        record = get(record_name)
        value = record.values[key]
        return Resolved(name, quantity, "record", f"{record.id}: {value.label()}", record, key)

    def records(self) -> list:
        """The gpu= and model= records, model first (its keys are architecture values)."""
        from napkinmath.hardware import get

        if self._records is not None:
            return self._records
        found = []
        from napkinmath.solving.records import each_record

        gpus = each_record(self.gpu) if isinstance(self.gpu, tuple) else (self.gpu,)
        for option, name in (("model", self.model), *(("gpu", g) for g in gpus)):
            if name is None:
                continue
            if not isinstance(name, str):
                raise InputError(
                    f"{option}={shown_value(name)}: give the name of a record, like "
                    f"{'llama-3-70b' if option == 'model' else 'H100-SXM'}",
                    option,
                )
            record = get(name)
            if (record.kind == "model") != (option == "model"):
                wanted = "a model record" if option == "model" else "a hardware record"
                raise InputError(
                    f"{option}={name!r} names {record.id}, a {record.kind} record; "
                    f"{option}= takes {wanted} (list them with `napkin hardware`)",
                    option,
                )
            found.append(record)
        self._records = found
        return found

    def _record_value(self, name: str):
        for record in self.records():
            if name in record.values:
                return record, record.values[name]
        return None

    def variable(self, name: str, pos: int) -> Resolved:
        """A library variable's value: from the records, else computed by napkinmath."""
        if name in self._variables:
            return self._variables[name]
        from napkinmath.text.values import to_quantity

        var = _variables()[name]
        found = self._record_value(name)
        if found is not None:
            record, value = found
            quantity = to_quantity(value.quantity, var)
            resolved = Resolved(
                name, quantity, "record", f"{record.id}: {value.label()}", record, name
            )
            self.note(f"{name} = {format_quantity(quantity)} ({record.id}: {value.label()})")
        else:
            resolved = self._solved(name, pos, var)
        self._variables[name] = resolved
        return resolved

    def _solved(self, name: str, pos: int, var) -> Resolved:
        known = _variables()
        givens = {k: v for k, v in self.given.items() if k in known and k != name}
        kind, answer = self._solve(name, givens)
        if isinstance(answer, str):  # why it could not be solved
            if kind == "underdetermined":
                raise ParseError(
                    f"{name} ({var.description}) has no value here: give {name}=... (or a "
                    f"--gpu/--model record that has it). napkinmath could not compute it: "
                    f"{answer}",
                    self.text,
                    pos,
                )
            raise ParseError(f"{name}: {answer}", self.text, pos)
        result = answer
        quantity = result.value
        self.derivations[name] = result
        inputs = [n for n, g in result.givens.items() if g.origin == "given"]
        self.used.update(inputs)
        records = sorted(
            {
                g.record
                for g in result.givens.values()
                if g.origin == "record" and g.record is not None
            }
        )
        sources = inputs + [f"{r} record" for r in records]
        self.note(
            f"{name} = {format_quantity(quantity)}, computed by napkinmath from "
            f"{', '.join(sources) or 'its defaults'}"
            f" ({' → '.join(s.formulas[0].title for s in result.steps)})"
        )
        for assumed, given in result.assumptions.items():
            self.note(f"assumption: {assumed} = {format_quantity(given.quantity)} ({given.note})")
        return Resolved(name, quantity, "computed", "computed by napkinmath")

    def _solve(self, name: str, givens: dict[str, pint.Quantity]) -> tuple[str, Result | str]:
        """("ok", the solve result), ("underdetermined", why) or ("error", why); answered
        once per name and givens within a table, and charged to its work meter."""
        from napkinmath.solving.solver import solve

        tolerance = max(self.tolerance, 0.01)
        key = (
            name,
            self.gpu,
            self.model,
            tolerance,
            tuple(sorted((k, repr(v.magnitude), str(v.units)) for k, v in givens.items())),
        )
        cached = self.meter.solves.get(key)
        if cached is not None:
            return cached
        self.meter.require(f"napkinmath could compute {name}")
        # library variables, never one of solve's options (mypy checks a ** mapping's values
        # against each typed option)
        variables: Mapping[str, Any] = givens
        try:
            answer: tuple[str, Result | str] = (
                "ok",
                solve(name, gpu=self.gpu, model=self.model, tolerance=tolerance, **variables),
            )
        except UnderDeterminedError as exc:
            answer = ("underdetermined", str(exc))
        except NapkinError as exc:
            answer = ("error", str(exc))
        self.meter.charge(SOLVE_COST if answer[0] == "ok" else FAILED_SOLVE_COST)
        self.meter.solves[key] = answer
        return answer

    def _unknown(self, name: str, pos: int) -> ParseError:
        import difflib

        message = unknown_unit_message(name)
        if "did you mean" in message or "would be a" in message:
            return ParseError(message, self.text, pos)
        names = list(_variables()) + list(self.given)
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        if not close:
            close = [n for n in names if len(name) >= 3 and name.lower() in n][:3]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return ParseError(
            f"unknown name {name!r}: not a unit, a napkinmath variable, or a value "
            f"you gave{hint} (list variables with `napkin vars`, units are "
            "case-sensitive)",
            self.text,
            pos,
        )


def given_quantity(name: str, value: object, readings: list[str] | None = None) -> pint.Quantity:
    """A value passed to check: a library variable is checked against its dimension, and
    read as `solve` reads it ("989 TFLOP/s" per GPU), with the reading added to `readings`."""
    from napkinmath.text.values import check_finite, foreign_quantity, plain_number, read_given

    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise InputError(f"{name!r} is not a name: a given value needs a name like n_gpus", None)
    known = _variables()
    if name in known:
        read = read_given(value, known[name])
        if read.note and readings is not None:
            readings.append(f"{name}: {read.note}")
        return read.quantity
    if isinstance(value, bool) or value is None:
        raise InputError(f"{name}={value!r}: expected a number or a quantity such as '8 GPU'", name)
    if isinstance(value, str):
        try:
            node, _ = parse_with_notes(value)
            return evaluate(node, value)
        except ParseError as exc:
            raise InputError(f"{name}: {exc}", name) from None
    if isinstance(value, pint.Quantity):
        quantity = foreign_quantity(value, name, "8 GPU")
        check_finite(quantity, name, format_quantity(quantity))
        return quantity
    if isinstance(value, numbers.Real):
        return Quantity(plain_number(value, name))
    raise InputError(f"{name}: cannot use a {type(value).__name__} as a value", name)
