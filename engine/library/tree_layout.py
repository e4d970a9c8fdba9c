"""A tree's print layout without sympy: the layout `print_layout.lower` makes of the same
expression, decided on the tree (`napkinmath.library.tree`).

`lower` takes every printing decision from sympy: the order of a sum's terms
(`Expr.as_ordered_terms`: lexicographic in the exponents of the sum's generators, the
generators ordered by `default_sort_key`), which terms carry a minus sign
(`could_extract_minus_sign`), which factors divide, and square roots merged. A tree keeps
sympy's own argument order, so the same decisions can be taken on it: this module writes
sympy's rules for the node kinds a tree has (symbols, integers, rationals, floats, the
constants pi and E, sums, products, powers and functions). On 2026-12-07 it gave every one of
the 3,484 layouts the library then shipped (each formula's and constraint's sides, every root
and every coupled block's solution) exactly, and since then the library ships trees alone;
`tests/test_tree_layout.py` holds it to `lower` on every shipped tree and on random
expressions.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from napkinmath.library import print_layout as pl
from napkinmath.library.tree import Tree, names

_NUMBERS = ("i", "r", "f")
#: sympy's class keys (`Basic.class_key`) of the node kinds, for its sort keys
_CLASS_KEYS: dict[str, tuple[int, int, str]] = {
    "s": (2, 0, "Symbol"),
    "^": (3, 2, "Pow"),
    "+": (3, 1, "Add"),
    "*": (3, 0, "Mul"),
}
_FUNCTION_KEYS = {
    "log": (4, 11, "log"),
    "exp": (4, 10, "exp"),
    "Max": (5, 0, "Max"),
    "Min": (5, 0, "Min"),
}
#: a constant node's sympy class and how sympy prints it
_CONSTANTS = {"Pi": ((2, 0, "Pi"), "pi"), "Exp1": ((2, 0, "Exp1"), "E")}
_ONE: Tree = ("i", 1)

Number = Fraction | float


def lower_tree(tree: Tree) -> pl.Layout:
    """The layout of `tree` (as `tree.from_json` reads it): `print_layout.lower(to_sympy(tree))`,
    without sympy."""
    kind = tree[0]
    if kind == "s":
        return pl.Name(tree[1])
    if kind == "i":
        return pl.Integer(tree[1])
    if kind == "r":
        return pl.Rational(tree[1], tree[2])
    if kind == "f":
        return pl.Float(float(tree[1]))
    if kind == "+":
        return _lower_sum(tree)
    if kind == "*":
        return _lower_product(list(tree[1]))
    if kind == "^":
        return _lower_power(tree)
    if kind == "fn":
        args = tuple(lower_tree(a) for a in tree[2])
        if tree[1] == "ceiling":
            return pl.Ceiling(*args)
        if tree[1] == "floor":
            return pl.Floor(*args)
        if tree[1] == "pow2_ceil":
            return pl.Pow2Ceil(*args)
        return pl.Call(pl.CALL_NAMES.get(tree[1], tree[1]), args)
    return pl.Call(tree[1], ())  # a constant: sympy's lower takes it for a function


def _lower_sum(tree: Tree) -> pl.Sum:
    """Terms in sympy's print order, a positive one first (as `print_layout._lower_add`)."""
    terms = _ordered_terms(tree)
    first = next((i for i, t in enumerate(terms) if not _minus(t)), 0)
    terms.insert(0, terms.pop(first))
    laid = []
    for term in terms:
        negative = _minus(term)
        laid.append(pl.Term(negative, lower_tree(_negated(term) if negative else term)))
    return pl.Sum(tuple(laid))


def _lower_product(args: list[Tree]) -> pl.Product:
    """As `print_layout._lower_mul`: rationals split, negative powers divide, a minus sign
    absorbed into a mostly negative sum, square roots merged."""
    numerator: list[Any] = []
    denominator: list[Tree] = []
    negative = False
    for arg in args:
        if arg[0] in ("i", "r") and _value(arg) != 1:
            value = _value(arg)
            if value < 0:
                negative, value = True, -value
            assert isinstance(value, Fraction)
            if value.numerator != 1:
                numerator.append(("i", value.numerator))
            if value.denominator != 1:
                denominator.append(("i", value.denominator))
        elif arg[0] == "^" and _negative_number(arg[2]):
            denominator.append(_power(arg[1], _negated(arg[2])))
        else:
            numerator.append(arg)
    if negative:
        numerator, denominator, negative = _absorb_sign(numerator, denominator)
    laid = [
        pl.Root(2, _lower_product(list(f[1]))) if f[0] == "roots" else lower_tree(f)
        for f in _merge_roots(numerator)
    ]
    return pl.Product(negative, tuple(laid), tuple(lower_tree(f) for f in denominator))


