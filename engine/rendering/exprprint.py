"""Printing formulas for people: names or substituted values, in Unicode text or LaTeX.

One small printer walks the sympy tree so that the symbolic line and the substituted line of
a derivation keep the same order of factors:

    train_compute / (mfu · n_gpus · peak_flops · train_time)
    4.2×10²² FLOP / (0.4 × 58.5 GPU × 989 TFLOP/(s·GPU) × 3 week)
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

from napkinmath.library.declare import pow2_ceil
from napkinmath.units import format_number

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

Leaf = Callable[[sympy.Symbol], str]


class Printer:
    """Render a sympy expression; `leaf` prints each symbol, `style` is 'text' or 'latex'."""

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

    def __call__(self, expr: sympy.Expr) -> str:
        return self.show(expr)

    def show(self, expr: sympy.Expr) -> str:
        if isinstance(expr, sympy.Symbol):
            return self.leaf(expr)
        if expr.is_Integer:
            return str(int(expr))
        if expr.is_Rational:
            p, q = int(expr.p), int(expr.q)
            return f"\\frac{{{p}}}{{{q}}}" if self.latex else f"{p}/{q}"
        if expr.is_Number:
            return format_number(float(expr), style="latex" if self.latex else "text")
        if isinstance(expr, sympy.Add):
            return self.add(expr)
        if isinstance(expr, sympy.Mul):
            return self.mul(expr)
        if isinstance(expr, sympy.Pow):
            return self.power(expr)
        return self.function(expr)

    def add(self, expr: sympy.Add) -> str:
        """Terms in sympy's order, but a positive one first: 1 − a − b, not −a − b + 1."""
        terms = list(expr.as_ordered_terms())
        first = next((i for i, t in enumerate(terms) if not t.could_extract_minus_sign()), 0)
        terms.insert(0, terms.pop(first))
        parts: list[str] = []
        for term in terms:
            negative = term.could_extract_minus_sign()
            body = self.show(-term if negative else term)
            if parts:
                parts.append(("- " if self.latex else "− ") + body if negative else "+ " + body)
            else:
                parts.append(("-" if self.latex else "−") + body if negative else body)
        return " ".join(parts)

    def factor(self, expr: sympy.Expr) -> str:
        text = self.show(expr)
        return f"({text})" if isinstance(expr, sympy.Add) else text

    def mul(self, expr: sympy.Mul) -> str:
        numerator: list[sympy.Expr] = []
        denominator: list[sympy.Expr] = []
        sign = ""
        for arg in expr.args:
            if arg.is_Rational and arg != 1:
                if arg < 0:
                    sign, arg = "−" if not self.latex else "-", -arg
                if arg.p != 1:
                    numerator.append(sympy.Integer(arg.p))
                if arg.q != 1:
                    denominator.append(sympy.Integer(arg.q))
            elif arg == -1:
                sign = "−" if not self.latex else "-"
            elif isinstance(arg, sympy.Pow) and arg.exp.is_number and arg.exp < 0:
                denominator.append(arg.base ** -arg.exp)
            else:
                numerator.append(arg)
        if sign:  # −(b − a) / c reads better as (a − b) / c
            numerator, denominator, sign = _absorb_sign(numerator, denominator, sign)
        numerator = self._merge_roots(numerator)
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
        bottom_parts = [self.factor(a) for a in denominator]
        bottom = self.times.join(bottom_parts)
        wrapped = len(denominator) == 1 and isinstance(denominator[0], sympy.Add)
        if len(denominator) > 1 or (self.substituted and " " in bottom and not wrapped):
            bottom = f"({bottom})"
        return f"{sign}{top} / {bottom}"

    def _merge_roots(self, factors: list[sympy.Expr]) -> list[sympy.Expr]:
        """√2 · √a · √b reads better as √(2 · a · b): merge square roots into one."""
        roots = [f for f in factors if isinstance(f, sympy.Pow) and f.exp == sympy.Rational(1, 2)]
        if len(roots) < 2:
            return factors
        inner = sympy.Mul(*(r.base for r in roots), evaluate=False)
        merged = sympy.Pow(inner, sympy.Rational(1, 2), evaluate=False)
        first = factors.index(roots[0])
        rest = [f for f in factors if f not in roots]
        return [*rest[:first], merged, *rest[first:]]

    def power(self, expr: sympy.Pow) -> str:
        if self.plain_leaf is None or self.plain_leaf is self.leaf:
            return self._power(expr)
        shown, self.leaf = self.leaf, self.plain_leaf
        try:
            return self._power(expr)
        finally:
            self.leaf = shown

    def _power(self, expr: sympy.Pow) -> str:
        base, exponent = expr.args
        roots = {2: ("√", ""), 3: ("∛", "[3]"), 4: ("∜", "[4]")}
        if exponent.is_Rational and exponent.p == 1 and int(exponent.q) in roots:
            inner = self.show(base)
            sign, index = roots[int(exponent.q)]
            return f"\\sqrt{index}{{{inner}}}" if self.latex else f"{sign}({inner})"
        if exponent.is_number and exponent < 0:
            return self.mul(sympy.Mul(sympy.Integer(1), expr, evaluate=False))
        base_text = self.show(base)
        if not isinstance(base, sympy.Symbol) or self.substituted:
            base_text = f"\\left({base_text}\\right)" if self.latex else f"({base_text})"
        if self.latex:
            return f"{base_text}^{{{self.show(exponent)}}}"
        if exponent.is_Integer:  # x², x³
            return base_text + str(int(exponent)).translate(_SUPERSCRIPT)
        power = self.show(exponent)
        simple = isinstance(exponent, sympy.Symbol) or (exponent.is_Number
                                                        and not exponent.is_Rational)
        return f"{base_text}^{power}" if simple else f"{base_text}^({power})"

    def function(self, expr: sympy.Expr) -> str:
        args = [self.show(a) for a in expr.args]
        if isinstance(expr, sympy.ceiling):
            return f"\\left\\lceil {args[0]} \\right\\rceil" if self.latex else f"⌈{args[0]}⌉"
        if isinstance(expr, sympy.floor):
            return f"\\left\\lfloor {args[0]} \\right\\rfloor" if self.latex else f"⌊{args[0]}⌋"
        if isinstance(expr, pow2_ceil):
            if self.latex:
                return f"2^{{\\lceil \\log_2 {args[0]} \\rceil}}"
            return f"2^⌈log₂({args[0]})⌉"
        name = {"log": "ln", "Max": "max", "Min": "min"}.get(type(expr).__name__,
                                                             type(expr).__name__)
        if self.latex:
            return f"\\operatorname{{{name}}}\\left({', '.join(args)}\\right)"
        return f"{name}({', '.join(args)})"


def _negated(add: sympy.Add) -> sympy.Expr:
    return sympy.Add(*(-term for term in add.args))


def _absorb_sign(numerator: list[sympy.Expr], denominator: list[sympy.Expr],
                 sign: str) -> tuple[list[sympy.Expr], list[sympy.Expr], str]:
    """Move a leading minus into a sum whose terms are mostly negative (same value)."""
    for factors in (numerator, denominator):
        for i, f in enumerate(factors):
            if isinstance(f, sympy.Add) and sum(t.could_extract_minus_sign()
                                                for t in f.args) * 2 >= len(f.args):
                flipped = _negated(f)
                return ([*factors[:i], flipped, *factors[i + 1:]], denominator, "") \
                    if factors is numerator else (numerator, [*factors[:i], flipped,
                                                              *factors[i + 1:]], "")
    return numerator, denominator, sign
