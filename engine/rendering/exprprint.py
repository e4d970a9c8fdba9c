"""Printing formulas for people: names or substituted values, in Unicode text or LaTeX.

One small printer walks the expression so that the symbolic line and the substituted line of
a derivation keep the same order of factors:

    train_compute / (mfu · n_gpus · peak_flops · train_time)
    4.2×10²² FLOP / (0.4 × 58.5 GPU × 989 TFLOP/(s·GPU) × 3 week)

It prints a layout: the sympy expression with every decision that depends on sympy taken in
advance (the order of terms, which factors divide, the signs, merged roots) by `lower`, as
nested tuples that the library's snapshot keeps on disk. Printing a layout needs no sympy::

    ("sym", name) ("int", n) ("rat", p, q) ("num", x)
    ("sum", ((negative, term), ...))            terms in print order, signs taken out
    ("prod", negative, numerator, denominator)  factors in print order
    ("pow", ("root", q, base))                  √, ∛, ∜
    ("pow", ("prod", ...))                      a negative power, as a fraction
    ("pow", ("powr", base, base_is_symbol, exponent, integer_exponent, simple))
    ("fn", kind, name, args)                    kind: ceiling, floor, pow2_ceil or call
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from napkinmath import caches
from napkinmath.units import format_number

if TYPE_CHECKING:
    import sympy

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

Layout = tuple


class Name(NamedTuple):
    """What a leaf printer gets for a variable: its name (as a sympy Symbol's `.name`)."""

    name: str


Leaf = Callable[[Name], str]


class Printer:
    """Render an expression (a layout, or a sympy expression laid out on the way); `leaf`
    prints each variable, `style` is 'text' or 'latex'."""

    def __init__(self, leaf: Leaf, style: str = "text", substituted: bool = False,
                 plain_leaf: Leaf | None = None) -> None:
        self.leaf = leaf
        #: prints a symbol inside a power, where a percent would read oddly: 0.431^(…)
        self.plain_leaf = plain_leaf
        self.latex = style == "latex"
        self.substituted = substituted
        if self.latex:
            self.times = " \\times " if substituted else " \\cdot "
        else:
            self.times = " × " if substituted else " · "

    def __call__(self, expr: Layout | sympy.Expr) -> str:
        return self.show(expr if isinstance(expr, tuple) else lower(expr))

    def show(self, node: Layout) -> str:
        kind = node[0]
        if kind == "sym":
            return self.leaf(Name(node[1]))
        if kind == "int":
            return str(node[1])
        if kind == "rat":
            p, q = node[1], node[2]
            return f"\\frac{{{p}}}{{{q}}}" if self.latex else f"{p}/{q}"
        if kind == "num":
            return format_number(node[1], style="latex" if self.latex else "text")
        if kind == "sum":
            return self.add(node)
        if kind == "prod":
            return self.mul(node)
        if kind == "pow":
            return self.power(node)
        return self.function(node)

    def add(self, node: Layout) -> str:
        parts: list[str] = []
        for negative, term in node[1]:
            body = self.show(term)
            if parts:
                parts.append(("- " if self.latex else "− ") + body if negative else "+ " + body)
            else:
                parts.append(("-" if self.latex else "−") + body if negative else body)
        return " ".join(parts)

    def factor(self, node: Layout) -> str:
        text = self.show(node)
        return f"({text})" if node[0] == "sum" else text

    def mul(self, node: Layout) -> str:
        _, negative, numerator, denominator = node
        sign = ("-" if self.latex else "−") if negative else ""
        top = self.times.join(self.factor(a) for a in numerator) or "1"
        if not denominator:
            return sign + top
        if self.latex:  # \frac groups its parts: a lone sum needs no parentheses
            if len(numerator) == 1:
                top = self.show(numerator[0])
            bottom = (self.show(denominator[0]) if len(denominator) == 1
                      else self.times.join(self.factor(a) for a in denominator))
            return f"{sign}\\frac{{{top}}}{{{bottom}}}"
        if len(numerator) > 1 and self.substituted:
            top = f"({top})"
        bottom = self.times.join(self.factor(a) for a in denominator)
        wrapped = len(denominator) == 1 and denominator[0][0] == "sum"
        if len(denominator) > 1 or (self.substituted and " " in bottom and not wrapped):
            bottom = f"({bottom})"
        return f"{sign}{top} / {bottom}"

    def power(self, node: Layout) -> str:
        if self.plain_leaf is None or self.plain_leaf is self.leaf:
            return self._power(node[1])
        shown, self.leaf = self.leaf, self.plain_leaf
        try:
            return self._power(node[1])
        finally:
            self.leaf = shown

    def _power(self, node: Layout) -> str:
        if node[0] == "root":
            inner = self.show(node[2])
            sign, index = {2: ("√", ""), 3: ("∛", "[3]"), 4: ("∜", "[4]")}[node[1]]
            return f"\\sqrt{index}{{{inner}}}" if self.latex else f"{sign}({inner})"
        if node[0] == "prod":
            return self.mul(node)
        _, base, base_is_symbol, exponent, integer, simple = node
        base_text = self.show(base)
        if not base_is_symbol or self.substituted:
            base_text = f"\\left({base_text}\\right)" if self.latex else f"({base_text})"
        if self.latex:
            return f"{base_text}^{{{self.show(exponent)}}}"
        if integer is not None:  # x², x³
            return base_text + str(integer).translate(_SUPERSCRIPT)
        power = self.show(exponent)
        return f"{base_text}^{power}" if simple else f"{base_text}^({power})"

    def function(self, node: Layout) -> str:
        _, kind, name, arguments = node
        args = [self.show(a) for a in arguments]
        if kind == "ceiling":
            return f"\\left\\lceil {args[0]} \\right\\rceil" if self.latex else f"⌈{args[0]}⌉"
        if kind == "floor":
            return (f"\\left\\lfloor {args[0]} \\right\\rfloor" if self.latex
                    else f"⌊{args[0]}⌋")
        if kind == "pow2_ceil":
            if self.latex:
                return f"2^{{\\lceil \\log_2 {args[0]} \\rceil}}"
            return f"2^⌈log₂({args[0]})⌉"
        if self.latex:
            return f"\\operatorname{{{name}}}\\left({', '.join(args)}\\right)"
        return f"{name}({', '.join(args)})"


@caches.memo(4096, invalidated_by=caches.NOTHING)
def lower(expr: sympy.Expr) -> Layout:
    """The layout of a sympy expression: every printing decision that needs sympy, taken."""
    import sympy

    if isinstance(expr, sympy.Symbol):
        return ("sym", expr.name)
    if expr.is_Integer:
        return ("int", int(expr))
    if expr.is_Rational:
        return ("rat", int(expr.p), int(expr.q))
    if expr.is_Number:
        return ("num", float(expr))
    if isinstance(expr, sympy.Add):
        return _lower_add(expr)
    if isinstance(expr, sympy.Mul):
        return _lower_mul(expr)
    if isinstance(expr, sympy.Pow):
        return ("pow", _lower_power(expr))
    return _lower_function(expr)


def _lower_add(expr: sympy.Add) -> Layout:
    """Terms in sympy's order, but a positive one first: 1 − a − b, not −a − b + 1."""
    terms = list(expr.as_ordered_terms())
    first = next((i for i, t in enumerate(terms) if not t.could_extract_minus_sign()), 0)
    terms.insert(0, terms.pop(first))
    laid = []
    for term in terms:
        negative = bool(term.could_extract_minus_sign())
        laid.append((negative, lower(-term if negative else term)))
    return ("sum", tuple(laid))


def _lower_mul(expr: sympy.Mul) -> Layout:
    import sympy

    numerator: list[sympy.Expr] = []
    denominator: list[sympy.Expr] = []
    negative = False
    for arg in expr.args:
        if arg.is_Rational and arg != 1:
            if arg < 0:
                negative, arg = True, -arg
            if arg.p != 1:
                numerator.append(sympy.Integer(arg.p))
            if arg.q != 1:
                denominator.append(sympy.Integer(arg.q))
        elif arg == -1:
            negative = True
        elif isinstance(arg, sympy.Pow) and arg.exp.is_number and arg.exp < 0:
            denominator.append(arg.base ** -arg.exp)
        else:
            numerator.append(arg)
    if negative:  # −(b − a) / c reads better as (a − b) / c
        numerator, denominator, negative = _absorb_sign(numerator, denominator)
    numerator = _merge_roots(numerator)
    return ("prod", negative, tuple(lower(a) for a in numerator),
            tuple(lower(a) for a in denominator))


def _merge_roots(factors: list[sympy.Expr]) -> list[sympy.Expr]:
    """√2 · √a · √b reads better as √(2 · a · b): merge square roots into one."""
    import sympy

    roots = [f for f in factors if isinstance(f, sympy.Pow) and f.exp == sympy.Rational(1, 2)]
    if len(roots) < 2:
        return factors
    inner = sympy.Mul(*(r.base for r in roots), evaluate=False)
    merged = sympy.Pow(inner, sympy.Rational(1, 2), evaluate=False)
    first = factors.index(roots[0])
    rest = [f for f in factors if f not in roots]
    return [*rest[:first], merged, *rest[first:]]


def _lower_power(expr: sympy.Pow) -> Layout:
    import sympy

    base, exponent = expr.args
    if exponent.is_Rational and exponent.p == 1 and int(exponent.q) in (2, 3, 4):
        return ("root", int(exponent.q), lower(base))
    if exponent.is_number and exponent < 0:
        return _lower_mul(sympy.Mul(sympy.Integer(1), expr, evaluate=False))
    integer = int(exponent) if exponent.is_Integer else None
    simple = isinstance(exponent, sympy.Symbol) or (exponent.is_Number
                                                    and not exponent.is_Rational)
    return ("powr", lower(base), isinstance(base, sympy.Symbol), lower(exponent), integer,
            bool(simple))


def _lower_function(expr: sympy.Expr) -> Layout:
    import sympy

    from napkinmath.library.functions import pow2_ceil

    args = tuple(lower(a) for a in expr.args)
    if isinstance(expr, sympy.ceiling):
        return ("fn", "ceiling", "", args)
    if isinstance(expr, sympy.floor):
        return ("fn", "floor", "", args)
    if isinstance(expr, pow2_ceil):
        return ("fn", "pow2_ceil", "", args)
    name = {"log": "ln", "Max": "max", "Min": "min"}.get(type(expr).__name__,
                                                         type(expr).__name__)
    return ("fn", "call", name, args)


def _negated(add: sympy.Add) -> sympy.Expr:
    import sympy

    return sympy.Add(*(-term for term in add.args))


def _absorb_sign(numerator: list[sympy.Expr], denominator: list[sympy.Expr]
                 ) -> tuple[list[sympy.Expr], list[sympy.Expr], bool]:
    """Move a leading minus into a sum whose terms are mostly negative (same value)."""
    import sympy

    for factors in (numerator, denominator):
        for i, f in enumerate(factors):
            if isinstance(f, sympy.Add) and sum(t.could_extract_minus_sign()
                                                for t in f.args) * 2 >= len(f.args):
                flipped = _negated(f)
                return ([*factors[:i], flipped, *factors[i + 1:]], denominator, False) \
                    if factors is numerator else (numerator, [*factors[:i], flipped,
                                                              *factors[i + 1:]], False)
    return numerator, denominator, True


def from_json(data: object) -> Layout:
    """A layout read back from JSON (lists as tuples); ValueError when malformed."""
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise ValueError("not a layout node")
    kind = data[0]
    if kind == "sym" and len(data) == 2 and isinstance(data[1], str):
        return ("sym", data[1])
    if kind == "int" and len(data) == 2 and type(data[1]) is int:
        return ("int", data[1])
    if kind == "rat" and len(data) == 3 and all(type(x) is int for x in data[1:]):
        return ("rat", data[1], data[2])
    if kind == "num" and len(data) == 2 and isinstance(data[1], float):
        return ("num", data[1])
    if kind == "sum" and len(data) == 2 and isinstance(data[1], list):
        return ("sum", tuple((_flag(t[0]), from_json(t[1])) for t in data[1]))
    if kind == "prod" and len(data) == 4:
        return ("prod", _flag(data[1]), _nodes(data[2]), _nodes(data[3]))
    if kind == "pow" and len(data) == 2:
        inner = data[1]
        if isinstance(inner, list) and inner and inner[0] == "root" and len(inner) == 3 \
                and inner[1] in (2, 3, 4):
            return ("pow", ("root", inner[1], from_json(inner[2])))
        if isinstance(inner, list) and inner and inner[0] == "prod":
            return ("pow", from_json(inner))
        if isinstance(inner, list) and len(inner) == 6 and inner[0] == "powr" \
                and (inner[4] is None or type(inner[4]) is int):
            return ("pow", ("powr", from_json(inner[1]), _flag(inner[2]), from_json(inner[3]),
                            inner[4], _flag(inner[5])))
    if kind == "fn" and len(data) == 4 and data[1] in ("ceiling", "floor", "pow2_ceil", "call") \
            and isinstance(data[2], str):
        return ("fn", data[1], data[2], _nodes(data[3]))
    raise ValueError(f"not a layout node: {kind!r}")


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("not a flag")
    return value


def _nodes(data: object) -> tuple:
    if not isinstance(data, list):
        raise ValueError("not a list of layout nodes")
    return tuple(from_json(d) for d in data)
