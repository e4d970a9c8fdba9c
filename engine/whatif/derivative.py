"""Exact derivatives of a chain at a point: forward-mode differentiation over the roots' trees.

Each value of the chain carries its gradient with respect to chosen inputs (a numpy vector);
sums, products, powers and the library's functions apply the chain rule node by node, step
after step. That is the derivative a symbolic differentiation of the composed expression
gives, evaluated at the point (to a few units in the last place), without sympy: the trees
are the ones the solver already holds (`napkinmath.library.tree`).

    d(a + b) = da + db          d(a·b) = da·b + a·db         d(a^k) = k·a^(k−1)·da
    d(a^e)   = a^e·(de·ln a + e·da/a)     d ln a = da/a       d e^a = e^a·da
    d max(a, b) = da where a > b, db where b > a, (da + db)/2 at a tie (sympy's Heaviside(0))
    d Φ⁻¹(p) = dp / φ(Φ⁻¹(p))

A rounding (ceiling, floor, pow2_ceil) has no useful derivative, and a step with several
roots may change root across a neighbourhood: for those the caller differences numerically.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from napkinmath.library.tree import Tree, calls, is_number, names, number
from napkinmath.whatif.vectorize import VectorChain

#: a value and its gradient (None: zero, the value does not depend on the inputs)
Dual = tuple[float, "np.ndarray | None"]
ROUNDING = ("ceiling", "floor", "pow2_ceil")


class NoTreeError(Exception):
    """A root on the path has no tree form (only sympy holds it)."""


def gradient(
    chain: VectorChain, target: str, point: Mapping[str, float], inputs: list[str]
) -> tuple[float, np.ndarray] | None:
    """(the target's value, its derivative by each of `inputs`) at `point` (base units),
    through the steps the target depends on; None where the chain rounds on that path, has
    a step of several roots, or a derivative is undefined at the point. NoTreeError when a root
    has no tree (then sympy must differentiate)."""
    steps = _path(chain, target)
    if steps is None:
        return None
    seed = {n: i for i, n in enumerate(inputs)}
    values: dict[str, Dual] = {}
    for name, x in point.items():
        g = None
        if name in seed:
            g = np.zeros(len(inputs))
            g[seed[name]] = 1.0
        values[name] = (float(x), g)
    try:
        with np.errstate(all="raise"):
            for trees in steps:
                for name, tree in trees:
                    values[name] = _dual(tree, values)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError, FloatingPointError):
        return None
    value, grad = values[target]
    if not isinstance(value, float) or not math.isfinite(value):
        return None  # a complex power of a negative base, an infinity
    return value, (np.zeros(len(inputs)) if grad is None else grad)


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


def _add(*grads: np.ndarray | None) -> np.ndarray | None:
    found = [g for g in grads if g is not None]
    if not found:
        return None
    total = found[0]
    for g in found[1:]:
        total = total + g
    return total


def _scaled(g: np.ndarray | None, k: float) -> np.ndarray | None:
    return None if g is None else g * k


def _dual(tree: Tree, values: Mapping[str, Dual]) -> Dual:
    kind = tree[0]
    if kind == "s":
        return values[tree[1]]
    if is_number(tree):
        return number(tree), None
    if kind == "^":
        (b, gb) = _dual(tree[1], values)
        if is_number(tree[2]):
            k = number(tree[2])
            return b**k, _scaled(gb, k * b ** (k - 1) if k != 0 else 0.0)
        (e, ge) = _dual(tree[2], values)
        v = b**e
        return v, _add(_scaled(ge, v * math.log(b)), _scaled(gb, v * e / b))
    parts = [_dual(a, values) for a in tree[-1]]
    if kind == "+":
        total = parts[0][0]
        for v, _ in parts[1:]:
            total = total + v
        return total, _add(*(g for _, g in parts))
    if kind == "*":
        vs = [v for v, _ in parts]
        product = vs[0]
        for v in vs[1:]:
            product = product * v
        terms = []
        for i, (_, g) in enumerate(parts):
            if g is not None:
                others = math.prod(v for j, v in enumerate(vs) if j != i)
                terms.append(g * others)
        return product, _add(*terms)
    return _function(tree[1], parts)


def _function(name: str, parts: list[Dual]) -> Dual:
    if name in ("Max", "Min"):
        pick = max if name == "Max" else min
        best = pick(v for v, _ in parts)
        tied = [g for v, g in parts if v == best]
        if any(g is None for g in tied) and not all(g is None for g in tied):
            size = next(len(g) for g in tied if g is not None)
            tied = [np.zeros(size) if g is None else g for g in tied]
        total = _add(*tied)
        return best, _scaled(total, 1 / len(tied))
    (a, ga) = parts[0]
    if name == "log":
        return math.log(a), _scaled(ga, 1 / a)
    if name == "exp":
        v = math.exp(a)
        return v, _scaled(ga, v)
    if name == "Abs":
        return abs(a), _scaled(ga, math.copysign(1.0, a) if a else 0.0)
    if name == "normal_quantile":
        from statistics import NormalDist

        v = NormalDist().inv_cdf(a)
        density = math.exp(-v * v / 2) / math.sqrt(2 * math.pi)
        return v, _scaled(ga, 1 / density)
    raise ValueError(f"no derivative of {name}")
