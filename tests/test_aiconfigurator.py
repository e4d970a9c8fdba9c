"""napkinmath's aggregated serving beside aiconfigurator's searches (issue 46 §4): at the speed
of light beside its SOL mode, and napkinmath's forecast beside its measured kernels (SILICON).

Runs only where aiconfigurator is installed (it is large, so it is not in `[dev]`): on PATH,
or named by NAPKIN_AICONFIGURATOR (`pip install aiconfigurator==0.12.0` in a venv of its own).
docs/serving.md holds a full run of tools/compare_aiconfigurator.py and explains each
difference over 10%.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXE = os.environ.get("NAPKIN_AICONFIGURATOR") or shutil.which("aiconfigurator")

needs_aiconfigurator = pytest.mark.skipif(
    EXE is None, reason="aiconfigurator is not installed (pip install aiconfigurator==0.12.0)"
)


@pytest.fixture(scope="module")
def compare():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import compare_aiconfigurator
    finally:
        sys.path.pop(0)
    return compare_aiconfigurator


@needs_aiconfigurator
def test_the_example_lands_within_ten_percent_of_speed_of_light(compare, tmp_path):
    case = compare.CASES[0]  # Qwen3-32B on 8 H200, 4000/500, TTFT 2 s, TPOT 30 ms
    rows = compare.run_aiconfigurator(EXE, case, "SOL", tmp_path)
    assert rows, "aiconfigurator gave no aggregated configuration"
    for row in rows:
        ours = compare.napkin_row(case, row.tp, row.batch, ideal=True)
        assert ours is not None
        assert ours["per_gpu"] == pytest.approx(row.per_gpu, rel=0.10), row
    theirs = max(r.per_gpu for r in rows)
    best = compare.napkin_best(case, ideal=True)
    assert best is not None and best[2] == pytest.approx(theirs, rel=0.10)


@needs_aiconfigurator
def test_the_forecast_lands_within_a_quarter_of_the_measured_kernels(compare, tmp_path):
    # the aim of issue 46: within 25% of SILICON with the sourced rates, none fitted; the one
    # configuration outside it is tp8, whose 128 small all-reduces a decode step cost more in
    # TensorRT-LLM's measured tables than α = 8 µs (docs/serving.md): stated, not widened
    case = compare.CASES[0]
    rows = compare.run_aiconfigurator(EXE, case, "SILICON", tmp_path)
    assert rows, "aiconfigurator gave no aggregated configuration"
    for row in rows:
        ours = compare.napkin_row(case, row.tp, row.batch, ideal=False)
        assert ours is not None
        if row.tp < 8:
            assert ours["per_gpu"] == pytest.approx(row.per_gpu, rel=0.25), row
        else:
            assert row.per_gpu < ours["per_gpu"] < 1.3 * row.per_gpu, row


def test_the_table_parser_reads_aiconfigurator_rows(compare):
    text = (
        "agg Top Configurations: (Ranked by tokens/s/gpu)\n"
        "+------+\n"
        "| Rank | backend | tokens/s/gpu | tokens/s/user | req/s |   TTFT  | request_latency "
        "| concurrency  | total_gpus (used) | replicas | gpus/replica | gpus/worker "
        "| parallel |  bs |\n"
        "+------+\n"
        "|  1   |  trtllm |    558.15    |     36.74     |  8.95 |  894.93 |     14475.44    "
        "| 128 (=64x2)  |     8 (8=2x4)     |    2     |      4       |   4 (=4x1)  "
        "|  tp4pp1  |  64 |\n"
        "+------+\n"
    )
    (row,) = compare.parse_rows(text)
    assert (row.tp, row.dp, row.batch, row.per_gpu) == (4, 1, 64, 558.15)
    assert row.tpot_ms == pytest.approx(1000 / 36.74)


@needs_aiconfigurator
def test_the_disaggregated_decode_pool_lands_within_ten_percent_of_speed_of_light(
    compare, tmp_path
):
    # TPOT is the decode pool alone: within 10% at the speed of light. Throughput is higher
    # by aiconfigurator's rate-matching margin (the prefill pool × 0.9) and its 10% longer
    # prefill (docs/serving.md): above theirs, and by less than a quarter
    case = compare.CASES[0]
    rows = compare.run_disaggregated(EXE, case, "SOL", tmp_path)
    assert rows, "aiconfigurator gave no disaggregated configuration"
    for row in rows:
        ours = compare.napkin_disagg_row(case, row, ideal=True)
        assert ours is not None
        assert ours["tpot_ms"] == pytest.approx(row.tpot_ms, rel=0.10), row
        assert row.per_gpu < ours["per_gpu"] < 1.25 * row.per_gpu, row


def test_the_disaggregated_table_parser_reads_aiconfigurator_rows(compare):
    text = (
        "disagg Top Configurations: (Ranked by tokens/s/gpu)\n"
        "+------+\n"
        "| Rank | backend | tokens/s/gpu | tokens/s/user | req/s |  TTFT  | request_latency "
        "| concurrency  | total_gpus (used) | replicas | gpus/replica | (p)workers "
        "| (p)gpus/worker | (p)parallel | (p)bs | (d)workers | (d)gpus/worker | (d)parallel "
        "| (d)bs |\n"
        "+------+\n"
        "|  1   |  trtllm |    540.67    |     52.79     |  8.65 | 749.12 |     10202.18    "
        "| 124 (=124x1) |     8 (8=1x8)     |    1     | 8 (=4x1+1x4) |     4      "
        "|    1 (=1x1)    |    tp1pp1   |   1   |     1      |    4 (=4x1)    |    tp4pp1   "
        "|  124  |\n"
        "|  2   |  trtllm |    300.00    |     40.00     |  4.00 | 700.00 |     10000.00    "
        "| 64 (=64x1)   |     8 (8=1x8)     |    1     | 8 (=4x1+1x4) |     4      "
        "|    1 (=1x1)    |   tp1pp1dp2 |   1   |     1      |    4 (=4x1)    |    tp4pp1   "
        "|  64   |\n"
        "+------+\n"
    )
    (row,) = compare.parse_disagg_rows(text)  # (the attention-dp row is left out)
    assert (row.p_workers, row.p_tp, row.p_batch) == (4, 1, 1)
    assert (row.d_workers, row.d_tp, row.d_batch, row.per_gpu) == (1, 4, 124, 540.67)
    assert row.tpot_ms == pytest.approx(1000 / 52.79)
