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
