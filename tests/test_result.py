"""A Result's values and its derivation in every rendering."""

import json

import pytest

import napkinmath as nm


@pytest.fixture(scope="module")
def w12():
    return nm.solve(
        "n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM"
    )


def test_value_is_a_pint_quantity_in_a_person_s_unit(w12):
    assert isinstance(w12.value, nm.ureg.Quantity)
    assert str(w12.value.units) == "GPU"
    assert w12["n_gpus"] == w12.value


def test_text_derivation_has_formula_rearrangement_substitution_and_result(w12):
    text = str(w12)
    assert "1. Training compute, 6ND rule  [2]" in text  # [1] is the GPU datasheet
    assert "  [2] Kaplan et al. 2020, Scaling Laws" in text.split("Sources:")[1]
    assert "train_compute = flop_per_param_token · params · tokens" in text
    assert "= 6 FLOP/(param·token) × 7B param × 1T token" in text
    assert "2. Fleet equation, solved for n_gpus" in text
    assert "⇒ n_gpus = train_compute / (mfu · peak_flops · train_time)" in text
    assert "= 4.2×10²² FLOP / (40% × 989.5 TFLOP/(s·GPU) × 21 day)" in text
    assert "= 58.48 GPU" in text


def test_every_given_says_where_it_came_from(w12):
    origins = {name: g.origin for name, g in w12.givens.items()}
    assert origins["params"] == "given" and origins["peak_flops"] == "record"
    assert origins["flop_per_param_token"] == "assumption"
    assert "NVIDIA H100 Tensor Core GPU datasheet (2023-06)" in w12.givens["peak_flops"].note


def test_markdown_latex_and_dict_carry_the_same_steps(w12):
    md = w12.to_markdown()
    assert md == w12._repr_markdown_()
    assert "2. **Fleet equation**" in md and "`= 58.48 GPU`" in md
    latex = w12.to_latex()
    assert r"\Rightarrow n &= \frac{C}{\mathrm{MFU} \cdot P_{\mathrm{peak}} \cdot T}" in latex
    assert r"4.2 \times 10^{22}\,\mathrm{FLOP}" in latex
    data = json.loads(w12.to_json())
    assert [s["formulas"] for s in data["steps"]][:2] == [["training_compute"], ["fleet_equation"]]
    assert data["steps"][1]["rearranged"]["n_gpus"].startswith("n_gpus = train_compute /")
    assert data["assumptions"][0]["name"] == "flop_per_param_token"


def test_times_bytes_and_money_read_naturally():
    r = nm.solve(
        ["train_time", "train_cost"],
        params="7B",
        tokens="1T",
        n_gpus=64,
        mfu=0.4,
        gpu="H100",
        price_per_gpu_hour="2.5 USD/(GPU*h)",
    )
    assert str(r["train_time"].units) == "day"
    assert "train_cost = 73,690 USD" in str(r)  # 64 x 4.2e22 / (64 x 989.5e12 x 0.4) s x 2.5
    short = nm.solve("train_time", train_compute="1e18 FLOP", n_gpus=8, mfu=0.5, gpu="H100")
    assert str(short.value.units) == "minute"  # 1e18 / (8 * 989.5e12 * 0.5) = 252.7 s


def test_givens_the_answer_did_not_need_are_named():
    r = nm.solve("train_compute", params="7B", tokens="1T", mfu=0.4)
    assert list(r.unused) == ["mfu"]
    assert "(given but not needed for this answer: mfu = 40%)" in str(r)
    assert r.to_dict()["unused_givens"] == ["mfu"]
