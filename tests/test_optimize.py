"""nm.optimize and `napkin optimize`: the best plan that fits, checked by hand and against a
brute-force search of the same grid with the scalar solver."""

from __future__ import annotations

import itertools
import json
import random

import pytest

import napkinmath as nm
from napkinmath.errors import InputError, NapkinError

H100_PEAK = 989.5e12  # dense BF16 FLOP/s, the H100-SXM record
THREE_WEEKS = 21 * 86400.0
W12 = dict(params="7B", tokens="1T", train_time="<= 3 weeks", mfu=0.4, gpu="H100-SXM")


def _w12_time(n: float) -> float:
    return 6 * 7e9 * 1e12 / (0.4 * n * H100_PEAK)


# --- the worked examples of the issue ----------------------------------------------------------
def test_w12_smallest_fleet_in_whole_nodes():
    o = nm.optimize("n_gpus", over={"n_gpus": "whole nodes"}, **W12)
    assert o.best_candidate.point == {"n_gpus": 64.0}
    assert o.best.value.m_as("day") == pytest.approx(_w12_time(64) / 86400, rel=1e-12)
    assert o.binding == ["train_time ≤ 3 weeks"]
    (boundary,) = o.boundaries
    exact = 6 * 7e9 * 1e12 / (0.4 * H100_PEAK * THREE_WEEKS)  # 58.48 GPU
    assert boundary.value == pytest.approx(exact, rel=1e-9)
    below = next(n for n in o.neighbours if n.point["n_gpus"] == 56.0)
    assert not below.feasible and below.better
    over_hours = (_w12_time(56) - THREE_WEEKS) / 3600  # 22.36 h
    assert f"{over_hours:.4g} h over" in below.verdict
    above = next(n for n in o.neighbours if n.point["n_gpus"] == 72.0)
    assert above.feasible and "12.5% worse" in above.verdict
    assert o.count == 16_384 and o.feasible_count == 16_384 - 7  # 8..56 GPU miss it


def test_w12_on_the_command_line(napkin):
    status, out, err = napkin(
        "optimize", "--minimize", "n_gpus", "params=7B", "tokens=1T",
        "train_time=<= 3 weeks", "mfu=0.4", "--gpu", "H100-SXM", "--over", "n_gpus=whole nodes",
    )  # fmt: skip
    assert status == 0, err
    assert "Best: n_gpus = 64 GPU (8 nodes)" in out
    assert "n_gpus = 56 GPU (7 nodes): ✗ train_time ≤ 3 weeks: 21.93 day, 22.36 h over" in out
    assert "holds with equality at n_gpus = 58.4845 GPU" in out
    assert "The best candidate's derivation:" in out
    assert "chosen by the optimiser from whole nodes of 8 GPU" in out
    # the requirement also reads as a term without '=' and through --require
    for form in (["train_time<=3 weeks"], ["--require", "train_time <= 3 weeks"]):
        status, again, _ = napkin(
            "optimize", "--minimize", "n_gpus", "params=7B", "tokens=1T", "mfu=0.4",
            "--gpu", "H100-SXM", "--over", "n_gpus=whole nodes", *form,
        )  # fmt: skip
        assert status == 0 and "Best: n_gpus = 64 GPU (8 nodes)" in again


def test_smallest_replica_for_a_moe_model():
    o = nm.optimize("n_gpus", model="qwen3-235b-a22b", gpu="H100", seq_len=8192, batch_size=32)
    assert o.best_candidate.point == {"n_gpus": 8.0}
    assert [c.name for c in o.constraints] == ["replica_fits_hbm", "batch_fits_kv_budget"]
    givens = o.best.givens
    weights = givens["params_total"].quantity.m_as("param") * 2  # bf16
    per_token = 2 * 128 * 2 * givens["n_kv_heads"].quantity.m_as("") * 94  # k and v, bf16
    total = weights + 32 * 8192 * per_token
    assert o.best["kv_cache_memory"].m_as("B") == pytest.approx(32 * 8192 * per_token)
    (boundary,) = o.boundaries
    assert boundary.value == pytest.approx(total / (0.9 * 80e9), rel=1e-9)  # 7.23 GPU
    four = next(n for n in o.neighbours if n.point["n_gpus"] == 4.0)
    assert not four.feasible and "replica_fits_hbm" in four.violated
    assert not o.notes  # a serving question: the training layout's limits are not its own


