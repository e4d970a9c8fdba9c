"""The answer as data: each given names the record it came from; the printers and the
sensitivity what-if are reached from the answer without the answer importing them."""

from __future__ import annotations

import napkinmath as nm
from napkinmath.answer.result import Result

ASK = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")


def test_each_given_names_its_record():
    r = nm.solve("n_gpus", **ASK)
    assert r.givens["peak_flops"].origin == "record"
    assert r.givens["peak_flops"].record == "H100-SXM"
    assert r.givens["gpus_per_node"].record == "H100-SXM"
    assert r.givens["params"].origin == "given" and r.givens["params"].record is None
    # a library default is an assumption of no record
    assert r.givens["flop_per_param_token"].origin == "assumption"
    assert r.givens["flop_per_param_token"].record is None


def test_a_precision_peak_and_a_named_record_key_name_the_record():
    r = nm.solve("n_gpus", **ASK, precision="fp8")
    assert r.givens["peak_flops"].record == "H100-SXM"
    assert "--precision fp8" in r.givens["peak_flops"].note
    r = nm.solve("n_gpus", **ASK, peak_flops="peak_flops_fp8")
    assert r.givens["peak_flops"].origin == "given"  # the user chose it, from the record
    assert r.givens["peak_flops"].record == "H100-SXM"


def test_the_answer_is_the_public_result_and_prints_through_the_printers():
    from napkinmath.rendering.result import text, to_dict

    r = nm.solve("n_gpus", **ASK)
    assert type(r) is Result and nm.Result is Result
    assert str(r) == text(r) and r.to_dict() == to_dict(r)
    assert r.format(style="markdown") == r.to_markdown()
    assert r.headline() == [
        "n_gpus = 58.48 GPU   (rounded: n_gpus_whole_nodes = 64 GPU, n_nodes = 8 node)"
    ]


def test_sensitivity_is_the_what_if():
    r = nm.solve("n_gpus", **ASK)
    found = r.sensitivity()
    assert type(found).__module__ == "napkinmath.whatif.sensitivity"
    assert {row.name: row.origin for row in found.rows}["peak_flops"] == "record H100-SXM"
