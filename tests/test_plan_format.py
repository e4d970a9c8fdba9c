"""The scenario format: every unknown key and bad value names the file, the line and the key;
JSON and dicts are accepted; answers feed later sections only by name; --check gates CI."""

from __future__ import annotations

import json

import pytest
from helpers import write

import napkinmath as nm
from napkinmath.errors import InputError

GOOD = """\
title = "Tiny"
[records]
gpu = "H100-SXM"
[givens]
params = "7B"
tokens = "1T"
train_time = "3 weeks"
mfu = 0.4

[[sections]]
title = "Compute"
ask = ["n_gpus", "n_gpus_whole_nodes"]
feeds = { n_gpus = "n_gpus_whole_nodes" }

[[sections]]
title = "Schedule"
ask = ["train_time"]
uses = ["n_gpus"]
"""


def error(tmp_path, text: str, name: str = "plan.toml") -> str:
    with pytest.raises(InputError) as info:
        nm.plan(write(tmp_path, name, text))
    return str(info.value)


def test_good_plan_feeds_the_rounded_fleet_by_name(tmp_path):
    p = nm.plan(write(tmp_path, "plan.toml", GOOD))
    assert p.answers["n_gpus_whole_nodes"].magnitude == 64
    # 21 days x 58.48 / 64: the whole-node fleet finishes early
    assert p.answers["train_time"].to("day").magnitude == pytest.approx(21 * 58.4844572 / 64)


@pytest.mark.parametrize(
    ("change", "line", "key", "words"),
    [
        (('title = "Tiny"', 'title = "Tiny"\nowner = "me"'), 2, "owner", "unknown key"),
        (("mfu = 0.4", 'mfu = "fast"'), 8, "givens.mfu", "mfu"),
        (("mfu = 0.4", 'mfu = "40 GB"'), 8, "givens.mfu", "mfu"),
        (('tokens = "1T"', 'tokenz = "1T"'), 6, "givens.tokenz", "tokens"),
        (('gpu = "H100-SXM"', 'gpu = "H1000"'), 3, "records.gpu", "H1000"),
        (("[records]", '[records]\nprecision = "fp7"'), 3, "records.precision", "fp7"),
        (
            ('ask = ["train_time"]', 'ask = ["train_time"]\nasked = 1'),
            18,
            "sections[1].asked",
            "unknown key",
        ),
        (
            ('uses = ["n_gpus"]', 'uses = ["n_nodes"]'),
            18,
            "sections[1].uses[0]",
            "no earlier section answers 'n_nodes'",
        ),
        (
            ('feeds = { n_gpus = "n_gpus_whole_nodes" }', 'feeds = { n_gpus = "n_nodes" }'),
            13,
            "sections[0].feeds.n_gpus",
            "not a question",
        ),
        (('ask = ["train_time"]', 'ask = ["train_tme"]'), 17, "sections[1].ask[0]", "train_tme"),
        (('title = "Schedule"', 'title = "Compute"'), 16, "sections[1].title", "two sections"),
    ],
)
def test_errors_name_file_line_and_key(tmp_path, change, line, key, words):
    message = error(tmp_path, GOOD.replace(*change))
    assert f"plan.toml, line {line}, key {key}:" in message
    assert words in message


def test_bad_toml_and_missing_sections(tmp_path):
    assert "not valid TOML" in error(tmp_path, "title = \n")
    assert "key sections" in error(tmp_path, 'title = "x"\n')


def test_json_is_accepted_and_located(tmp_path):
    data = {
        "title": "Tiny",
        "records": {"gpu": "H100-SXM"},
        "givens": {"params": "7B", "tokens": "1T", "mfu": 0.4, "n_gpus": 64},
        "sections": [{"title": "Schedule", "ask": ["train_time"]}],
    }
    p = nm.plan(write(tmp_path, "plan.json", json.dumps(data, indent=2)))
    assert p.answers["train_time"].to("day").magnitude == pytest.approx(
        4.2e22 / (0.4 * 64 * 989.5e12) / 86400
    )
    data["givens"]["mfu"] = "lots"
    message = error(tmp_path, json.dumps(data, indent=2), "plan.json")
    assert "plan.json, line 9, key givens.mfu" in message


def test_dict_is_accepted():
    p = nm.plan(
        {
            "title": "Little",
            "givens": {"arrival_rate": "50 request/s", "time_in_system": "2 s"},
            "sections": [{"title": "Queue", "ask": "requests_in_flight"}],
        }
    )
    assert p.answers["requests_in_flight"].magnitude == pytest.approx(100)
    with pytest.raises(InputError, match=r"<dict>, key sections\[0\]\.ask"):
        nm.plan({"title": "x", "sections": [{"title": "Queue", "ask": 3}]})


def test_solve_errors_name_the_section(tmp_path):
    text = GOOD.replace("mfu = 0.4\n", "")
    with pytest.raises(nm.NapkinError, match="in section 'Compute'"):
        nm.plan(write(tmp_path, "plan.toml", text))


VIOLATED = """\
title = "Too big a batch"
[records]
gpu = "H100-SXM"
model = "llama-3-70b"
[givens]
n_gpus = 4
batch_size = 128
seq_len = 8192
[[sections]]
title = "Memory"
ask = ["kv_cache_memory", "weight_memory"]
"""

DISAGREE = """\
title = "Givens that disagree"
[records]
gpu = "H100-SXM"
[givens]
params = "7B"
tokens = "1T"
train_compute = "5e22 FLOP"
mfu = 0.4
n_gpus = 64
[[sections]]
title = "Schedule"
ask = ["train_time"]
"""


