"""Evidence for a named confusion: undo one slip in the expression and re-evaluate.

A candidate from `napkinmath.checking.confusions` is *confirmed* when the expression, with the slip
undone (Gb read as GB, GiB as GB, a record's two-way figure for its one-way one), gives the
claimed value. Also the context the confusion finder needs (ring size, heads, GPUs per node).
"""

from __future__ import annotations

from collections.abc import Iterable

import pint
from pint.util import UnitsContainer

from napkinmath.checking import budget
from napkinmath.checking.confusions import Candidate, Context
from napkinmath.checking.names import Names, Resolved
from napkinmath.checking.outcome import CheckResult
from napkinmath.errors import NapkinError
from napkinmath.text.dimensions import human
from napkinmath.text.evaluation import evaluate
from napkinmath.text.expr import Node
from napkinmath.units import Quantity, format_number, format_quantity, format_unit, powers, ureg

#: Re-evaluations tried to confirm a confusion (each undoes one slip); the work they may
#: spend is bounded too, by `budget.MAX_CONFIRM_NODES` evaluated nodes per check.
MAX_REWRITES = 80

# --- evidence: undo one slip and re-evaluate -------------------------------------------------
_PREFIX_LADDER = (
    "pico",
    "nano",
    "micro",
    "milli",
    "",
    "kilo",
    "mega",
    "giga",
    "tera",
    "peta",
    "exa",
)
_BINARY = {
    "kibi": ("kilo", "k"),
    "mebi": ("mega", "m"),
    "gibi": ("giga", "g"),
    "tebi": ("tera", "t"),
    "pebi": ("peta", "p"),
    "exbi": ("exa", "e"),
}
_PREFIXABLE = ("bit", "byte", "FLOP", "FLOPS", "second", "watt", "watt_hour")


def _split_prefix(unit_name: str) -> tuple[str, str]:
    for prefix in sorted([p for p in _PREFIX_LADDER if p] + list(_BINARY), key=len, reverse=True):
        if unit_name.startswith(prefix) and unit_name[len(prefix) :] in _PREFIXABLE:
            return prefix, unit_name[len(prefix) :]
    return "", unit_name


def _unit_swaps(units: UnitsContainer) -> list[tuple[str, UnitsContainer]]:
    """Units with one suspicious spelling undone: bits as bytes, binary prefixes as decimal.

    Only these directions are tried: undoing any unit at all (GB as Gb, h as day) would
    "confirm" every ratio of the right size and so prove nothing.
    """
    swaps: list[tuple[str, UnitsContainer]] = []
    exponents = powers(units)
    for unit_name, power in exponents.items():
        prefix, base = _split_prefix(unit_name)
        if base not in ("bit", "byte"):
            continue
        others = {k: v for k, v in exponents.items() if k != unit_name}

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
            description = (
                f"{resolved.name} = {format_quantity(q)} read as "
                f"{format_number(float(q.magnitude))} {new_text} instead of "
                f"{old_text}"
            )
        found.append((key, description, new, 3.0))
    record, key = resolved.record, resolved.key
    if record is not None and key:
        siblings = []
        if key.endswith("_bidirectional") and key.removesuffix("_bidirectional") in record.values:
            siblings.append(("two_way", key.removesuffix("_bidirectional")))
        if key + "_bidirectional" in record.values:
            siblings.append(("two_way", key + "_bidirectional"))
        peaks = ("peak_flops", "peak_flops_fp8", "peak_flops_int8")  # one per precision
        if key in peaks:
            siblings += [("precision_peak", p) for p in peaks if p != key and p in record.values]
        for confusion, other in siblings:
            value = record.values[other].quantity
            found.append(
                (
                    confusion,
                    f"{record.id}.{other} ({format_quantity(value)}) used "
                    f"instead of {record.id}.{key} ({format_quantity(q)})",
                    value,
                    1.5,
                )
            )
    return found


def _agrees(a: pint.Quantity, b: pint.Quantity, tolerance: float) -> bool:
    if a.dimensionality != b.dimensionality:
        return False
    x = float(a.to_base_units().magnitude)
    y = float(b.to_base_units().magnitude)
    return y != 0 and abs(x / y - 1) <= max(tolerance, 1e-9)


def confirm(
    found: list[Candidate],
    node: Node,
    names: Names,
    claimed: pint.Quantity,
    result: CheckResult,
    align: pint.Quantity,
) -> None:
    """Undo one suspicious slip at a time; where that reproduces the claim, say so.

    `align` is what the computed value was multiplied by to compare it with the claim
    (1, or 1/GPU when a per-GPU record value left a GPU unit the claim does not have).
    """
    evidence: dict[str, tuple[str, float]] = {}
    size = tree_size(node)
    meter = names.meter
    allowance = min(budget.MAX_CONFIRM_NODES, meter.left)
    rewrites = spent = 0
    untried: set[int] = set()
    for pos, resolved in sorted(names.resolved.items()):
        if untried:  # the budget is spent: count the names left, without evaluating
            if any(key not in evidence for key, *_ in _alternatives(resolved)):
                untried.add(pos)
            continue
        for key, description, alternative, weight in _alternatives(resolved):
            if key in evidence:
                continue
            if rewrites >= MAX_REWRITES or spent + size > allowance:
                untried.add(pos)
                break
            rewrites += 1
            spent += size
            meter.charge(size)

            def swapped(
                name: str, where: int, pos: int = pos, alternative: pint.Quantity = alternative
            ) -> pint.Quantity:
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
    if untried:
        result.confirmation_stopped = _stopped(
            rewrites, len(untried), size, allowance, allowance < budget.MAX_CONFIRM_NODES
        )
    by_key = {c.key: c for c in found}
    for key, (text, weight) in evidence.items():
        candidate = by_key.get(key)
        if candidate is None:
            ratio = result.ratio or 1.0
            candidate = Candidate(
                key,
                key.replace("_", " "),
                max(ratio, 1 / ratio),
                "high" if ratio > 1 else "low",
                "undoing this slip reproduces the claim",
                0.0,
                0.5,
            )
            found.append(candidate)
        candidate.evidence.append(text)
        candidate.score *= weight
    found.sort(key=lambda c: -c.score)


