"""Round-off of zero: a result left over when the terms it comes from cancel.

`0.8 s − 800 ms` computes as 1.1×10⁻¹⁶ s in floating point; shown as is it reads as a tiny but
real wait. `cancels` finds the sums of an expression whose value is below `RELATIVE` of their
largest term and says whether the result is zero once they are taken as zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from napkinmath.library import tree as trees

if TYPE_CHECKING:
    from napkinmath.answer.data import Root
    from napkinmath.library.tree import Tree

#: a sum smaller than this share of its largest term is round-off (a float carries ~1e-16)
RELATIVE = 1e-12
ROUNDOFF_NOTE = "round-off: the terms cancel"


def _number(tree: Tree, values: Mapping[str, float]) -> float | None:
    try:
        value = trees.evaluate(tree, values)
    except (TypeError, ValueError, ArithmeticError):
        return None
    if isinstance(value, complex):
        return None
    return value if math.isfinite(value) else None


def cancels(root: Root, base_values: Mapping[str, float]) -> bool:
    """True when the expression of `root` (over library variables, `base_values` by name) is
    zero but for round-off: each sum in it that nearly cancels, taken as 0, makes it 0."""
    tree = root.tree
    if tree is None or not trees.names(tree) <= base_values.keys():
        return False
    sums: list[Tree] = []
    _sums(tree, sums)
    cancelled = set()
    for add in sums:
        terms = [_number(t, base_values) for t in add[1]]
        if any(t is None for t in terms):
            continue
        largest = max(abs(t) for t in terms)  # type: ignore[arg-type]
        if largest > 0 and abs(math.fsum(terms)) <= RELATIVE * largest:  # type: ignore[arg-type]
            cancelled.add(add)
    if not cancelled:
        return False
    return _number(_replaced(tree, cancelled), base_values) == 0


def _sums(tree: Tree, found: list[Tree]) -> None:
    if tree[0] == "+" and tree not in found:
        found.append(tree)
    if tree[0] == "^":
        _sums(tree[1], found)
        _sums(tree[2], found)
    elif tree[0] in ("+", "*", "fn"):
        for arg in tree[-1]:
            _sums(arg, found)


def _replaced(tree: Tree, zero: set[Tree]) -> Tree:
    if tree in zero:
        return ("i", 0)
    if tree[0] == "^":
        return ("^", _replaced(tree[1], zero), _replaced(tree[2], zero))
    if tree[0] in ("+", "*"):
        return (tree[0], tuple(_replaced(a, zero) for a in tree[1]))
    if tree[0] == "fn":
        return ("fn", tree[1], tuple(_replaced(a, zero) for a in tree[2]))
    return tree
