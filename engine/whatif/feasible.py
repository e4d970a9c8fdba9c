"""Feasibility in every what-if: which rows, ranges and samples fit, and what binds.

A sweep's table gains three columns when its answer touches a constraint: ``feasible``
(every constraint evaluated there holds), ``binding constraint`` (the one nearest its limit,
or furthest past it) and ``share of limit [%]`` (that constraint's left side as a percent of
its limit: above 100, violated), and a note per violated constraint saying where. A range
says whether the whole box fits and, along each ranged input, where a constraint's boundary
is crossed (found from the constraint's margin along the range, then bisected); Monte Carlo
says the share of samples that fit. Everything is evaluated vectorised, on the chain the
answer was planned with (`VectorChain.feasibility`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from napkinmath.answer.data import ConstraintRecord, sentence
from napkinmath.answer.result import Result
from napkinmath.library.declare import Constraint
from napkinmath.units import format_number
from napkinmath.whatif.spread import Bound
from napkinmath.whatif.table import BINDING, FEASIBLE, SHARE, Column
from napkinmath.whatif.vectorize import Feasibility, VectorChain

#: points per ranged input of the search for a constraint's worst and best (as `box`)
GRID_POINTS = 20_000
REFINEMENTS = 8
#: points along one ranged input when looking for where a boundary is crossed
CROSSING_POINTS = 513
BISECTIONS = 60


def record(c: Constraint, lhs: float, rhs: float) -> ConstraintRecord:
    """One point of a constraint as the scalar answer shows it."""
    return ConstraintRecord(c, float(lhs), float(rhs), bool(lhs < rhs if c.strict else lhs <= rhs))


def share_text(share: float) -> str:
    """'71% of the limit' or '2.59× the limit', as a constraint's line says it."""
    if not math.isfinite(share):
        return "no limit"
    if share <= 1:
        return f"{share:.0%} of the limit"
    return f"{format_number(share, sig=3)}× the limit"


# --- table columns (sweeps and comparisons) ---------------------------------------------------
def columns(fits: list[bool | None], binding: list[str], shares: list[float]) -> list[Column]:
    """The three feasibility columns of a table, one value per row."""
    return [
        Column(FEASIBLE, "", list(fits), role="info"),
        Column(BINDING, "", list(binding), role="info"),
        Column(SHARE, "%", (np.array(shares, dtype=float) * 100).tolist(), role="info"),
    ]


def rows(feasibility: Feasibility) -> tuple[list[bool | None], list[str], list[float]]:
    """Per row: whether it fits (None where no constraint could be evaluated), the binding
    constraint and its share of the limit."""
    evaluated, fits = feasibility.evaluated.tolist(), feasibility.fits.tolist()
    names, shares = feasibility.binding()
    return (
        [f if e else None for f, e in zip(fits, evaluated, strict=True)],
        names,
        shares.tolist(),
    )


def legend(names: list[str]) -> str:
    """The note that says what the feasibility columns mean."""
    return (
        f"{FEASIBLE}: every constraint evaluated at that row holds ({', '.join(names)}); "
        f"{BINDING}: the one nearest its limit or furthest past it, with its {SHARE} (the "
        "left side as a percent of the limit; above 100%, violated)"
    )


def sweep_notes(feasibility: Feasibility, where: list[str]) -> tuple[list[str], list[str]]:
    """The notes and the warnings of a sweep: what the columns mean, then each violated
    constraint with the rows where it fails (`where[i]` names row i: 'batch_size = 128
    sequence') and its worst row."""
    if not feasibility.constraints:
        return [], []
    notes = [legend([c.name for c in feasibility.constraints])]
    warnings = []
    total = feasibility.size
    for c in feasibility.constraints:
        bad = np.flatnonzero(feasibility.violated(c.name))
        unknown = int((~feasibility.known[c.name]).sum())
        if bad.size:
            shares = feasibility.share(c.name)
            worst = int(bad[np.argmax(shares[bad])])
            at = record(c, feasibility.lhs[c.name][worst], feasibility.rhs[c.name][worst])
            rows_text = _rows_text([where[i] for i in bad.tolist()])
            text = (
                f"{c.title} is violated in {bad.size:,} of {total:,} rows ({rows_text}); "
                f"worst {at.describe()} at {where[worst]}. {sentence(c.message)}"
            )
            notes.append(f"does not fit: {text}")
            warnings.append(text)
        if unknown:
            notes.append(
                f"{c.name} could not be evaluated in {unknown:,} of {total:,} rows "
                "(a value it reads has no admissible answer there)"
            )
    if not warnings:
        names, shares = feasibility.binding()
        known = np.flatnonzero(~np.isnan(shares))
        if known.size:
            tight = int(known[np.argmax(shares[known])])
            notes.append(
                f"every row fits; the tightest is {names[tight]} at "
                f"{share_text(float(shares[tight]))} ({where[tight]})"
            )
    return notes, warnings


