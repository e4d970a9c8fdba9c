"""Side by side with Calculon's layout search (issue 43, part 7; docs/calculon-search.md).

Megatron-22B on 64 A100-SXM-80GB, global batch 64 sequences of 2,048 tokens. Calculon's search
(calculon-ai/calculon @ caa4b11, restricted to the layouts napkinmath can express) is recorded
in tests/fixtures/calculon/search-22b-64gpu-a100.json; `napkin optimize` searches the same
space here. The napkinmath numbers are pinned: re-pin when the step model changes (the pins
and the docs table come from the same values, NAPKIN below).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_published_runs import SHAPES, napkin_layout

import napkinmath as nm

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "calculon"
SEARCH = json.loads((FIXTURES / "search-22b-64gpu-a100.json").read_text())
#: `calculon llm-optimal-execution` over its wider space (placements included)
UNRESTRICTED = json.loads((FIXTURES / "search-22b-64gpu-a100-unrestricted.json").read_text())
CALCULON_WINNER = "exe-22b-64gpu-t2p8d4v6-none"
NAPKIN_WINNER = "exe-22b-64gpu-t4d16-selective-zero1"

N_GPUS, LAYERS, HEADS, BATCH, SEQ = 64, 48, 64, 64, 2048
SHAPE = dict(SHAPES["22B"], vocab_size=51200)
GIVENS = dict(
    gpu="A100-SXM-80GB",
    n_gpus=N_GPUS,
    seq_len=SEQ,
    global_batch_tokens=BATCH * SEQ,
    # placed as Calculon's space places them: tp on NVLink, dp and pp on the NIC
    dp_local_ranks=1,
    pp_local_ranks=1,
    **SHAPE,
)
#: Calculon's space in napkinmath's terms: sp is 1 (Calculon's 'ar') or tp ('rs_ag' with the
#: backward all-gather redone); zero_stage 0/1 is optimizer_sharding; dp_overlap_fraction 0/1 is
#: data_par_overlap. The grid is wider (every sp with every tp, every interleaving with every
#: pp); `same_space` keeps the candidates Calculon enumerates.
OVER = dict(
    tp=[1, 2, 4, 8],
    sp=[1, 2, 4, 8],
    pp=[1, 2, 4, 8, 16],
    dp="follows",
    batch_size=[1, 2, 4, 8, 16, 32, 64],
    virtual_pipeline_stages=[1, 2, 3, 4, 6, 8, 12, 24],
    recompute="all",
    zero_stage=[0, 1],
    dp_overlap_fraction=[0, 1],
)
RECOMPUTE = {"none": "none", "selective": "attn_only", "full": "full"}

#: napkinmath's numbers: the step from its operators (matmul epilogues, placement), a forecast.
#: Re-pin when the step model changes, and refresh docs/calculon-search.md's table from them.
NAPKIN = dict(
    winner=dict(
        tp=4,
        sp=4,
        pp=1,
        dp=16,
        batch_size=4,
        virtual_pipeline_stages=1,
        recompute="selective",
        zero_stage=1,
        dp_overlap_fraction=1,
    ),
    winner_step=1.6612,  # s, napkinmath's step for its own winner
    calculon_winner_step=1.9707,  # s, napkinmath's step for Calculon's winner
)


def calculon_execution(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def valid_calculon_layout(exe: dict) -> None:
    tp, pp, dp = exe["tensor_par"], exe["pipeline_par"], exe["data_par"]
    assert tp * pp * dp == exe["num_procs"] == N_GPUS
    assert tp <= 8 and HEADS % tp == 0  # inside a node; the heads split evenly
    assert LAYERS % (pp * exe["pipeline_interleaving"]) == 0
    assert pp > 1 or exe["pipeline_interleaving"] == 1
    assert exe["batch_size"] == BATCH and (BATCH // dp) % exe["microbatch_size"] == 0
    assert dp > 1 or not (exe["optimizer_sharding"] or exe["data_par_overlap"])
    assert exe["tensor_par_comm_type"] in ("ar", "rs_ag")
    assert exe["seq_par_ag_redo"] == (
        exe["tensor_par_comm_type"] == "rs_ag" and exe["activation_recompute"] != "full"
    )
    assert not (
        exe["fused_activation"]
        or exe["weight_offload"]
        or exe["activations_offload"]
        or exe["optimizer_offload"]
    )
    assert exe["tensor_par_overlap"] == "none"


@pytest.fixture(scope="module")
def search():
    """napkin optimize over the grid, and the mask of Calculon's space within it."""
    o = nm.optimize("step_time_predicted", over=OVER, top=1, **GIVENS)
    v = {
        n: o.decision_values(n)
        for n in (
            "tp",
            "sp",
            "pp",
            "dp",
            "batch_size",
            "virtual_pipeline_stages",
            "zero_stage",
            "dp_overlap_fraction",
        )
    }
    v["recompute"] = np.array([o.group_of(i).label()["recompute"] for i in range(o.count)])
    whole = np.isclose(v["dp"], np.round(v["dp"])) & (v["dp"] >= 1)
    same_space = (
        ((v["sp"] == 1) | (v["sp"] == v["tp"]))
        & (LAYERS % (v["pp"] * v["virtual_pipeline_stages"]) == 0)
        & ((v["pp"] > 1) | (v["virtual_pipeline_stages"] == 1))
        & ((v["dp"] > 1) | ((v["zero_stage"] == 0) & (v["dp_overlap_fraction"] == 1)))
        & whole
    )
    with np.errstate(all="ignore"):
        same_space &= np.where(
            whole, (BATCH / np.maximum(v["dp"], 1)) % v["batch_size"] == 0, False
        )
    return o, v, same_space


