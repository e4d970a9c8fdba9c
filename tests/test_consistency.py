"""One model, consistent answers (issue 43, part 5).

1. A value a record states is the answer whatever else is asked: GPT-3 175B's record states
   params_total = 175e9 (Brown et al. 2020, Table 2.1), and its shape gives
   617.6M (embedding, 50,257 × 12,288) + 96 × (604.0M attention + 1.208B MLP) + 2.372M (norms)
   = 174.566e9, 0.25% lower. Every memory answer reads the stated 175e9, so params_total asked
   alone, or with params, is 175e9 too, and the answer says what the shape gives.

Hand arithmetic beside each call; decimal units (1 GB = 1e9 B).
"""

from __future__ import annotations

import math

import pytest
from helpers import mag

import napkinmath as nm
from napkinmath.catalog.lookup import variables
from napkinmath.hardware import records

# GPT-3 175B's shape (hardware/models.toml), by hand
GPT3_EMBEDDING = 50_257 * 12_288  # one tied matrix: 617.56M
GPT3_ATTENTION = 2 * 128 * 12_288 * (96 + 96)  # q, o and k, v: 603.98M per layer
GPT3_MLP = 49_152 * 12_288 * 2  # up and down: 1,207.96M per layer
GPT3_NORMS = 12_288 * (2 * 96 + 1)  # 2.37M
GPT3_SHAPE = GPT3_EMBEDDING + 96 * (GPT3_ATTENTION + GPT3_MLP) + GPT3_NORMS  # 174.566e9


# --- 1. a record's stated value, whatever else is asked -----------------------------------------
def test_gpt3_shape_by_hand_is_not_the_stated_count():
    assert round(GPT3_SHAPE / 1e6) == 174_566  # million parameters


@pytest.mark.parametrize("targets", [["params_total"], ["params", "params_total"]])
def test_params_total_is_the_records_value_whatever_else_is_asked(targets):
    r = nm.solve(targets, model="gpt-3-175b")
    assert mag(r["params_total"], "param") == 175e9
    assert r.givens["params_total"].record == "gpt-3-175b"
    note = next(n for n in r.notes if n.startswith("params_total is read from the gpt-3-175b"))
    assert "174.6B param (-0.25%)" in note  # what the shape gives, and how far
    if "params" in targets:
        assert mag(r["params"], "param") == 175e9


def test_params_total_agrees_on_the_command_line(napkin):
    _, alone, _ = napkin("solve", "params_total", "--model", "gpt-3-175b")
    _, both, _ = napkin("solve", "params", "params_total", "--model", "gpt-3-175b")
    assert alone.startswith("params_total = 175B param\n")
    assert both.startswith("params = 175B param\nparams_total = 175B param\n")
    assert "Table 2.1: 175.0B" in alone and "Table 2.1: 175.0B" in both
    # and the memory answers read the same number: 175e9 × 2 B = 350 GB
    _, memory, _ = napkin("solve", "weight_memory", "--model", "gpt-3-175b")
    assert memory.startswith("weight_memory = 350 GB\n")


def _stated(kind_is_model: bool) -> list[tuple[str, str]]:
    return [
        (rid, key)
        for rid, r in records().items()
        if (r.kind == "model") == kind_is_model
        for key in r.values
        if key in variables()
    ]


@pytest.mark.parametrize(("record", "key"), _stated(True))
def test_every_model_records_value_is_its_answer(record, key):
    """llama-3-70b's 70.6e9 (its shape: 70.55e9), mixtral's 12.9e9 active, Qwen3's 22e9, the
    Llama 3 405B run's 405e9 parameters and 3.8e25 FLOP (not 6ND's 3.79e25 back-solved from
    them), MoE n_experts (no root of the shape alone): each the record's, asked alone."""
    stated = records()[record].values[key].quantity
    r = nm.solve(key, model=record)
    assert r.value.to(stated.units).magnitude == pytest.approx(stated.magnitude, rel=1e-12)


@pytest.mark.parametrize(("record", "key"), _stated(False))
def test_every_hardware_records_value_is_its_answer(record, key):
    """PCIe Gen4 x16 states 31.5 GB/s one way and 64 GB/s both: each asked alone is the
    stated figure (not 64/2 = 32 nor 2 × 31.5 = 63)."""
    stated = records()[record].values[key].quantity
    r = nm.solve(key, gpu=record)
    assert r.value.to(stated.units).magnitude == pytest.approx(stated.magnitude, rel=1e-12)


