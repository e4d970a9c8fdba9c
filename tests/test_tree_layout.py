"""A tree's print layout without sympy (`napkinmath.library.tree_layout.lower_tree`) is the
layout sympy's `print_layout.lower` makes of the same expression: of every tree the library
ships (formula and constraint sides, roots and coupled blocks' solutions, all shipped
without layouts), and of random expressions over the library's variables."""

from __future__ import annotations

import json

import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from napkinmath.library import print_layout, tree
from napkinmath.library.tree_layout import lower_tree
from napkinmath.solving import shipped


def _as_json(layout: print_layout.Layout) -> object:
    return json.loads(json.dumps(print_layout.to_json(layout)))


def _shipped_trees() -> list[object]:
    """Every tree the shipped set holds: the declared library's formula and constraint
    sides, the roots and the coupled blocks' solutions, as JSON."""
    library = json.loads((shipped.FOLDER / "library.json").read_text())
    trees = [t for row in library["formulas"] + library["constraints"] for t in row[10:12]]
    for path in sorted(shipped.FOLDER.glob("*.json")):
        if path.name in ("index.json", "facts.json", "library.json"):
            continue
        data = json.loads(path.read_text())
        if path.name.startswith("joint-"):
            trees += [t for solutions in data.values() for s in solutions for t in s]
        else:
            trees += [t for roots in data["roots"].values() for t in roots]
    return trees


def test_every_shipped_tree_is_laid_out_as_sympy_lays_it_out():
    """The library is shipped as trees alone: the layouts made from them here are sympy's
    (`lower` of the tree's expression)."""
    from napkinmath.catalog.lookup import formulas
    from napkinmath.solving.invert import symbol_of

    formulas()  # the library's symbols, with their assumptions
    trees = _shipped_trees()
    read = [tree.from_json(t) for t in trees]
    differ = [
        t
        for t in read
        if _as_json(lower_tree(t)) != _as_json(print_layout.lower(tree.to_sympy(t, symbol_of)))
    ]
    assert len(trees) > 3400 and not differ, differ[:3]


def test_a_declared_formula_is_printed_from_its_trees():
    from napkinmath.catalog.lookup import formulas

    f = formulas()["fleet_equation"]
    assert [print_layout.to_json(x) for x in f.layouts] == [
        print_layout.to_json(lower_tree(t)) for t in f.trees
    ]


def test_a_number_root_is_laid_out_without_sympy():
    from napkinmath.solving.invert import number_root

    assert print_layout.to_json(number_root(58.48).layout) == ["num", 58.48]


NAMES = sympy.symbols("params tokens mfu n_gpus seq_len tp", positive=True)
ATOMS = st.one_of(
    st.sampled_from(NAMES),
    st.integers(-5, 5).map(sympy.Integer),
    st.sampled_from(
        [sympy.Rational(1, 2), sympy.Rational(-3, 4), sympy.Float(0.4), sympy.Float(-1.5), sympy.pi]
    ),
)


def _maximum(pair: tuple) -> object:
    try:
        return sympy.Max(*pair)
    except ValueError:  # a complex argument (a root of a negative number): not comparable
        return None


def _minimum(pair: tuple) -> object:
    try:
        return sympy.Min(*pair)
    except ValueError:
        return None


def _combine(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(children, min_size=2, max_size=4).map(lambda xs: sympy.Add(*xs)),
        st.lists(children, min_size=2, max_size=4).map(lambda xs: sympy.Mul(*xs)),
        st.tuples(
            children,
            st.sampled_from(
                [2, -1, -2, sympy.Rational(1, 2), sympy.Rational(3, 2), sympy.Rational(-1, 2)]
            ),
        ).map(lambda p: sympy.Pow(*p)),
        st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)).map(lambda p: sympy.Pow(*p)),
        children.map(sympy.ceiling),
        children.map(sympy.floor),
        st.sampled_from(NAMES).map(sympy.log),
        st.tuples(children, children).map(_maximum).filter(lambda e: e is not None),
        st.tuples(children, children).map(_minimum).filter(lambda e: e is not None),
    )


EXPRESSIONS = st.recursive(ATOMS, _combine, max_leaves=8)


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(EXPRESSIONS)
def test_random_expressions_are_laid_out_as_sympy_lays_them_out(expr):
    try:
        t = tree.from_sympy(expr)
    except tree.NoTreeError:  # zoo or nan from a power of 0: no tree, nothing to compare
        assume(False)
        return
    assert _as_json(lower_tree(t)) == _as_json(print_layout.lower(expr)), expr
