"""Expressions as plain nested tuples: what a solve needs of a formula without importing sympy.

A tree is built once from a sympy expression (`from_sympy`) and kept on disk with the library
(`napkinmath.catalog.snapshot`); solving compiles it to a float function (`compile_tree`),
and the rare reader that wants sympy gets the same expression back (`to_sympy`). Nodes::

    ("s", name)                      a library variable
    ("i", n) / ("r", p, q)           an integer / a rational p/q
    ("f", x, mpf, prec)              a sympy Float: its float, its mpmath tuple and precision
    ("c", name, x)                   a number symbol (pi, E) and its float
    ("+", args) / ("*", args)        a sum / a product, arguments in sympy's order
    ("^", base, exponent)            a power
    ("fn", name, args)               ceiling, floor, pow2_ceil, log, exp, Max, Min, Abs,
                                     normal_quantile

The float functions compute exactly what the closures over the sympy tree computed before
(sums by `math.fsum`, products left to right, a numeric exponent as a float), so answers do
not change by a bit. They are closures over the tree's nodes: no code is generated or
executed, so a tampered cache file can give wrong numbers, never run code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from napkinmath.library.numeric import NUMERIC_FUNCTIONS

if TYPE_CHECKING:
    import sympy

Tree = tuple

#: the float function of each function node (as the closures used them)
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ceiling": math.ceil,
    "floor": math.floor,
    "log": math.log,
    "exp": math.exp,
    "Max": max,
    "Min": min,
    "Abs": abs,
    **NUMERIC_FUNCTIONS,
}


class NoTreeError(Exception):
    """A sympy expression with a part that has no tree form (it stays with sympy)."""


def from_sympy(expr: sympy.Basic) -> Tree:
    """The tree of a sympy expression over library symbols; NoTreeError for anything else."""
    import sympy

    if isinstance(expr, sympy.Symbol):
        return ("s", expr.name)
    if expr.is_Integer:
        return ("i", int(expr))
    if expr.is_Rational:
        return ("r", int(expr.p), int(expr.q))
    if isinstance(expr, sympy.Float):
        sign, man, exp, bc = expr._mpf_
        return ("f", float(expr), (int(sign), int(man), int(exp), int(bc)), int(expr._prec))
    if expr.is_NumberSymbol and type(expr).__name__ in _CONSTANTS:
        return ("c", type(expr).__name__, float(expr))
    if expr.is_Number:
        raise NoTreeError(f"number {expr}")
    args = tuple(from_sympy(a) for a in expr.args)
    if isinstance(expr, sympy.Add):
        return ("+", args)
    if isinstance(expr, sympy.Mul):
        return ("*", args)
    if isinstance(expr, sympy.Pow):
        return ("^", args[0], args[1])
    name = type(expr).__name__
    if name in _FUNCTIONS:
        return ("fn", name, args)
    raise NoTreeError(name)


_CONSTANTS = {"Pi": "pi", "Exp1": "E"}
_CONSTANT_VALUES = {"Pi": math.pi, "Exp1": math.e}


def _small(x: object) -> bool:
    """An int (not a bool) of at most `MAX_BITS` bits."""
    return type(x) is int and x.bit_length() <= MAX_BITS


def to_sympy(tree: Tree, symbol: Callable[[str], sympy.Symbol]) -> sympy.Expr:
    """The sympy expression of `tree` (the one it was built from); `symbol(name)` gives the
    library's Symbol of a variable."""
    import sympy

    from napkinmath.library.functions import normal_quantile, pow2_ceil

    kind = tree[0]
    if kind == "s":
        return symbol(tree[1])
    if kind == "i":
        return sympy.Integer(tree[1])
    if kind == "r":
        return sympy.Rational(tree[1], tree[2])
    if kind == "f":
        return sympy.Float._new(tuple(tree[2]), tree[3])
    if kind == "c":
        return getattr(sympy, _CONSTANTS[tree[1]])
    if kind == "^":
        return sympy.Pow(to_sympy(tree[1], symbol), to_sympy(tree[2], symbol), evaluate=False)
    args = [to_sympy(a, symbol) for a in tree[-1]]
    if kind == "+":
        return sympy.Add(*args, evaluate=False)
    if kind == "*":
        return sympy.Mul(*args, evaluate=False)
    functions = {
        "ceiling": sympy.ceiling,
        "floor": sympy.floor,
        "log": sympy.log,
        "exp": sympy.exp,
        "Max": sympy.Max,
        "Min": sympy.Min,
        "Abs": sympy.Abs,
        "pow2_ceil": pow2_ceil,
        "normal_quantile": normal_quantile,
    }
    return functions[tree[1]](*args, evaluate=False)