def test_a_users_shape_still_leads_the_record():
    # hidden 8,192 in place of 12,288: 50,257·8,192 + 96·(2·128·8,192·192 + 49,152·8,192·2)
    # + 8,192·193 = 116.35e9; the record's 175e9 would leave the user's value unused
    hand = 50_257 * 8_192 + 96 * (2 * 128 * 8_192 * 192 + 49_152 * 8_192 * 2) + 8_192 * 193
    for targets in (["params_total"], ["params", "params_total"]):
        r = nm.solve(targets, model="gpt-3-175b", hidden_size=8192)
        assert mag(r["params_total"], "param") == pytest.approx(hand, rel=1e-9)
        assert "hidden_size" in r.givens and not r.unused


# --- 2. a stated zero_stage brings its memory check ---------------------------------------------
# 70B under ZeRO-1 over dp = 64, tp = pp = 1: weights 2 B + gradients 2 B whole, optimizer
# 12 B over 64 ranks: 70e9 × (2 + 2 + 12/64) = 293.125 GB on each 80 GB H100
BITS = 8  # a constraint's sides are in base units: bits for memory
ZERO1_QUESTION = {
    "params": "70B",
    "tokens": "1T",
    "n_gpus": 64,
    "mfu": 0.4,
    "zero_stage": 1,
    "dp": 64,
    "gpu": "H100",
}
ZERO1_ARGS = [
    "solve", "train_time", "training_state_memory", "params=70B", "tokens=1T", "n_gpus=64",
    "mfu=0.4", "zero_stage=1", "dp=64", "--gpu", "H100",
]  # fmt: skip


def test_a_stated_zero_stage_checks_the_state_per_gpu():
    r = nm.solve(["train_time", "training_state_memory"], **ZERO1_QUESTION)
    (c,) = [c for c in r.constraints if c.constraint.name == "training_state_fits_hbm"]
    assert c.lhs / BITS == pytest.approx(70e9 * (2 + 2 + 12 / 64), rel=1e-12)  # 293.125 GB
    assert c.rhs / BITS == pytest.approx(80e9) and not c.holds and not r.fits
    assert "zero_stage" in r.givens and "zero_stage" not in r.unused
    # the answers themselves are unchanged: 6 · 70e9 · 1e12 / (0.4 · 64 · 989.5e12) s
    assert mag(r["train_time"], "s") == pytest.approx(6 * 70e9 * 1e12 / (0.4 * 64 * 989.5e12))
    assert mag(r["training_state_memory"], "TB") == pytest.approx(70e9 * 16 / 1e12)


def test_a_stated_zero_stage_fails_strict_naming_memory_capacity_and_fix(napkin):
    status, out, err = napkin(*ZERO1_ARGS)
    assert status == 0 and "WARNING: Training state per GPU" in out
    status, out, err = napkin(*ZERO1_ARGS, "--strict")
    assert status == 1
    assert "293.1 GB > 80 GB" in err and "training_state_memory_per_gpu" in err
    assert "hbm_capacity" in err and "a higher zero_stage" in err and "more tp or pp" in err


def test_zero3_over_64_ranks_fits():
    # 70e9 × 16 B / 64 = 17.5 GB per GPU
    r = nm.solve(["train_time"], **{**ZERO1_QUESTION, "zero_stage": 3})
    (c,) = [c for c in r.constraints if c.constraint.name == "training_state_fits_hbm"]
    assert c.lhs / BITS == pytest.approx(70e9 * 16 / 64) and c.holds and r.fits


def test_no_stated_stage_brings_no_layout_check():
    r = nm.solve("train_time", params="70B", tokens="1T", n_gpus=64, mfu=0.4, gpu="H100")
    assert not any(c.constraint.name == "training_state_fits_hbm" for c in r.constraints)


W70 = {"params": "70B", "tokens": "1T", "mfu": 0.4, "gpu": "H100"}


def test_optimize_refuses_a_stated_layout_whose_state_does_not_fit():
    # ZeRO-0, tp = pp = 1: 70e9 × 16 B = 1.12 TB on every GPU, whatever n_gpus
    o = nm.optimize(
        "n_gpus", over={"n_gpus": "whole nodes"}, require=["train_time <= 30 days"],
        zero_stage=0, tp=1, pp=1, **W70,
    )  # fmt: skip
    assert "training_state_fits_hbm" in [c.name for c in o.constraints]
    assert o.best_candidate is None
    assert not any("not constrained" in n for n in o.notes)