def test_each_card_at_its_own_best_batch_for_decode():
    o = nm.optimize(
        "cost_per_million_tokens",
        over=["batch_size", "n_gpus"],
        model="llama-3-70b",
        gpu="H100-SXM,MI300X,Trainium2",
        seq_len=8192,
        require=["time_per_output_token <= 50 ms"],
    )
    ranking = [label for label, _ in o.per_record]
    assert ranking == ["MI300X", "H100-SXM", "Trainium2"]
    best = o.best_candidate
    assert best.point == {"gpu": "MI300X", "batch_size": 256.0, "n_gpus": 8.0}
    r = o.best
    tpot = r["time_per_output_token"].m_as("s*sequence/token")
    tokens_per_hour = 256 / tpot * 3600
    assert r["cost_per_million_tokens"].m_as("USD/Mtoken") == pytest.approx(
        8 * 2.0 / tokens_per_hour * 1e6,
        rel=1e-9,  # 8 MI300X at 2 USD/GPU-hour
    )
    # the next batch up does not fit in HBM: weights + KV of 512 sequences of 8,192 tokens
    weights = 70_553_706_496 * 2
    kv = 512 * 8192 * 2 * 128 * 2 * 8 * 80
    up = next(n for n in o.neighbours if n.point == {"batch_size": 512.0})
    assert not up.feasible and "replica_fits_hbm" in up.violated
    assert weights + kv > 0.9 * 8 * 192e9
    # each card's own best is the best of its own candidates
    for label, c in o.per_record:
        mine = nm.optimize(
            "cost_per_million_tokens", over=["batch_size", "n_gpus"], model="llama-3-70b",
            gpu=label, seq_len=8192, require=["time_per_output_token <= 50 ms"],
        )  # fmt: skip
        assert mine.best_candidate.objectives == pytest.approx(c.objectives, rel=1e-12)


def test_405b_layout_maximising_predicted_mfu():
    o = nm.optimize(
        "mfu_predicted",
        maximize=True,
        over={
            "tp": None,
            "pp": "powers of two:1..32",
            "dp": None,
            "batch_size": "1..4",
            "recompute": None,
            "zero_stage": None,
            "virtual_pipeline_stages": None,
        },
        model="llama-3-405b",
        gpu="H100",
        n_gpus=16384,
        seq_len=8192,
        global_batch_tokens="16Mi",
    )
    point = o.best_candidate.point
    assert point["tp"] * point["pp"] * point["dp"] == 16384
    assert 2048 / (point["batch_size"] * point["dp"]) >= 1  # at least one micro-batch each
    # the winner's derivation is the plain solve of the same layout
    layout = {k: v for k, v in point.items() if k != "recompute"}
    plain = nm.solve(
        "mfu_predicted",
        model="llama-3-405b",
        gpu="H100",
        n_gpus=16384,
        seq_len=8192,
        global_batch_tokens="16Mi",
        recompute=point["recompute"],
        **layout,
    )
    assert plain.value.m_as("") == pytest.approx(o.best["mfu_predicted"].m_as(""), rel=1e-12)
    assert o.best.fits
    assert [c.name for c in o.constraints] == [
        "training_memory_fits_hbm",
        "pipeline_bubble_small",
        "pipeline_stages_have_layers",  # pp ≤ 126 layers; uneven stages are only flagged
        "interleaving_needs_stages",
        "sequence_parallel_is_the_tp_group",
        "placement_order_is_one_of_two",
        "placement_fits_node",
    ]
    mfus = [c.objectives["mfu_predicted"] for c in o.runners_up]
    assert mfus == sorted(mfus, reverse=True)
    assert all(m <= o.best_candidate.objectives["mfu_predicted"] for m in mfus)
    assert any(not n.feasible and n.better for n in o.neighbours)  # what binds is named
    assert o.binding


