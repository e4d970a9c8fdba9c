"""napkinmath's aggregated serving beside aiconfigurator's speed-of-light search (issue 46 §4).

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
        ours = compare.napkin_row(case, row.tp, row.batch, achievable=False)
        assert ours is not None
        assert ours["per_gpu"] == pytest.approx(row.per_gpu, rel=0.10), row
    theirs = max(r.per_gpu for r in rows)
    best = compare.napkin_best(case, achievable=False)
    assert best is not None and best[2] == pytest.approx(theirs, rel=0.10)


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
