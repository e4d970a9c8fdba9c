"""Words a user types (issue 27): practitioners' names, a `$` the shell ate, TPOT in ms per
token, numbers as a person writes them, percents in sweeps, mean ± sd, LoRA shapes from the
model record, a brief form, and the compare footer on the command line."""

from __future__ import annotations

import math

import pytest

import napkinmath as nm
from napkinmath.library.aliases import ALIASES
from napkinmath.units import Quantity, format_quantity, humanize
from napkinmath.whatif.spread import format_interval


def _mag(q, unit: str) -> float:
    return float(q.to(unit).magnitude)


# --- practitioners' names ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("ttft", "time_to_first_token"),
        ("TTFT", "time_to_first_token"),
        ("tpot", "time_per_output_token"),
        ("itl", "time_per_output_token"),
        ("qps", "arrival_rate"),
        ("rps", "arrival_rate"),
        ("kv", "kv_cache_memory"),
        ("rpo", "recovery_point"),
        ("rto", "recovery_time"),
    ],
)
def test_a_practitioners_name_is_answered_with_the_variable_it_means(typed, meant):
    with pytest.raises(nm.UnknownNameError) as caught:
        nm.solve(typed)
    message = str(caught.value)
    assert f"the library calls {typed.upper()} {meant}" in message
    assert "did you mean tp?" not in message


def test_every_alias_names_variables_that_exist():
    known = nm.variables()
    for word, names in ALIASES.items():
        assert names, word
        for name in names:
            assert name in known, f"{word} -> {name}"


def test_names_that_are_variables_already_still_solve_and_case_is_forgiven():
    assert _mag(nm.solve("pue", cluster_power="13 MW", it_power="10 MW").value, "") == 1.3
    with pytest.raises(nm.UnknownNameError, match=r"'MFU'; did you mean mfu\?"):
        nm.solve("MFU")


def test_an_alias_given_as_a_value_is_answered_too():
    with pytest.raises(nm.UnknownNameError, match="the library calls TTFT time_to_first_token"):
        nm.solve("decode_speed", ttft="200 ms")


def test_the_cli_answers_ttft_and_tpot(napkin):
    status, out, err = napkin("solve", "ttft")
    assert status == 2 and out == ""
    assert "the library calls TTFT time_to_first_token" in err
    status, _, err = napkin("solve", "tpot")
    assert "the library calls TPOT time_per_output_token" in err and "tp?" not in err


# --- a `$` the shell ate ---------------------------------------------------------------------
TRAIN = {"params": "7B", "tokens": "1T", "mfu": 0.4, "gpu": "H100-SXM", "n_gpus": 64}


@pytest.mark.parametrize("left", [".50/GPU-hour", "/GPU-hour", "", " .5 /GPU/h"])
def test_money_cut_short_by_the_shell_says_the_shell_ate_a_dollar(left):
    with pytest.raises(nm.InputError) as caught:
        nm.solve("train_cost", price_per_gpu_hour=left, **TRAIN)
    message = str(caught.value)
    assert "the shell ate a `$`" in message
    assert "single quotes" in message and "2.50 USD/GPU-hour" in message
    assert "did you mean 0.5" not in message


def test_money_in_single_quotes_reads_and_matches_a_hand_calculation():
    r = nm.solve("train_cost", price_per_gpu_hour="$2.50/GPU-hour", **TRAIN)
    # 6·7e9·1e12 FLOP / (0.4 × 64 × 989.5e12 FLOP/s) = 1.658e6 s = 460.6 h; × 64 × 2.50 USD
    hours = 6 * 7e9 * 1e12 / (0.4 * 64 * 989.5e12) / 3600
    assert _mag(r.value, "USD") == pytest.approx(hours * 64 * 2.5, rel=1e-9)


def test_money_without_a_currency_mentions_the_shell_as_a_possibility():
    with pytest.raises(nm.InputError) as caught:
        nm.solve("train_cost", price_per_gpu_hour="5/h", **TRAIN)
    assert "did you mean 5 USD/(GPU·h)?" in str(caught.value)
    assert "the shell took it and the digit after it" in str(caught.value)