def test_nothing_fits_names_what_rules_out_most_and_the_closest(napkin):
    args = [
        "optimize", "--maximize", "mfu_predicted",
        "--over", "tp,pp,dp,batch_size,recompute,zero_stage",
        "--model", "llama-3-405b", "--gpu", "H100",
        "n_gpus=16384", "seq_len=8192", "global_batch_tokens=16M",
    ]  # fmt: skip
    status, out, err = napkin(*args)
    assert status == 0, err
    assert "Nothing fits: no candidate of 6,336 meets every constraint." in out
    assert "dp = n_gpus / (tp · pp · cp · gpus_per_rank) is a whole number" in out
    # the closest is the candidate whose worst limit is least exceeded: 2.1× the bubble
    # limit and 1.89× HBM, where one replica per GPU would be 8.4× short of a micro-batch (a
    # constraint that holds at 0 ≤ 0 is within its limit, not infinitely far: 391a374)
    assert (
        "Closest: recompute = full, tp = 8, pp = 2, batch_size = 1 sequence, zero_stage = 1, "
        "dp = 1,024" in out
    )
    assert "✗ Training memory per GPU fits in HBM: 151.2 GB > 80 GB (1.89× the limit)" in out
    assert "52.43% > 25% (2.1× the limit)" in out
    assert "not a whole number: micro-batch counts are not required to be whole" in out
    status, _, err = napkin(*args, "--strict")
    assert status == 1 and "no candidate of 6,336 meets every constraint" in err


# --- the search against brute force -------------------------------------------------------------
def _brute(o, objective, sense, names, domains, givens, gpus, model=None, settings=None):
    """The best candidate by solving every point with the scalar solver (`o` supplies only
    which targets and constraints the question has)."""
    targets = o.best.targets if o.best is not None else None
    wanted = {c.name for c in o.constraints}
    settings = settings or {}
    best = None
    for gpu in gpus:
        for chosen in itertools.product(*settings.values()):
            for combo in itertools.product(*domains):
                point = dict(zip(names, combo, strict=True))
                g = {**givens, **dict(zip(settings, chosen, strict=True)), **point}
                if "tp" in point:
                    dp = g["n_gpus"] / (point["tp"] * point["pp"])
                    if dp != int(dp):
                        continue
                    g["dp"] = int(dp)
                    sequences = g["global_batch_tokens"] / g["seq_len"]
                    micro = sequences / (point["batch_size"] * dp)
                    if micro < 1 or micro != int(micro):
                        continue
                require = g.pop("__require__", ())
                try:
                    r = nm.solve(targets, gpu=gpu, model=model, **g)
                except NapkinError:
                    continue
                if not all(c.holds for c in r.constraints if c.constraint.name in wanted):
                    continue
                if not all(r[name].m_as(unit) <= limit for name, unit, limit in require):
                    continue
                value = (
                    point[objective] if objective in point else r[objective].m_as(o_unit(objective))
                )
                key = sense * value
                if best is None or key < best[0]:
                    best = (key, gpu, dict(zip(settings, chosen, strict=True)), point, value)
    return best


def o_unit(name: str) -> str:
    return str(nm.variable(name).unit)


def _fleet_problem(rng: random.Random):
    params, tokens = rng.choice([1, 7, 13, 70]), rng.choice([0.3, 1, 2])
    days = rng.choice([7, 14, 30, 60])
    nodes = sorted(rng.sample(range(1, 400), 10))
    givens = dict(params=f"{params}B", tokens=f"{tokens}T", mfu=rng.choice([0.3, 0.4, 0.5]))
    o = nm.optimize(
        "n_gpus",
        over={"n_gpus": [8 * k for k in nodes]},
        train_time=f"<= {days} days",
        gpu="H100-SXM",
        **givens,
    )
    limit = days * 86400.0
    brute = _brute(
        o, "n_gpus", 1, ["n_gpus"], [[8 * k for k in nodes]],
        {**givens, "__require__": [("train_time", "s", limit)]}, ["H100-SXM"],
    )  # fmt: skip
    return o, brute