def names(tree: Tree) -> frozenset[str]:
    """The variables a tree reads."""
    found: set[str] = set()
    _collect(tree, found)
    return frozenset(found)


def _collect(tree: Tree, found: set[str]) -> None:
    kind = tree[0]
    if kind == "s":
        found.add(tree[1])
    elif kind == "^":
        _collect(tree[1], found)
        _collect(tree[2], found)
    elif kind in ("+", "*", "fn"):
        for arg in tree[-1]:
            _collect(arg, found)


def calls(tree: Tree, functions: tuple[str, ...]) -> Iterator[Tree]:
    """The function nodes of `tree` named in `functions` ("Max", "Min"), in pre-order."""
    kind = tree[0]
    if kind == "fn" and tree[1] in functions:
        yield tree
    if kind == "^":
        yield from calls(tree[1], functions)
        yield from calls(tree[2], functions)
    elif kind in ("+", "*", "fn"):
        for arg in tree[-1]:
            yield from calls(arg, functions)


def is_number(tree: Tree) -> bool:
    return tree[0] in ("i", "r", "f", "c")


def number(tree: Tree) -> float:
    """The float of a number node (as `float(expr)` gives it)."""
    kind = tree[0]
    if kind == "i":
        return float(tree[1])
    if kind == "r":
        return tree[1] / tree[2]
    if kind == "c":  # ("c", "Pi", 3.14159...): the value, not the name
        return float(tree[2])
    return float(tree[1])


def compile_tree(tree: Tree) -> tuple[tuple[str, ...], Callable[..., float]]:
    """(argument names sorted, a float function of them) computing `tree`: closures over
    its nodes, no generated code. Each node computes as the code generated from trees
    before did (a sum by `math.fsum`, two or three factors left to right, more by
    `math.prod`, a numeric exponent as a float), so answers do not change by a bit."""
    args = tuple(sorted(names(tree)))
    node = _closure(tree, {name: i for i, name in enumerate(args)})

    def compiled(*values: float) -> float:
        return node(values)

    return args, compiled


Node = Callable[[tuple[float, ...]], Any]


def _closure(tree: Tree, index: Mapping[str, int]) -> Node:
    """A function of the arguments (by position, `index`) computing `tree`."""
    kind = tree[0]
    if kind == "s":
        i = index[tree[1]]
        return lambda a: a[i]
    if is_number(tree):
        value = number(tree)
        return lambda a: value
    if kind == "^":
        base = _closure(tree[1], index)
        if is_number(tree[2]):
            k = number(tree[2])
            return lambda a: base(a) ** k
        exponent = _closure(tree[2], index)
        return lambda a: base(a) ** exponent(a)
    parts = [_closure(arg, index) for arg in tree[-1]]
    if kind == "+":
        return lambda a: math.fsum([p(a) for p in parts])
    if kind == "*":
        if len(parts) == 2:
            first, second = parts
            return lambda a: first(a) * second(a)
        if len(parts) == 3:
            first, second, third = parts
            return lambda a: first(a) * second(a) * third(a)
        return lambda a: math.prod([p(a) for p in parts])
    if kind == "fn" and tree[1] in _FUNCTIONS:
        function = _FUNCTIONS[tree[1]]
        return lambda a: function(*[p(a) for p in parts])
    raise NoTreeError(str(kind))


def evaluate(tree: Tree, values: Mapping[str, float]) -> float:
    """The float value of `tree` at `values` (an interpreter, for rare one-off uses)."""
    kind = tree[0]
    if kind == "s":
        return values[tree[1]]
    if is_number(tree):
        return number(tree)
    if kind == "^":
        exponent = number(tree[2]) if is_number(tree[2]) else evaluate(tree[2], values)
        return evaluate(tree[1], values) ** exponent
    parts = [evaluate(a, values) for a in tree[-1]]
    if kind == "+":
        return math.fsum(parts)
    if kind == "*":
        return math.prod(parts)
    return float(_FUNCTIONS[tree[1]](*parts))


#: a value and its gradient, sparse: {index of an input: the partial derivative by it}
Dual = tuple[float, dict[int, float]]