def test_optimize_a_stated_zero1_layout_is_bound_by_its_memory():
    # tp = 8, ZeRO-1: 70e9 × (4 + 12/dp) / 8 ≤ 80e9 → 35 + 105/dp ≤ 80 → dp ≥ 7/3, so
    # n_gpus = 8 · dp ≥ 18.67: 3 nodes (dp = 3: 35 + 35 = 70 GB)
    o = nm.optimize(
        "n_gpus", over={"n_gpus": "whole nodes"}, require=["train_time <= 3000 days"],
        zero_stage=1, tp=8, pp=1, **W70,
    )  # fmt: skip
    assert o.best_candidate is not None and o.best_candidate.point == {"n_gpus": 24.0}
    assert o.binding == ["training_state_fits_hbm"]
    (boundary,) = o.boundaries
    assert boundary.value == pytest.approx(8 * 7 / 3, rel=1e-9)


# --- 3. pipeline stages and layers ---------------------------------------------------------------
# GPT-3 175B: 96 layers. The question, its world size made consistent (8 · 128 · 1)
PP_QUESTION = {
    "model": "gpt-3-175b",
    "gpu": "A100",
    "tp": 8,
    "dp": 1,
    "seq_len": 2048,
    "global_batch_tokens": 131072,
    "batch_size": 1,
}


def _pp_args(**layout: int) -> list[str]:
    return [
        "solve", "step_time_predicted", "--model", "gpt-3-175b", "--gpu", "A100", "tp=8",
        "dp=1", "seq_len=2048", "global_batch_tokens=131072", "batch_size=1",
        *(f"{k}={v}" for k, v in layout.items()),
    ]  # fmt: skip


@pytest.mark.parametrize("n_gpus", [1024, 64])  # 8 · 128 · 1; and the issue's own 64
def test_more_stages_than_layers_is_refused(n_gpus):
    with pytest.raises(nm.InputError) as caught:
        nm.solve("step_time_predicted", n_gpus=n_gpus, pp=128, **PP_QUESTION)
    text = str(caught.value)
    assert "pp = 128 > n_layers = 96" in text and "at most n_layers" in text
    assert "lower pp to a divisor of n_layers" in text


def test_more_stages_than_layers_is_refused_on_the_command_line(napkin):
    status, out, err = napkin(*_pp_args(n_gpus=64, pp=128))
    assert status != 0 and out == ""
    assert "pp = 128 > n_layers = 96" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("pp", "v", "whole"),
    [
        (8, 1, True),  # 96 / 8 = 12 layers a stage
        (8, 4, True),  # 96 / 32 = 3 a chunk
        (10, 1, False),  # 96 / 10 = 9.6: uneven stages, flagged (Megatron runs them)
        (8, 5, False),  # 96 / 40 = 2.4 a chunk
        (96, 1, True),  # a layer a stage: the most there can be
    ],
)
def test_stages_that_do_not_divide_the_layers_are_flagged(pp, v, whole):
    r = nm.solve(
        "step_time_predicted",
        n_gpus=8 * pp,
        pp=pp,
        virtual_pipeline_stages=v,
        **PP_QUESTION,
    )
    (c,) = [c for c in r.constraints if c.constraint.name == "pipeline_chunks_whole"]
    assert c.rhs == pytest.approx(96 / (pp * v)) and c.lhs == math.ceil(96 / (pp * v))
    assert c.holds is whole
    assert any(
        c.constraint.name == "pipeline_stages_have_layers" and c.holds for c in r.constraints
    )
    if not whole:
        (warning,) = [w for w in r.warnings if "Layers split evenly" in w]
        assert "flagged, not refused" in warning and "pp · virtual_pipeline_stages" in warning


def test_uneven_stages_fail_strict(napkin):
    status, _, err = napkin(*_pp_args(n_gpus=80, pp=10), "--strict")
    assert status == 1 and "10 > 9.6" in err


def test_sequence_parallelism_is_one_or_tp_and_interleaving_needs_stages():
    layout = dict(
        model="gpt-3-175b", gpu="A100", n_gpus=64, tp=8, pp=8, dp=1, seq_len=2048,
        global_batch_tokens=131072, batch_size=1, recompute="selective", virtual_pipeline_stages=3,
    )  # fmt: skip
    for sp in (1, 8):
        nm.solve("step_time_predicted", sp=sp, **layout)
    with pytest.raises(nm.InputError, match=r"refused: sp = 4, tp = 8 breaks the rule"):
        nm.solve("step_time_predicted", sp=4, **layout)
    flat = {**layout, "pp": 1, "n_gpus": 8, "virtual_pipeline_stages": 2}
    with pytest.raises(nm.InputError, match=r"pp = 1, virtual_pipeline_stages = 2 breaks"):
        nm.solve("step_time_predicted", **flat)
    # the optimiser rules such candidates out rather than ranking them
    o = nm.optimize("step_time_predicted", over={"sp": "1,2,4,8"}, **layout)
    assert o.count == 4 and o.best_candidate is not None
    assert o.best_candidate.point["sp"] == 8  # 2 and 4 ruled out; 8 beats 1