def _decode_problem(rng: random.Random):
    batches = sorted(rng.sample([1, 2, 4, 8, 16, 32, 64, 128, 256, 512], 4))
    gpus_n = sorted(rng.sample([1, 2, 4, 8, 16], 3))
    cards = rng.sample(["H100-SXM", "MI300X", "H200", "Trainium2"], 2)
    model = rng.choice(["llama-3-8b", "llama-3-70b"])
    seq = rng.choice([2048, 8192])
    limit_ms = rng.choice([20, 50, 100])
    o = nm.optimize(
        "cost_per_million_tokens",
        over={"batch_size": batches, "n_gpus": gpus_n},
        model=model,
        gpu=",".join(cards),
        seq_len=seq,
        require=[f"time_per_output_token <= {limit_ms} ms"],
    )
    brute = _brute(
        o, "cost_per_million_tokens", 1, ["batch_size", "n_gpus"], [batches, gpus_n],
        {"seq_len": seq, "__require__": [("time_per_output_token", "ms*sequence/token", limit_ms)]},
        cards, model,
    )  # fmt: skip
    return o, brute


def _layout_problem(rng: random.Random):
    tps = sorted(rng.sample([1, 2, 4, 8], 2))
    pps = sorted(rng.sample([1, 2, 4], 2))
    batches = sorted(rng.sample([1, 2, 4], 2))
    stages = sorted(rng.sample([0, 1, 2, 3], 2))
    recompute = rng.sample(["none", "selective", "full"], 1)
    gbt = rng.choice(["1Mi", "2Mi", "4Mi"])
    givens = dict(n_gpus=64, seq_len=4096, global_batch_tokens=gbt)
    o = nm.optimize(
        "mfu_predicted",
        maximize=True,
        over={"tp": tps, "pp": pps, "batch_size": batches, "zero_stage": stages,
              "recompute": recompute},
        model="llama-3-8b",
        gpu="H100",
        **givens,
    )  # fmt: skip
    brute = _brute(
        o, "mfu_predicted", -1, ["tp", "pp", "batch_size", "zero_stage"],
        [tps, pps, batches, stages],
        {**givens, "global_batch_tokens": {"1Mi": 2**20, "2Mi": 2**21, "4Mi": 2**22}[gbt]},
        ["H100"], "llama-3-8b", {"recompute": recompute},
    )  # fmt: skip
    return o, brute


@pytest.mark.parametrize("seed", range(200))
def test_optimizer_matches_brute_force(seed):
    rng = random.Random(seed)
    family = [_fleet_problem, _decode_problem, _layout_problem][seed % 3]
    o, brute = family(rng)
    if brute is None:
        assert o.best is None and o.feasible_count == 0
        return
    assert o.best is not None, f"brute force found {brute}"
    objective = o.objectives[0]
    assert o.best_candidate.objectives[objective] / nm.variable(objective).base_factor == (
        pytest.approx(brute[4], rel=1e-9)
    )
    point = o.best_candidate.point
    expected = {k: float(v) for k, v in brute[3].items()}
    assert {k: point[k] for k in expected} == expected, f"winner {point}, brute force {brute}"
    assert point.get("gpu", brute[1]) == brute[1]
    assert {k: point[k] for k in brute[2]} == brute[2]


# --- more of the answer -----------------------------------------------------------------------
def test_pareto_front_of_cost_and_latency():
    o = nm.optimize(
        ["cost_per_million_tokens", "time_per_output_token"],
        over={"batch_size": "powers of two:1..256"},
        model="llama-3-8b",
        gpu="H100-SXM",
        n_gpus=1,
        seq_len=4096,
    )
    front = o.pareto
    assert len(front) >= 3
    costs = [c.objectives["cost_per_million_tokens"] for c in front]
    tpots = [c.objectives["time_per_output_token"] for c in front]
    assert costs == sorted(costs) and tpots == sorted(tpots, reverse=True)
    table = o.to_frame()
    cost = next(col for col in table.columns if col.startswith("cost_per"))
    tpot = next(col for col in table.columns if col.startswith("time_per"))
    fits = table[table["feasible"]]
    shown = {c.index for c in front}
    for position, row in fits.iterrows():  # every feasible candidate is on the front or beaten
        if position in shown:
            continue
        assert any(
            fc <= row[cost] * (1 + 1e-12) and ft <= row[tpot] * (1 + 1e-12)
            for fc, ft in zip(fits[cost][list(shown)], fits[tpot][list(shown)], strict=True)
        )
    assert "Pareto front" in str(o)