def _rows_text(places: list[str], most: int = 4) -> str:
    if len(places) <= most:
        return "; ".join(places)
    return "; ".join(places[:2]) + f"; … ; {places[-1]}"


# --- comparisons ------------------------------------------------------------------------------
def result_row(result: Result) -> tuple[bool | None, str, float]:
    """A scalar answer as one row: fits (None without a constraint), binding, share."""
    if not result.constraints:
        return None, "", math.nan
    tight = max(result.constraints, key=lambda r: r.share)
    return result.fits, tight.constraint.name, tight.share


# --- ranges -----------------------------------------------------------------------------------
@dataclass
class Crossing:
    """Where a constraint's boundary lies along one ranged input (the others at their
    centres): the input's value there, and on which side the constraint is violated."""

    name: str
    value: float  # base units
    violated: str  # "above" or "below"
    #: the other ranged inputs, at their centres (base units)
    others: dict[str, float] = field(default_factory=dict)


@dataclass
class RangeConstraint:
    """A constraint over the whole box of ranged inputs: its least and greatest share of
    the limit (and where), whether it holds everywhere, nowhere or in part, and the
    crossings of its boundary along each ranged input."""

    constraint: Constraint
    best: ConstraintRecord
    best_at: dict[str, float]
    worst: ConstraintRecord
    worst_at: dict[str, float]
    crossings: list[Crossing] = field(default_factory=list)
    #: points of the search where it could not be evaluated
    unknown: int = 0

    @property
    def everywhere(self) -> bool:
        """True when it holds at every point of the ranges."""
        return self.worst.holds

    @property
    def somewhere(self) -> bool:
        """True when it holds at some point of the ranges."""
        return self.best.holds

    def where(self) -> str:
        """'holds for batch_size ≤ 66.61 sequence, violated above it (along batch_size)'."""
        from napkinmath.whatif.answers import point_text

        parts = []
        for x in self.crossings:
            shown = point_text({x.name: x.value})
            kept = "≤" if x.violated == "above" else "≥"
            name, _, value = shown.partition(" = ")
            at = f" (at {point_text(x.others)})" if x.others else ""
            parts.append(f"holds for {name} {kept} {value}, violated {x.violated} it{at}")
        return "; ".join(parts)

    def line(self) -> str:
        from napkinmath.whatif.answers import point_text

        c = self.constraint
        if self.everywhere:
            return (
                f"✓ {c.title}: holds over the whole range (at most {self.worst.describe()}"
                f" at {point_text(self.worst_at)})"
            )
        if not self.somewhere:
            return (
                f"✗ VIOLATED over the whole range: {c.title}: at best "
                f"{self.best.describe()} at {point_text(self.best_at)}. "
                f"{sentence(c.message)}"
            )
        along = self.where() or "violated in part of the box"
        return (
            f"✗ VIOLATED in part of the range: {c.title}: {along} (worst "
            f"{self.worst.describe()} at {point_text(self.worst_at)}). "
            f"{sentence(c.message)}"
        )

    def warning(self) -> str:
        c = self.constraint
        if self.everywhere:
            return ""
        if not self.somewhere:
            return f"{c.title} is violated over the whole range: at best {self.best.describe()}"
        along = self.where() or "violated in part of the box"
        return f"{c.title} is violated in part of the range: {along}"

    def to_dict(self) -> dict[str, object]:
        from napkinmath.whatif.answers import point_text

        def end(r: ConstraintRecord, at: dict[str, float]) -> dict:
            return {
                "share": r.share,
                "holds": r.holds,
                "text": r.describe(),
                "at": at,
                "at_text": point_text(at),
            }

        return {
            "name": self.constraint.name,
            "title": self.constraint.title,
            "holds_everywhere": self.everywhere,
            "holds_somewhere": self.somewhere,
            "best": end(self.best, self.best_at),
            "worst": end(self.worst, self.worst_at),
            "crossings": [
                {
                    "input": x.name,
                    "value": x.value,
                    "violated": x.violated,
                    "others": x.others,
                    "text": point_text({x.name: x.value}),
                }
                for x in self.crossings
            ],
            "text": self.line(),
            "message": "" if self.everywhere else self.constraint.message,
        }