def _stopped(rewrites: int, untried: int, size: int, allowance: float, table: bool) -> str:
    """Why confirmation stopped before every slip was tried."""
    if rewrites >= MAX_REWRITES:
        why = f"at most {MAX_REWRITES} re-evaluations are tried"
    elif table:
        why = "the table's work budget is spent"
    else:
        why = (
            f"its budget of {int(allowance):,} evaluated nodes is spent (the expression "
            f"has {size:,})"
        )
    return (
        f"confirmation stopped early: {why}; {rewrites} re-evaluation"
        f"{'s' if rewrites != 1 else ''} tried, {untried} name{'s' if untried != 1 else ''}"
        " not tried, so an unconfirmed cause may still be the right one"
    )


def tree_size(node: Node) -> int:
    """The number of nodes of an expression tree: the work of evaluating it once."""
    return sum(1 for _ in _walk(node))


def _literal_note(node: Node, pos: int, names: Names, key: str) -> str:
    """'did you mean GB/s? 400 Gb/s = 50 GB/s' for the number that carries a swapped unit."""
    if key != "bits_bytes" and not key.startswith("binary_"):
        return ""
    found = _literal_for(node, pos, names)
    if found is None:
        return ""
    text, _, swapped = found
    return f"did you mean {format_unit(swapped.units)}? {text} = {format_quantity(swapped)}"


def _literal_for(
    node: Node, pos: int, names: Names
) -> tuple[str, pint.Quantity, pint.Quantity] | None:
    """The literal "400 Gb/s" around the unit at `pos`, its value, and it in bytes/decimal."""
    if names.literals is None:
        names.literals = [
            sub
            for sub in _walk(node)
            if sub.kind == "binop" and sub.style == "implicit" and sub.args[0].kind == "num"
        ]
    for sub in names.literals:
        if sub.args[1].start <= pos < sub.args[1].end:
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
            return names.text[sub.start : sub.end].strip(), value, swapped
    return None


def _readable_units(units: UnitsContainer) -> UnitsContainer | None:
    """Bits as bytes, binary prefixes as decimal: Gb/s -> GB/s, GiB -> GB."""
    changed = False
    new: dict[str, float] = {}
    for unit_name, power in powers(units).items():
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


def unit_notes(node: Node, names: Names) -> list[str]:
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
            notes.append(
                f"1 {resolved.name} = {format_quantity(one.to(ureg.Unit(readable)))} ({why})"
            )
    return notes


# --- context for the confusion finder ------------------------------------------------------
def confusion_context(
    node: Node, names: Names, computed: pint.Quantity, claimed: pint.Quantity, expression: str
) -> Context:
    dims: set[str] = set(computed.dimensionality) | set(claimed.dimensionality)
    unit_names: set[str] = set(claimed.units._units)
    # the units as written (a prefix slip needs its prefix there: GB for GB vs GiB)
    words = [expression.lower(), f"{claimed.units:~}".lower(), f"{computed.units:~}".lower()]
    words.append(names.beside.lower())
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
        dimensions=frozenset(dims),
        words=" ".join(words),
        bits=bits,
        binary=binary,
        gpus_per_node=_context_number(names, "gpus_per_node"),
        n_gpus=_context_number(names, "n_gpus"),
        n_heads=_context_number(names, "n_heads"),
        n_kv_heads=_context_number(names, "n_kv_heads"),
        ring_sizes=tuple(_ring_sizes(node, names)),
    )


def _context_number(names: Names, name: str) -> float | None:
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


def _ring_sizes(node: Node, names: Names) -> list[float]:
    """Ring sizes n: from n=, ring_size=, n_ranks=, or an '(n - 1)' in the expression."""
    sizes = []
    for name in ("n", "ring_size", "n_ranks"):
        value = names.given.get(name)
        if value is not None and value.dimensionless:
            sizes.append(float(value.to("").magnitude))
    for sub in _walk(node):
        if (
            sub.kind == "binop"
            and sub.op == "-"
            and sub.args[0].kind == "num"
            and sub.args[1].kind == "num"
            and sub.args[1].value == 1
            and not sub.args[0].suffix
            and 2 <= sub.args[0].value <= 1e6
        ):
            sizes.append(sub.args[0].value)
    return sizes
