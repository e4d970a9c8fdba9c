"""The gap budget (nm.gap, napkin solve ... --gap): a measured step itemised against its parts.

The lines sum exactly to measured − ideal; the residual is what nothing explains. Numbers are
checked against the parts computed by hand in tests/test_step_parts.py.
"""

import json
from pathlib import Path
from statistics import NormalDist

import pytest
from helpers import PNG_SIGNATURE, mag
from test_step_parts import DENSE, H100_PEAK, LAYOUT, dense_by_hand

import napkinmath as nm
from napkinmath.errors import InputError


@pytest.fixture(scope="module")
def predicted():
    return nm.solve("step_time_predicted", **DENSE)


def ideal_by_hand():
    tokens, n_params, layers, h, s = 16 * 2**20, 70.6e9, 80, 8192, 8192
    return (6 * n_params + 12 * layers * h * s) * tokens / (1024 * H100_PEAK)


def test_lines_sum_exactly_to_the_gap(predicted):
    g = nm.gap(predicted, step_time="12.4 s", measured={"dataloader_wait": "0.3 s"})
    assert g.ideal_seconds == pytest.approx(ideal_by_hand(), rel=1e-9)
    total = sum(line.seconds for line in g.lines)
    assert total == pytest.approx(12.4 - g.ideal_seconds, rel=1e-12)
    assert mag(g.gap, "s") == pytest.approx(12.4 - ideal_by_hand(), rel=1e-9)
    parts, step, _ = dense_by_hand()
    by_name = {line.name: line for line in g.lines}
    assert by_name["tp_comm_time"].seconds == pytest.approx(parts["tp_comm_time"], rel=1e-9)
    assert by_name["tp_comm_time"].evidence == "modelled"
    assert by_name["dataloader_wait"].seconds == 0.3
    assert by_name["dataloader_wait"].evidence == "measured"
    # the residual: measured less the predicted step less the measured wait
    assert mag(g.residual, "s") == pytest.approx(12.4 - step - 0.3, rel=1e-9)
    assert g.lines[-1].evidence == "unexplained"
    assert "residual (unexplained)" in str(g)


def test_datasheet_vs_achievable_compute_is_a_line(predicted):
    # the record's measured matmul rate, with or without --achievable
    for answer in (predicted, nm.solve("step_time_predicted", achievable=True, **DENSE)):
        line = nm.gap(answer, step_time="14 s").lines[0]
        assert line.name == "compute_efficiency" and line.evidence == "measured"
        model = ideal_by_hand()
        assert line.seconds == pytest.approx(model / (794.5 / 989.5) - model, rel=1e-6)
    # at the datasheet peak (a user's compute_efficiency = 1) the line is zero and says so
    peak = nm.solve("step_time_predicted", compute_efficiency=1, **DENSE)
    assert nm.gap(peak, step_time="14 s").lines[0].seconds == pytest.approx(0, abs=1e-12)
    assert nm.gap(peak, step_time="14 s").lines[0].evidence == "given"


def test_the_operators_are_lines_of_their_own(predicted):
    g = nm.gap(predicted, step_time="30 s")
    by_name = {line.name: line for line in g.lines}
    parts, _, _ = dense_by_hand()
    for name in ("memory_bound_time", "last_stage_extra_time"):
        assert by_name[name].seconds == pytest.approx(parts[name], rel=1e-9)
        assert by_name[name].evidence == "modelled"
    measured = nm.gap(predicted, step_time="30 s", measured={"memory_bound_time": "3 s"})
    line = next(line for line in measured.lines if line.name == "memory_bound_time")
    assert line.seconds == 3 and line.evidence == "measured"


def test_collective_time_replaces_the_modelled_communication(predicted):
    g = nm.gap(predicted, step_time="12.4 s", measured={"collective_time": "2.1 s"})
    names = [line.name for line in g.lines]
    assert "collective_time" in names
    for modelled in ("tp_comm_time", "pp_send_time", "dp_comm_exposed_time"):
        assert modelled not in names
    assert "pipeline_bubble_time" in names  # idle time, not a collective
    line = next(line for line in g.lines if line.name == "collective_time")
    parts, _, _ = dense_by_hand()
    model = parts["tp_comm_time"] + parts["pp_send_time"] + parts["dp_comm_exposed_time"]
    assert line.seconds == 2.1 and f"{model:.3g} s" in line.note
    assert sum(line.seconds for line in g.lines) == pytest.approx(12.4 - g.ideal_seconds)


def test_measured_step_from_an_mfu_or_a_token_rate(predicted):
    g = nm.gap(predicted, mfu=0.4)
    tokens = 16 * 2**20
    hand = 6 * 70.6e9 * tokens / (0.4 * 1024 * H100_PEAK)  # the library's 6ND MFU
    assert g.measured_seconds == pytest.approx(hand, rel=1e-9)
    rate = nm.gap(predicted, tokens_per_second="1.5e6 token/s")
    assert rate.measured_seconds == pytest.approx(tokens / 1.5e6, rel=1e-9)


def test_stragglers_from_the_per_rank_spread(predicted):
    g = nm.gap(predicted, step_time="12.4 s", measured={"rank_step_time_std": "20 ms"})
    line = next(line for line in g.lines if line.name == "straggler_time")
    blom = NormalDist().inv_cdf((1024 - 0.375) / (1024 + 0.25))  # 3.2 for N = 1,024
    assert line.seconds == pytest.approx(0.020 * blom, rel=1e-9)
    assert blom == pytest.approx(3.2, abs=0.05)


