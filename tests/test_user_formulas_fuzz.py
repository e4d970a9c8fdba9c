"""Random formulas of your own (issue 44's harness, at a size CI runs): equations in one
unknown built from powers with fractional exponents, exp, log, sqrt, ceil, floor, abs, min
and max, each solved for its unknown. Every one answers, with the answer substituted back
into its equation, or refuses with napkinmath's own error: no crash, no foreign exception,
no hang (each question's symbolic work is bounded; the limit here only catches a hang)."""

from __future__ import annotations

import math
import random
import time

import pytest

import napkinmath as nm

SEED = 20261206
COUNT = 24
#: every question's time, past which it counts as hung (its symbolic work is bounded at 2 s)
HANG = 30.0

#: a term in xv as napkinmath's grammar writes it, and as Python evaluates it
TERMS = [
    ("xv^({p}/{q})", lambda x, p, q: x ** (p / q)),
    ("exp(xv/{q})", lambda x, p, q: math.exp(x / q)),
    ("log(xv + {p})", lambda x, p, q: math.log(x + p)),
    ("sqrt(xv) * {p}", lambda x, p, q: math.sqrt(x) * p),
    ("ceil(xv) * {p}", lambda x, p, q: math.ceil(x) * p),
    ("floor(xv / {q})", lambda x, p, q: math.floor(x / q)),
    ("abs(xv - {p})", lambda x, p, q: abs(x - p)),
    ("max(xv, {p})", lambda x, p, q: max(x, p)),
    ("min(xv^2, {q})", lambda x, p, q: min(x**2, q)),
    ("xv^{p}", lambda x, p, q: x**p),
]


def _equations() -> list[tuple[str, object, float]]:
    rng = random.Random(SEED)
    out = []
    for _ in range(COUNT):
        chosen = [
            (text.format(p=p, q=q), fn, p, q)
            for text, fn in rng.sample(TERMS, rng.randint(2, 4))
            for p, q in [(rng.randint(1, 9), rng.randint(2, 13))]
        ]
        text = " + ".join(t for t, *_ in chosen)

        def f(x: float, chosen=chosen) -> float:
            return sum(fn(x, p, q) for _, fn, p, q in chosen)

        x0 = rng.uniform(0.5, 20)  # a value yv takes somewhere in the bounds
        out.append((text, f, f(x0)))
    return out


@pytest.mark.parametrize(("equation", "f", "y"), _equations(), ids=lambda v: str(v)[:30])
def test_a_random_formula_answers_by_substitution_or_refuses(equation, f, y):
    tables = {
        "variables": {
            "xv": {"unit": "", "bounds": [0, 100], "description": "x"},
            "yv": {"unit": "", "description": "y"},
        },
        "formulas": [
            {"name": "fuzzed", "title": "Fuzzed", "equation": f"yv = {equation}", "source": "fuzz"}
        ],
    }
    start = time.monotonic()
    try:
        r = nm.solve("xv", yv=y, formulas=tables)
    except nm.NapkinError:
        pass
    else:
        x = r["xv"].to("").magnitude
        assert 0 <= x <= 100
        assert f(x) == pytest.approx(y, rel=1e-6, abs=1e-9), (equation, x)
    assert time.monotonic() - start < HANG
