"""Checking other people's math: an expression, or a claimed value for it.

    >>> import napkinmath as nm
    >>> nm.check("2*(8-1)/8 * 141 GB / (900 GB/s)").value           # 274.2 ms
    >>> r = nm.check("140 GB / (400 Gb/s)", expect="0.35 s")
    >>> r.status, r.candidates[0].label                    # ('disagree', 'bits vs bytes')

Tables of claims are in `napkinmath.claims`.

An expression uses the safe grammar of `napkinmath.expr` (numbers with units, + - * / ^,
parentheses, sqrt/log/ceil/min/max...). A NAME in it is read in this order:

1. ``RECORD.key`` is a value of a hardware or model record ("H100-SXM.peak_flops").
2. A name given a value in the call (``check(..., params="70B")``) is that value, even if it
   is also a unit ("params" is the plural of the unit param).
3. An expression that is only a napkinmath variable ("kv_bytes_per_token") means the
   variable, which napkinmath computes.
4. A unit of the registry, plurals included ("params", "tokens", "GPUs", "days"), is the unit.
5. Any other napkinmath variable takes its value from the ``gpu=``/``model=`` records, or is
   solved by napkinmath from the given values (with its stated default assumptions).
6. Anything else is an error that suggests the closest units and variable names.

A claim (``expect=``) is compared with napkinmath's value to a relative `tolerance`. When they
disagree, the ratio claimed / computed is matched against known confusions
(`napkinmath.confusions`); a candidate is *confirmed* when re-evaluating the expression with
the slip undone (Gb read as GB, GiB as GB, a record's two-way figure instead of its one-way
one) reproduces the claim.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import pint
from pint.util import UnitsContainer

from .confusions import Candidate, Context, candidates
from .dimensions import (
    COUNT_DIMENSIONS,
    canonical_unit,
    dimension_fix,
    dimension_name,
    dimension_text,
)
from .errors import (
    InputError,
    NapkinError,
    ParseError,
    UnderDeterminedError,
)
from .evaluation import (
    evaluate,
    has_ambiguous_suffix,
    resolve_record_value,
    resolve_unit,
    unknown_unit_message,
)
from .expr import Node, parse_with_notes
from .units import Quantity, format_number, format_quantity, format_unit, humanize, ureg

DEFAULT_TOLERANCE = 0.02
#: Re-evaluations tried to confirm a confusion (each undoes one slip).
MAX_REWRITES = 80
#: Names that only give context to the confusion finder (ring size, heads, GPUs).
CONTEXT_NAMES = ("n", "ring_size", "n_ranks", "n_heads", "n_kv_heads", "gpus_per_node",
                 "n_gpus")

_TIME = ureg.Quantity(1, "s").dimensionality
_BYTES = ureg.Quantity(1, "B").dimensionality
_BYTE_RATE = ureg.Quantity(1, "B/s").dimensionality
_POWER = ureg.Quantity(1, "W").dimensionality
_ENERGY = ureg.Quantity(1, "J").dimensionality
_DECIMAL = ("", "k", "M", "G", "T", "P", "E")


def _variables() -> dict:
    from .library import variables

    return variables()


# --- reading names -------------------------------------------------------------------------
@dataclass
class Resolved:
    """How one NAME of the expression was read."""

    name: str
    quantity: pint.Quantity
    origin: str  # "unit", "given", "record", "computed"
    note: str = ""
    record: object | None = None  # the hardware/model Record for a record value
    key: str = ""  # the record key


class _Names:
    """The resolver of `check`: record values, given values, units, library variables."""

    def __init__(self, text: str, given: dict[str, pint.Quantity], gpu: str | None,
                 model: str | None, whole_name: bool, tolerance: float) -> None:
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
        known = _variables()
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
            self.note(f"'{name}' is read as the unit {format_unit(quantity.units)}, not the "
                      f"variable {name}: give {name}=... to use the variable")
        return Resolved(name, quantity, "unit")

    def _record_ref(self, name: str, pos: int) -> Resolved:
        from napkinmath.hardware import get

        quantity = resolve_record_value(name, pos, self.text)
        record_name, _, key = name.rpartition(".")
        record = get(record_name)
        value = record.values[key]
        return Resolved(name, quantity, "record", f"{record.id}: {value.provenance()}",
                        record, key)

    def records(self) -> list:
        """The gpu= and model= records, model first (its keys are architecture values)."""
        from napkinmath.hardware import get

        if self._records is not None:
            return self._records
        found = []
        for option, name in (("model", self.model), ("gpu", self.gpu)):
            if name is None:
                continue
            record = get(name)
            if (record.kind == "model") != (option == "model"):
                wanted = "a model record" if option == "model" else "a hardware record"
                raise InputError(f"{option}={name!r} names {record.id}, a {record.kind} record; "
                                 f"{option}= takes {wanted} (list them with `napkin hardware`)",
                                 option)
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
        from .values import to_quantity

        var = _variables()[name]
        found = self._record_value(name)
        if found is not None:
            record, value = found
            quantity = to_quantity(value.quantity, var)
            resolved = Resolved(name, quantity, "record", f"{record.id}: {value.provenance()}",
                                record, name)
            self.note(f"{name} = {format_quantity(quantity)} ({record.id}: "
                      f"{value.provenance()})")
        else:
            resolved = self._solved(name, pos, var)
        self._variables[name] = resolved
        return resolved

    def _solved(self, name: str, pos: int, var) -> Resolved:
        from .solver import solve

        known = _variables()
        givens = {k: v for k, v in self.given.items() if k in known and k != name}
        try:
            result = solve(name, gpu=self.gpu, model=self.model,
                           tolerance=max(self.tolerance, 0.01), **givens)
        except UnderDeterminedError as exc:
            raise ParseError(
                f"{name} ({var.description}) has no value here: give {name}=... (or a "
                f"--gpu/--model record that has it). napkinmath could not compute it: {exc}",
                self.text, pos) from None
        except NapkinError as exc:
            raise ParseError(f"{name}: {exc}", self.text, pos) from None
        quantity = result.value
        self.derivations[name] = result
        inputs = [n for n, g in result.givens.items() if g.origin == "given"]
        self.used.update(inputs)
        records = sorted({g.note.split(":")[0] for g in result.givens.values()
                          if g.origin == "record"})
        sources = inputs + [f"{r} record" for r in records]
        self.note(f"{name} = {format_quantity(quantity)}, computed by napkinmath from "
                  f"{', '.join(sources) or 'its defaults'}"
                  f" ({' → '.join(s.formulas[0].title for s in result.steps)})")
        for assumed, given in result.assumptions.items():
            self.note(f"assumption: {assumed} = {format_quantity(given.quantity)} "
                      f"({given.note})")
        return Resolved(name, quantity, "computed", "computed by napkinmath")

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
        return ParseError(f"unknown name {name!r}: not a unit, a napkinmath variable, or a value "
                          f"you gave{hint} (list variables with `napkin vars`, units are "
                          "case-sensitive)", self.text, pos)


def _given_quantity(name: str, value: object) -> pint.Quantity:
    """A value passed to check: a library variable is checked against its dimension."""
    from .values import to_quantity

    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise InputError(f"{name!r} is not a name: a given value needs a name like n_gpus", None)
    known = _variables()
    if name in known:
        return to_quantity(value, known[name])
    if isinstance(value, bool) or value is None:
        raise InputError(f"{name}={value!r}: expected a number or a quantity such as '8 GPU'", name)
    if isinstance(value, str):
        try:
            node, _ = parse_with_notes(value)
            return evaluate(node, value)
        except ParseError as exc:
            raise InputError(f"{name}: {exc}", name) from None
    if isinstance(value, pint.Quantity):
        if value._REGISTRY is ureg:
            return value
        return _given_quantity(name, f"{float(value.magnitude)!r} {value.units:~}")
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise InputError(f"{name}={value!r}: not a finite number", name)
        return Quantity(number)
    raise InputError(f"{name}: cannot use a {type(value).__name__} as a value", name)


# --- showing quantities --------------------------------------------------------------------
def human(q: pint.Quantity) -> pint.Quantity:
    """`q` in the unit a person would choose: 274.2 ms, 1.12 TB, 989 TFLOP/(s·GPU), 64 GPU."""
    try:
        shown = _human(q)
    except (pint.PintError, ValueError, ArithmeticError, TypeError):
        return q
    return shown if math.isfinite(float(shown.magnitude)) else q


def _human(q: pint.Quantity) -> pint.Quantity:
    dim = q.dimensionality
    if not dim:
        return Quantity(float(q.to("").magnitude))
    if dim in (_TIME, _BYTES, _BYTE_RATE):
        return humanize(q)
    if dim == _POWER:
        return _prefixed(q.to("W"), "W", 1e3)
    if dim == _ENERGY:
        return _prefixed(q.to("Wh"), "Wh", 1e3)
    spelled = canonical_unit(dim)
    time_power = dim.get("[time]", 0)
    q = q.to(spelled)
    hours = re.sub(r"\bs\b", "h", spelled)
    if time_power > 0 and len(dim) > 1 and abs(float(q.to(hours).magnitude)) >= 1:
        q, spelled = q.to(hours), hours  # GPU·h for accelerator time
    elif time_power < 0 and "[currency]" in dim:
        q, spelled = q.to(hours), hours  # USD/(GPU·h) for prices
    if spelled.startswith("B") and not spelled.startswith("B*"):
        return _prefixed(q, spelled, 1e6)
    if spelled.startswith(("FLOP/s", "FLOP/(s")):
        return _prefixed(q, spelled, 1e3)
    return q


def _prefixed(q: pint.Quantity, unit: str, threshold: float) -> pint.Quantity:
    value = abs(float(q.magnitude))
    if value < threshold:
        return q
    index = min(int(math.log10(value) // 3), len(_DECIMAL) - 1)
    return q.to(_DECIMAL[index] + unit)


def _quantity_dict(q: pint.Quantity) -> dict:
    return {"value": float(q.magnitude), "unit": format_unit(q.units, style="ascii"),
            "text": format_quantity(q)}


# --- the result of a check -----------------------------------------------------------------
@dataclass
class CheckResult:
    """napkinmath's value of an expression, and the verdict on a claimed value if any.

    `status` is "ok" (no claim), "agree" or "disagree"; `candidates` lists the known
    confusions that explain a disagreement, most likely first.
    """

    expression: str
    computed: pint.Quantity
    claimed: pint.Quantity | None = None
    claimed_text: str = ""
    tolerance: float = DEFAULT_TOLERANCE
    status: str = "ok"
    ratio: float | None = None
    candidates: list[Candidate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    names: list[Resolved] = field(default_factory=list)
    reading: str = ""
    mismatch: str = ""
    derivations: dict = field(default_factory=dict)
    label: str = ""

    @property
    def value(self) -> pint.Quantity:
        """napkinmath's value in the unit a person would choose."""
        return human(self.computed)

    @property
    def agrees(self) -> bool | None:
        """True or False for a claim, None when there was nothing to compare."""
        return None if self.claimed is None else self.status == "agree"

    @property
    def relative_difference(self) -> float | None:
        """(claimed - computed) / computed, when both have one dimension."""
        if self.ratio is None:
            return None
        return self.ratio - 1.0

    @property
    def dimension(self) -> str:
        """'a data rate', or the dimensions when they have no name: '[time·accelerator]'."""
        dim = self.computed.dimensionality
        name = dimension_name(dim)
        return f"[{dimension_text(dim)}]" if name.startswith("something") else name

    def _claimed_in_unit(self) -> str:
        if self.claimed is None or self.mismatch:
            return ""
        try:
            same = self.computed.to(self.claimed.units)
        except (pint.PintError, ArithmeticError):
            return ""
        if (format_unit(same.units) == format_unit(self.value.units)
                or not math.isfinite(float(same.magnitude))):
            return ""
        return format_quantity(same)

    def _shown_candidates(self) -> tuple[list[Candidate], str]:
        """Candidates worth a paragraph (a quarter of the best score or more), and the rest
        named in one line; `candidates` always holds them all."""
        if not self.candidates:
            return [], ""
        best = self.candidates[0].score
        shown = [c for c in self.candidates if c.score >= 0.25 * best]
        rest = [c.label for c in self.candidates if c.score < 0.25 * best]
        return shown, ", ".join(rest)

    def verdict(self) -> str:
        """One line: AGREE / DISAGREE and by how much."""
        if self.claimed is None:
            return ""
        if self.mismatch:
            return f"DISAGREE: {self.mismatch}"
        if self.ratio is None:
            if float(self.computed.magnitude) == 0:
                return "DISAGREE: napkinmath's value is zero and the claim is not"
            return "DISAGREE: the claim and napkinmath's value are beyond any ratio a float holds"
        if self.status == "agree":
            return (f"AGREE within {_percent(self.tolerance, sign=False)} "
                    f"({_percent(self.ratio - 1)} "
                    f"from napkinmath's value)")
        return (f"DISAGREE: the claim is {_how_far(self.ratio)} napkinmath's value "
                f"({_percent(self.ratio - 1)}; tolerance {_percent(self.tolerance, sign=False)})")

    @property
    def text(self) -> str:
        """The verdict as plain text (what `napkin check` prints)."""
        shown = self.label + ": " if self.label else ""
        lines = [f"{shown}{self.reading or self.expression} = {format_quantity(self.value)}"
                 f"   ({self.dimension})"]
        if self.claimed is not None:
            also = self._claimed_in_unit()
            lines.append(f"claimed: {format_quantity(self.claimed)}"
                         + (f"   (napkinmath: {also})" if also else ""))
            lines.append(("✓ " if self.status == "agree" else "✗ ") + self.verdict())
        shown, others = self._shown_candidates()
        if shown:
            lines.append("Likely causes, most likely first:")
            for number, candidate in enumerate(shown, 1):
                lines.append(f"  {number}. {candidate.text()}")
            if others:
                lines.append(f"  Less likely, same factor: {others}.")
        elif self.status == "disagree" and not self.mismatch and (self.ratio or 0) > 0:
            lines.append("No known confusion explains this ratio: check the inputs one by one.")
        if self.notes:
            lines.append("Notes:")
            lines.extend(f"  - {note}" for note in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        claim = f", claimed {format_quantity(self.claimed)}" if self.claimed is not None else ""
        return f"<CheckResult {self.expression!r} = {format_quantity(self.value)}{claim}: " \
               f"{self.status}>"

    @property
    def markdown(self) -> str:
        """The verdict as Markdown."""
        shown = f"**{self.label}**: " if self.label else ""
        lines = [f"{shown}`{self.reading or self.expression}` = "
                 f"**{format_quantity(self.value)}** ({self.dimension})", ""]
        if self.claimed is not None:
            mark = "✅" if self.status == "agree" else "❌"
            lines += [f"- claimed: {format_quantity(self.claimed)}",
                      f"- {mark} {self.verdict()}"]
        shown, others = self._shown_candidates()
        if shown:
            lines += ["", "Likely causes, most likely first:", ""]
            lines += [f"{n}. {c.text()}" for n, c in enumerate(shown, 1)]
            if others:
                lines += ["", f"Less likely, same factor: {others}."]
        if self.notes:
            lines += ["", "Notes:", ""] + [f"- {note}" for note in self.notes]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        return self.markdown

    def to_text(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        return self.markdown

    def to_dict(self) -> dict:
        """A JSON-ready form of the check."""
        dim = self.computed.dimensionality
        return {
            "label": self.label,
            "expression": self.expression,
            "reading": self.reading or self.expression,
            "value": _quantity_dict(self.value),
            "dimension": {"name": dimension_name(dim), "text": dimension_text(dim)},
            "claimed": _quantity_dict(self.claimed) if self.claimed is not None else None,
            "claimed_text": self.claimed_text,
            "status": self.status,
            "ratio": self.ratio,
            "relative_difference": self.relative_difference,
            "tolerance": self.tolerance,
            "mismatch": self.mismatch or None,
            "candidates": [c.to_dict() for c in self.candidates],
            "notes": list(self.notes),
            "names": [{"name": r.name, **_quantity_dict(r.quantity), "origin": r.origin,
                       "source": r.note} for r in self.names if r.origin != "unit"],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def _percent(x: float, sign: bool = True) -> str:
    """0.02 -> '2%', -0.875 -> '-87.5%', 59 -> '+5,900%'."""
    plus = "+" if sign else ""
    if abs(x) >= 10:
        return f"{x * 100:{plus},.0f}%"
    return f"{x * 100:{plus}.3g}%"


def _how_far(ratio: float) -> str:
    if ratio <= 0:
        return "of the opposite sign to" if ratio < 0 else "zero, unlike"
    if ratio >= 1:
        return f"{ratio:.4g}× higher than"
    return f"{1 / ratio:.4g}× lower than"


# --- check ---------------------------------------------------------------------------------
def check(expr: str, expect: object = None, *, tolerance: float = DEFAULT_TOLERANCE,
          gpu: str | None = None, model: str | None = None, **values: object) -> CheckResult:
    """Evaluate `expr` safely, with units, and compare it with a claimed value `expect`.

    `values` give names of the expression a value ("params='70B'"), and feed napkinmath's
    own computation of library variables; `gpu`/`model` name records whose values fill in
    variables (and give context: heads for GQA, GPUs per node). Returns a `CheckResult`;
    bad input raises a `napkinmath.NapkinError` subclass that points at the fault.

    >>> check("70e9 param * 16 byte/param", expect="1.1 TB").status
    'agree'
    """
    tolerance = _tolerance(tolerance)
    if not isinstance(expr, str):
        raise InputError(f"the expression must be text, got {type(expr).__name__}")
    node, reading_notes = parse_with_notes(expr)
    given = {name: _given_quantity(name, value) for name, value in values.items()}
    names = _Names(expr, given, gpu, model, node.kind == "name" and "." not in node.text,
                   tolerance)
    names.records()  # a wrong gpu=/model= is an error even when no name needs it
    computed, suffix_note = _evaluate(node, expr, names, expect)
    result = CheckResult(expr, computed, tolerance=tolerance)
    result.reading = reading_notes[0].removeprefix("read as ") if reading_notes else ""
    notes: list[str] = []
    if suffix_note:
        notes.append(suffix_note)
    if expect is not None:
        _compare(result, node, names, expect, notes)
    notes.extend(_unit_notes(node, names))
    notes.extend(names.notes)
    unused = sorted(set(given) - names.used - set(CONTEXT_NAMES))
    if unused:
        notes.append(f"given but not used: {', '.join(unused)}")
    result.notes = list(dict.fromkeys(notes))
    result.names = list({r.name: r for r in names.resolved.values()}.values())
    result.derivations = dict(names.derivations)
    return result


def _tolerance(value: object) -> float:
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise InputError(f"tolerance {value!r}: give a fraction like 0.02 or 2%",
                             "tolerance") from None
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
    else:
        raise InputError(f"tolerance {value!r}: give a fraction like 0.02", "tolerance")
    if not (math.isfinite(number) and 0 <= number < 1):
        raise InputError(f"tolerance {value!r}: give a fraction in [0, 1), like 0.02 for 2%",
                         "tolerance")
    return number


def _evaluate(node: Node, text: str, names: _Names,
              expect: object) -> tuple[pint.Quantity, str]:
    """Evaluate; with a '7B'-style suffix, pick the reading whose dimension fits the claim."""
    as_count = evaluate(node, text, names)
    if not has_ambiguous_suffix(node):
        return as_count, ""
    try:
        as_unit = evaluate(node, text, names, suffix_as_unit=True)
    except ParseError:
        as_unit = None
    note = (f"a number ending in B or b (like '7B') is read as a count ({format_quantity(as_count)}"
            "); write '7 B' with a space for bytes")
    if as_unit is not None and isinstance(expect, str):
        try:
            claimed = _claim_quantity(expect, names)
        except NapkinError:
            return as_count, note
        if (claimed.dimensionality == as_unit.dimensionality
                and claimed.dimensionality != as_count.dimensionality):
            return as_unit, (f"the B/b after a number is read as a unit here (bytes/bits: "
                             f"{format_quantity(as_unit)}), the only reading with the claim's "
                             "dimension")
    return as_count, note


def _claim_quantity(expect: object, names: _Names) -> pint.Quantity:
    if isinstance(expect, str):
        try:
            node, _ = parse_with_notes(expect)
        except ParseError as exc:
            raise ParseError(f"the claimed value: {exc}") from None
        claim_names = _Names(expect, names.given, names.gpu, names.model, False, names.tolerance)
        try:
            return evaluate(node, expect, claim_names)
        except ParseError as exc:
            raise ParseError(f"the claimed value: {exc}") from None
    return _given_quantity("claimed", expect)


def _compare(result: CheckResult, node: Node, names: _Names, expect: object,
             notes: list[str]) -> None:
    claimed = _claim_quantity(expect, names)
    result.claimed_text = expect if isinstance(expect, str) else format_quantity(claimed)
    claimed, align, note = _align(claimed, result.computed)
    if note:
        notes.append(note)
    result.claimed = claimed
    aligned = result.computed * align
    if claimed.dimensionality != aligned.dimensionality:
        result.status = "disagree"
        result.mismatch = _mismatch(claimed, result.computed)
        result.candidates = _dimension_candidates(claimed, result.computed, names)
        return
    base_computed = float(aligned.to_base_units().magnitude)
    base_claimed = float(claimed.to_base_units().magnitude)
    if base_computed == 0:
        result.ratio = 1.0 if base_claimed == 0 else None
        result.status = "agree" if base_claimed == 0 else "disagree"
        return
    ratio = base_claimed / base_computed
    if not math.isfinite(ratio) or (ratio == 0 and base_claimed != 0):
        result.status = "disagree"  # apart by more than a float can say: no factor explains it
        return
    result.ratio = ratio
    if abs(result.ratio - 1.0) <= result.tolerance:
        result.status = "agree"
        return
    result.status = "disagree"
    context = _context(node, names, aligned, claimed, result.expression)
    # claims are rounded: match factors to at least 1% even when agreement must be exact
    found = candidates(result.ratio, context, max(result.tolerance, 0.01))
    _confirm(found, node, names, claimed, result, align)
    for candidate in found:
        _correct(candidate, claimed)
    result.candidates = found


def _correct(candidate: Candidate, claimed: pint.Quantity) -> None:
    """The claim with the slip undone: 0.35 s × 8 = 2.8 s."""
    if candidate.direction not in ("high", "low") or candidate.factor <= 0:
        return
    high = candidate.direction == "high"
    corrected = claimed / candidate.factor if high else claimed * candidate.factor
    try:
        shown = format_quantity(human(corrected))
    except (pint.PintError, ArithmeticError, ValueError):
        return
    candidate.correction = (f"{format_quantity(claimed)} {'÷' if high else '×'} "
                            f"{format_number(candidate.factor)} = {shown}")


def _is_count(q: pint.Quantity) -> bool:
    return bool(q.dimensionality) and all(d in COUNT_DIMENSIONS for d in q.dimensionality)


def _align(claimed: pint.Quantity, computed: pint.Quantity
           ) -> tuple[pint.Quantity, pint.Quantity, str]:
    """Make a claim comparable: (claimed, factor for the computed value, note).

    A bare number against a count is that many of the count's unit (6193 vs 6193 GPU). A
    value that keeps a GPU unit the claim lacks, as per-GPU record values leave behind
    ("... / H100-SXM.nvlink_bandwidth" is in s·GPU), is compared for one GPU.
    """
    one = Quantity(1.0)
    if claimed.dimensionless and _is_count(computed):
        promoted = Quantity(float(claimed.to("").magnitude), human(computed).units)
        return promoted, one, f"the claim has no unit: read as {format_quantity(promoted)}"
    if computed.dimensionless and _is_count(claimed):
        align = Quantity(1.0, claimed.units)
        return claimed, align, (f"the expression has no unit: compared as "
                                f"{format_quantity(computed * align)}")
    extra = computed.dimensionality / claimed.dimensionality
    if dict(extra.items()) in ({"[accelerator]": 1}, {"[accelerator]": -1}):
        power = extra["[accelerator]"]
        align = Quantity(1.0, "GPU") ** -power
        per_gpu = human(computed * align)
        which = "a GPU unit" if power > 0 else "a per-GPU unit"
        return claimed, align, (f"napkinmath's value {format_quantity(human(computed))} keeps "
                                f"{which} that the claim does not have (per-GPU record values "
                                f"carry /GPU): compared for one GPU, {format_quantity(per_gpu)}")
    return claimed, one, ""


def _mismatch(claimed: pint.Quantity, computed: pint.Quantity) -> str:
    return (f"the claim {format_quantity(claimed)} is {dimension_name(claimed.dimensionality)} "
            f"[{dimension_text(claimed.dimensionality)}] but napkinmath's value "
            f"{format_quantity(human(computed))} is {dimension_name(computed.dimensionality)} "
            f"[{dimension_text(computed.dimensionality)}]. To compare them, "
            f"{dimension_fix(claimed, computed).replace('right side', 'expression')}"
            .replace("left side", "claim"))


#: Dimension ratios (claimed / computed) that name a confusion of kind, not of size.
_KIND_SLIPS = {
    ("[time]", -1): ("count_vs_rate", "a total vs a rate (FLOP vs FLOP/s)",
                     "the claim is a rate (per second) but the expression gives an amount, or "
                     "a total was divided by a time twice"),
    ("[time]", 1): ("rate_vs_count", "a rate vs a total (FLOP/s vs FLOP)",
                    "the claim is an amount but the expression gives a rate (per second)"),
    ("[accelerator]", -1): ("per_gpu", "per GPU vs in total",
                            "the claim is per GPU but the expression gives a total (or forgot a "
                            "/GPU on a per-GPU figure)"),
    ("[accelerator]", 1): ("total_vs_per_gpu", "in total vs per GPU",
                           "the claim is a total over GPUs but the expression is per GPU"),
    ("[node]", -1): ("per_node_dim", "per node vs in total",
                     "the claim is per node but the expression gives a total"),
    ("[token]", -1): ("per_token", "per token vs in total",
                      "the claim is per token but the expression gives a total"),
    ("[parameter]", -1): ("per_param", "per parameter vs in total",
                          "the claim is per parameter but the expression gives a total"),
}


def _dimension_candidates(claimed: pint.Quantity, computed: pint.Quantity,
                          names: _Names) -> list[Candidate]:
    """Kinds of slip that explain a claim of another dimension, with a conversion if known."""
    ratio = claimed.dimensionality / computed.dimensionality
    found: list[Candidate] = []
    if len(ratio) == 1:
        ((dim, power),) = ratio.items()
        slip = _KIND_SLIPS.get((dim, power))
        if slip is not None:
            key, label, hint = slip
            found.append(Candidate(key, label, 1.0, "kind", hint, 0.0, 1.0, "dimension"))
    node_gpu = {"[accelerator]": 1, "[node]": -1}
    if dict(ratio.items()) in (node_gpu, {k: -v for k, v in node_gpu.items()}):
        per_node = names.given.get("gpus_per_node")
        if per_node is None:
            record = names._record_value("gpus_per_node")
            per_node = record[1].quantity if record else Quantity(8, "GPU/node")
        converted = (computed * per_node if ratio.get("[accelerator]", 0) > 0
                     else computed / per_node)
        try:
            close = abs(float((claimed / converted).to("").magnitude) - 1) <= names.tolerance
        except (pint.PintError, ArithmeticError):
            close = False
        evidence = [f"at {format_quantity(per_node)}, napkinmath's value is "
                    f"{format_quantity(human(converted))}"
                    + (", which agrees with the claim" if close else "")]
        found.append(Candidate("per_gpu_vs_per_node", "per GPU vs per node", 1.0, "kind",
                               "per-GPU and per-node figures mixed up", 0.0, 2.0 if close else 0.5,
                               "dimension", evidence=evidence if close else []))
    return found


# --- evidence: undo one slip and re-evaluate -------------------------------------------------
_PREFIX_LADDER = ("pico", "nano", "micro", "milli", "", "kilo", "mega", "giga", "tera", "peta",
                  "exa")
_BINARY = {"kibi": ("kilo", "k"), "mebi": ("mega", "m"), "gibi": ("giga", "g"),
           "tebi": ("tera", "t"), "pebi": ("peta", "p"), "exbi": ("exa", "e")}
_PREFIXABLE = ("bit", "byte", "FLOP", "FLOPS", "second", "watt", "watt_hour")


def _split_prefix(unit_name: str) -> tuple[str, str]:
    for prefix in sorted([p for p in _PREFIX_LADDER if p] + list(_BINARY), key=len,
                         reverse=True):
        if unit_name.startswith(prefix) and unit_name[len(prefix):] in _PREFIXABLE:
            return prefix, unit_name[len(prefix):]
    return "", unit_name


def _unit_swaps(units: UnitsContainer) -> list[tuple[str, UnitsContainer]]:
    """Units with one suspicious spelling undone: bits as bytes, binary prefixes as decimal.

    Only these directions are tried: undoing any unit at all (GB as Gb, h as day) would
    "confirm" every ratio of the right size and so prove nothing.
    """
    swaps: list[tuple[str, UnitsContainer]] = []
    for unit_name, power in units.items():
        prefix, base = _split_prefix(unit_name)
        if base not in ("bit", "byte"):
            continue
        others = {k: v for k, v in units.items() if k != unit_name}

        def swapped(new_name: str, others: dict = others, power: float = power) -> UnitsContainer:
            merged = dict(others)
            merged[new_name] = merged.get(new_name, 0) + power
            return UnitsContainer({k: v for k, v in merged.items() if v})

        if base == "bit":
            swaps.append(("bits_bytes", swapped(prefix + "byte")))
        if prefix in _BINARY:
            decimal, letter = _BINARY[prefix]
            swaps.append((f"binary_{letter}", swapped(decimal + base)))
    return swaps


def _alternatives(resolved: Resolved) -> list[tuple[str, str, pint.Quantity, float]]:
    """(confusion key, description, quantity, weight of the evidence) for one name with one
    slip undone. A unit spelling undone (Gb read as GB) is strong evidence; another value of
    the same record (the two-way link figure) is weaker, since other slips share its factor.
    """
    found: list[tuple[str, str, pint.Quantity, float]] = []
    q = resolved.quantity
    for key, units in _unit_swaps(q.units._units):
        try:
            new = Quantity(float(q.magnitude), ureg.Unit(units))
        except (pint.PintError, ArithmeticError, ValueError, TypeError):
            continue
        old_text, new_text = format_unit(q.units), format_unit(new.units)
        if resolved.origin == "unit":
            description = f"'{resolved.name}' read as '{new_text}'"
        else:
            description = (f"{resolved.name} = {format_quantity(q)} read as "
                           f"{format_number(float(q.magnitude))} {new_text} instead of "
                           f"{old_text}")
        found.append((key, description, new, 3.0))
    record, key = resolved.record, resolved.key
    if record is not None and key:
        siblings = []
        if key.endswith("_bidirectional") and key.removesuffix("_bidirectional") in record.values:
            siblings.append(("two_way", key.removesuffix("_bidirectional")))
        if key + "_bidirectional" in record.values:
            siblings.append(("two_way", key + "_bidirectional"))
        if key == "peak_flops" and "peak_flops_fp8" in record.values:
            siblings.append(("precision_peak", "peak_flops_fp8"))
        if key == "peak_flops_fp8" and "peak_flops" in record.values:
            siblings.append(("precision_peak", "peak_flops"))
        for confusion, other in siblings:
            value = record.values[other].quantity
            found.append((confusion, f"{record.id}.{other} ({format_quantity(value)}) used "
                          f"instead of {record.id}.{key} ({format_quantity(q)})", value, 1.5))
    return found


def _agrees(a: pint.Quantity, b: pint.Quantity, tolerance: float) -> bool:
    if a.dimensionality != b.dimensionality:
        return False
    x = float(a.to_base_units().magnitude)
    y = float(b.to_base_units().magnitude)
    return y != 0 and abs(x / y - 1) <= max(tolerance, 1e-9)


def _confirm(found: list[Candidate], node: Node, names: _Names, claimed: pint.Quantity,
             result: CheckResult, align: pint.Quantity) -> None:
    """Undo one suspicious slip at a time; where that reproduces the claim, say so.

    `align` is what the computed value was multiplied by to compare it with the claim
    (1, or 1/GPU when a per-GPU record value left a GPU unit the claim does not have).
    """
    evidence: dict[str, tuple[str, float]] = {}
    budget = MAX_REWRITES
    for pos, resolved in sorted(names.resolved.items()):
        for key, description, alternative, weight in _alternatives(resolved):
            if budget <= 0 or key in evidence:
                continue
            budget -= 1

            def swapped(name: str, where: int, pos: int = pos,
                        alternative: pint.Quantity = alternative) -> pint.Quantity:
                return alternative if where == pos else names(name, where)

            try:
                value = evaluate(node, result.expression, swapped) * align
            except NapkinError:
                continue
            except (pint.PintError, ArithmeticError, ValueError, TypeError):
                continue
            finally:
                names.resolved[pos] = resolved
            if _agrees(value, claimed, result.tolerance):
                literal = _literal_note(node, pos, names, key)
                text = f"with {description}, the expression gives {format_quantity(human(value))}"
                evidence[key] = (f"{literal}; {text}" if literal else text, weight)
    by_key = {c.key: c for c in found}
    for key, (text, weight) in evidence.items():
        candidate = by_key.get(key)
        if candidate is None:
            ratio = result.ratio or 1.0
            candidate = Candidate(key, key.replace("_", " "), max(ratio, 1 / ratio),
                                  "high" if ratio > 1 else "low",
                                  "undoing this slip reproduces the claim", 0.0, 0.5)
            found.append(candidate)
        candidate.evidence.append(text)
        candidate.score *= weight
    found.sort(key=lambda c: -c.score)


def _literal_note(node: Node, pos: int, names: _Names, key: str) -> str:
    """'did you mean GB/s? 400 Gb/s = 50 GB/s' for the number that carries a swapped unit."""
    if key != "bits_bytes" and not key.startswith("binary_"):
        return ""
    found = _literal_for(node, pos, names)
    if found is None:
        return ""
    text, _, swapped = found
    return f"did you mean {format_unit(swapped.units)}? {text} = {format_quantity(swapped)}"


def _literal_for(node: Node, pos: int, names: _Names
                 ) -> tuple[str, pint.Quantity, pint.Quantity] | None:
    """The literal "400 Gb/s" around the unit at `pos`, its value, and it in bytes/decimal."""
    for sub in _walk(node):
        if (sub.kind == "binop" and sub.style == "implicit" and sub.args[0].kind == "num"
                and sub.args[1].start <= pos < sub.args[1].end):
            try:
                value = evaluate(sub, names.text, names)
            except NapkinError:
                return None
            target = _readable_units(value.units._units)
            if target is None:
                return None
            try:
                swapped = value.to(ureg.Unit(target))
            except (pint.PintError, ArithmeticError):
                return None
            return names.text[sub.start:sub.end].strip(), value, swapped
    return None


def _readable_units(units: UnitsContainer) -> UnitsContainer | None:
    """Bits as bytes, binary prefixes as decimal: Gb/s -> GB/s, GiB -> GB."""
    changed = False
    new: dict[str, float] = {}
    for unit_name, power in units.items():
        prefix, base = _split_prefix(unit_name)
        if base in ("bit", "byte"):
            if prefix in _BINARY:
                prefix = _BINARY[prefix][0]
                changed = True
            if base == "bit":
                base = "byte"
                changed = True
            unit_name = prefix + base
        new[unit_name] = new.get(unit_name, 0) + power
    return UnitsContainer(new) if changed else None


def _walk(node: Node) -> Iterable[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.args))


def _unit_notes(node: Node, names: _Names) -> list[str]:
    """'400 Gb/s = 50 GB/s (b is a bit, B a byte)' for each bit or binary-prefixed literal."""
    notes: list[str] = []
    for pos, resolved in sorted(names.resolved.items()):
        if resolved.origin != "unit":
            continue
        readable = _readable_units(resolved.quantity.units._units)
        if readable is None:
            continue
        found = _literal_for(node, pos, names)
        bits = any(_split_prefix(n)[1] == "bit" for n in resolved.quantity.units._units)
        why = "b is a bit, B a byte" if bits else "GiB is 2³⁰ B, GB 10⁹ B"
        if found is not None:
            text, _, swapped = found
            notes.append(f"{text} = {format_quantity(swapped)} ({why})")
        else:
            one = Quantity(1.0, resolved.quantity.units)
            notes.append(f"1 {resolved.name} = {format_quantity(one.to(ureg.Unit(readable)))} "
                         f"({why})")
    return notes


# --- context for the confusion finder ------------------------------------------------------
def _context(node: Node, names: _Names, computed: pint.Quantity, claimed: pint.Quantity,
             expression: str) -> Context:
    dims: set[str] = set(computed.dimensionality) | set(claimed.dimensionality)
    unit_names: set[str] = set(claimed.units._units)
    words = [expression.lower()]
    for resolved in names.resolved.values():
        dims |= set(resolved.quantity.dimensionality)
        unit_names |= set(resolved.quantity.units._units)
        words.append(resolved.name.lower())
    for name, result in names.derivations.items():
        words.append(name)
        for given in result.givens.values():
            dims |= set(given.quantity.dimensionality)
            words.append(given.variable.name)
    bits = any(_split_prefix(n)[1] == "bit" for n in unit_names)
    binary = any(_split_prefix(n)[0] in _BINARY for n in unit_names)
    return Context(
        result_dimensions=frozenset(computed.dimensionality),
        dimensions=frozenset(dims), words=" ".join(words), bits=bits, binary=binary,
        gpus_per_node=_context_number(names, "gpus_per_node"),
        n_gpus=_context_number(names, "n_gpus"),
        n_heads=_context_number(names, "n_heads"),
        n_kv_heads=_context_number(names, "n_kv_heads"),
        ring_sizes=tuple(_ring_sizes(node, names)))


def _context_number(names: _Names, name: str) -> float | None:
    quantity = names.given.get(name)
    if quantity is None:
        try:
            found = names._record_value(name)
        except NapkinError:
            found = None
        quantity = found[1].quantity if found else None
    if quantity is None:
        return None
    try:
        return float(quantity.to_base_units().magnitude)
    except (pint.PintError, ArithmeticError):
        return None


def _ring_sizes(node: Node, names: _Names) -> list[float]:
    """Ring sizes n: from n=, ring_size=, n_ranks=, or an '(n - 1)' in the expression."""
    sizes = []
    for name in ("n", "ring_size", "n_ranks"):
        value = names.given.get(name)
        if value is not None and value.dimensionless:
            sizes.append(float(value.to("").magnitude))
    for sub in _walk(node):
        if (sub.kind == "binop" and sub.op == "-" and sub.args[0].kind == "num"
                and sub.args[1].kind == "num" and sub.args[1].value == 1
                and not sub.args[0].suffix and 2 <= sub.args[0].value <= 1e6):
            sizes.append(sub.args[0].value)
    return sizes