def test_a_negative_residual_says_the_model_over_explains(predicted):
    g = nm.gap(predicted, step_time="9 s")
    assert g.lines[-1].seconds < 0
    assert "over-explains" in g.lines[-1].note


def test_outputs_json_markdown_html_frame(predicted, tmp_path):
    g = nm.gap(predicted, step_time="12.4 s")
    data = json.loads(g.to_json())
    assert data["gap_s"] == pytest.approx(sum(row["time_s"] for row in data["lines"]))
    assert "| tensor-parallel all-reduces |" in g.to_markdown()
    html = g._repr_html_()
    assert "<table>" in html and "<svg" in html
    frame = g.to_frame()
    assert list(frame.columns)[:3] == ["term", "name", "time_s"]
    out = g.plot(tmp_path / "gap.png")
    assert out.read_bytes().startswith(PNG_SIGNATURE)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one of step_time"),
        ({"step_time": "12 s", "mfu": 0.4}, "exactly one of step_time"),
        ({"step_time": "12 GB"}, "expected a quantity in s"),
        ({"step_time": 12}, "has no unit"),
        ({"mfu": 1.5}, "at most 1"),
        ({"step_time": "12 s", "measured": {"nccl": "1 s"}}, "is not a part of the step"),
    ],
)
def test_errors_name_the_fix(predicted, kwargs, message):
    with pytest.raises(InputError, match=message):
        nm.gap(predicted, **kwargs)


def test_an_answer_without_parts_is_refused():
    r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100")
    with pytest.raises(InputError, match="no step parts"):
        nm.gap(r, step_time="1 s")


def test_cli_gap_text_and_plot(napkin, tmp_path):
    plot = tmp_path / "waterfall.svg"
    status, out, err = napkin(
        *LAYOUT,
        "step_time=12.4 s",
        "dataloader_wait=0.3 s",
        "collective_time=2.1 s",
        "--gap",
        "--plot",
        str(plot),
    )
    assert status == 0, err
    assert out.startswith("Gap budget: measured step 12.4 s")
    assert "exposed communication (TP, stage sends, DP, CP, EP)" in out
    assert "The step from its parts:" in out and "step_time_predicted = " in out
    assert plot.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_cli_gap_json(napkin):
    status, out, err = napkin(*LAYOUT, "mfu=0.4", "--gap", "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    assert set(data) == {"schema", "gap", "answer"} and data["schema"] == "napkinmath-gap/1"
    assert data["gap"]["measured_from"].startswith("MFU 40%")


def test_cli_gap_refuses_latex_and_plot_alone(napkin):
    status, _, err = napkin(*LAYOUT, "step_time=12 s", "--gap", "--format", "latex")
    assert status != 0 and "--gap prints as text, markdown or json" in err
    status, _, err = napkin(*LAYOUT, "step_time=12 s", "--plot", "x.png")
    assert status != 0 and "add --gap" in err


# --- in a plan file: a section's gap = { step_time = ..., measured = { ... } } -----------------
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "llama-70b-step.toml"


def test_example_plan_has_its_gap_budget_in_every_format(tmp_path):
    p = nm.plan(EXAMPLE)
    budget = p.sections[0].gap
    assert budget is not None and budget.measured_seconds == 15.1
    assert sum(line.seconds for line in budget.lines) == pytest.approx(15.1 - budget.ideal_seconds)
    by_name = {line.name: line for line in budget.lines}
    assert by_name["compute_efficiency"].evidence == "measured"  # achievable = true
    assert by_name["dataloader_wait"].seconds == 0.3
    assert "Gap budget: measured step 15.1 s" in p.to_text()
    assert "| residual (unexplained) |" in p.to_markdown()
    html = p.to_html()
    assert "<h3>Gap budget" in html and "Waterfall: from the ideal step" in html
    assert "Gap budget" in p.to_latex()


def plan_with(gap: dict, ask=("step_time_predicted",)) -> dict:
    return {
        "title": "t",
        "records": {"gpu": "H100-SXM", "model": "llama-3-70b"},
        "givens": {
            "n_gpus": 1024,
            "tp": 8,
            "pp": 4,
            "dp": 32,
            "seq_len": 8192,
            "global_batch_tokens": "16Mi",
            "batch_size": 1,
            "recompute": "selective",
        },
        "sections": [{"title": "s", "ask": list(ask), "gap": gap}],
    }


@pytest.mark.parametrize(
    ("gap", "ask", "message"),
    [
        ({}, ("step_time_predicted",), "exactly one measured step"),
        ({"step_time": "1 s", "mfu": 0.4}, ("step_time_predicted",), "exactly one measured"),
        ({"step_time": "12 s"}, ("mfu_predicted",), 'ask = \\["step_time_predicted"'),
        ({"step_time": "12 s", "measured": {"nccl": "1 s"}}, ("step_time_predicted",), "nccl"),
        ({"step_time": "12 GB"}, ("step_time_predicted",), "expected a quantity in s"),
    ],
)
def test_plan_gap_errors_name_the_key(gap, ask, message):
    with pytest.raises(InputError, match=message) as caught:
        nm.plan(plan_with(gap, ask))
    assert "sections[0].gap" in str(caught.value)


def test_plan_recompute_setting_is_checked():
    data = plan_with({"step_time": "12 s"})
    data["givens"]["recompute"] = "sometimes"
    with pytest.raises(InputError, match="choose one of 'none', 'selective', 'full'"):
        nm.plan(data)
