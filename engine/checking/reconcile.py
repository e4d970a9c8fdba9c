"""Which input is the odd one out: each given of a disagreeing group solved from the others.

When over-determined givens disagree (gpu_hours against n_gpus · train_time), each given of
the group is removed in turn and solved from the rest with the same solver
(`solve_bound`), and the alternatives are ranked by plausibility:

1. a known slip (`napkinmath.checking.confusions`): the ratio of the given to its
   alternative is a factor that names a mistake (8 bits/bytes, 1.024³ GiB/GB, 2 sparse/dense,
   24 hours/days, 1000 a prefix) — the strongest evidence;
2. `napkinmath.solving.plausible`: inside the variable's bounds and the records' range, a
   whole count (whole nodes of GPUs), the targets it implies inside what published runs
   report (MFU 30–50%);
3. a tie-breaker: a given stated to 3 or more significant figures is more often a
   reported figure than an estimate.

`reconcile(...)` returns a `Reconciliation`; the InconsistentError of a solve names the most
likely odd one out (`odd_one_out`), and never fails for it: any error in ranking leaves the
message as it was.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field

from napkinmath.answer.data import CheckRecord, Given
from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import variables
from napkinmath.checking.confusions import Candidate, Context, candidates
from napkinmath.errors import InconsistentError, NapkinError, capped
from napkinmath.solving import plausible
from napkinmath.solving.plausible import Finding

#: set while alternatives are solved: their own disagreements are not ranked again
_RANKING: ContextVar[bool] = ContextVar("napkinmath_reconcile_ranking", default=False)
#: a group larger than this is not ranked in the error message (each member is a solve)
MAX_GROUP = 8


@dataclass
class Alternative:
    """One given of the group, solved from the others."""

    name: str
    given: Given
    result: Result | None = None  # the solve of `name` (and the targets) without it
    base: float | None = None  # the alternative value, base units
    slip: Candidate | None = None
    findings: list[Finding] = field(default_factory=list)
    failure: str = ""  # why it could not be solved from the others
    score: float = 0.0

    @property
    def value(self):
        return None if self.result is None else self.result[self.name]

    @property
    def ratio(self) -> float | None:
        """Your value / the alternative."""
        if self.base is None or self.base == 0:
            return None
        return self.given.base / self.base

    @property
    def verdict(self) -> str:
        if self.failure:
            return "not determined"
        if self.slip is not None:
            return "known slip"
        return plausible.verdict(self.findings)

    def value_text(self) -> str:
        return "—" if self.base is None else plausible.shown(self.name, self.base)

    def reason(self) -> str:
        """One clause: why this alternative is (not) likely."""
        if self.failure:
            return self.failure
        parts = [f"yours is {self.ratio:.4g}× the {self.value_text()} the others give"]
        if self.slip is not None:
            parts.append(f"exactly a known slip, {self.slip.summary().split(':')[0]}")
        parts += [f.reason for f in self.findings]
        if self.slip is None and not self.findings:
            parts.append("no known slip, and nothing speaks against the value the others give")
        return "; ".join(parts)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "given": plausible.shown(self.name, self.given.base),
            "alternative": None if self.base is None else self.value_text(),
            "ratio": self.ratio,
            "verdict": self.verdict,
            "score": round(self.score, 6),
            "slip": None if self.slip is None else self.slip.to_dict(),
            "reasons": [f.reason for f in self.findings],
            "failure": self.failure or None,
        }


@dataclass
class Reconciliation:
    """The givens' disagreement (if any) and each given of its group solved from the others,
    most plausible correction first (`alternatives`, in rank order)."""

    check: CheckRecord | None
    group: list[str]
    alternatives: dict[str, Alternative]
    message: str = ""  # the InconsistentError's message, or "" when the givens agree

    @property
    def consistent(self) -> bool:
        return self.check is None

    @property
    def odd_one_out(self) -> Alternative | None:
        """The most plausible correction, when it stands out (a fifth ahead of the next)."""
        ranked = [a for a in self.alternatives.values() if not a.failure and a.score > 0]
        if not ranked:
            return None
        if len(ranked) > 1 and ranked[0].score < 1.2 * ranked[1].score:
            return None
        return ranked[0]

    def summary(self) -> str:
        """One or two sentences naming the most likely odd one out, and why."""
        if self.check is None:
            return "The givens agree with each other: nothing to reconcile."
        best = self.odd_one_out
        solved = [a for a in self.alternatives.values() if not a.failure]
        if best is None and solved:
            return (
                "No given stands out as the odd one out (no known slip explains the ratio, "
                "and the values the others give are about as plausible): "
                + "; ".join(f"{a.name} = {a.value_text()} ({_short(a)})" for a in solved)
                + "."
            )
        if best is None:
            return "No given of the group could be solved from the others."
        others = [a for a in self.alternatives.values() if a is not best and not a.failure]
        margin = others and best.score < 1.5 * others[0].score
        text = (
            f"Most likely the odd one out{' (narrowly)' if margin else ''}: {best.name} "
            f"({best.reason()})"
        )
        if others:
            text += ". Less likely: " + "; ".join(
                f"{a.name} = {a.value_text()} ({_short(a)})" for a in others
            )
        return text + "."

    def _rows(self) -> list[tuple[str, ...]]:
        return [
            (
                str(i),
                a.name,
                plausible.shown(a.name, a.given.base),
                a.value_text(),
                "—" if a.ratio is None else f"{a.ratio:.4g}",
                a.verdict,
                a.reason(),
            )
            for i, a in enumerate(self.alternatives.values(), 1)
        ]

    _HEADER = ("#", "given", "yours", "from the others", "ratio", "verdict", "why")

    def __str__(self) -> str:
        if self.check is None:
            return self.summary()
        lines = [
            f"{self.check.formula.title} ({self.check.formula.name}): {self.check.describe()}; "
            f"{self.check.relative_difference:.1%} apart",
            "Each given solved from the others, most plausible correction first:",
        ]
        rows = [self._HEADER[:-1], *(r[:-1] for r in self._rows())]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            lines.append(
                "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            )
        lines += ["", self.summary(), ""]
        for a in self.alternatives.values():
            lines.append(f"{a.name}: {a.reason()}")
            if a.result is not None:
                lines += ["  " + line for line in a.result.to_text().splitlines()]
            lines.append("")
        return "\n".join(lines).rstrip()

    def to_text(self) -> str:
        return str(self)

    def to_markdown(self) -> str:
        if self.check is None:
            return self.summary()
        lines = [
            f"**{self.check.formula.title}** (`{self.check.formula.name}`): "
            f"{self.check.describe()}; {self.check.relative_difference:.1%} apart",
            "",
            "| " + " | ".join(self._HEADER) + " |",
            "|" + "---|" * len(self._HEADER),
        ]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in self._rows()]
        lines += ["", self.summary()]
        for a in self.alternatives.values():
            if a.result is not None:
                lines += ["", f"#### {a.name} from the others", "", a.result.to_markdown()]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_dict(self) -> dict:
        return {
            "consistent": self.consistent,
            "check": None
            if self.check is None
            else {
                "formula": self.check.formula.name,
                "describe": self.check.describe(),
                "relative_difference": self.check.relative_difference,
            },
            "group": list(self.group),
            "odd_one_out": None if self.odd_one_out is None else self.odd_one_out.name,
            "summary": self.summary(),
            "alternatives": [a.to_dict() for a in self.alternatives.values()],
        }


def _short(a: Alternative) -> str:
    if a.slip is not None:
        return f"a known slip: {a.slip.label}"
    if a.findings:  # the first reason, without its sources
        return a.findings[0].reason.split(" (")[0]
    return "no known slip, nothing against it"


def reconcile(
    targets: object = None,
    /,
    *,
    gpu: object = None,
    model: str | None = None,
    tolerance: float = 0.01,
    precision: str | None = None,
    records: object = None,
    **givens: object,
) -> Reconciliation:
    """Solve each given of the first disagreeing group from the others, and rank them.

    Takes `solve`'s arguments (the targets may be left out: the givens are checked against
    each other; `records` loads the user's records files as for `solve`). Returns a
    `Reconciliation`; when the givens agree, its `consistent` is True and it has no
    alternatives.

    >>> r = reconcile("mfu", params="405B", tokens="15.6T", n_gpus=16384,
    ...               train_time="54 days", gpu_hours="30.84e6 GPU*h", gpu="H100")
    >>> r.odd_one_out.name
    'train_time'
    """
    from napkinmath.solving.records import bound_records, user_records
    from napkinmath.solving.solver import bind, check_tolerance, solve_bound, target_names

    if records is not None:
        with user_records(records):
            return reconcile(
                targets, gpu=gpu, model=model, tolerance=tolerance, precision=precision, **givens
            )
    names: tuple[str, ...] = () if targets is None else target_names(targets)  # type: ignore[arg-type]
    check_tolerance(tolerance)
    if gpu is not None and type(gpu) is not str:
        gpu = bound_records(gpu, "gpu")
    bound = bind(names, givens, gpu=gpu, model=model, precision=precision)  # type: ignore[arg-type]
    try:
        solve_bound(names, bound, tolerance)
    except InconsistentError as exc:
        check = exc.checks[0]
        group = list(getattr(exc, "groups", [[]])[0])
        return rank(check, group, getattr(exc, "bound", bound), names, tolerance, str(exc))
    return Reconciliation(None, [], {})


def rank(
    check: CheckRecord,
    group: list[str],
    bound: Mapping[str, Given],
    targets: tuple[str, ...],
    tolerance: float,
    message: str = "",
) -> Reconciliation:
    """Each user given of `group` solved from the rest of `bound`, ranked (see the module)."""
    token = _RANKING.set(True)
    try:
        alternatives = [
            _alternative(name, bound, targets, tolerance)
            for name in group
            if name in bound and bound[name].origin == "given"
        ]
    finally:
        _RANKING.reset(token)
    alternatives.sort(key=lambda a: (-a.score, a.name))
    return Reconciliation(check, group, {a.name: a for a in alternatives}, message)


def _alternative(
    name: str, bound: Mapping[str, Given], targets: tuple[str, ...], tolerance: float
) -> Alternative:
    from napkinmath.solving.solver import solve_bound

    given = bound[name]
    alt = Alternative(name, given)
    rest = {k: g for k, g in bound.items() if k != name}
    wanted = (name, *(t for t in targets if t != name))
    try:  # without the search for suggestions or cancelling unknowns: a hint needs neither
        try:
            result = solve_bound(wanted, rest, tolerance, suggest=False, cancel=False)
        except NapkinError:
            if len(wanted) == 1:
                raise
            result = solve_bound((name,), rest, tolerance, suggest=False, cancel=False)
    except InconsistentError:
        alt.failure = "the others still disagree among themselves without it"
        return alt
    except NapkinError as exc:
        alt.failure = f"the others do not determine it ({type(exc).__name__})"
        return alt
    alt.result = result
    alt.base = float(result[name].to_base_units().magnitude)
    per_node = bound.get("gpus_per_node")
    g = float(per_node.base) if per_node is not None else 8.0
    alt.findings = plausible.judge(name, alt.base, g)
    for t in targets:
        if t != name and t in result.targets:
            base = float(result[t].to_base_units().magnitude)
            found = plausible.judge(t, base, g)
            alt.findings += [
                Finding(f.weight, f"it would make {f.reason}", f.verdict) for f in found
            ]
    alt.slip = _slip(name, alt)
    alt.score = plausible.weight(alt.findings)
    if alt.slip is not None:
        alt.score *= 1 + 6 * alt.slip.score
    figures = _figures(given.base / given.variable.base_factor)
    if figures >= 3 and alt.slip is None and not variables()[name].whole:
        alt.score *= 0.85
        alt.findings.append(
            Finding(
                0.85,
                f"yours is stated to {figures} significant figures, more often a reported "
                "figure than an estimate",
            )
        )
    return alt


def _slip(name: str, alt: Alternative) -> Candidate | None:
    """The known confusion that the ratio of the given to its alternative is, if any."""
    ratio = alt.ratio
    if ratio is None or not math.isfinite(ratio):
        return None
    var = variables()[name]
    dims = frozenset(str(d) for d in var.unit.dimensionality)
    unit = str(var.unit)
    # the unit the value was given in as well: a prefix slip needs its prefix there (GB)
    words = f"{name} {unit} {alt.given.quantity.units:~}".lower()
    context = Context(
        result_dimensions=dims,
        dimensions=dims,
        words=words,
        bits="bit" in words,
        binary="ibi" in words,
    )
    per_gpu = "[accelerator]" in dims or "[node]" in dims
    found = [
        c
        for c in candidates(ratio, context, 0.01)
        if c.key != "per_job" and (per_gpu or "per_node" not in c.parts)
    ]
    return found[0] if found else None


def _figures(value: float) -> int:
    """Significant figures of a value as stated (30.84e6 -> 4, 54 -> 2)."""
    if not math.isfinite(value) or value == 0:
        return 1
    digits = f"{abs(value):.12e}".split("e")[0].replace(".", "").rstrip("0")
    return max(1, len(digits))


def odd_one_out(
    check: CheckRecord,
    group: list[str],
    bound: Mapping[str, Given],
    targets: tuple[str, ...],
    tolerance: float,
) -> str:
    """The sentence the InconsistentError adds; "" when ranking is not done (inside a
    ranking, a group too large, fewer than two user givens) or fails in any way."""
    if _RANKING.get():
        return ""
    mine = [n for n in group if n in bound and bound[n].origin == "given"]
    if len(mine) < 2 or len(group) > MAX_GROUP:
        return ""
    try:
        found = rank(check, group, bound, targets, tolerance)
        if not any(not a.failure for a in found.alternatives.values()):
            return ""
        return found.summary()
    except Exception:  # the message stays as it was: ranking is a hint, never a failure
        return ""


def explained(error: InconsistentError) -> InconsistentError:
    """`error` (a solve's disagreement) with the most likely odd one out of its first group
    added to its message, when one stands out (`odd_one_out`); as it was otherwise."""
    if not error.checks or not error.groups or not error.bound:
        return error
    hint = odd_one_out(
        error.checks[0], error.groups[0], error.bound, tuple(error.targets), error.tolerance
    )
    if hint:
        error.args = (
            capped(
                f"{error.args[0]} {hint} (each alternative's derivation: `napkin solve ... "
                "--explain`, or nm.reconcile(...))"
            ),
            *error.args[1:],
        )
    return error