def test_a_non_money_variable_says_nothing_of_the_shell():
    with pytest.raises(nm.InputError) as caught:
        nm.solve("train_time", params="/param", tokens="1T", mfu=0.4, gpu="H100-SXM", n_gpus=64)
    assert "shell" not in str(caught.value)


def test_the_cli_says_the_shell_ate_a_dollar(napkin):
    status, _, err = napkin(
        "solve", "train_cost", "params=7B", "tokens=1T", "mfu=0.4", "gpu=H100-SXM", "n_gpus=64",
        "price_per_gpu_hour=.50/GPU-hour",
    )  # fmt: skip
    assert status == 2 and "the shell ate a `$`" in err and "Traceback" not in err


# --- TPOT in ms per token --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("written", "note"),
    [
        ("50 ms", "50 ms, read as per token of one sequence"),
        ("50 ms/token", "50 ms/token, read as for one sequence"),
        ("0.05 s", "0.05 s, read as per token of one sequence"),
    ],
)
def test_tpot_as_practitioners_quote_it_is_read_and_said_as_read(written, note):
    r = nm.solve("decode_speed", time_per_output_token=written)
    assert _mag(r.value, "token/(s*sequence)") == pytest.approx(20)  # 1 / 50 ms
    assert r.givens["time_per_output_token"].reading == note
    assert note in str(r)


def test_tpot_of_another_dimension_is_still_refused():
    with pytest.raises(nm.InputError, match="expected ms·sequence/token"):
        nm.solve("decode_speed", time_per_output_token="50 ms/sequence")


def test_tpot_shows_in_the_unit_asked_for():
    r = nm.solve("time_per_output_token", decode_speed="40 token/(s*sequence)", units={
        "time_per_output_token": "ms"})  # fmt: skip
    assert r.headline() == ["time_per_output_token = 25 ms·sequence/token"]


def test_the_cli_takes_time_per_output_token_in_ms(napkin):
    status, out, err = napkin("solve", "time_per_output_token:s", "decode_speed=40 token/s")
    assert status == 0, err
    assert out.startswith("time_per_output_token = 0.025 s·sequence/token")
    assert "40 token/s, read as per sequence" in out


# --- numbers as a person writes them ---------------------------------------------------------
@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(3.259e-12, "3.259 ps"), (8.126e-10, "812.6 ps"), (1e-7, "100 ns"), (2e-6, "2 µs")],
)
def test_short_times_take_the_prefix_a_person_would(seconds, shown):
    assert format_quantity(humanize(Quantity(seconds, "s"))) == shown


def test_a_tiny_queueing_wait_reads_in_picoseconds():
    # M/M/c (Sakasegawa): 0.01 s × 0.3^(√130 − 1) / (64 × 0.7) = 8.126×10⁻¹⁰ s
    r = nm.solve("time_in_queue", utilization=0.3, service_time="10 ms", n_servers=64)
    expected = 0.01 * 0.3 ** (math.sqrt(130) - 1) / (64 * 0.7)
    assert _mag(r.value, "s") == pytest.approx(expected, rel=1e-9)
    assert r.headline() == ["time_in_queue = 812.6 ps"]


def test_a_negative_round_off_residue_is_zero_not_refused():
    # 0.3 − (0.2 + 0.1) is −5.6×10⁻¹⁷ in floats: no real wait, and no "impossible givens"
    r = nm.solve(
        "time_in_queue", time_in_system="0.3 s", prefill_time="0.1 s", generation_time="0.2 s"
    )
    assert _mag(r.value, "s") == 0
    assert r.headline() == ["time_in_queue = 0 s"]
    assert "(round-off: the terms cancel)" in str(r)


def test_a_range_whose_ends_print_alike_gets_the_digits_that_tell_them_apart():
    low, high = Quantity(1.56012e23, "FLOP"), Quantity(1.56034e23, "FLOP")
    assert format_interval(low, high) == "1.5601×10²³ … 1.5603×10²³ FLOP"
    same = Quantity(1.56e23, "FLOP")
    assert format_interval(same, same) == "1.56×10²³ FLOP (both ends)"
    r = nm.solve(
        "train_time",
        params="7B",
        tokens="1T..1.0001T",
        mfu="0.3..0.5",
        gpu="H100-SXM",
        n_gpus=64,
        ranges=True,
    )
    assert "= 4.2×10²² … 4.2004×10²² FLOP" in str(r)


