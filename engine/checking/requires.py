"""What a claim would require: the single-input changes that would make it true.

When a claim disagrees and no known confusion explains the ratio, each input is changed
alone until the claim holds, and the change is judged (`napkinmath.solving.plausible`):

- an expression: each number or name of it is scaled by the factor s that makes the value
  match the claim. Where the value goes as a power of the input (a product or quotient:
  value ∝ input^e, e found from two evaluations) s = ratio^(1/e); otherwise s is found by
  bisection on log s. Only the safe evaluator runs, on the same tree with one leaf scaled.
- a library variable that napkinmath solved (``napkin check decode_speed --expect ...``):
  each of its inputs (the user's values and the records') is solved by the solver from the
  claim and the others.

Bounded: at most MAX_INPUTS inputs, MAX_EVALUATIONS evaluations each and MAX_REQUIRE_WORK
work units in all, charged to the check's work meter; any failure leaves the list shorter,
never an error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import pint

from napkinmath.checking.budget import SOLVE_COST
from napkinmath.solving import plausible
from napkinmath.text.expr import Node

MAX_INPUTS = 24
MAX_EVALUATIONS = 48
#: work (meter units: an evaluated node, a solve's SOLVE_COST) the list may spend per check
MAX_REQUIRE_WORK = 12_000


class _SpentError(Exception):
    """This check's share of work for requirements is spent."""


def _charge(names, units: int, start: int) -> None:
    names.meter.charge(units)
    if names.meter.exhausted or names.meter.spent - start > MAX_REQUIRE_WORK:
        raise _SpentError


@dataclass
class Requirement:
    """One input changed alone so that the claim holds."""

    name: str  # the input as written ("400 Gb/s", "tokens_per_step")
    given: str  # its value as used
    required: str  # the value the claim needs
    factor: float  # required / given
    verdict: str = "possible"
    reasons: list[str] = field(default_factory=list)
    score: float = 1.0
    derivation: str = ""

    def text(self) -> str:
        why = "; ".join(self.reasons) or "nothing known speaks for or against it"
        return (
            f"{self.name} = {self.required} instead of {self.given} (×{self.factor:.4g}): "
            f"{self.verdict} — {why}"
        )

    def to_dict(self) -> dict:
        return {
            "input": self.name,
            "given": self.given,
            "required": self.required,
            "factor": self.factor,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "score": round(self.score, 6),
            "derivation": self.derivation or None,
        }


def requirements(node: Node, names, claimed: pint.Quantity, align) -> list[Requirement]:
    """The single-input changes that make the expression `node` equal `claimed`, most
    plausible first (see the module); never raises."""
    try:
        if node.kind == "name" and node.text in names.derivations:
            found = _solved_inputs(node.text, names, claimed)
        else:
            found = _scaled_leaves(node, names, claimed, align)
    except Exception:  # a hint only: the check stands without it
        return []
    found.sort(key=lambda r: -r.score)
    return found


def _judged(req: Requirement, key: str | None, base: float | None) -> Requirement:
    from napkinmath.catalog.lookup import variables

    if key is not None and key in variables() and base is not None:
        findings = plausible.judge(key, base)
        req.reasons = [f.reason for f in findings]
        req.verdict = plausible.verdict(findings)
        req.score = plausible.weight(findings)
    else:
        req.reasons = ["a number of the expression: no range is known for it"]
        req.score = 0.5
        req.verdict = "possible"
    return req


#: what a plain number of these units stands for, to judge it as that variable
_BY_UNIT = {"byte / param": "weight_bytes_per_param", "token / sequence": "tokens_per_step"}


def _number_key(written: pint.Quantity) -> str | None:
    from napkinmath.units import Quantity

    for unit, key in _BY_UNIT.items():
        if written.dimensionality == Quantity(1.0, unit).dimensionality:
            return key
    return None


def _whole(req: Requirement, leaf: Node, s: float) -> None:
    """A bare integer of the expression (a count or factor) that would have to be fractional."""
    required = leaf.value * s
    whole = leaf.value >= 1 and float(leaf.value).is_integer() and "." not in leaf.text
    if whole and abs(required - round(required)) > 1e-3 * max(1.0, abs(required)):
        req.reasons.insert(0, f"{leaf.text} is a whole number as written; {required:.4g} is not")
        req.verdict = "implausible"
        req.score *= 0.3


def _solved_inputs(name: str, names, claimed: pint.Quantity) -> list[Requirement]:
    """Each input of napkinmath's solve of `name`, solved from the claim and the others."""
    from napkinmath.text.numbers import format_value

    result = names.derivations[name]
    found: list[Requirement] = []
    own = {k: v for k, v in names.given.items() if k != name}
    order = {"given": 0, "assumption": 1, "record": 2}
    inputs = sorted(
        (kv for kv in result.givens.items() if kv[1].origin in order),
        key=lambda kv: order[kv[1].origin],
    )
    start = names.meter.spent
    for key, given in inputs[:MAX_INPUTS]:
        try:
            _charge(names, SOLVE_COST, start)
        except _SpentError:
            break
        others = {k: v for k, v in own.items() if k != key}
        answer = _solve(key, {**others, name: claimed}, names)
        if answer is None:
            continue
        value = answer[key]
        base = float(value.to_base_units().magnitude)
        if not (math.isfinite(base) and given.base > 0 and base > 0):
            continue
        if abs(math.log(base / given.base)) <= math.log1p(max(names.tolerance, 0.01)):
            continue  # the claim does not hang on this input
        req = Requirement(
            key,
            format_value(plausible_display(given.base, key), given.variable),
            plausible.shown(key, base),
            base / given.base,
            derivation=answer.to_text(),
        )
        _judged(req, key, base)
        if given.origin == "record":
            req.reasons.insert(
                0,
                f"the {given.record} record states {req.given}: another value is another "
                "device or model",
            )
            if req.verdict in ("plausible", "possible", "unusual"):
                req.verdict = "implausible"
            req.score *= 0.25
        found.append(req)
    return found