def test_calculon_searched_the_stated_space():
    space = SEARCH["space"]
    assert space["executions"] == space["good"] + space["rejected"] == 7008
    top = SEARCH["top"]
    assert [r["total_time"] for r in top] == sorted(r["total_time"] for r in top)
    for r in top:  # every layout it ranked is one napkinmath can express
        exe = dict(
            calculon_execution(CALCULON_WINNER),
            **{k: v for k, v in r.items() if k not in ("total_time", "sample_rate")},
        )
        valid_calculon_layout(exe)


def test_both_winners_are_valid_layouts():
    for name in (CALCULON_WINNER, NAPKIN_WINNER):
        valid_calculon_layout(calculon_execution(name))
    # the winner file is the search's first row, and `calculon llm` on it gives the same step
    winner = calculon_execution(CALCULON_WINNER)
    first = SEARCH["top"][0]
    assert all(winner[k] == v for k, v in first.items() if k not in ("total_time", "sample_rate"))
    assert SEARCH["llm"][CALCULON_WINNER]["total_time"] == pytest.approx(first["total_time"])
    assert SEARCH["rank_in_search"] == {CALCULON_WINNER: 1, NAPKIN_WINNER: 163}


def test_the_grid_holds_calculons_space(search):
    """One napkinmath candidate per Calculon execution: 7,008 (4,898 of them fit Calculon's
    memory check)."""
    _, _, same_space = search
    assert int(same_space.sum()) == SEARCH["space"]["executions"]


def test_napkin_optimize_on_calculons_space(search):
    o, v, same_space = search
    step = o.objective_values("step_time_predicted")
    fits = o.feasible_mask & same_space
    best = int(np.flatnonzero(fits)[np.argmin(step[fits])])
    point = {k: (v[k][best] if k == "recompute" else int(v[k][best])) for k in NAPKIN["winner"]}
    assert point == NAPKIN["winner"]  # re-pin when the step model changes
    assert step[best] == pytest.approx(NAPKIN["winner_step"], abs=1e-4)
    # the optimiser is exact over its grid: nothing it ranks first is slower than this
    assert o.best_candidate.objectives["step_time_predicted"] <= step[best] + 1e-12
    # napkinmath's own winner, as an execution file for Calculon, is the point it picked
    exe = calculon_execution(NAPKIN_WINNER)
    assert (exe["tensor_par"], exe["pipeline_par"], exe["data_par"]) == (
        point["tp"],
        point["pp"],
        point["dp"],
    )
    assert exe["microbatch_size"] == point["batch_size"]
    assert exe["activation_recompute"] == RECOMPUTE[point["recompute"]]
    assert exe["optimizer_sharding"] == (point["zero_stage"] == 1)
    assert (exe["tensor_par_comm_type"] == "rs_ag") == (point["sp"] == point["tp"] > 1)

    # Calculon's winner in napkinmath: a candidate of the same grid, which fits, and is no
    # faster than napkinmath's pick
    r = nm.solve(
        "step_time_predicted",
        **napkin_layout(calculon_execution(CALCULON_WINNER), "a100_80g", SHAPE),
    )
    calculon_in_napkin = r["step_time_predicted"].to("s").magnitude
    assert calculon_in_napkin == pytest.approx(NAPKIN["calculon_winner_step"], abs=1e-4)
    assert step[best] <= calculon_in_napkin
    w = calculon_execution(CALCULON_WINNER)
    at = (
        (v["tp"] == w["tensor_par"])
        & (v["sp"] == w["tensor_par"])
        & (v["pp"] == w["pipeline_par"])
        & (v["batch_size"] == w["microbatch_size"])
        & (v["virtual_pipeline_stages"] == w["pipeline_interleaving"])
        & (v["recompute"] == "none")
        & (v["zero_stage"] == 0)
        & (v["dp_overlap_fraction"] == 1)
    )
    (i,) = np.flatnonzero(at)
    assert o.feasible_mask[i] and step[i] == pytest.approx(calculon_in_napkin, rel=1e-9)


def test_each_tool_prefers_its_own_winner():
    """The 2x2 of docs/calculon-search.md: each tool's step for both winners."""
    calc = SEARCH["llm"]
    assert calc[CALCULON_WINNER]["total_time"] == pytest.approx(1.7483, abs=1e-4)
    assert calc[NAPKIN_WINNER]["total_time"] == pytest.approx(2.0028, abs=1e-4)
    assert calc[NAPKIN_WINNER]["total_time"] / calc[CALCULON_WINNER]["total_time"] > 1.1
    assert NAPKIN["calculon_winner_step"] / NAPKIN["winner_step"] > 1.0


def test_calculons_unrestricted_winner_is_outside_napkins_space():
    """Calculon's own search command, placements included, wins with the pipeline on NVLink:
    napkinmath puts pp on the NIC (issue 43, part 4)."""
    best = UNRESTRICTED["top"][0]
    assert (best["tensor_par"], best["pipeline_par"], best["data_par"]) == (2, 4, 8)
    assert best["tensor_par_net"] == best["pipeline_par_net"] == 0 and best["data_par_net"] == 1
    assert best["total_time"] == pytest.approx(1.6364, abs=1e-4)
    assert best["total_time"] < SEARCH["top"][0]["total_time"]
