"""Notebook representations without a kernel: what Jupyter would store, and the error and
completion hooks IPython uses (the executed-notebook test is tests/test_notebook.py)."""

from __future__ import annotations

import napkinmath as nm


def test_napkin_errors_render_as_their_message():
    try:
        nm.solve("n_gpus", params="7B")
    except nm.NapkinError as exc:
        shown = exc._render_traceback_()
    assert len(shown) == 1 and shown[0].startswith("UnderDeterminedError: ")
    assert str(nm.InputError("bad")._render_traceback_()) == "['InputError: bad']"


def test_repr_html_typesets_every_step_as_mathml_and_lists_sources():
    r = nm.solve("n_ranks", allreduce_bytes_per_rank="7.14 GB", message_bytes="24.68 GB")
    html = r._repr_html_()
    assert html.startswith('<div class="napkin napkin-answer tex2jax_ignore mathjax_ignore">')
    assert '<p class="answer"><strong>n_ranks = 1.169</strong></p>' in html
    # the rearranged form and the value, as MathML (no TeX for MathJax, no '$' at all)
    assert "<mo>⇒</mo><mi>n</mi><mo>=</mo>" in html and "<mtext>1.169</mtext>" in html
    assert "$" not in html and "\\" not in html
    assert '<p>Sources:</p><ol><li value="1">' in html
    # the legend maps each symbol to the name a user passes: n is n_ranks
    assert "<math><mi>n</mi></math> <code>n_ranks</code>" in html


def test_dir_offers_the_lazily_loaded_names():
    names = dir(nm)
    assert {"solve", "check", "check_claims", "to_frame", "formula", "graph"} <= set(names)
    assert names == sorted(names)


HOSTILE = "<img src=x onerror=alert(1)> costs $5 or $6"


def test_rich_html_of_ranges_samples_checks_and_plans_is_framed_mathml():
    w12 = dict(params="7B", tokens="1T", mfu=0.4, gpu="H100-SXM")
    shown = {
        "range": nm.solve("train_time", n_gpus="48 to 64", **w12, ranges=True)._repr_html_(),
        "samples": nm.solve("train_time", n_gpus="48 to 64", samples=500, **w12)._repr_html_(),
        "check": nm.check("train_compute", "5e25 FLOP", params="405B", tokens="15.6T")
        ._repr_html_(),
        "plan": nm.plan({"title": "W12", "records": {"gpu": "H100-SXM"},
                         "givens": {"params": "7B", "tokens": "1T", "mfu": 0.4,
                                    "train_time": "3 weeks"},
                         "sections": [{"title": "fleet", "ask": ["n_gpus"]}]})._repr_html_(),
    }  # fmt: skip
    for kind, html in shown.items():
        assert f"napkin-{kind}" in html.split(">", 1)[0] and "tex2jax_ignore" in html, kind
        assert "<math>" in html and "$" not in html and "<pre" not in html, kind
    # a range's step: its spread as text in the math, where its ends lie under it
    assert "<mtext>19.19 … 25.59 day</mtext>" in shown["range"]
    assert "(low at n_gpus = 64 GPU; high at n_gpus = 48 GPU)" in shown["range"]
    assert "✗ DISAGREE" in shown["check"] and "<mi>C</mi><mo>=</mo>" in shown["check"]
    # the plan's report as one scoped <div>: its style touches nothing outside the frame
    assert "<html" not in shown["plan"] and "\nbody {" not in shown["plan"]
    assert ".napkin-plan table {" in shown["plan"]


def test_user_text_in_html_is_escaped_and_never_reads_as_tex():
    from napkinmath.whatif.table import Column

    report = nm.check_claims(
        [{"id": HOSTILE, "expression": "1 GB", "claimed": "2000 MB", "source": HOSTILE}]
    )
    table = nm.Table([Column(HOSTILE, "", [1.0])], title=HOSTILE)
    plan = nm.plan({"title": HOSTILE, "givens": {"params": "7B", "tokens": "1T"},
                    "sections": [{"title": HOSTILE, "ask": ["train_compute"]}]})  # fmt: skip
    for html in (report._repr_html_(), table._repr_html_(), plan._repr_html_()):
        assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
        assert "$" not in html and "costs &#36;5 or &#36;6" in html
