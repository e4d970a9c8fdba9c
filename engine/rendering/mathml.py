"""A laid-out expression (`print_layout.Layout`) as presentation MathML, for notebooks.

Browsers render MathML natively (no MathJax, no network), so a notebook's answer shows
typeset offline in JupyterLab, classic Notebook, VS Code and nbconvert's HTML. Symbols are
the variables' own LaTeX (`Variable.latex`: `\\eta_{\\mathrm{mm}}`, `M_{act,L}^{ckpt}`),
converted by `symbol`, which reads the small subset of TeX the library's symbols use and
refuses anything else (`ValueError`); a substituted value prints as text (`<mtext>`), as
the plan report's MathML does (`napkinmath.scenario.mathml`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from napkinmath.library.print_layout import (
    Call,
    Ceiling,
    Float,
    Floor,
    Integer,
    Layout,
    Name,
    Pow2Ceil,
    Power,
    Product,
    Rational,
    Reciprocal,
    Root,
    Sum,
    Term,
    is_layout,
    lower,
)
from napkinmath.units import format_number

if TYPE_CHECKING:
    import sympy


def _t(text: str) -> str:
    """Text for inside a MathML element: markup characters and '$' as references, so that
    nothing in it reads as TeX to a MathJax pass over the page."""
    return html.escape(text, quote=False).replace("$", "&#36;")


def tag(name: str, text: str, attrs: str = "") -> str:
    return f"<{name}{attrs}>{_t(text)}</{name}>"


def row(*parts: str) -> str:
    return "<mrow>" + "".join(parts) + "</mrow>"


def mtext(text: str) -> str:
    return tag("mtext", text)


def paren(inner: str) -> str:
    return row('<mo stretchy="false">(</mo>', inner, '<mo stretchy="false">)</mo>')


# --- a variable's symbol: the TeX subset of Variable.latex --------------------------------
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η",
    "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
}  # fmt: skip
_UPRIGHT = {"Delta": "Δ", "Gamma": "Γ", "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Omega": "Ω"}
_OPERATORS = {"lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "sum": "∑", ",": ","}
_ACCENTS = {"bar": "¯", "hat": "^", "widehat": "^", "dot": "˙", "tilde": "~"}
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]+|[0-9]+|\s+|.")


class _Symbol:
    """A recursive-descent reader of one symbol's TeX."""

    def __init__(self, latex: str) -> None:
        self.tokens = [t for t in _TOKEN.findall(latex) if not t.isspace()]
        self.at = 0

    def read(self) -> str:
        out = self.sequence()
        if self.at != len(self.tokens):
            raise ValueError(f"unbalanced '}}' in {''.join(self.tokens)!r}")
        return out

    def sequence(self) -> str:
        parts = []
        while self.at < len(self.tokens) and self.tokens[self.at] != "}":
            parts.append(self.scripted())
        return parts[0] if len(parts) == 1 else row(*parts)

    def scripted(self) -> str:
        base = self.atom()
        sub = sup = None
        while self.at < len(self.tokens) and self.tokens[self.at] in ("_", "^"):
            mark = self.tokens[self.at]
            self.at += 1
            if mark == "_":
                sub = self.atom()
            else:
                sup = self.atom()
        if sub is not None and sup is not None:
            return f"<msubsup>{base}{sub}{sup}</msubsup>"
        if sub is not None:
            return f"<msub>{base}{sub}</msub>"
        if sup is not None:
            return f"<msup>{base}{sup}</msup>"
        return base

    def _next(self) -> str:
        if self.at >= len(self.tokens):
            raise ValueError("the symbol ends where a part was expected")
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _group_text(self) -> str:
        """The raw text of a {...} argument (for \\mathrm)."""
        if self._next() != "{":
            raise ValueError("\\mathrm takes a {...} argument")
        text = []
        while (token := self._next()) != "}":
            text.append(token[1:] if token in ("\\,", "\\$", "\\_") else token)
        return "".join(text)

    def atom(self) -> str:
        token = self._next()
        if token == "{":
            inner = self.sequence()
            if self._next() != "}":
                raise ValueError("unclosed '{'")
            return inner if inner.startswith("<mrow>") else row(inner)
        if token.startswith("\\"):
            word = token[1:]
            if word == "mathrm":
                return tag("mi", self._group_text(), ' mathvariant="normal"')
            if word in _ACCENTS:
                return f'<mover accent="true">{self.atom()}<mo>{_ACCENTS[word]}</mo></mover>'
            if word in _GREEK:
                return tag("mi", _GREEK[word])
            if word in _UPRIGHT:
                return tag("mi", _UPRIGHT[word], ' mathvariant="normal"')
            if word in _OPERATORS:
                return tag("mo", _OPERATORS[word])
            if word in ("$", "%", "#", "&", "_"):
                return tag("mi", word, ' mathvariant="normal"')
            raise ValueError(f"no MathML for {token!r}")
        if token.isdigit():
            return tag("mn", token)
        if token.isalpha():
            return tag("mi", token)
        if token in "}_^":
            raise ValueError(f"unexpected {token!r}")
        return tag("mo", token)


def symbol(latex: str, fallback: str) -> str:
    """The MathML of a variable's LaTeX symbol; `fallback` (its name) as text where the
    TeX is outside the subset read here."""
    try:
        return _Symbol(latex).read()
    except ValueError:
        return mtext(fallback)