def _lower_power(tree: Tree) -> pl.Root | pl.Reciprocal | pl.Power:
    base, exponent = tree[1], tree[2]
    if exponent[0] == "r" and exponent[1] == 1 and exponent[2] in (2, 3, 4):
        return pl.Root(exponent[2], lower_tree(base))
    if _negative_number(exponent):
        return pl.Reciprocal(_lower_product([_ONE, tree]))  # sympy's Mul(1, x**-k)
    whole = exponent[1] if exponent[0] == "i" else None
    simple = exponent[0] in ("s", "f")
    return pl.Power(lower_tree(base), base[0] == "s", lower_tree(exponent), whole, simple)


def _absorb_sign(
    numerator: list[Tree], denominator: list[Tree]
) -> tuple[list[Tree], list[Tree], bool]:
    """Move a leading minus into a sum whose terms are mostly negative (same value)."""
    for into_numerator, factors in ((True, numerator), (False, denominator)):
        for i, f in enumerate(factors):
            if f[0] == "+" and sum(_minus(t) for t in f[1]) * 2 >= len(f[1]):
                flipped = [*factors[:i], _negated(f), *factors[i + 1 :]]
                if into_numerator:
                    return flipped, denominator, False
                return numerator, flipped, False
    return numerator, denominator, True


def _merge_roots(factors: list[Tree]) -> list[Tree]:
    """√a · √b reads √(a · b): square roots merged into one, at the first one's place (the
    merged root is a ("roots", bases) node for `_lower_product`)."""
    roots = [f for f in factors if f[0] == "^" and f[2] == ("r", 1, 2)]
    if len(roots) < 2:
        return factors
    first = factors.index(roots[0])
    rest = [f for f in factors if f not in roots]
    return [*rest[:first], ("roots", tuple(r[1] for r in roots)), *rest[first:]]


# --- sympy's decisions, taken on trees -------------------------------------------------------


def _value(tree: Tree) -> Number:
    if tree[0] == "i":
        return Fraction(tree[1])
    if tree[0] == "r":
        return Fraction(tree[1], tree[2])
    return float(tree[1])


def _number(value: Number) -> Tree:
    if isinstance(value, float):
        return ("f", value)
    if value.denominator == 1:
        return ("i", value.numerator)
    return ("r", value.numerator, value.denominator)


def _float(tree: Tree) -> float:
    """The value of a tree without names (sympy's `complex(expr)` of a number expression)."""
    from napkinmath.library.tree import evaluate

    return float(evaluate(tree, {}))


def _negative_number(tree: Tree) -> bool:
    """sympy's `expr.is_number and expr < 0`."""
    return not names(tree) and _float(tree) < 0


def _power(base: Tree, exponent: Tree) -> Tree:
    """base ** exponent as sympy builds it (x ** 1 is x)."""
    if exponent == _ONE:
        return base
    return ("^", base, exponent)


def _product(factors: list[Tree]) -> Tree:
    flat: list[Tree] = []
    for f in factors:
        flat.extend(f[1] if f[0] == "*" else [f])
    return flat[0] if len(flat) == 1 else ("*", tuple(flat))


def _coefficient(tree: Tree) -> tuple[Number, Tree]:
    """sympy's `as_coeff_Mul`: a product's leading number and the rest."""
    if tree[0] == "*" and tree[1][0][0] in _NUMBERS:
        rest = list(tree[1][1:])
        return _value(tree[1][0]), _product(rest)
    return Fraction(1), tree


def _negated(tree: Tree) -> Tree:
    """-tree as sympy builds it: a number negated, a product's coefficient negated (dropped
    where it becomes 1), a sum term by term, anything else times -1."""
    if tree[0] in _NUMBERS:
        return _number(-_value(tree))
    if tree[0] == "*" and tree[1][0][0] in _NUMBERS:
        coefficient = -_value(tree[1][0])
        rest = list(tree[1][1:])
        if coefficient == 1 and isinstance(coefficient, Fraction):  # sympy keeps 1.0 * x
            return _product(rest)
        return ("*", (_number(coefficient), *rest))
    if tree[0] == "+":
        return ("+", tuple(_negated(t) for t in tree[1]))
    return _product([("i", -1), tree])


def _minus(tree: Tree) -> bool:
    """sympy's `could_extract_minus_sign`."""
    if tree[0] in _NUMBERS:
        return _value(tree) < 0
    if tree[0] == "*":
        return tree[1][0][0] in _NUMBERS and _value(tree[1][0]) < 0
    if tree[0] == "+":
        negative = sum(1 for t in tree[1] if _minus(t))
        positive = len(tree[1]) - negative
        if positive != negative:
            return negative > positive
        return bool(_sort_key(tree) < _sort_key(_negated(tree)))
    return False


