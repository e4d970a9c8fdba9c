"""A coupled block solved numerically by tearing, where sympy finds no joint closed form in
time: one unknown (the tear) is taken as given, the block's other unknowns follow from it
one formula at a time through each formula's own rearrangement (shipped, or found by sympy
within its bound), and the formula left over is the block's residual as a function of the
tear alone, searched over the tear's bounds as a single step is (`numeric_root`).

    decode throughput = 20,000 token/s, batch_size unknown:
    batch_size → KV cache, messages → compute, memory, all-reduce time → step time
               → speed → throughput;  residual: throughput − 20,000 token/s

A one-dimensional search with bracketing finds every root the grid brackets, where Newton's
method in eight unknowns at once, through a max(), may find none. The solution is kept only
where every formula of the block holds (`invert.satisfies`) and every unknown is inside its
bounds. Deterministic: tears tried in name order, formulas in name order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from napkinmath.deadline import OutOfTimeError
from napkinmath.library.declare import Formula, Variable
from napkinmath.solving.invert import Compiled, rearranged, satisfies, sides
from napkinmath.solving.numeric_root import admissible, roots_in_bounds
from napkinmath.solving.plan import Block


@dataclass(frozen=True)
class _Link:
    """One formula of the chain: `unknown` from it, by the first of `roots` that is
    admissible and satisfies it."""

    formula: Formula
    unknown: Variable
    roots: tuple[Compiled, ...]


def torn_solution(block: Block, values: Mapping[str, float]) -> dict[str, float] | None:
    """The block's unknowns (base units) from one torn unknown's search, or None when no
    tear makes a chain or none of its roots solves the block."""
    for tear in sorted(block.unknowns, key=lambda v: v.name):
        chain = _chain(block, tear)
        if chain is None:
            continue
        links, last = chain
        left, right = sides(last)

        def lhs(point: dict[str, float], links=links, left=left) -> float:
            return left.at(_follow(links, point))

        def rhs(point: dict[str, float], links=links, right=right) -> float:
            return right.at(_follow(links, point))

        for x in roots_in_bounds(lhs, rhs, tear, values):
            try:
                point = _follow(links, {**values, tear.name: x})
            except ValueError:
                continue
            if all(satisfies(f, point) for f in block.formulas) and all(
                admissible(point[v.name], v) for v in block.unknowns
            ):
                return {v.name: point[v.name] for v in block.unknowns}
    return None


def _chain(block: Block, tear: Variable) -> tuple[list[_Link], Formula] | None:
    """The formulas that give every other unknown from `tear`, in order, and the one left
    over; None when the block does not unfold from this tear."""
    unknowns = {v.name: v for v in block.unknowns}
    known = {tear.name}
    left = sorted(block.formulas, key=lambda f: f.name)
    links: list[_Link] = []
    while len(known) < len(unknowns):
        for f in left:
            missing = [n for n in (v.name for v in f.variables) if n in unknowns and n not in known]
            if len(missing) != 1:
                continue
            try:
                roots = rearranged(f, missing[0])
            except OutOfTimeError:
                continue
            if roots:
                links.append(_Link(f, unknowns[missing[0]], roots))
                known.add(missing[0])
                left.remove(f)
                break
        else:
            return None
    return (links, left[0]) if len(left) == 1 else None


def _follow(links: list[_Link], point: dict[str, float]) -> dict[str, float]:
    """`point` with each link's unknown computed in turn; ValueError where one has no
    admissible value (outside a formula's domain there)."""
    point = dict(point)
    for link in links:
        for root in link.roots:
            try:
                x = root.at(point)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                continue
            if admissible(x, link.unknown) and (
                len(link.roots) == 1 or satisfies(link.formula, {**point, link.unknown.name: x})
            ):
                point[link.unknown.name] = x
                break
        else:
            raise ValueError(f"no admissible {link.unknown.name} here")
    return point