def test_check_exits_1_on_a_violated_constraint(napkin, tmp_path):
    path = write(tmp_path, "plan.toml", VIOLATED)
    p = nm.plan(path)
    assert not p.ok
    assert any("HBM" in w for w in p.warnings)  # 141 GB + 344 GB > 4 x 80 GB
    status, out, _ = napkin("plan", str(path), "--check")
    assert status == 1 and out.startswith("FAIL")
    status, out, _ = napkin("plan", str(path))  # not strict: the report, status 0
    assert status == 0 and "VIOLATED" in out
    strict = write(tmp_path, "s.toml", VIOLATED.replace("[records]", "strict = true\n[records]"))
    status, _, err = napkin("plan", str(strict))
    assert status == 1 and "strict" in err


def test_check_exits_1_when_givens_disagree(napkin, tmp_path):
    path = write(tmp_path, "plan.toml", DISAGREE)
    p = nm.plan(path)
    assert any("disagrees" in w for w in p.warnings)  # 6 x 7e9 x 1e12 = 4.2e22, not 5e22
    status, out, _ = napkin("plan", str(path), "--check")
    assert status == 1 and "6ND" in out


def test_output_suffix_and_missing_file(napkin, tmp_path):
    path = write(tmp_path, "plan.toml", GOOD)
    status, _, err = napkin("plan", str(path), "-o", str(tmp_path / "plan.docx"))
    assert status == 2 and ".md, .html" in err
    status, _, err = napkin("plan", str(tmp_path / "nope.toml"))
    assert status == 2 and "no such plan file" in err


def test_a_ranged_given_gives_a_ranged_answer_in_every_format(tmp_path):
    text = GOOD.replace("mfu = 0.4", 'mfu = "0.3..0.5"')
    p = nm.plan(write(tmp_path, "plan.toml", text))
    low, high = p.answers["n_gpus"]  # an Interval: the exact ends over the range
    gpus = 4.2e22 / (989.5e12 * 21 * 86400)
    assert low.to("GPU").magnitude == pytest.approx(gpus / 0.5)
    assert high.to("GPU").magnitude == pytest.approx(gpus / 0.3)
    # a ranged answer feeds later sections at its centre (the whole-node fleet of mfu = 0.4)
    assert p.sections[1].result.givens["n_gpus"].quantity.magnitude == 64
    assert p.sections[1].origins["n_gpus"].endswith("at the centre of its range")
    for render in (p.to_text, p.to_markdown, p.to_html, p.to_latex):
        assert "30% … 50% (range)" in render() or "30\\% \\ldots{} 50\\% (range)" in render()


def test_lines_are_found_past_multiline_strings(tmp_path):
    text = GOOD.replace('title = "Tiny"', 'title = "Tiny"\nnotes = """\n[givens]\nmfu = 1\n"""')
    assert ", line 12, key givens.mfu:" in error(
        tmp_path, text.replace("mfu = 0.4", 'mfu = "fast"')
    )


def test_json_errors_point_at_the_right_section(tmp_path):
    data = {
        "title": "Two",
        "records": {"gpu": "H100-SXM"},
        "givens": {"params": "7B", "tokens": "1T", "mfu": 0.4, "n_gpus": 64},
        "sections": [
            {"title": "A", "ask": ["train_time"]},
            {"title": "B", "ask": ["gpu_hours", "train_tme"]},
        ],
    }
    text = json.dumps(data, indent=2)
    line = text.splitlines().index('        "train_tme"') + 1
    message = error(tmp_path, text, "plan.json")
    assert f"plan.json, line {line}, key sections[1].ask[1]:" in message


RANGED_COST = """\
title = "Cost over a range of MFU"
[records]
gpu = "H100-SXM"
[givens]
params = "7B"
tokens = "1T"
n_gpus = 64
mfu = "0.3..0.5"
price_per_gpu_hour = "2.50 USD/(GPU*h)"
[[sections]]
title = "Cost"
ask = ["train_compute", "train_time", "train_cost"]
sensitivity = ["train_cost", "train_time"]
"""


def test_a_ranged_section_shows_the_sensitivity_of_the_names_given(napkin, tmp_path):
    """Issue 20: with a ranged given the report showed `Sensitivity of train_compute` (the
    first question) whatever `sensitivity` named."""
    p = nm.plan(write(tmp_path, "plan.toml", RANGED_COST))
    assert [s.target for s in p.sections[0].sensitivities] == ["train_cost", "train_time"]
    # at the centre, mfu = 0.4: 4.2e22 / (64 x 989.5e12 x 0.4) s = 19.19 day, 73,690 USD
    status, out, err = napkin("plan", str(tmp_path / "plan.toml"))
    assert status == 0, err
    assert "Sensitivity of train_cost = 73,690 USD" in out
    assert "Sensitivity of train_time = 19.19 day" in out
    assert "Sensitivity of train_compute" not in out
    cost = p.sections[0].sensitivities[0]
    assert cost.elasticities["mfu"] == pytest.approx(-1)  # cost = GPU-hours x price


def test_an_unknown_or_unasked_sensitivity_name_is_an_error_naming_it(napkin, tmp_path):
    message = error(tmp_path, RANGED_COST.replace('["train_cost", "train_time"]', '["train_cst"]'))
    assert "plan.toml, line 13, key sections[0].sensitivity[0]:" in message
    assert "'train_cst'" in message and "did you mean train_cost" in message
    message = error(tmp_path, RANGED_COST.replace('["train_cost", "train_time"]', '["gpu_hours"]'))
    assert "sections[0].sensitivity[0]: 'gpu_hours' is not asked here" in message
    status, out, err = napkin("plan", str(tmp_path / "plan.toml"))
    assert status == 2 and out == "" and "'gpu_hours' is not asked here" in err