def over_box(
    chain: VectorChain, fixed: dict[str, float], bounds: list[Bound]
) -> list[RangeConstraint]:
    """Every constraint of `chain` over the box `bounds`: its best and worst share (a grid
    with the corners, refined around each end as `box` refines a step's range) and, where
    it holds in part, its crossings along each ranged input."""
    if not chain.constraints:
        return []
    names = [b.name for b in bounds]
    full = [(b.low_base, b.high_base) for b in bounds]
    n = max(3, min(2001, int(GRID_POINTS ** (1 / len(bounds))))) if bounds else 1
    grid = _at(chain, fixed, names, _grid(full, n))
    out = []
    for c in grid[0].constraints:
        share = grid[0].share(c.name)
        if np.isnan(share).all():
            continue
        ends = [_end(grid, c, sense) for sense in ("low", "high")]
        for i, sense in enumerate(("low", "high")):
            box = list(full)
            for _ in range(REFINEMENTS if bounds else 0):  # one grid step around the end
                value, at = ends[i]
                box = [
                    (
                        max(lo, at[name] - (hi - lo) / (n - 1)),
                        min(hi, at[name] + (hi - lo) / (n - 1)),
                    )
                    for name, (lo, hi) in zip(names, box, strict=True)
                ]
                closer = _end(_at(chain, fixed, names, _grid(box, n)), c, sense)
                if (closer[0] < value) if sense == "low" else (closer[0] > value):
                    ends[i] = closer
        best = _record_at(chain, fixed, c, ends[0][1])
        worst = _record_at(chain, fixed, c, ends[1][1])
        if best is None or worst is None:
            continue
        found = RangeConstraint(
            c, best, ends[0][1], worst, ends[1][1], unknown=int(np.isnan(share).sum())
        )
        if best.holds and not worst.holds:
            found.crossings = _crossings(chain, fixed, bounds, c)
        out.append(found)
    return out


def _grid(box: list[tuple[float, float]], n: int) -> list[np.ndarray]:
    axes = [np.linspace(lo, hi, n) for lo, hi in box]
    return [g.ravel() for g in np.meshgrid(*axes, indexing="ij")] if axes else []


def _at(
    chain: VectorChain, fixed: dict[str, float], names: list[str], points: list[np.ndarray]
) -> tuple[Feasibility, dict[str, np.ndarray]]:
    """The constraints at these points of the box, and the points by input name."""
    size = len(points[0]) if points else 1
    inputs: dict[str, np.ndarray | float] = dict(fixed)
    inputs.update(dict(zip(names, points, strict=True)))
    values, ok = chain.evaluate(inputs, (size,))
    return chain.feasibility(values, ok), dict(zip(names, points, strict=True))


def _end(
    at: tuple[Feasibility, dict[str, np.ndarray]], c: Constraint, sense: str
) -> tuple[float, dict[str, float]]:
    """The least or greatest share of `c` at these points, and the point."""
    feasibility, points = at
    if c.name not in feasibility.known:
        return (math.inf if sense == "low" else -math.inf), {}
    share = feasibility.share(c.name)
    filled = np.where(np.isnan(share), np.inf if sense == "low" else -np.inf, share)
    i = int(np.argmin(filled) if sense == "low" else np.argmax(filled))
    return float(filled[i]), {name: float(p[i]) for name, p in points.items()}


def _record_at(
    chain: VectorChain, fixed: dict[str, float], c: Constraint, at: dict[str, float]
) -> ConstraintRecord | None:
    point: dict[str, np.ndarray | float] = dict(fixed)
    point.update({n: np.array([v]) for n, v in at.items()})
    values, ok = chain.evaluate(point, (1,))
    feasibility = chain.feasibility(values, ok)
    if c.name not in feasibility.known or not bool(feasibility.known[c.name][0]):
        return None
    return record(c, feasibility.lhs[c.name][0], feasibility.rhs[c.name][0])


