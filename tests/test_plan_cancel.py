"""Variables that cancel (issue 20, section 6): a target the givens determine although the
structural chain passes through unknowns that cancel (`napkinmath.solving.cancel`).

    napkin solve train_time params=70B tokens=15T n_gpus=8192 achieved_flops="400 TFLOP/s"

is 6 · 70e9 · 15e12 FLOP / (8192 GPU × 400 TFLOP/(s·GPU)) = 22.25 days: mfu · peak_flops is
achieved_flops, so neither is needed. Questions that are really under-determined keep their
refusal, word for word."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import napkinmath as nm
from napkinmath.catalog.lookup import variables
from napkinmath.solving import cancel, planner, suggest
from napkinmath.solving.invert import rearranged, sides
from napkinmath.solving.solver import bind

ROOT = Path(__file__).resolve().parent.parent
ISSUE = dict(params="70B", tokens="15T", n_gpus=8192, achieved_flops="400 TFLOP/s")
ISSUE_NOTE = "mfu and peak_flops cancel: mfu · peak_flops = achieved_flops"
#: 6 FLOP/(param·token) · 70e9 · 15e12 / (8192 × 400e12 FLOP/s), in days
ISSUE_DAYS = 6 * 70e9 * 15e12 / (8192 * 400e12) / 86400

#: cancelling questions of the library: target, givens, gpu, value, unit, the note
CASES = [
    ("train_time", ISSUE, None, ISSUE_DAYS, "day", ISSUE_NOTE),
    # the same product in the price of a training token
    (
        "cost_per_token",
        dict(params="70B", achieved_flops="400 TFLOP/s", price_per_gpu_hour="2 USD/(GPU*h)"),
        None,
        6 * 70e9 * 2 / 400e12 / 3600,
        "USD/token",
        ISSUE_NOTE,
    ),
    # combine over dispatch bytes: the experts and the width are the same on both sides
    (
        "moe_combine_bytes_per_token",
        dict(
            moe_dispatch_bytes_per_token="57344 B/token",
            combine_bytes_per_element="2 B",
            dispatch_bytes_per_element="1 B",
        ),
        None,
        2 * 57344 / 1,
        "B/token",
        "experts_per_token and hidden_size cancel: experts_per_token · hidden_size = "
        "moe_dispatch_bytes_per_token / dispatch_bytes_per_element",
    ),
    # a ring all-reduce's bus bandwidth is the link bandwidth, whatever the message
    (
        "allreduce_busbw",
        dict(n_ranks=8),
        "MI300X",
        448,
        "GB/s",
        "allreduce_bytes_per_rank, allreduce_time and message_bytes cancel: allreduce_algbw "
        "does not depend on them",
    ),
    # and the ring's length follows from its algorithm bandwidth: 2·300 / (2·300 − 450) = 4
    (
        "allreduce_busbw",
        dict(allreduce_algbw="300 GB/s"),
        "H100-SXM",
        450,
        "GB/s",
        "allreduce_bytes_per_rank, allreduce_time and message_bytes cancel: n_ranks does not "
        "depend on them",
    ),
]


def _cancelled_steps(result) -> list:
    return [s for s in result.steps if s.cancel is not None]


def test_the_issues_example_is_answered_and_says_what_cancelled():
    r = nm.solve("train_time", **ISSUE)
    assert r.value.to("day").magnitude == pytest.approx(ISSUE_DAYS, rel=1e-12)
    assert abs(ISSUE_DAYS - 22.2524) < 1e-4
    text = str(r)
    assert text.startswith("train_time = 22.25 day\n")
    assert "2. Fleet equation + MFU from achieved FLOP/s, solved for train_time" in text
    assert (
        "   train_time = train_compute / (mfu · n_gpus · peak_flops)\n"
        "   mfu = achieved_flops / peak_flops\n"
        "   ⇒ train_time = train_compute / (achieved_flops · n_gpus)\n"
        "                = 6.3×10²⁴ FLOP / (400 TFLOP/(s·GPU) × 8,192 GPU)\n"
        "                = 22.25 day\n"
        f"   ({ISSUE_NOTE})" in text
    )
    (step,) = _cancelled_steps(r)
    assert step.cancel.names == ("mfu", "peak_flops") and step.cancel.free == ("mfu",)
    assert [f.name for f in step.formulas] == ["fleet_equation", "mfu_from_achieved_flops"]
    assert "peak_flops" not in r.givens and "mfu" not in r.givens  # nothing was made up
    for shown in (r.to_markdown(), r.to_latex(), r._repr_html_()):
        assert "cancel" in shown


def test_the_issues_command_line_and_its_json(napkin):
    jsonschema = pytest.importorskip("jsonschema")
    args = ["solve", "train_time", *(f"{k}={v}" for k, v in ISSUE.items())]
    code, out, _ = napkin(*args)
    assert code == 0 and out.startswith("train_time = 22.25 day") and ISSUE_NOTE in out
    code, out, _ = napkin(*args, "--format", "json")
    assert code == 0
    data = json.loads(out)
    schema = json.loads((ROOT / "engine" / "schema" / "answer.schema.json").read_text())
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    assert data["targets"]["train_time"]["value"] == pytest.approx(ISSUE_DAYS, rel=1e-12)
    step = data["steps"][1]
    assert step["formulas"] == ["fleet_equation", "mfu_from_achieved_flops"]
    assert step["cancelled"] == ["mfu", "peak_flops"] and step["note"] == ISSUE_NOTE
    assert "cancelled" not in data["steps"][0]  # a plain step's JSON is as it was


IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize(("target", "givens", "gpu", "value", "unit", "note"), CASES, ids=IDS)
def test_cancelling_questions_of_the_library(target, givens, gpu, value, unit, note):
    r = nm.solve(target, gpu=gpu, **givens)
    assert r[target].to(unit).magnitude == pytest.approx(value, rel=1e-9)
    assert [s.note for s in _cancelled_steps(r)] == [note]


#: questions that stay under-determined, with their refusals as they were before cancelling
#: variables were looked for (the same words, the same suggestions)
REFUSED = [
    # 'attention left out' is a stated assumption (with = without attention), never composed
    # as a law: it would make the attention FLOPs cancel to 0. Nor is it planned beside the
    # law it stands in for (plan._laws_yield): the single inputs once suggested (the FLOPs
    # without attention, params) would have fixed the attention FLOPs at 0 through the two;
    # the pairs suggested now determine them
    (
        "inference_attention_flop_per_token",
        dict(head_dim=128, seq_len="4096 token/sequence", gpu="MI300X"),
        "cannot determine inference_attention_flop_per_token from head_dim, seq_len, MI300X "
        "record, default assumptions: give one of inference_flop_per_token and "
        "inference_flop_per_token_with_attention, inference_flop_per_token_with_attention and "
        "params, n_heads and n_layers",
    ),
    (
        "train_time",
        dict(params="70B", tokens="15T", n_gpus=8192),
        "cannot determine train_time from n_gpus, params, tokens, default assumptions: give one "
        "of gpu_hours, train_throughput, dataset_read_rate",
    ),
    (
        "train_time",
        dict(params="70B", tokens="15T", achieved_flops="400 TFLOP/s"),
        "cannot determine train_time from achieved_flops, params, tokens, default assumptions: "
        "give one of train_throughput, dataset_read_rate",
    ),
    (
        "train_time",
        dict(n_gpus=8192, achieved_flops="400 TFLOP/s"),
        "cannot determine train_time from achieved_flops, n_gpus, default assumptions: give one "
        "of gpu_hours",
    ),
]


@pytest.mark.parametrize(("target", "givens", "message"), REFUSED)
def test_questions_that_stay_refused_are_refused_as_before(target, givens, message):
    with pytest.raises(nm.UnderDeterminedError) as caught:
        nm.solve(target, **givens)
    assert str(caught.value) == message


def test_a_combined_step_without_an_admissible_value_names_what_it_combined():
    # an algorithm bandwidth under half the link's: no ring length gives it
    with pytest.raises(nm.NoRootError) as caught:
        nm.solve("allreduce_busbw", allreduce_algbw="3.91 GB/s", gpu="H100-SXM")
    assert str(caught.value).startswith(
        "no admissible value for n_ranks: Ring all-reduce: bytes each rank sends + All-reduce "
        "time + All-reduce algorithm bandwidth (combined) gives n_ranks = -0.01769"
    )
    assert str(caught.value).endswith(
        "The givens for allreduce_algbw, link_bandwidth ask for something impossible; change "
        "one of them."
    )


def test_a_refusal_tries_a_bounded_number_of_candidates(monkeypatch):
    tried = []
    original = cancel.attempt

    def counting(targets, knowns, free):
        tried.append(free)
        return original(targets, knowns, free)

    monkeypatch.setattr(cancel, "attempt", counting)
    planner.planned.cache_clear()
    knowns = frozenset(bind(("train_time",), dict(params="70B", tokens="15T", n_gpus=8192)))
    with pytest.raises(nm.UnderDeterminedError):
        planner.make_plan(("train_time",), knowns, cancel=True)
    suggested = suggest.suggestions_for(("train_time",), knowns)[0]
    assert 0 < len(tried) <= cancel.MAX_CANDIDATES  # the suggestions, in order, each once
    assert tried == [tuple(sorted(s.split(" and "))) for s in suggested][: len(tried)]


def _check_holds(step, free: dict[str, float]) -> float:
    """The step's values completed with the free inputs at `free`: every formula of the step
    holds there; returns its unknown computed again by the last formula of the chain."""
    point = cancel.witness(step.cancel, step.values, free)
    for f in step.formulas:
        left, right = sides(f)
        lhs, rhs = left.at(point), right.at(point)
        assert abs(lhs - rhs) <= 1e-9 * max(abs(lhs), abs(rhs)), (f.name, point)
    last, name = step.cancel.chain[-1]
    (root,) = rearranged(last, name)
    return root.at({k: v for k, v in point.items() if k != name})


@pytest.mark.parametrize(("target", "givens", "gpu"), [c[:3] for c in CASES], ids=IDS)
def test_cancelled_answers_substitute_back_into_every_formula_used(target, givens, gpu):
    r = nm.solve(target, gpu=gpu, **givens)
    for step in _cancelled_steps(r):
        (var,) = step.unknowns
        for scale in (0.3, 1.7, 40.0):  # whatever the free inputs, the same answer
            free = {n: scale * variables()[n].base_factor for n in step.cancel.free}
            again = _check_holds(step, free)
            assert again == pytest.approx(step.values[var.name], rel=1e-12)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    params=st.floats(1e8, 1e13),
    tokens=st.floats(1e9, 1e14),
    n_gpus=st.integers(1, 10**5),
    achieved=st.floats(1.0, 5000.0),
)
def test_the_fleet_equation_without_the_peak_is_the_closed_form(params, tokens, n_gpus, achieved):
    r = nm.solve(
        "train_time",
        params=nm.Quantity(params, "param"),
        tokens=nm.Quantity(tokens, "token"),
        n_gpus=n_gpus,
        achieved_flops=nm.Quantity(achieved, "TFLOP/(s*GPU)"),
    )
    expected = 6 * params * tokens / (n_gpus * achieved * 1e12)
    assert r.value.to("s").magnitude == pytest.approx(expected, rel=1e-12)
    (step,) = _cancelled_steps(r)
    _check_holds(step, {"mfu": 0.5})


def test_a_range_of_the_given_that_remains_is_exact():
    r = nm.solve(
        "train_time",
        params="70B",
        tokens="15T",
        n_gpus=8192,
        achieved_flops=("300 TFLOP/(s*GPU)", "400 TFLOP/(s*GPU)"),
    )
    low, high = r["train_time"].low, r["train_time"].high
    assert low.to("day").magnitude == pytest.approx(ISSUE_DAYS, rel=1e-9)
    assert high.to("day").magnitude == pytest.approx(ISSUE_DAYS * 4 / 3, rel=1e-9)
    assert ISSUE_NOTE in str(r)


def test_the_plan_names_the_free_input_and_a_cold_planner_gives_the_same():
    knowns = frozenset(bind(("train_time",), ISSUE))
    with pytest.raises(nm.UnderDeterminedError):  # by structure alone: refused, as before
        planner.make_plan(("train_time",), knowns)
    first = planner.make_plan(("train_time",), knowns, cancel=True)
    nm.clear_caches()
    again = planner.make_plan(("train_time",), knowns, cancel=True)
    assert again == first and first.free == ("mfu",)
    assert [[f.name for f in b.formulas] for b in first.blocks] == [
        ["training_compute"],
        ["fleet_equation", "mfu_from_achieved_flops"],
    ]
    assert first.used == {"achieved_flops", "flop_per_param_token", "n_gpus", "params", "tokens"}


def test_a_second_process_answers_from_the_stored_composition_without_sympy(tmp_path):
    code = (
        "import sys, napkinmath as nm\n"
        "r = nm.solve('train_time', params='70B', tokens='15T', n_gpus=8192, "
        "achieved_flops='400 TFLOP/s')\n"
        "print(r.to_json()); print('sympy' in sys.modules)\n"
    )

    def run(seed: str) -> list[str]:
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        return done.stdout.rsplit("\n", 2)[:2]

    first, imported = run("1")
    assert imported == "True"
    stored = sorted(tmp_path.glob("napkinmath/inversions-*/cancel-*"))
    assert stored
    for path in stored:  # data, never pickles: a checked header, a key and JSON trees
        header, _, payload = path.read_bytes().partition(b"\n")
        assert header.startswith(b"napkinmath-cache-1 ")
        assert set(json.loads(payload)) == {"key", "value"}
    second, imported = run("2")
    assert imported == "False" and second == first
    assert math.isclose(json.loads(second)["targets"]["train_time"]["value"], ISSUE_DAYS)