# --- a layout --------------------------------------------------------------------------------
Leaf = Callable[[Name], str]


class MathMLPrinter:
    """Prints a layout as MathML, node for node as `print_layout.Printer` prints it as text;
    `leaf` gives each variable's MathML (a symbol, or a value as `<mtext>`), `plain_leaf`
    the one inside a power; `substituted` multiplies with × instead of ·."""

    def __init__(
        self, leaf: Leaf, substituted: bool = False, plain_leaf: Leaf | None = None
    ) -> None:
        self.leaf = leaf
        self.plain_leaf = plain_leaf or leaf
        self.substituted = substituted
        self.times = tag("mo", "×" if substituted else "·")

    def __call__(self, expr: Layout | sympy.Expr) -> str:
        return self.show(expr if is_layout(expr) else lower(expr))

    def show(self, node: Layout, in_power: bool = False) -> str:
        if isinstance(node, Name):
            return (self.plain_leaf if in_power else self.leaf)(node)
        if isinstance(node, Integer):
            return tag("mn", str(node.value))
        if isinstance(node, Rational):
            return (
                f"<mfrac>{tag('mn', str(node.numerator))}{tag('mn', str(node.denominator))}</mfrac>"
            )
        if isinstance(node, Float):
            return tag("mn", format_number(node.value))
        if isinstance(node, Sum):
            return self._sum(node.terms, in_power)
        if isinstance(node, Product):
            return self._product(node, in_power)
        if isinstance(node, Root):
            inner = self.show(node.radicand, True)
            if node.degree == 2:
                return f"<msqrt>{inner}</msqrt>"
            return f"<mroot>{row(inner)}{tag('mn', str(node.degree))}</mroot>"
        if isinstance(node, Reciprocal):
            return self._product(node.fraction, True)
        if isinstance(node, Power):
            base = self.show(node.base, True)
            if not node.base_is_symbol or self.substituted:
                base = paren(base)
            return f"<msup>{row(base)}{row(self.show(node.exponent, True))}</msup>"
        if isinstance(node, Ceiling):
            return row(tag("mo", "⌈"), self.show(node.argument, in_power), tag("mo", "⌉"))
        if isinstance(node, Floor):
            return row(tag("mo", "⌊"), self.show(node.argument, in_power), tag("mo", "⌋"))
        if isinstance(node, Pow2Ceil):
            log = f"<msub>{tag('mi', 'log')}{tag('mn', '2')}</msub>"
            exponent = row(tag("mo", "⌈"), log, self.show(node.argument, in_power), tag("mo", "⌉"))
            return f"<msup>{tag('mn', '2')}{exponent}</msup>"
        if isinstance(node, Call):
            args = tag("mo", ",").join(self.show(a, in_power) for a in node.arguments)
            return row(tag("mi", node.name), paren(args))
        raise TypeError(f"not a layout node: {node!r}")

    def _sum(self, terms: tuple[Term, ...], in_power: bool) -> str:
        parts: list[str] = []
        for negative, body in terms:
            if parts or negative:
                parts.append(tag("mo", "−" if negative else "+"))
            parts.append(self.show(body, in_power))
        return row(*parts)

    def _factor(self, node: Layout, in_power: bool) -> str:
        shown = self.show(node, in_power)
        return paren(shown) if isinstance(node, Sum) else shown

    def _product(self, node: Product, in_power: bool) -> str:
        negative, numerator, denominator = node
        sign = tag("mo", "−") if negative else ""
        if len(numerator) == 1 and denominator:
            top = self.show(numerator[0], in_power)
        else:
            top = self.times.join(self._factor(a, in_power) for a in numerator) or tag("mn", "1")
        if not denominator:
            return row(sign, top)
        if len(denominator) == 1:
            bottom = self.show(denominator[0], in_power)
        else:
            bottom = self.times.join(self._factor(a, in_power) for a in denominator)
        return row(sign, f"<mfrac>{row(top)}{row(bottom)}</mfrac>")


def substituted(
    layout: Layout | sympy.Expr, text: Callable[[Name], str], plain: Callable[[Name], str]
) -> str:
    """A layout with its values in: each variable as `text(node)` (its value with its unit,
    as <mtext>), as `plain(node)` inside a power (a fraction as a number), multiplied
    with ×; the substituted line of a derivation."""
    return MathMLPrinter(
        lambda node: mtext(text(node)), substituted=True, plain_leaf=lambda node: mtext(plain(node))
    )(layout)


def block(*parts: str) -> str:
    """A display-style equation of fragments joined by '=' (the first may be empty: '= …'),
    on its own line, left-aligned, scrolling sideways on a narrow screen."""
    # Chromium sets a leading '=' flush against a lone <mtext> (a value): space it by hand
    gap = '<mspace width="0.2778em"/>'
    joined = "<mo>=</mo>".join(
        gap + p if i and p.startswith("<mtext>") and not parts[0] else p
        for i, p in enumerate(parts)
    )
    return (
        f'<div class="eq"><math><mstyle displaystyle="true"><mrow>{joined}</mrow></mstyle>'
        "</math></div>"
    )


def names_in(node: object) -> list[str]:
    """The variables of a layout, in print order, each once."""
    found: list[str] = []

    def walk(n: object) -> None:
        if isinstance(n, Name):
            if n.name not in found:
                found.append(n.name)
        elif isinstance(n, tuple):
            for child in n:
                walk(child)

    walk(node)
    return found
