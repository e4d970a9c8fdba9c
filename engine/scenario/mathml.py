"""Equations as presentation MathML, which browsers render natively, printed from the
layouts the library stores (`napkinmath.library.print_layout`), so a report never imports
sympy for its math.

Variables print as their names (the names of the givens table); in the substituted line each
variable prints as its value with its unit, as the text derivation shows it (a fraction
inside a power as a plain number).
"""

from __future__ import annotations

from napkinmath.library.print_layout import Layout, Name
from napkinmath.rendering.mathml import MathMLPrinter, block, tag
from napkinmath.rendering.mathml import mtext as text  # a value with its unit, in math
from napkinmath.rendering.mathml import substituted as values

__all__ = ["block", "name", "names", "text", "values"]


def name(text: str) -> str:
    """A variable's name as a MathML identifier."""
    return tag("mi", text)


def _name(node: Name) -> str:
    return name(node.name)


def names(layout: Layout) -> str:
    """The expression over variable names, as a MathML fragment."""
    return MathMLPrinter(_name)(layout)
