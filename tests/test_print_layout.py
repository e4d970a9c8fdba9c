"""The print layout (`napkinmath.library.print_layout`): typed nodes, one kind per way of
printing, and the JSON form the library's snapshot and stored rearrangements keep.

The JSON below is the form stored before the nodes were typed, so entries written by either
read the same; `from_json` takes nothing else.
"""

from __future__ import annotations

import json
from typing import get_args

import pytest
import sympy

from napkinmath.library.functions import pow2_ceil
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
    Printer,
    Product,
    Rational,
    Reciprocal,
    Root,
    Sum,
    Term,
    from_json,
    lower,
    to_json,
)

a, b, c = sympy.symbols("a b c", positive=True)
text = Printer(lambda s: s.name)
latex = Printer(lambda s: s.name, style="latex")

# (expression, its layout, the layout's JSON, printed as text)
EXAMPLES = [
    (
        2 * a - b / 3,
        Sum(
            (
                Term(False, Product(False, (Integer(2), Name("a")), ())),
                Term(True, Product(False, (Name("b"),), (Integer(3),))),
            )
        ),
        '["sum", [[false, ["prod", false, [["int", 2], ["sym", "a"]], []]], '
        '[true, ["prod", false, [["sym", "b"]], [["int", 3]]]]]]',
        "2 · a − b / 3",
    ),
    (
        sympy.sqrt(a) * b**2 / (c + 1),
        Product(
            False,
            (Root(2, Name("a")), Power(Name("b"), True, Integer(2), 2, False)),
            (Sum((Term(False, Name("c")), Term(False, Integer(1)))),),
        ),
        '["prod", false, [["pow", ["root", 2, ["sym", "a"]]], ["pow", ["powr", ["sym", "b"], true, '
        '["int", 2], 2, false]]], [["sum", [[false, ["sym", "c"]], [false, ["int", 1]]]]]]',
        "√(a) · b² / (c + 1)",
    ),
    (
        1 / a,
        Reciprocal(Product(False, (Integer(1),), (Name("a"),))),
        '["pow", ["prod", false, [["int", 1]], [["sym", "a"]]]]',
        "1 / a",
    ),
    (
        a**b,
        Power(Name("a"), True, Name("b"), None, True),
        '["pow", ["powr", ["sym", "a"], true, ["sym", "b"], null, true]]',
        "a^b",
    ),
    (
        sympy.Float(0.4) * a,
        Product(False, (Float(0.4), Name("a")), ()),
        '["prod", false, [["num", 0.4], ["sym", "a"]], []]',
        "0.4 · a",
    ),
    (sympy.Rational(3, 4), Rational(3, 4), '["rat", 3, 4]', "3/4"),
    (
        sympy.ceiling(a) + sympy.floor(b) + pow2_ceil(c),
        Sum(
            (
                Term(False, Ceiling(Name("a"))),
                Term(False, Floor(Name("b"))),
                Term(False, Pow2Ceil(Name("c"))),
            )
        ),
        '["sum", [[false, ["fn", "ceiling", "", [["sym", "a"]]]], [false, ["fn", "floor", "", '
        '[["sym", "b"]]]], [false, ["fn", "pow2_ceil", "", [["sym", "c"]]]]]]',
        "⌈a⌉ + ⌊b⌋ + 2^⌈log₂(c)⌉",
    ),
    (
        sympy.Max(a, b) - sympy.log(c),
        Sum(
            (Term(False, Call("max", (Name("a"), Name("b")))), Term(True, Call("ln", (Name("c"),))))
        ),
        '["sum", [[false, ["fn", "call", "max", [["sym", "a"], ["sym", "b"]]]], '
        '[true, ["fn", "call", "ln", [["sym", "c"]]]]]]',
        "max(a, b) − ln(c)",
    ),
]


@pytest.mark.parametrize(("expr", "layout", "stored", "printed"), EXAMPLES)
def test_an_expression_is_laid_out_stored_read_back_and_printed(expr, layout, stored, printed):
    laid = lower(expr)
    assert laid == layout and json.dumps(to_json(laid)) == stored
    back = from_json(json.loads(stored))
    assert to_json(back) == json.loads(stored)  # the same kinds, not only equal tuples
    assert text(back) == text(expr) == printed
    assert latex(back) == latex(expr)


def test_the_examples_hold_every_node_kind():
    def kinds(node: tuple) -> set[type]:
        found = {type(node)}
        for field in node:  # a node, a tuple of nodes or of terms, or a plain value
            for part in field if type(field) is tuple else (field,):
                if isinstance(part, tuple):
                    found |= kinds(part)
        return found

    seen = set().union(*(kinds(layout) for _, layout, _, _ in EXAMPLES))
    assert seen - {Term} == set(get_args(Layout))


def test_a_leaf_printer_gets_the_name_node():
    shown = Printer(lambda s: f"<{s.name}>", substituted=True, plain_leaf=lambda s: f"[{s.name}]")
    # inside a power the plain leaf prints: a percent would read oddly in 0.43^(…)
    assert (
        shown(Product(False, (Name("x"), Power(Name("x"), True, Name("y"), None, True)), ()))
        == "<x> × ([x])^[y]"
    )


@pytest.mark.parametrize(
    "data",
    [
        ["fn", "call", "__import__('os').system('echo hacked')"],  # no argument list
        ["fn", "eval", "", [["sym", "x"]]],  # not one of the function kinds
        ["fn", "ceiling", "", [["sym", "x"], ["sym", "y"]]],  # a rounding takes one argument
        ["fn", "ceiling", "round", [["sym", "x"]]],
        ["sym", 1],
        ["int", "1 + 1"],
        ["int", True],
        ["int", 1.0],
        ["num", 1],
        ["rat", 1, "2"],
        ["sum", [[0, ["sym", "x"]]]],  # a sign must be true or false
        ["sum", [[False, ["sym", "x"], "extra"]]],
        ["prod", False, [["sym", "x"]]],
        ["pow", ["root", 5, ["sym", "x"]]],
        ["pow", ["root", 2.0, ["sym", "x"]]],
        ["pow", ["powr", ["sym", "x"], True, ["int", 2], "2", False]],
        ["pow", ["sym", "x"]],
        ["root", 2, ["sym", "x"]],  # a root only inside "pow"
        [],
        "sym",
        {"sym": "x"},
        ("sym", "x"),
        None,
    ],
)
def test_a_malformed_node_is_refused(data):
    with pytest.raises(ValueError):
        from_json(data)