def _crossings(
    chain: VectorChain, fixed: dict[str, float], bounds: list[Bound], c: Constraint
) -> list[Crossing]:
    """Along each ranged input, the others at their centres: where the margin (the share
    less 1) changes sign between grid points, bisected to the float's precision."""
    centre = {b.name: (b.low_base + b.high_base) / 2 for b in bounds}
    found = []
    for b in bounds:
        xs = np.linspace(b.low_base, b.high_base, CROSSING_POINTS)
        margin = _margin(chain, fixed, centre, b.name, xs, c)
        for i in range(len(xs) - 1):
            m0, m1 = margin[i], margin[i + 1]
            if not (np.isfinite(m0) and np.isfinite(m1)) or (m0 > 0) == (m1 > 0):
                continue
            lo, hi = xs[i], xs[i + 1]
            for _ in range(BISECTIONS):
                mid = (lo + hi) / 2
                if mid in (lo, hi):
                    break
                m = _margin(chain, fixed, centre, b.name, np.array([mid]), c)[0]
                if not np.isfinite(m):
                    break
                if (m > 0) == (m0 > 0):
                    lo = mid
                else:
                    hi = mid
            others = {n: v for n, v in centre.items() if n != b.name}
            found.append(Crossing(b.name, (lo + hi) / 2, "above" if m1 > 0 else "below", others))
    return found


def _margin(
    chain: VectorChain,
    fixed: dict[str, float],
    centre: dict[str, float],
    name: str,
    xs: np.ndarray,
    c: Constraint,
) -> np.ndarray:
    """The share of `c` less 1 along `name` (NaN where unknown)."""
    inputs: dict[str, np.ndarray | float] = dict(fixed)
    inputs.update({n: np.full(len(xs), v) for n, v in centre.items()})
    inputs[name] = xs
    values, ok = chain.evaluate(inputs, (len(xs),))
    feasibility = chain.feasibility(values, ok)
    if c.name not in feasibility.known:
        return np.full(len(xs), np.nan)
    return feasibility.share(c.name) - 1


# --- samples ----------------------------------------------------------------------------------
@dataclass
class SampleConstraint:
    """A constraint over Monte Carlo samples: how many it could be evaluated at, how many
    violate it, its median share of the limit and its worst sample."""

    constraint: Constraint
    known: int
    violated: int
    median: float
    worst: ConstraintRecord

    @property
    def violated_share(self) -> float:
        return self.violated / self.known if self.known else 0.0

    def warning(self) -> str:
        if not self.violated:
            return ""
        return (
            f"{self.constraint.title} is violated in {self.violated_share:.1%} of the "
            f"samples (worst {self.worst.describe()})"
        )

    def line(self) -> str:
        c = self.constraint
        if not self.violated:
            return (
                f"✓ {c.title}: holds in every sample (median {share_text(self.median)}; "
                f"at most {self.worst.describe()})"
            )
        return (
            f"✗ VIOLATED in {self.violated_share:.1%} of the samples: {c.title} (median "
            f"{share_text(self.median)}; worst {self.worst.describe()}). "
            f"{sentence(c.message)}"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.constraint.name,
            "title": self.constraint.title,
            "samples": self.known,
            "violated": self.violated,
            "violated_share": self.violated_share,
            "median_share": self.median,
            "worst": {"share": self.worst.share, "text": self.worst.describe()},
            "text": self.line(),
            "message": self.constraint.message if self.violated else "",
        }


def over_samples(feasibility: Feasibility) -> tuple[list[SampleConstraint], float | None]:
    """Each constraint over the samples, and the share of samples that fit (None when no
    constraint could be evaluated at any)."""
    out = []
    for c in feasibility.constraints:
        known = feasibility.known[c.name]
        if not known.any():
            continue
        share = feasibility.share(c.name)[known]
        worst = int(np.argmax(share))
        lhs, rhs = feasibility.lhs[c.name][known], feasibility.rhs[c.name][known]
        out.append(
            SampleConstraint(
                c,
                int(known.sum()),
                int(feasibility.violated(c.name).sum()),
                float(np.median(share)),
                record(c, lhs[worst], rhs[worst]),
            )
        )
    evaluated = feasibility.evaluated
    if not evaluated.any():
        return out, None
    return out, float(feasibility.fits[evaluated].mean())