def _class_key(tree: Tree) -> tuple[int, int, str]:
    kind = tree[0]
    if kind in _NUMBERS:
        return (1, 0, "Number")
    if kind == "c":
        return _CONSTANTS[tree[1]][0]
    if kind == "fn":
        return _FUNCTION_KEYS.get(tree[1], (4, 10000, tree[1]))
    return _CLASS_KEYS[kind]


def _sort_key(tree: Tree) -> tuple[Any, ...]:
    """sympy's `Expr.sort_key` (`default_sort_key`) of the expression `tree` is."""
    if tree[0] in _NUMBERS:
        return ((1, 0, "Number"), (0, ()), (), _value(tree))
    coefficient, expr = _coefficient(tree)
    exponent = _ONE
    if expr[0] == "^":
        expr, exponent = expr[1], expr[2]
    if expr[0] in ("s", "c", *_NUMBERS):
        args: tuple[Any, ...] = (_text(expr),)  # an atom: sympy keys it by its text
    else:
        if expr[0] == "+":
            parts = _ordered_terms(expr)
        elif expr[0] == "*":
            parts = sorted(expr[1], key=_sort_key)
        else:
            parts = list(expr[2])  # a function's arguments
        args = tuple(_sort_key(a) for a in parts)
    return (_class_key(expr), (len(args), args), _sort_key(exponent), coefficient)


def _text(atom: Tree) -> str:
    """How sympy prints an atom (`str`): a name, pi or E, a number."""
    kind = atom[0]
    if kind == "s":
        return str(atom[1])
    if kind == "c":
        return _CONSTANTS[atom[1]][1]
    if kind == "i":
        return str(atom[1])
    if kind == "r":
        return f"{atom[1]}/{atom[2]}"
    from mpmath.libmp import to_str

    return str(to_str(tuple(atom[2]), 15, strip_zeros=False))  # sympy's Float, 15 digits


def _split_power(factor: Tree) -> tuple[Tree, int]:
    """sympy's `decompose_power`: a factor as a generator and a whole exponent."""
    base, exponent = (factor[1], factor[2]) if factor[0] == "^" else (factor, _ONE)
    if exponent[0] in _NUMBERS:
        value = _value(exponent)
        if not isinstance(value, Fraction):
            return factor, 1
        if value.denominator != 1:
            base = ("^", base, _number(Fraction(1, value.denominator)))
        return base, value.numerator
    coefficient, tail = _coefficient(exponent)
    if not isinstance(coefficient, Fraction):
        return factor, 1
    if coefficient == -1:
        return ("^", base, tail), -1
    if coefficient != 1:
        scaled = _product([_number(Fraction(1, coefficient.denominator)), tail])
        return ("^", base, scaled), coefficient.numerator
    return factor, 1


def _ordered_terms(tree: Tree) -> list[Tree]:
    """sympy's `Expr.as_ordered_terms` of the sum `tree`."""
    terms = list(tree[1])

    def numeric(t: Tree) -> bool:
        return t[0] in _NUMBERS or t[0] == "c"

    numbers_first = sorted(terms, key=lambda t: not numeric(t))
    if len(numbers_first) == 2 and numeric(numbers_first[0]) and numbers_first[1][0] == "*":
        factors = sorted(numbers_first[1][1], key=lambda t: not numeric(t))
        if (
            len(factors) == 2
            and factors[0][0] in _NUMBERS
            and _float(numbers_first[0]) > 0
            and _value(factors[0]) < 0
        ):
            return numbers_first
    generators: dict[Tree, None] = {}
    split: list[tuple[Tree, complex, dict[Tree, int]]] = []
    for term in terms:
        coefficient, rest = _coefficient(term)
        weight = complex(float(coefficient))
        powers: dict[Tree, int] = {}
        if term[0] in _NUMBERS:
            weight = complex(float(_value(term)))
        elif rest != _ONE:
            for factor in rest[1] if rest[0] == "*" else (rest,):
                if not names(factor):
                    weight *= _float(factor)
                    continue
                generator, exponent = _split_power(factor)
                powers[generator] = exponent
                generators[generator] = None
        split.append((term, weight, powers))
    ordered = sorted(generators, key=_sort_key)
    position = {g: i for i, g in enumerate(ordered)}

    def key(item: tuple[Tree, complex, dict[Tree, int]]) -> tuple[Any, ...]:
        _, weight, powers = item
        monomial = [0] * len(ordered)
        for generator, exponent in powers.items():
            monomial[position[generator]] = exponent
        return (
            tuple(-m for m in monomial),
            (),
            ((bool(weight.imag), weight.imag), (weight.real, weight.imag)),
        )

    return [term for term, _, _ in sorted(split, key=key)]
