"""Equations as presentation MathML (sympy's printer), which browsers render natively.

Variables print as their names (the names of the givens table); in the substituted line each
variable prints as its value with its unit, as the text derivation shows it.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy
from sympy.printing.mathml import MathMLPresentationPrinter

from napkinmath.rendering.mathml import block

__all__ = ["block", "name", "names", "text", "values"]


class _Printer(MathMLPresentationPrinter):
    """sympy's presentation printer with symbols shown as names or as values."""

    def __init__(self, leaf: Callable[[str], str] | None, mul_symbol: str) -> None:
        super().__init__({"mul_symbol": mul_symbol})
        self._leaf = leaf

    def _print_Symbol(self, sym, style="plain"):
        if self._leaf is None:
            node = self.dom.createElement("mi")
            node.appendChild(self.dom.createTextNode(sym.name))
            return node
        node = self.dom.createElement("mtext")
        node.appendChild(self.dom.createTextNode(self._leaf(sym.name)))
        return node


def _xml(printer: _Printer, expr: sympy.Expr) -> str:
    try:
        return printer._print(expr).toxml()
    except Exception:  # an expression sympy's printer cannot show: its text, as text
        from napkinmath.scenario.parts import expression_text

        node = printer.dom.createElement("mtext")
        node.appendChild(printer.dom.createTextNode(expression_text(expr)))
        return node.toxml()


def names(expr: sympy.Expr) -> str:
    """The expression over variable names, as a MathML fragment."""
    return _xml(_Printer(None, "dot"), expr)


def values(expr: sympy.Expr, leaf: Callable[[str], str]) -> str:
    """The expression with each variable replaced by `leaf(name)` (its value, as text)."""
    return _xml(_Printer(leaf, "times"), expr)


def name(text: str) -> str:
    return _xml(_Printer(None, "dot"), sympy.Symbol(text))


def text(value: str) -> str:
    """Plain text (a value with its unit) inside math."""
    printer = _Printer(None, "dot")
    node = printer.dom.createElement("mtext")
    node.appendChild(printer.dom.createTextNode(value))
    return node.toxml()