# --- sweeps show fractions as percents -------------------------------------------------------
def test_a_sweep_shows_fractions_as_percents_and_keeps_fractions_in_csv():
    t = nm.sweep(
        "mfu", train_time="10 day..30 day:lin:3", params="7B", tokens="1T", gpu="H100-SXM",
        n_gpus=64,
    )  # fmt: skip
    text = str(t)
    assert "76.76%" in text and "38.38%" in text and "0.7676" not in text
    assert "| 76.76% |" in t.to_markdown()
    assert "0.767" in t.to_csv() and "%" not in t.to_csv()
    assert t["mfu"][0] == pytest.approx(6 * 7e9 * 1e12 / (64 * 989.5e12 * 10 * 86400))


def test_the_cli_sweep_prints_percents(napkin):
    status, out, err = napkin(
        "sweep", "train_time", "mfu=0.3..0.5:lin:3", "params=7B", "tokens=1T",
        "gpu=H100-SXM", "n_gpus=64",
    )  # fmt: skip
    assert status == 0, err
    assert "30%" in out and "40%" in out and "50%" in out


# --- mean ± sd ------------------------------------------------------------------------------
@pytest.mark.parametrize("written", ["0.4 +/- 0.05", "0.4 ± 0.05", "40% ± 5%", "0.4+-0.05"])
def test_mean_plus_minus_sd_is_a_normal_said_as_read(written):
    r = nm.solve("train_time", samples=4000, seed=1, mfu=written, **{
        k: v for k, v in TRAIN.items() if k != "mfu"})  # fmt: skip
    (bound,) = r.bounds
    assert bound.kind == "normal"
    assert _mag(bound.low, "") == pytest.approx(0.4 - 1.6448536269514722 * 0.05)
    assert _mag(bound.high, "") == pytest.approx(0.4 + 1.6448536269514722 * 0.05)
    assert "as mean ± standard deviation" in str(r)


def test_mean_plus_minus_sd_with_units_borrows_the_unit():
    r = nm.solve(
        "n_gpus",
        train_compute="6e23 FLOP",
        mfu=0.4,
        gpu="H100-SXM",
        train_time="30 ± 3 day",
        ranges=True,
    )
    (bound,) = r.bounds
    assert _mag(bound.low, "day") == pytest.approx(30 - 1.6448536269514722 * 3)
    assert _mag(bound.high, "day") == pytest.approx(30 + 1.6448536269514722 * 3)


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("0.4 ±", "write a mean and a standard deviation"),
        ("0.4 ± 0", "the standard deviation must be above 0"),
        ("1 ± 2 ± 3", "write a mean and a standard deviation"),
        ("0.05 ± 0.05", "5th and 95th percentiles are -0.03224 and 0.1322"),
    ],
)
def test_mean_plus_minus_sd_errors_name_the_variable(written, says):
    with pytest.raises(nm.InputError) as caught:
        nm.solve(
            "train_time",
            mfu=written,
            ranges=True,
            **{k: v for k, v in TRAIN.items() if k != "mfu"},
        )
    assert says in str(caught.value) and "mfu" in str(caught.value)


def test_the_cli_reads_plus_minus(napkin):
    status, out, err = napkin(
        "solve", "train_time", "mfu=0.4 +/- 0.05", "params=7B", "tokens=1T", "gpu=H100-SXM",
        "n_gpus=64",
    )  # fmt: skip
    assert status == 0, err
    assert "read from 0.4 ± 0.05 as mean ± standard deviation" in out


# --- LoRA shapes from the model record -------------------------------------------------------
def test_lora_on_attention_takes_the_shapes_from_the_model_record():
    r = nm.solve("lora_params", model="llama-3-8b", lora_rank=16)
    # Llama 3 8B, r = 16 on q, k, v, o (GQA: k and v are 4096 × 8·128 = 1024):
    # 16 × ((4096 + 4096) + 2 × (4096 + 1024) + (4096 + 4096)) × 32 layers = 13,631,488
    # (the count PEFT prints for this configuration)
    assert _mag(r.value, "param") == 13_631_488
    assert "ASSUMPTION: LoRA adapts the four attention projections" in str(r)


