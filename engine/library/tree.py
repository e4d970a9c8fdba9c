"""Expressions as plain nested tuples: what a solve needs of a formula without importing sympy.

A tree is built once from a sympy expression (`from_sympy`) and kept on disk with the library
(`napkinmath.library.snapshot`); solving compiles it to a float function (`compile_tree`),
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
not change by a bit. Code is generated from a validated tree only: variable names and numbers
never become source text, so a tampered cache file can give wrong numbers, never run code.
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
    return float(tree[1])


def compile_tree(tree: Tree) -> tuple[tuple[str, ...], Callable[..., float]]:
    """(argument names sorted, a float function of them) computing `tree`."""
    args = tuple(sorted(names(tree)))
    index = {name: f"a{i}" for i, name in enumerate(args)}
    constants: dict[str, object] = {"fsum": math.fsum, "prod": math.prod}
    body = _source(tree, index, constants)
    source = f"def _compiled({', '.join(index.values())}):\n    return {body}\n"
    namespace: dict[str, object] = dict(constants)
    exec(compile(source, "<napkinmath formula>", "exec"), namespace)  # from a checked tree
    return args, namespace["_compiled"]  # type: ignore[return-value]


def _source(tree: Tree, index: Mapping[str, str], constants: dict[str, object]) -> str:
    kind = tree[0]
    if kind == "s":
        return index[tree[1]]
    if is_number(tree):
        return _constant(number(tree), constants)
    if kind == "^":
        base = _source(tree[1], index, constants)
        exponent = (
            _constant(number(tree[2]), constants)
            if is_number(tree[2])
            else _source(tree[2], index, constants)
        )
        return f"({base} ** {exponent})"
    parts = [_source(a, index, constants) for a in tree[-1]]
    if kind == "+":
        return f"fsum(({', '.join(parts)},))"
    if kind == "*":
        if len(parts) in (2, 3):
            return f"({' * '.join(parts)})"
        return f"prod(({', '.join(parts)},))"
    if kind == "fn" and tree[1] in _FUNCTIONS:
        name = _constant(_FUNCTIONS[tree[1]], constants)
        return f"{name}({', '.join(parts)})"
    raise NoTreeError(str(kind))


def _constant(value: object, constants: dict[str, object]) -> str:
    name = f"k{len(constants)}"
    constants[name] = value
    return name


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


def from_json(data: object) -> Tree:
    """A tree read back from JSON (lists as tuples), checked node by node; ValueError when
    it is not a well-formed tree."""
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise ValueError("not a tree node")
    kind = data[0]
    if kind == "s" and len(data) == 2 and isinstance(data[1], str):
        return ("s", data[1])
    if kind == "i" and len(data) == 2 and type(data[1]) is int:
        return ("i", data[1])
    if kind == "r" and len(data) == 3 and all(type(x) is int for x in data[1:]) and data[2]:
        return ("r", data[1], data[2])
    if (
        kind == "f"
        and len(data) == 4
        and isinstance(data[1], float)
        and isinstance(data[2], list)
        and len(data[2]) == 4
        and all(type(x) is int for x in data[2])
        and type(data[3]) is int
    ):
        return ("f", data[1], tuple(data[2]), data[3])
    if kind == "c" and len(data) == 3 and data[1] in _CONSTANTS and isinstance(data[2], float):
        return ("c", data[1], data[2])
    if kind == "^" and len(data) == 3:
        return ("^", from_json(data[1]), from_json(data[2]))
    if kind in ("+", "*") and len(data) == 2 and isinstance(data[1], list):
        return (kind, tuple(from_json(a) for a in data[1]))
    if kind == "fn" and len(data) == 3 and data[1] in _FUNCTIONS and isinstance(data[2], list):
        return ("fn", data[1], tuple(from_json(a) for a in data[2]))
    raise ValueError(f"not a tree node: {kind!r}")