def test_continuous_domain_is_refined_to_the_boundary():
    o = nm.optimize(
        "mfu",
        over={"mfu": "0.2..0.9"},
        params="7B",
        tokens="1T",
        n_gpus=64,
        train_time="<= 3 weeks",
        gpu="H100-SXM",
    )
    exact = 6 * 7e9 * 1e12 / (64 * H100_PEAK * THREE_WEEKS)  # 0.3655
    (boundary,) = o.boundaries
    assert boundary.refined and boundary.value == pytest.approx(exact, rel=1e-9)
    assert o.best.givens["mfu"].quantity.m_as("") == pytest.approx(exact, rel=1e-9)
    assert o.best["train_time"].m_as("s") == pytest.approx(THREE_WEEKS, rel=1e-8)


def test_formats_json_markdown_csv_and_plot(napkin, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from pathlib import Path

    schema_path = Path(__file__).resolve().parent.parent / "engine/schema/optimum.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    base = ["optimize", "--minimize", "n_gpus", "--model", "qwen3-235b-a22b", "--gpu", "H100",
            "seq_len=8192", "batch_size=32"]  # fmt: skip
    status, out, err = napkin(*base, "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    jsonschema.Draft202012Validator(schema).validate(data)
    assert data["schema"] == "napkinmath-optimum/1"
    assert data["best"]["point"]["n_gpus"]["value"] == 8
    status, out, _ = napkin(*base, "--format", "markdown")
    assert status == 0 and "**Best:** n_gpus = 8 GPU (1 node)" in out
    status, out, _ = napkin(*base, "--format", "csv")
    assert status == 0 and out.splitlines()[0].startswith("n_gpus [GPU]")
    pytest.importorskip("matplotlib")
    plot = tmp_path / "o.png"
    status, _, err = napkin(*base, "--plot", str(plot), "--no-derivation")
    assert status == 0, err
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    o = nm.optimize("n_gpus", model="qwen3-235b-a22b", gpu="H100", seq_len=8192, batch_size=32)
    assert "napkin-optimum" in o._repr_html_()
    assert json.loads(o.to_json())["feasible"] == o.feasible_count
    assert o.to_frame().shape[0] == o.count


def test_same_question_same_bytes(napkin):
    args = ["optimize", "--minimize", "n_gpus", "--model", "qwen3-235b-a22b", "--gpu", "H100",
            "seq_len=8192", "batch_size=32", "--format", "json"]  # fmt: skip
    assert napkin(*args)[1] == napkin(*args)[1]


# --- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"over": {"n_gpu": None}}, "n_gpu"),
        ({"over": {"n_gpus": "whole rack"}}, "n_gpus"),
        ({"over": {"n_gpus": "whole nodes"}, "n_gpus": 8}, "both a decision variable and a given"),
        ({"over": {"n_gpus": "1..200000"}}, "at most 100,000"),
        ({"require": ["train_time about 3 weeks"]}, "write NAME OP VALUE"),
        ({"require": ["train_time <= 3 GB"]}, "train_time"),
        ({"maximize": ["train_cost"]}, "not an objective"),
        ({"over": {"tp": "follows"}}, "only dp follows"),
        ({"over": {"recompute": "some"}}, "not a choice"),
        ({"over": {"mfu": None}}, "no default domain"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, match):
    givens = {"params": "7B", "tokens": "1T", "mfu": 0.4, "gpu": "H100-SXM", **kwargs}
    if "require" not in givens:
        givens["train_time"] = "<= 3 weeks"
    if "mfu" in givens.get("over", {}):
        givens.pop("mfu")
    with pytest.raises(NapkinError, match=match):
        nm.optimize("n_gpus", **givens)


def test_the_candidate_count_is_refused_before_any_work():
    with pytest.raises(InputError, match=r"4,096,000 candidates .* at most 2,000,000"):
        nm.optimize(
            "mfu_predicted",
            maximize=True,
            over={"batch_size": "1..1000", "n_gpus": "1..4096"},
            model="llama-3-8b",
            gpu="H100",
            seq_len=4096,
            global_batch_tokens="4Mi",
        )
    with pytest.raises(InputError, match="at most 10"):
        nm.optimize("n_gpus", over={"n_gpus": "whole nodes"}, max_candidates=10, **W12)


def test_a_computed_objective_needs_decisions():
    with pytest.raises(InputError, match="what may change"):
        nm.optimize("train_time", params="7B", tokens="1T", n_gpus=64, mfu=0.4, gpu="H100")


def test_nothing_constrains_the_objective():
    with pytest.raises(InputError, match="nothing constrains n_gpus"):
        nm.optimize("n_gpus", params="7B", tokens="1T", mfu=0.4, gpu="H100-SXM")


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["params=7B"], "optimise what"),
        (["n_gpus", "params=7B"], "--minimize n_gpus"),
        (["--minimize", "n_gpus", "params=7B", "params=8B"], "given twice"),
    ],
)
def test_cli_errors_exit_2(napkin, args, match):
    status, _, err = napkin("optimize", *args)
    assert status == 2 and match in err and "Traceback" not in err