def test_lora_with_other_targets_uses_the_users_shapes_without_a_clash():
    r = nm.solve(
        "lora_params", model="llama-3-8b", lora_rank=16, lora_d_in=5000, lora_d_out=6000,
        lora_target_matrices=7,
    )  # fmt: skip
    assert _mag(r.value, "param") == 16 * (5000 + 6000) * 7 * 32


def test_lora_memory_from_the_cli_needs_no_hand_typed_shapes(napkin):
    status, out, err = napkin("solve", "lora_memory", "model=llama-3-8b", "lora_rank=16")
    assert status == 0, err
    # 8.03B × 2 B frozen + 13.63M × 16 B adapter state = 16.06 GB + 218.1 MB
    assert out.startswith("lora_memory = 16.28 GB")


# --- the brief form --------------------------------------------------------------------------
def test_brief_is_the_chain_the_answer_and_what_it_hangs_on():
    r = nm.solve("train_time", train_compute="6.3e24 FLOP", n_gpus=8960, gpu="H100-SXM", mfu=0.4)
    lines = r.brief().split("\n")
    # 6.3e24 / (0.4 × 8960 × 989.5e12) s = 1.776e6 s = 20.56 day
    assert lines == [
        "6.3×10²⁴ FLOP / (40% × 8,960 GPU × 989.5 TFLOP/(s·GPU)) = 20.56 day",
        "train_time = 20.56 day",
        "It hangs most on mfu = 40% (your value; n_gpus and peak_flops swing it as much): "
        "±10% of it gives train_time 18.69 … 22.85 day.",
    ]


def test_brief_prefers_a_stated_assumption_among_equal_swings():
    r = nm.solve("lora_memory", model="llama-3-8b", lora_rank=16)
    last = r.brief().split("\n")[-1]
    assert last.startswith("It hangs most on weight_bytes_per_param = 2 B/param (an assumption")


def test_brief_of_a_record_value_is_its_line():
    assert nm.solve("peak_flops", gpu="H100-SXM").brief() == "peak_flops = 989.5 TFLOP/(s·GPU)"


def test_the_cli_brief(napkin):
    args = ("solve", "train_time", "params=7B", "tokens=1T", "gpu=H100-SXM", "n_gpus=64")
    status, out, err = napkin(*args, "mfu=0.4", "--brief")
    assert status == 0, err
    assert out.split("\n")[:2] == [
        "4.2×10²² FLOP / (40% × 64 GPU × 989.5 TFLOP/(s·GPU)) = 19.19 day",
        "train_time = 19.19 day",
    ]
    status, _, err = napkin(*args, "mfu=0.3..0.5", "--brief")
    assert status == 2 and "--brief is for single answers" in err
    status, _, err = napkin(*args, "mfu=0.4", "--brief", "--format", "json")
    assert status == 2 and "--brief is three lines of text" in err


# --- the compare footer ----------------------------------------------------------------------
COMPARE = ("compare", "train_time", "--gpu", "H100-SXM,B200", "params=7B", "tokens=1T")


def test_compare_on_the_cli_points_to_derivations(napkin):
    status, out, err = napkin(*COMPARE, "n_gpus=64", "mfu=0.4")
    assert status == 0, err
    assert out.rstrip().endswith("Each row's derivation: add --derivations (or napkin solve "
                                 "with that record).")  # fmt: skip
    assert "comparison.results" not in out
    status, out, _ = napkin(*COMPARE, "n_gpus=64", "mfu=0.4", "--derivations")
    assert "Each row's derivation follows." in out and "=== H100-SXM" in out


def test_compare_in_python_names_the_attribute():
    c = nm.compare("train_time", gpu=["H100-SXM", "B200"], params="7B", tokens="1T", n_gpus=64,
                   mfu=0.4)  # fmt: skip
    assert str(c).endswith("comparison.results[label] (napkin solve with that record).")


def test_napkin_vars_finds_the_variables_a_practitioners_word_names(napkin):
    status, out, err = napkin("vars", "qps")
    assert status == 0, err
    assert [line.split()[0] for line in out.strip().split("\n")] == [
        "arrival_rate",
        "gpu_request_capacity",
        "peak_request_rate",
    ]
    status, _, err = napkin("vars", "zzzz")
    assert status == 2 and "no variable mentions 'zzzz'" in err
