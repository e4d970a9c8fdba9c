"""Printing formulas for people: names or substituted values, in Unicode text or LaTeX.

One small printer walks the expression so that the symbolic line and the substituted line of
a derivation keep the same order of factors:

    train_compute / (mfu · n_gpus · peak_flops · train_time)
    4.2×10²² FLOP / (0.4 × 58.5 GPU × 989 TFLOP/(s·GPU) × 3 week)

It prints a layout: the sympy expression with every decision that depends on sympy taken in
advance (the order of terms, which factors divide, the signs, merged roots) by `lower`, as a
tree of typed nodes, one NamedTuple per kind (`Layout`). Printing a layout needs no sympy.
The library's snapshot and the stored rearrangements keep layouts as JSON (`to_json`, read
back and checked by `from_json`), each node a list that starts with a tag:

    Name ["sym", name]  Integer ["int", n]  Rational ["rat", p, q]  Float ["num", x]
    Sum ["sum", [[negative, term], ...]]  Product ["prod", negative, numerator, denominator]
    Root ["pow", ["root", degree, radicand]]  Reciprocal ["pow", ["prod", ...]]
    Power ["pow", ["powr", base, base_is_symbol, exponent, integer_exponent, simple_exponent]]
    Ceiling, Floor, Pow2Ceil ["fn", "ceiling" | "floor" | "pow2_ceil", "", [argument]]
    Call ["fn", "call", name, [argument, ...]]

(Nodes compare as the tuples they are, so Floor(x) == Ceiling(x): compare `to_json` forms to
tell kinds apart.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple, TypeAlias, TypeGuard, get_args

from napkinmath.units import format_number

if TYPE_CHECKING:
    import sympy

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


# --- the layout: one node kind per way of printing ----------------------------------------


class Name(NamedTuple):
    """A variable, by its name (a sympy Symbol's `.name`); what a leaf printer is given."""

    name: str


class Integer(NamedTuple):
    """An integer: 2."""

    value: int


class Rational(NamedTuple):
    """A rational number that is not an integer: 1/2."""

    numerator: int
    denominator: int


class Float(NamedTuple):
    """Any other number, printed by `napkinmath.units.format_number`: 0.4."""

    value: float


class Term(NamedTuple):
    """One term of a `Sum`: `body` is the term without its sign, `negative` puts a minus
    before it."""

    negative: bool
    body: Layout


class Sum(NamedTuple):
    """Terms in print order, a positive one first: 1 − a − b."""

    terms: tuple[Term, ...]


class Product(NamedTuple):
    """Factors in print order, those with a negative power in `denominator` (as positive
    powers); `negative` puts a minus before the whole."""

    negative: bool
    numerator: tuple[Layout, ...]
    denominator: tuple[Layout, ...]


class Root(NamedTuple):
    """A square, cube or fourth root (`degree` 2, 3 or 4): √(a), ∛(a), ∜(a)."""

    degree: int
    radicand: Layout


class Reciprocal(NamedTuple):
    """A negative power standing alone, printed as the fraction it is: 1 / x²."""

    fraction: Product


class Power(NamedTuple):
    """`base` to the power `exponent`: a whole `integer_exponent` prints as a superscript
    (x²), a `simple_exponent` (a symbol or a float) without parentheses (x^y); a base that
    is not a symbol (`base_is_symbol`) is put in parentheses."""

    base: Layout
    base_is_symbol: bool
    exponent: Layout
    integer_exponent: int | None
    simple_exponent: bool


class Ceiling(NamedTuple):
    """Rounded up: ⌈x⌉."""

    argument: Layout


class Floor(NamedTuple):
    """Rounded down: ⌊x⌋."""

    argument: Layout


class Pow2Ceil(NamedTuple):
    """Rounded up to a power of two: 2^⌈log₂(x)⌉."""

    argument: Layout


class Call(NamedTuple):
    """Any other function, by the name it prints with: ln(x), max(a, b)."""

    name: str
    arguments: tuple[Layout, ...]


#: an expression laid out for printing: a node of one of these kinds
Layout: TypeAlias = (
    Name
    | Integer
    | Rational
    | Float
    | Sum
    | Product
    | Root
    | Reciprocal
    | Power
    | Ceiling
    | Floor
    | Pow2Ceil
    | Call
)

_KINDS: tuple[type, ...] = get_args(Layout)


def is_layout(value: object) -> TypeGuard[Layout]:
    return isinstance(value, _KINDS)


Leaf = Callable[[Name], str]


# --- printing a layout ----------------------------------------------------------------------


class Printer:
    """Render an expression (a layout, or a sympy expression laid out on the way); `leaf`
    prints each variable, `style` is 'text' or 'latex'. Each node kind has its method,
    `_print_<Kind>`, as in sympy's printers."""

    def __init__(
        self,
        leaf: Leaf,
        style: str = "text",
        substituted: bool = False,
        plain_leaf: Leaf | None = None,
    ) -> None:
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
        return self.show(expr if is_layout(expr) else lower(expr))

    def show(self, node: Layout) -> str:
        """`node` printed by the method for its kind."""
        method: Callable[[Layout], str] = getattr(self, f"_print_{type(node).__name__}")
        return method(node)

    def _print_Name(self, node: Name) -> str:
        return self.leaf(node)

    def _print_Integer(self, node: Integer) -> str:
        return str(node.value)

    def _print_Rational(self, node: Rational) -> str:
        p, q = node
        return f"\\frac{{{p}}}{{{q}}}" if self.latex else f"{p}/{q}"

    def _print_Float(self, node: Float) -> str:
        return format_number(node.value, style="latex" if self.latex else "text")

    def _print_Sum(self, node: Sum) -> str:
        parts: list[str] = []
        for negative, term in node.terms:
            body = self.show(term)
            if parts:
                parts.append(("- " if self.latex else "− ") + body if negative else "+ " + body)
            else:
                parts.append(("-" if self.latex else "−") + body if negative else body)
        return " ".join(parts)

    def _factor(self, node: Layout) -> str:
        """A factor of a product: a sum in parentheses."""
        text = self.show(node)
        return f"({text})" if isinstance(node, Sum) else text

    def _print_Product(self, node: Product) -> str:
        negative, numerator, denominator = node
        sign = ("-" if self.latex else "−") if negative else ""
        top = self.times.join(self._factor(a) for a in numerator) or "1"
        if not denominator:
            return sign + top
        if self.latex:  # \frac groups its parts: a lone sum needs no parentheses
            if len(numerator) == 1:
                top = self.show(numerator[0])
            bottom = (
                self.show(denominator[0])
                if len(denominator) == 1
                else self.times.join(self._factor(a) for a in denominator)
            )
            return f"{sign}\\frac{{{top}}}{{{bottom}}}"
        if len(numerator) > 1 and self.substituted:
            top = f"({top})"
        bottom = self.times.join(self._factor(a) for a in denominator)
        wrapped = len(denominator) == 1 and isinstance(denominator[0], Sum)
        if len(denominator) > 1 or (self.substituted and " " in bottom and not wrapped):
            bottom = f"({bottom})"
        return f"{sign}{top} / {bottom}"

    @contextmanager
    def _in_power(self) -> Iterator[None]:
        """Inside a power (a root, a reciprocal or a power), symbols print by `plain_leaf`."""
        if self.plain_leaf is None or self.plain_leaf is self.leaf:
            yield
            return
        shown, self.leaf = self.leaf, self.plain_leaf
        try:
            yield
        finally:
            self.leaf = shown

    def _print_Root(self, node: Root) -> str:
        with self._in_power():
            inner = self.show(node.radicand)
        sign, index = {2: ("√", ""), 3: ("∛", "[3]"), 4: ("∜", "[4]")}[node.degree]
        return f"\\sqrt{index}{{{inner}}}" if self.latex else f"{sign}({inner})"

    def _print_Reciprocal(self, node: Reciprocal) -> str:
        with self._in_power():
            return self._print_Product(node.fraction)

    def _print_Power(self, node: Power) -> str:
        with self._in_power():
            base_text = self.show(node.base)
            if not node.base_is_symbol or self.substituted:
                base_text = f"\\left({base_text}\\right)" if self.latex else f"({base_text})"
            if self.latex:
                return f"{base_text}^{{{self.show(node.exponent)}}}"
            if node.integer_exponent is not None:  # x², x³
                return base_text + str(node.integer_exponent).translate(_SUPERSCRIPT)
            power = self.show(node.exponent)
        return f"{base_text}^{power}" if node.simple_exponent else f"{base_text}^({power})"

    def _print_Ceiling(self, node: Ceiling) -> str:
        inner = self.show(node.argument)
        return f"\\left\\lceil {inner} \\right\\rceil" if self.latex else f"⌈{inner}⌉"

    def _print_Floor(self, node: Floor) -> str:
        inner = self.show(node.argument)
        return f"\\left\\lfloor {inner} \\right\\rfloor" if self.latex else f"⌊{inner}⌋"

    def _print_Pow2Ceil(self, node: Pow2Ceil) -> str:
        inner = self.show(node.argument)
        return f"2^{{\\lceil \\log_2 {inner} \\rceil}}" if self.latex else f"2^⌈log₂({inner})⌉"

    def _print_Call(self, node: Call) -> str:
        args = ", ".join(self.show(a) for a in node.arguments)
        if self.latex:
            name = _CALL_LATEX.get(node.name, f"\\operatorname{{{node.name}}}")
            return f"{name}\\left({args}\\right)"
        return f"{node.name}({args})"


# --- laying out a sympy expression ----------------------------------------------------------


def lower(expr: sympy.Expr) -> Layout:
    """The layout of a sympy expression: every printing decision that needs sympy, taken."""
    import sympy

    if isinstance(expr, sympy.Symbol):
        return Name(expr.name)
    if expr.is_Integer:
        return Integer(int(expr))
    if expr.is_Rational:
        return Rational(int(expr.p), int(expr.q))
    if expr.is_Number:
        return Float(float(expr))
    if isinstance(expr, sympy.Add):
        return _lower_add(expr)
    if isinstance(expr, sympy.Mul):
        return _lower_mul(expr)
    if isinstance(expr, sympy.Pow):
        return _lower_power(expr)
    return _lower_function(expr)


def _lower_add(expr: sympy.Add) -> Sum:
    """Terms in sympy's order, but a positive one first: 1 − a − b, not −a − b + 1."""
    terms = list(expr.as_ordered_terms())
    first = next((i for i, t in enumerate(terms) if not t.could_extract_minus_sign()), 0)
    terms.insert(0, terms.pop(first))
    laid = []
    for term in terms:
        negative = bool(term.could_extract_minus_sign())
        laid.append(Term(negative, lower(-term if negative else term)))
    return Sum(tuple(laid))


def _lower_mul(expr: sympy.Mul) -> Product:
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
            denominator.append(arg.base**-arg.exp)
        else:
            numerator.append(arg)
    if negative:  # −(b − a) / c reads better as (a − b) / c
        numerator, denominator, negative = _absorb_sign(numerator, denominator)
    numerator = _merge_roots(numerator)
    return Product(
        negative, tuple(lower(a) for a in numerator), tuple(lower(a) for a in denominator)
    )


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


def _lower_power(expr: sympy.Pow) -> Root | Reciprocal | Power:
    import sympy

    base, exponent = expr.args
    if exponent.is_Rational and exponent.p == 1 and int(exponent.q) in (2, 3, 4):
        return Root(int(exponent.q), lower(base))
    if exponent.is_number and exponent < 0:
        return Reciprocal(_lower_mul(sympy.Mul(sympy.Integer(1), expr, evaluate=False)))
    integer = int(exponent) if exponent.is_Integer else None
    simple = isinstance(exponent, sympy.Symbol) or (exponent.is_Number and not exponent.is_Rational)
    return Power(
        lower(base), isinstance(base, sympy.Symbol), lower(exponent), integer, bool(simple)
    )


def _lower_function(expr: sympy.Expr) -> Ceiling | Floor | Pow2Ceil | Call:
    import sympy

    from napkinmath.library.functions import pow2_ceil

    args = tuple(lower(a) for a in expr.args)
    if isinstance(expr, sympy.ceiling):
        return Ceiling(*args)
    if isinstance(expr, sympy.floor):
        return Floor(*args)
    if isinstance(expr, pow2_ceil):
        return Pow2Ceil(*args)
    name = CALL_NAMES.get(type(expr).__name__, type(expr).__name__)
    return Call(name, args)


#: how a function is named in print (the sympy class name otherwise)
CALL_NAMES = {"log": "ln", "Max": "max", "Min": "min", "normal_quantile": "Φ⁻¹"}
#: the LaTeX of a printed function name that is not a plain word
_CALL_LATEX = {"Φ⁻¹": "\\Phi^{-1}"}


def _negated(add: sympy.Add) -> sympy.Expr:
    import sympy

    return sympy.Add(*(-term for term in add.args))


def _absorb_sign(
    numerator: list[sympy.Expr], denominator: list[sympy.Expr]
) -> tuple[list[sympy.Expr], list[sympy.Expr], bool]:
    """Move a leading minus into a sum whose terms are mostly negative (same value)."""
    import sympy

    for factors in (numerator, denominator):
        for i, f in enumerate(factors):
            if isinstance(f, sympy.Add) and sum(
                t.could_extract_minus_sign() for t in f.args
            ) * 2 >= len(f.args):
                flipped = _negated(f)
                return (
                    ([*factors[:i], flipped, *factors[i + 1 :]], denominator, False)
                    if factors is numerator
                    else (numerator, [*factors[:i], flipped, *factors[i + 1 :]], False)
                )
    return numerator, denominator, True


# --- the JSON form --------------------------------------------------------------------------


def to_json(node: Layout) -> list:
    """The JSON form of a layout (see the module's docstring), as `from_json` reads it."""
    match node:
        case Name(name):
            return ["sym", name]
        case Integer(value):
            return ["int", value]
        case Rational(p, q):
            return ["rat", p, q]
        case Float(value):
            return ["num", value]
        case Sum(terms):
            return ["sum", [[t.negative, to_json(t.body)] for t in terms]]
        case Product(negative, numerator, denominator):
            return ["prod", negative, _json_list(numerator), _json_list(denominator)]
        case Root(degree, radicand):
            return ["pow", ["root", degree, to_json(radicand)]]
        case Reciprocal(fraction):
            return ["pow", to_json(fraction)]
        case Power(base, base_is_symbol, exponent, integer_exponent, simple_exponent):
            return [
                "pow",
                [
                    "powr",
                    to_json(base),
                    base_is_symbol,
                    to_json(exponent),
                    integer_exponent,
                    simple_exponent,
                ],
            ]
        case Ceiling(argument) | Floor(argument) | Pow2Ceil(argument):
            return ["fn", _ROUNDINGS[type(node)], "", [to_json(argument)]]
        case Call(name, arguments):
            return ["fn", "call", name, _json_list(arguments)]
    raise TypeError(f"not a layout node: {type(node).__name__}")


def _json_list(nodes: tuple[Layout, ...]) -> list:
    return [to_json(n) for n in nodes]


#: the tag a rounding function has in the JSON form
_ROUNDINGS: dict[type, str] = {Ceiling: "ceiling", Floor: "floor", Pow2Ceil: "pow2_ceil"}
_ROUNDED = {tag: kind for kind, tag in _ROUNDINGS.items()}


def names_in(node: Layout) -> set[str]:
    """The variable names a layout prints."""
    if isinstance(node, Name):
        return {node.name}
    found: set[str] = set()
    for part in node:
        if isinstance(part, tuple):
            found |= names_in(part)  # type: ignore[arg-type]
    return found


#: the largest integer (in bits) a layout read back may hold (a formula's are small)
MAX_BITS = 256


def from_json(data: object) -> Layout:
    """A layout read back from its JSON form (`to_json`), checked node by node; ValueError
    when it is anything else. It only reads data: no text is ever evaluated."""
    if not isinstance(data, list):
        raise ValueError("not a layout node")
    match data:
        case ["sym", str(name)]:
            return Name(name)
        case ["int", int(value)] if type(value) is int and value.bit_length() <= MAX_BITS:
            return Integer(value)
        case ["rat", int(p), int(q)] if (
            type(p) is int and type(q) is int and max(p.bit_length(), q.bit_length()) <= MAX_BITS
        ):
            return Rational(p, q)
        case ["num", float(value)]:
            return Float(value)
        case ["sum", list(terms)]:
            return Sum(tuple(_term(t) for t in terms))
        case ["prod", *_]:
            return _product(data)
        case ["pow", list(["root", int(degree), radicand])] if type(degree) is int and degree in (
            2,
            3,
            4,
        ):
            return Root(degree, from_json(radicand))
        case ["pow", list(["prod", *_]) as fraction]:
            return Reciprocal(_product(fraction))
        case ["pow", list(["powr", base, base_is_symbol, exponent, integer, simple])] if (
            integer is None or type(integer) is int
        ):
            return Power(
                from_json(base), _flag(base_is_symbol), from_json(exponent), integer, _flag(simple)
            )
        case ["fn", "ceiling" | "floor" | "pow2_ceil" as tag, "", list([argument])]:
            return _ROUNDED[tag](from_json(argument))
        case ["fn", "call", str(name), arguments]:
            return Call(name, _nodes(arguments))
    raise ValueError(f"not a layout node: {str(data[0])[:40]!r}" if data else "empty node")


def _term(data: object) -> Term:
    match data:
        case list([negative, body]):
            return Term(_flag(negative), from_json(body))
    raise ValueError("not a term of a sum")


def _product(data: list) -> Product:
    match data:
        case ["prod", negative, numerator, denominator]:
            return Product(_flag(negative), _nodes(numerator), _nodes(denominator))
    raise ValueError("not a product")


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("not a flag")
    return value


def _nodes(data: object) -> tuple[Layout, ...]:
    if not isinstance(data, list):
        raise ValueError("not a list of layout nodes")
    return tuple(from_json(d) for d in data)