def test_precision_is_a_choice():
    o = nm.optimize(
        "cost_per_million_tokens",
        over={"batch_size": "powers of two:1..512", "n_gpus": [1, 2, 4, 8], "precision": None},
        model="llama-3-70b",
        gpu="MI300X",
        seq_len=8192,
        require=["time_per_output_token <= 50 ms"],
    )
    assert o.best_candidate.point["precision"] == "fp8"
    bf16 = next(n for n in o.neighbours if n.point == {"precision": "bf16"})
    assert not bf16.feasible and "replica_fits_hbm" in bf16.violated
    plain = nm.solve(
        "cost_per_million_tokens",
        model="llama-3-70b",
        gpu="MI300X",
        seq_len=8192,
        precision="fp8",
        batch_size=o.best_candidate.point["batch_size"],
        n_gpus=o.best_candidate.point["n_gpus"],
    )
    assert plain.value.m_as("USD/Mtoken") == pytest.approx(
        o.best["cost_per_million_tokens"].m_as("USD/Mtoken"), rel=1e-12
    )
    with pytest.raises(InputError, match="not a precision"):
        nm.optimize("n_gpus", over={"n_gpus": None, "precision": "fp9"}, **W12)
    with pytest.raises(InputError, match="both decided and given"):
        nm.optimize("n_gpus", over={"n_gpus": None, "precision": None}, precision="fp8", **W12)


def test_minimize_false_maximises():
    up = nm.optimize("n_gpus", minimize=False, over={"n_gpus": "whole nodes:1..16"}, **W12)
    assert up.best_candidate.point == {"n_gpus": 128.0}
    assert up.senses == {"n_gpus": -1}


def test_a_table_of_a_large_search_lists_the_best_up_to_its_cap(monkeypatch):
    """Issue 44: 2,000,000 candidates written as CSV took 26 s, 1.4 GB and 88 MB. Past
    `MAX_TABLE_ROWS` a table lists the candidates that fit, best first, then the others, in
    the search's order, and says so (here with the cap at 5 of W12's 16,384 node counts)."""
    from napkinmath.whatif import optimum

    monkeypatch.setattr(optimum, "MAX_TABLE_ROWS", 5)
    o = nm.optimize("n_gpus", over={"n_gpus": "whole nodes"}, **W12)
    table = o.to_table()
    assert list(table["n_gpus"]) == [64.0, 72.0, 80.0, 88.0, 96.0]  # the five smallest that fit
    assert table.warnings[-1] == (
        "the table holds 5 of the 16,384 candidates (at most 5): every one that fits, best "
        "first, then ones that do not, in the search's order; narrow the domains to list them all"
    )
    assert o.to_csv().count("\n") == 6  # the header and five rows
    monkeypatch.setattr(optimum, "MAX_TABLE_ROWS", 16_380)  # all 16,377 that fit, and 3 more
    listed = list(o.to_table()["n_gpus"])
    assert len(listed) == 16_380 and listed[:4] == [8.0, 16.0, 24.0, 64.0]


