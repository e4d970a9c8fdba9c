"""Planning through the graph: under- and over-determined questions, roots, and coupled blocks."""

import pytest

import napkinmath as nm
from napkinmath.solving.planner import make_plan


def test_under_determined_lists_the_inputs_that_would_determine_it():
    with pytest.raises(nm.UnderDeterminedError) as err:
        nm.solve("n_gpus", params="7B", tokens="1T", mfu=0.4, gpu="H100")
    assert "train_time" in err.value.suggestions
    message = str(err.value)
    assert "cannot determine n_gpus from mfu, params, tokens, H100-SXM record" in message
    assert "give one of" in message and "train_time" in message


def test_under_determined_suggests_every_single_input_that_works():
    with pytest.raises(nm.UnderDeterminedError) as err:
        nm.solve("train_time", params="7B", tokens="1T", n_gpus=64, gpu="H100")
    assert set(err.value.suggestions) >= {"mfu", "gpu_hours"}


def test_over_determined_consistent_givens_pass_with_the_agreement_shown():
    r = nm.solve(
        "train_time",
        params="7B",
        tokens="1T",
        train_compute="4.21e22 FLOP",
        n_gpus=8,
        mfu=0.4,
        gpu="H100",
    )
    assert [c.formula.name for c in r.checks] == ["training_compute"]
    assert r.checks[0].relative_difference == pytest.approx(0.01e22 / 4.21e22, rel=1e-6)
    assert "agree within 0.24%" in str(r)


def test_over_determined_inconsistent_givens_name_the_givens_and_the_gap():
    with pytest.raises(nm.InconsistentError) as err:
        nm.solve(
            "gpu_hours",
            train_compute="6.35e24 FLOP",
            n_gpus=16384,
            mfu=0.4,
            train_time="20 days",
            gpu="H100",
        )
    message = str(err.value)
    assert "Fleet equation" in message
    for name in ("train_time", "train_compute", "n_gpus", "mfu", "peak_flops (record)"):
        assert name in message
    assert "apart" in message and "tolerance 1.0%" in message


def test_a_looser_tolerance_accepts_rounded_givens():
    r = nm.solve(
        "gpu_hours",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu=0.4,
        train_time="11.5 days",
        gpu="H100",
        tolerance=0.02,
    )
    assert r.checks and r.checks[0].relative_difference < 0.02


def test_no_admissible_root_is_an_error_not_a_silent_pick():
    with pytest.raises(nm.NoRootError) as err:
        nm.solve("mfu", params="7B", tokens="1T", n_gpus=8, train_time="1 day", gpu="H100")
    message = str(err.value)
    assert "mfu" in message and "(0, 1]" in message and err.value.variable == "mfu"


def test_plans_are_planned_not_hand_coded():
    plan = make_plan(
        ("n_gpus",),
        frozenset({"params", "tokens", "flop_per_param_token", "train_time", "mfu", "peak_flops"}),
    )
    assert [b.formulas[0].name for b in plan.blocks] == ["training_compute", "fleet_equation"]
    assert [b.unknowns[0].name for b in plan.blocks] == ["train_compute", "n_gpus"]


def test_derived_shortcut_is_used_only_when_needed():
    plan = make_plan(("train_time",), frozenset({"train_compute", "n_gpus", "mfu", "peak_flops"}))
    assert [b.formulas[0].name for b in plan.blocks] == ["fleet_equation"]
    plan = make_plan(("mfu",), frozenset({"train_compute", "gpu_hours", "peak_flops"}))
    assert [b.formulas[0].name for b in plan.blocks] == ["mfu_from_gpu_hours"]


def test_dependent_formulas_do_not_fake_a_solution():
    # gpu_hours, mfu, peak_flops and compute fix n_gpus * train_time, never n_gpus alone
    with pytest.raises(nm.UnderDeterminedError):
        nm.solve(
            "n_gpus", train_compute="4.2e22 FLOP", gpu_hours="29491 GPU*h", mfu=0.4, gpu="H100"
        )


def test_hardware_values_are_used_only_when_needed_and_user_values_win():
    r = nm.solve(
        "train_time",
        train_compute="4.2e22 FLOP",
        n_gpus=64,
        mfu=0.4,
        gpu="H100",
        peak_flops="1000 TFLOP/(s*GPU)",
    )
    assert r.givens["peak_flops"].origin == "given"
    assert set(r.givens) == {"train_compute", "n_gpus", "mfu", "peak_flops"}


def test_model_option_rejects_a_gpu_record():
    with pytest.raises(nm.InputError, match="model="):
        nm.solve("train_compute", tokens="1T", model="H100")


def test_repeated_solves_agree():
    first = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100")
    second = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100")
    assert first.value == second.value


def test_a_bad_tolerance_is_refused():
    with pytest.raises(nm.InputError, match="tolerance"):
        nm.solve("train_compute", params="7B", tokens="1T", tolerance=5)
