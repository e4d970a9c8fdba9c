"""Plan files with the user's records (`[records] files`, `napkin plan --records`) and
achievable peaks (`achievable = true`, `--achievable`).

Hand calculations: 6 · 7e9 · 1e12 = 4.2e22 FLOP on 64 private GPUs at 1,200 TFLOP/s and MFU
0.4 takes 4.2e22 / (64 · 1.2e15 · 0.4) = 1.367e6 s = 15.82 days = 379.8 h; at the record's
3.10 USD per GPU-hour 64 · 379.8 · 3.10 = 75,347 USD. Decode on one H200 reading 15.009 GB of
weights at the measured 4.32 TB/s: 15.009e9 / 4.32e12 = 3.474 ms (datasheet 4.8 TB/s: 3.127 ms).
"""

from __future__ import annotations

import re

import pytest
from test_user_records import OURS

import napkinmath as nm
from napkinmath.errors import InputError

HOURS = 4.2e22 / (64 * 1.2e15 * 0.4) / 3600
PLAN = """\
title = "Our accelerator"
[records]
gpu = "our-gpu"
files = ["ours.toml"]
[givens]
params = "7B"
tokens = "1T"
n_gpus = 64
mfu = 0.4

[[sections]]
title = "Cost"
ask = ["train_time", "train_cost"]
"""
DECODE = """\
title = "Decode on one H200"
[records]
gpu = "H200"
[givens]
weight_memory = "15.009 GB"
kv_cache_memory = "0 GB"
n_gpus = 1

[[sections]]
title = "Decode"
ask = ["decode_step_time"]
"""


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "ours.toml").write_text(OURS, encoding="utf-8")
    (tmp_path / "plan.toml").write_text(PLAN, encoding="utf-8")
    (tmp_path / "bare.toml").write_text(
        PLAN.replace('files = ["ours.toml"]\n', ""), encoding="utf-8"
    )
    (tmp_path / "decode.toml").write_text(DECODE, encoding="utf-8")
    return tmp_path


def test_a_plan_reads_its_records_files(folder):
    p = nm.plan(folder / "plan.toml")
    assert p.answers["train_time"].to("h").magnitude == pytest.approx(HOURS)
    assert p.answers["train_cost"].to("USD").magnitude == pytest.approx(64 * HOURS * 3.10)
    given = p.sections[0].result.givens["peak_flops"]
    assert given.quantity.to("TFLOP/(s*GPU)").magnitude == pytest.approx(1200)
    assert "your record" in given.note and given.note.endswith("ours.toml:14)")
    for report in (p.to_text(), p.to_markdown(), p.to_html(), p.to_latex()):
        assert "75,347 USD" in report
        assert "vendor datasheet under NDA (2026-09, your record" in report  # labelled
        assert "vendor quote Q-7781 (2026-11, your record" in report


def test_the_records_do_not_outlive_the_plan(folder):
    nm.plan(folder / "plan.toml")
    with pytest.raises(nm.NapkinError):  # the private GPU is the plan's, not the library's
        nm.solve("peak_flops", gpu="our-gpu")


def test_a_missing_records_file_names_the_line_and_key(folder):
    text = PLAN.replace('files = ["ours.toml"]', 'files = ["ours.toml", "nope.toml"]')
    (folder / "plan.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        nm.plan(folder / "plan.toml")
    message = str(info.value)
    assert "plan.toml, line 4, key records.files[1]:" in message
    assert "nope.toml" in message and "plan file's folder" in message


def test_records_given_to_plan_and_on_the_command_line(folder, napkin):
    with pytest.raises(nm.NapkinError, match="our-gpu"):  # no records: no such GPU
        nm.plan(folder / "bare.toml")
    p = nm.plan(folder / "bare.toml", records=str(folder / "ours.toml"))
    assert p.answers["train_cost"].to("USD").magnitude == pytest.approx(64 * HOURS * 3.10)
    status, out, err = napkin(
        "plan", str(folder / "bare.toml"), "--records", str(folder / "ours.toml")
    )
    assert status == 0, err
    assert "train_cost = 75,347 USD" in out and "your record" in out
    status, _, err = napkin("plan", str(folder / "bare.toml"))
    assert status == 2 and "our-gpu" in err
    status, _, err = napkin(
        "plan", str(folder / "bare.toml"), "--records", str(folder / "nope.toml")
    )
    assert status == 2 and "nope.toml: No such file" in err


@pytest.mark.parametrize("how", ["flag", "file"])
def test_achievable_peaks_in_a_plan(folder, napkin, how):
    path = folder / "decode.toml"
    args = ["--achievable"] if how == "flag" else []
    if how == "file":
        path.write_text(
            DECODE.replace('gpu = "H200"', 'gpu = "H200"\nachievable = true'), encoding="utf-8"
        )
    status, out, err = napkin("plan", str(path), *args)
    assert status == 0, err
    assert "decode_step_time = 3.474 ms" in out
    # 15.009e9 / 4.32e12 s = 3.474 ms (the Given column's width follows the longest name)
    assert re.search(r"\n  hbm_bandwidth += 4\.32 TB/\(s·GPU\)", out)
    assert "achievable_hbm_bandwidth" in out and "measured" in out
    assert "tools/measure_gpu.py (hardware/measurements/h200-2026-11-30.json)" in out
    # the measurement is cited into the sources list, not inline
    sources = out[out.index("\nSources\n") :]
    assert "] napkinmath measurement, tools/measure_gpu.py" in sources


def test_without_achievable_the_datasheet_answers(folder):
    p = nm.plan(folder / "decode.toml")
    assert p.answers["decode_step_time"].to("ms").magnitude == pytest.approx(
        15.009e9 / 4.8e12 * 1e3
    )
    assert "3.127 ms" in p.to_text() and "achievable_hbm_bandwidth" not in p.to_text()
    q = nm.plan(folder / "decode.toml", achievable=True)
    assert q.answers["decode_step_time"].to("ms").magnitude == pytest.approx(15.009 / 4.32)
