"""Exact derivatives of a chain at a point: forward-mode differentiation over the roots' trees.

Each value of the chain carries its gradient with respect to chosen inputs; the chain rule
applies node by node (`napkinmath.library.tree.dual`), step after step. That is the
derivative a symbolic differentiation of the composed expression gives, evaluated at the
point (to a few units in the last place), without sympy: the trees are the ones the solver
already holds. A rounding (ceiling, floor, pow2_ceil) has no useful derivative, and a step
with several roots may change root across a neighbourhood: for those the caller differences
numerically.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from napkinmath.library.tree import Dual, NoTreeError, Tree, calls, dual, names
from napkinmath.whatif.vectorize import VectorChain

ROUNDING = ("ceiling", "floor", "pow2_ceil")


def gradient(
    chain: VectorChain, target: str, point: Mapping[str, float], inputs: list[str]
) -> tuple[float, np.ndarray] | None:
    """(the target's value, its derivative by each of `inputs`) at `point` (base units),
    through the steps the target depends on; None where the chain rounds on that path, has
    a step of several roots, or a derivative is undefined at the point. NoTreeError when a
    root has no tree (then sympy must differentiate)."""
    steps = _path(chain, target)
    if steps is None:
        return None
    seed = {n: i for i, n in enumerate(inputs)}
    values: dict[str, Dual] = {
        n: (float(x), {seed[n]: 1.0} if n in seed else {}) for n, x in point.items()
    }
    try:
        for trees in steps:
            for name, tree in trees:
                values[name] = dual(tree, values)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    value, grad = values[target]
    if not math.isfinite(value) or not all(math.isfinite(x) for x in grad.values()):
        return None
    found = np.zeros(len(inputs))
    for i, x in grad.items():
        found[i] = x
    return value, found


def _path(chain: VectorChain, target: str) -> list[list[tuple[str, Tree]]] | None:
    """The trees of the steps `target` depends on, in chain order; None when one has several
    roots or rounds."""
    needed = {target}
    used = []
    for step in reversed(chain.steps):
        unknowns = [v.name for v in step.block.unknowns]
        if not needed.intersection(unknowns):
            continue
        if len(step.candidates) != 1:
            return None
        trees = []
        for name in unknowns:
            tree = step.candidates[0][name].tree
            if tree is None:
                raise NoTreeError(name)
            if any(True for _ in calls(tree, ROUNDING)):
                return None
            needed |= names(tree)
            trees.append((name, tree))
        used.append(trees)
    return used[::-1]
