"""Elasticities differentiated forward through the chain's trees (`whatif.derivative`, no
sympy) against sympy differentiating the composed expression, over random questions of the
whole library (tests/test_properties.py's generator, another seed), and by hand."""

from __future__ import annotations

import math

import pytest
from test_properties import answer, questions

import napkinmath as nm
from napkinmath.whatif import sensitivity as sens
from napkinmath.whatif.derivative import gradient
from napkinmath.whatif.vectorize import VectorChain


def _point(result):
    return {
        n: float(g.quantity.m_as(g.variable.unit)) * g.variable.base_factor
        for n, g in result.givens.items()
    }


def test_forward_derivatives_agree_with_sympy_over_random_questions():
    compared = exact = 0
    for question in questions(400, seed=2812):
        kind, result = answer(question)
        if kind != "ok" or not result.steps:
            continue
        chain = VectorChain.from_result(result)
        point = _point(result)
        names = list(point)
        for target in result.targets:
            ours = sens._exact_elasticities(chain, target, point, names)
            theirs = sens._sympy_elasticities(chain, target, point, names)
            if theirs and not ours:
                # ours declines only where a derivative is undefined at the point
                assert gradient(chain, target, point, names) is None
                continue
            if not theirs:
                continue
            compared += 1
            assert ours.keys() == theirs.keys()
            for n in names:
                a, b = ours[n], theirs[n]
                if math.isnan(b):
                    continue
                assert a == pytest.approx(b, rel=1e-9, abs=1e-12), (question, target, n, a, b)
                exact += 1
    assert compared >= 100 and exact >= 300, (compared, exact)


def test_forward_derivative_of_a_ring_allreduce_by_hand():
    # a ring all-reduce of B bytes over n ranks at link bandwidth b: t = 2 B (n-1)/n / b;
    # d ln t / d ln B = 1, d ln t / d ln b = -1, d ln t / d ln n = 1/(n-1) = 1/7 at n = 8
    r = nm.solve("allreduce_time", message_bytes="10 GB", n_ranks=8, link_bandwidth="400 GB/s")
    s = r.sensitivity()
    assert "differentiated exactly" in s.method
    e = s.elasticities
    assert e["message_bytes"] == pytest.approx(1, abs=1e-12)
    assert e["link_bandwidth"] == pytest.approx(-1, abs=1e-12)
    assert e["n_ranks"] == pytest.approx(1 / 7, rel=1e-12)