def test_equal_objectives_tie_in_domain_order():
    # issue 47 §4: at a fixed MFU the bill does not depend on the GPU count, so every fleet
    # that meets the deadline costs the same 58,952 USD (to round-off); the smallest comes
    # first, not the one whose round-off happens to be lowest
    o = nm.optimize(
        "train_cost",
        over={"n_gpus": "whole nodes"},
        require=["train_time <= 3 weeks"],
        params="7B",
        tokens="1T",
        mfu=0.4,
        gpu="H100",
        price_per_gpu_hour="2 USD/(GPU*h)",
    )
    assert o.best_candidate.point == {"n_gpus": 64.0}
    cost = 6 * 7e9 * 1e12 / (0.4 * 989.5e12) / 3600 * 2
    assert o.best.value.m_as("USD") == pytest.approx(cost)
    ranked = [c.point["n_gpus"] for c in o.runners_up]
    assert ranked == [72.0, 80.0, 88.0, 96.0, 104.0]  # the next nodes, in order


def test_a_record_kind_is_a_decision_of_its_own(napkin):
    # issue 47 §2: over={"gpu": [...]} (--over gpu=A,B) chooses among records as gpu="A,B"
    # does, alone or beside other decisions; 7B on 1T tokens at 40% MFU on 64 GPUs at
    # 2 USD/GPU-hour: the fastest chip is the cheapest (the same price an hour)
    question = dict(
        minimize="train_cost",
        require=["train_time <= 3 weeks"],
        params="7B",
        tokens="1T",
        mfu=0.4,
        n_gpus=64,
        price_per_gpu_hour="2 USD/(GPU*h)",
    )
    by_over = nm.optimize("train_cost", over={"gpu": ["H100-SXM", "H200", "MI300X"]}, **question)
    by_gpu = nm.optimize("train_cost", gpu="H100-SXM,H200,MI300X", over={}, **question)
    assert by_over.best_candidate.point["gpu"] == by_gpu.best_candidate.point["gpu"] == "MI300X"
    # 4.2e22 FLOP / (64 · 1,307 TFLOP/s · 0.4) = 1.255e6 s = 348.7 h; 64 GPUs at 2 USD
    assert by_over.best.value.m_as("USD") == pytest.approx(
        4.2e22 / (64 * 1307.4e12 * 0.4) / 3600 * 64 * 2, rel=1e-3
    )
    status, out, _ = napkin(
        "optimize",
        "--minimize",
        "train_cost",
        "--over",
        "gpu=H100-SXM,H200,MI300X",
        "--require",
        "train_time <= 3 weeks",
        "params=7B",
        "tokens=1T",
        "mfu=0.4",
        "n_gpus=64",
        "price_per_gpu_hour=2 USD/(GPU*h)",
    )
    assert status == 0 and out.startswith("Optimum: minimise train_cost over gpu\n")
    with pytest.raises(nm.InputError, match="both decided"):
        nm.optimize("train_cost", over={"gpu": ["H200"]}, gpu="H100-SXM", **question)
    with pytest.raises(nm.InputError, match="needs its records"):
        nm.optimize("train_cost", over=["gpu"], **question)


def test_a_record_named_twice_is_refused_and_runners_up_are_distinct(napkin):
    # H100 is H100-SXM's alias: listed beside it, the runners-up repeated the winner's figures
    # under the other name; now refused, naming both and the record they are
    question = dict(params="70B", tokens="2T", mfu=0.4)
    with pytest.raises(nm.InputError, match=r"H100 and H100-SXM are the same record \(H100-SXM\)"):
        nm.optimize("train_cost", over={"gpu": "H100,H100-SXM,A100", "n_gpus": [1024]}, **question)
    status, _, err = napkin("compare", "train_time", "--gpu", "H100,h100-sxm", "n_gpus=8")
    assert status == 2 and "same record" in err
    o = nm.optimize("train_cost", over={"gpu": "H100,A100", "n_gpus": [1024, 2048]}, **question)
    points = [tuple(sorted(c.point.items())) for c in [o.best_candidate, *o.runners_up]]
    assert len(points) == len(set(points))
    # a record's own best that is the step already shown is not listed twice
    assert "at its own best" not in "\n".join(n.verdict for n in o.neighbours)