def _solve(key: str, givens: dict, names):
    """The solve of `key` from `givens` and the records, without the search for suggestions
    or cancelling unknowns (a hint needs no more); None when it has no answer."""
    from napkinmath.errors import NapkinError
    from napkinmath.solving.solver import bind, solve_bound

    try:
        bound = bind((key,), givens, gpu=names.gpu, model=names.model)
        return solve_bound((key,), bound, max(names.tolerance, 0.01), suggest=False, cancel=False)
    except NapkinError:
        return None


def plausible_display(base: float, key: str) -> pint.Quantity:
    from napkinmath.answer.data import display
    from napkinmath.catalog.lookup import variables

    return display(base, variables()[key])


def _leaves(node: Node, parent: Node | None, out: list[tuple[Node, Node]]) -> None:
    """(leaf, the node shown for it): a number with its unit ("400 Gb/s"), or a name."""
    if node.kind == "num":
        shown = parent if parent is not None and parent.style in ("implicit", "unit") else node
        out.append((node, shown))
    elif node.kind == "name" and node.style != "unit":
        out.append((node, node))
    for arg in node.args:
        if not (node.style == "unit" and arg.kind == "name"):
            _leaves(arg, node, out)


def _scaled(node: Node, leaf: Node, s: float) -> Node:
    if node is leaf:
        return Node("binop", node.pos, op="*", args=(node, Node("num", node.pos, value=s)))
    if not node.args:
        return node
    return replace(node, args=tuple(_scaled(a, leaf, s) for a in node.args))


def _scaled_leaves(node: Node, names, claimed: pint.Quantity, align) -> list[Requirement]:
    from napkinmath.checking.evidence import tree_size
    from napkinmath.text.dimensions import human
    from napkinmath.text.evaluation import evaluate
    from napkinmath.units import format_quantity

    target = float(claimed.to_base_units().magnitude)
    cost = tree_size(node)
    text = names.text

    start = names.meter.spent

    def value(leaf: Node, s: float) -> float:
        _charge(names, cost, start)
        q = evaluate(_scaled(node, leaf, s), text, names) * align
        return float(q.to_base_units().magnitude)

    leaves: list[tuple[Node, Node]] = []
    _leaves(node, None, leaves)
    found: list[Requirement] = []
    for leaf, shown_node in leaves[:MAX_INPUTS]:
        if leaf.kind == "name":
            resolved = names.resolved.get(leaf.pos)
            if resolved is None or resolved.origin == "unit":
                continue
        try:
            base1 = value(leaf, 1.0)
            if not base1 or not math.isfinite(base1):
                continue
            s = _factor(lambda x, leaf=leaf, b=base1: value(leaf, x) / b, target / base1)
        except _SpentError:
            break
        if s is None:
            continue
        source = text[shown_node.start : shown_node.end] if shown_node.start >= 0 else ""
        written = evaluate(shown_node, text, names)
        required = format_quantity(human(written * s))
        key, base = None, None
        if leaf.kind == "name":
            resolved = names.resolved[leaf.pos]
            key = getattr(resolved, "key", None) or leaf.text.rpartition(".")[2]
            base = float((resolved.quantity * s).to_base_units().magnitude)
        elif shown_node is not leaf:
            key = _number_key(written)
            if key is not None:
                base = float((written * s).to_base_units().magnitude)
        req = Requirement(
            source or leaf.text,
            format_quantity(written),
            required,
            s,
            derivation=f"{text} with {source or leaf.text} × {s:.6g} = the claim",
        )
        _judged(req, key, base)
        if leaf.kind == "num" and written.dimensionless:
            _whole(req, leaf, s)
        found.append(req)
    return found


def _factor(ratio_at, wanted: float) -> float | None:
    """The s > 0 with ratio_at(s) = wanted: a power law first, else bisection on log s."""
    r2 = ratio_at(2.0)
    if not (r2 > 0 and math.isfinite(r2)) or abs(math.log(r2)) < 1e-9:
        return None
    e = math.log(r2) / math.log(2.0)
    r10 = ratio_at(10.0)
    if r10 > 0 and abs(math.log(r10) - e * math.log(10.0)) < 1e-6:
        s = math.exp(math.log(wanted) / e)
        return s if math.isfinite(s) and s > 0 else None
    lo, hi = -20.0, 20.0
    f_lo = math.log(ratio_at(math.exp(lo)) / wanted)
    f_hi = math.log(ratio_at(math.exp(hi)) / wanted)
    if f_lo * f_hi > 0:
        return None
    for _ in range(MAX_EVALUATIONS):
        mid = (lo + hi) / 2
        f_mid = math.log(ratio_at(math.exp(mid)) / wanted)
        if f_lo * f_mid <= 0:
            hi = mid
        else:
            lo, f_lo = mid, f_mid
    return math.exp((lo + hi) / 2)