def dual(tree: Tree, values: Mapping[str, Dual]) -> Dual:
    """The value of `tree` and its gradient, by forward-mode differentiation (the chain rule
    node by node) from each variable's value and gradient in `values`:

        d(a + b) = da + db        d(a·b) = da·b + a·db        d(a^k) = k·a^(k−1)·da
        d(a^e) = a^e·(de·ln a + e·da/a)     d ln a = da/a      d e^a = e^a·da
        d max(a, b) = da where a > b, the mean of da and db at a tie; d Φ⁻¹(p) = dp/φ(Φ⁻¹(p))
        a rounding (ceiling, floor, pow2_ceil): zero slope between its jumps

    ValueError where a value leaves the reals (a negative base to a fractional power) or a
    function's domain; ZeroDivisionError and OverflowError as float arithmetic raises them."""
    kind = tree[0]
    if kind == "s":
        return values[tree[1]]
    if is_number(tree):
        return number(tree), {}
    if kind == "^":
        b, gb = dual(tree[1], values)
        if is_number(tree[2]):
            k = number(tree[2])
            slope = k * _real(b ** (k - 1)) if k != 0 else 0.0
            return _real(b**k), _scaled(gb, slope)
        e, ge = dual(tree[2], values)
        v = _real(b**e)
        return v, _summed(_scaled(ge, v * math.log(b)), _scaled(gb, v * e / b))
    parts = [dual(a, values) for a in tree[-1]]
    if kind == "+":
        return math.fsum(v for v, _ in parts), _summed(*(g for _, g in parts))
    if kind == "*":
        factors = [v for v, _ in parts]
        terms = [
            _scaled(g, math.prod(v for j, v in enumerate(factors) if j != i))
            for i, (_, g) in enumerate(parts)
            if g
        ]
        return math.prod(factors), _summed(*terms)
    return _dual_function(tree[1], parts)


def _real(x: object) -> float:
    if not isinstance(x, (int, float)):  # a negative base to a fractional power: complex
        raise ValueError("not a real number")
    return float(x)


def _scaled(g: dict[int, float], k: float) -> dict[int, float]:
    return {i: k * x for i, x in g.items()}


def _summed(*grads: dict[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for g in grads:
        for i, x in g.items():
            out[i] = out.get(i, 0.0) + x
    return out


def _dual_function(name: str, parts: list[Dual]) -> Dual:
    if name in ("Max", "Min"):
        best = (max if name == "Max" else min)(v for v, _ in parts)
        tied = [g for v, g in parts if v == best]
        return best, _scaled(_summed(*tied), 1 / len(tied))
    (a, ga) = parts[0]
    if name in ("ceiling", "floor", "pow2_ceil"):
        return float(_FUNCTIONS[name](a)), {}
    if name == "log":
        return math.log(a), _scaled(ga, 1 / a)
    if name == "exp":
        e = math.exp(a)
        return e, _scaled(ga, e)
    if name == "Abs":
        return abs(a), _scaled(ga, math.copysign(1.0, a) if a else 0.0)
    if name == "normal_quantile":
        q = _FUNCTIONS[name](a)
        return q, _scaled(ga, math.sqrt(2 * math.pi) * math.exp(q * q / 2))  # 1 / φ(q)
    raise ValueError(f"no derivative of {name}")


#: the deepest tree and the largest integer (in bits) read back: a formula's rearrangement
#: is a few levels deep, its integers small; past these a stored tree is forged or broken
MAX_DEPTH = 64
MAX_BITS = 256


def from_json(data: object, depth: int = 0) -> Tree:
    """A tree read back from JSON (lists as tuples), checked node by node; ValueError when
    it is not a well-formed tree (or deeper than `MAX_DEPTH`, or an integer past
    `MAX_BITS`)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"a tree deeper than {MAX_DEPTH} levels")
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise ValueError("not a tree node")
    kind = data[0]
    if kind == "s" and len(data) == 2 and isinstance(data[1], str):
        return ("s", data[1])
    if kind == "i" and len(data) == 2 and _small(data[1]):
        return ("i", data[1])
    if kind == "r" and len(data) == 3 and all(_small(x) for x in data[1:]) and data[2]:
        return ("r", data[1], data[2])
    if (
        kind == "f"
        and len(data) == 4
        and isinstance(data[1], float)
        and isinstance(data[2], list)
        and len(data[2]) == 4
        and all(_small(x) for x in data[2])
        and _small(data[3])
        and math.isfinite(data[1])
    ):
        return ("f", data[1], tuple(data[2]), data[3])
    if kind == "c" and len(data) == 3 and data[1] in _CONSTANTS and isinstance(data[2], float):
        return ("c", data[1], _CONSTANT_VALUES[data[1]])  # its value, not the one stored
    if kind == "^" and len(data) == 3:
        return ("^", from_json(data[1], depth + 1), from_json(data[2], depth + 1))
    if kind in ("+", "*") and len(data) == 2 and isinstance(data[1], list):
        return (kind, tuple(from_json(a, depth + 1) for a in data[1]))
    if kind == "fn" and len(data) == 3 and data[1] in _FUNCTIONS and isinstance(data[2], list):
        return ("fn", data[1], tuple(from_json(a, depth + 1) for a in data[2]))
    raise ValueError(f"not a tree node: {kind!r}")
