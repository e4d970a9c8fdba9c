"""`check`: catching unit mistakes in expressions, claims and tables of claims.

Every expectation is hand-computed in the test, with its source. The issue's four examples
run from Python and from the CLI; each known confusion factor has a test that produces it.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath import check, check_claims
from napkinmath.checking.confusions import Context, candidates

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def keys(result):
    return [c.key for c in result.candidates]


# --- the examples, from Python ------------------------------------------------------
def test_ring_allreduce_time_is_shown_with_its_dimension():
    # W9: 2(n-1)/n x 141 GB / 900 GB/s = 1.75 x 0.15667 s = 0.2742 s
    r = check("2*(8-1)/8 * 141 GB / (900 GB/s)")
    assert r.value.to("s").magnitude == pytest.approx(0.27417, rel=1e-4)
    assert str(r.value.units) == "millisecond"  # the unit a person would choose
    assert r.status == "ok" and r.agrees is None and r.candidates == []
    assert r.dimension == "a time"
    assert "274.2 ms" in r.text


def test_training_state_claim_agrees_within_tolerance():
    # W4: 70e9 param x 16 B/param = 1.12e12 B; the claim 1.1 TB is 1.8% low, inside 2%
    r = check("70e9 param * 16 byte/param", expect="1.1 TB")
    assert r.status == "agree" and r.agrees is True
    assert r.value.to("TB").magnitude == pytest.approx(1.12)
    assert r.ratio == pytest.approx(1.1 / 1.12)
    assert "AGREE" in r.text


def test_bits_read_as_bytes_is_caught_and_confirmed():
    # 400 Gb/s = 50 GB/s, so 140 GB take 2.8 s; 0.35 s is 140 GB / 400 GB/s: 8x too fast
    r = check("140 GB / (400 Gb/s)", expect="0.35 s")
    assert r.status == "disagree" and r.agrees is False
    assert r.value.to("s").magnitude == pytest.approx(2.8)
    assert r.ratio == pytest.approx(1 / 8)
    top = r.candidates[0]
    assert top.key == "bits_bytes" and top.factor == 8 and top.direction == "low"
    assert top.confirmed
    assert "did you mean GB/s? 400 Gb/s = 50 GB/s" in top.evidence[0]
    assert top.correction == "0.35 s × 8 = 2.8 s"  # the suggested correction
    assert "400 Gb/s = 50 GB/s (b is a bit, B a byte)" in r.notes


def test_claims_table_from_python():
    report = check_claims(EXAMPLES / "claims.csv")
    summary = report.summary
    assert summary["total"] == 11
    assert (summary["agree"], summary["disagree"], summary["unchecked"]) == (4, 7, 0)
    assert not report.ok and report.exit_status() == 1
    verdicts = {
        row.id: (row.status, row.result.candidates[0].key if row.result.candidates else None)
        for row in report.rows
    }
    assert verdicts == {
        "state-70b": ("agree", None),
        "compute-70b": ("agree", None),
        "fleet-16k": ("agree", None),
        "cost-7b": ("agree", None),
        "inter-node-bw": ("disagree", "bits_bytes"),
        "nvlink-ring": ("disagree", "two_way"),
        "ring-factor": ("disagree", "ring_8"),
        "kv-llama-70b": ("disagree", "gqa_heads"),
        "hbm-h100": ("disagree", "binary_g"),
        "compute-2n": ("disagree", "train_vs_inference"),
        "budget-7b": ("disagree", "hours_days"),
    }


def test_package_level_functions():
    # nm.check and nm.check_claims, as the README shows them, in a fresh interpreter
    code = (
        "import napkinmath as nm; r = nm.check('140 GB / (400 Gb/s)', expect='0.35 s'); "
        "print(r.status, r.candidates[0].key); "
        "print(nm.check_claims([{'expression': '1 GB', 'claimed': '1000 MB'}]).ok)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["disagree", "bits_bytes", "True"]


# --- the examples, from the CLI -----------------------------------------------------
def test_cli_expression(napkin):
    status, out, err = napkin("check", "2*(8-1)/8 * 141 GB / (900 GB/s)")
    assert status == 0, err
    assert out.startswith("2*(8-1)/8 * 141 GB / (900 GB/s) = 274.2 ms")


def test_cli_claim_that_agrees(napkin):
    status, out, _ = napkin("check", "70e9 param * 16 byte/param", "--expect", "1.1 TB")
    assert status == 0
    assert "1.12 TB" in out and "AGREE within 2%" in out


def test_cli_claim_that_disagrees_exits_1(napkin):
    status, out, _ = napkin("check", "140 GB / (400 Gb/s)", "--expect", "0.35 s")
    assert status == 1
    assert "DISAGREE: the claim is 8× lower" in out
    assert "1. bits vs bytes (8)" in out
    assert "did you mean GB/s? 400 Gb/s = 50 GB/s" in out


def test_cli_claims_file_exits_1_when_a_claim_disagrees(napkin):
    status, out, _ = napkin("check", str(EXAMPLES / "claims.csv"))
    assert status == 1
    assert out.startswith(
        "claims.csv: 11 rows read: 11 checked (4 agree, 7 disagree), 0 could not be checked"
    )
    assert "DISAGREE: bits vs bytes?" in out
    assert "Disagreements:" in out


def test_cli_claims_file_as_a_user_runs_it():
    done = subprocess.run(
        [sys.executable, "-m", "napkinmath.cli", "check", str(EXAMPLES / "claims.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "3 rows read: 3 checked (2 agree, 1 disagree)" in done.stdout


def test_cli_inline_claim_and_givens(napkin):
    status, out, _ = napkin("check", "140 GB / (400 Gb/s) = 0.35 s")
    assert status == 1 and "bits vs bytes" in out
    status, out, _ = napkin("check", "params * 2 B/param", "params=70B", "--expect", "140 GB")
    assert status == 0 and "AGREE" in out


def test_cli_json_and_markdown(napkin):
    status, out, _ = napkin(
        "check", "140 GB / (400 Gb/s)", "--expect", "0.35 s", "--format", "json"
    )
    data = json.loads(out)
    assert status == 1
    assert data["status"] == "disagree" and data["value"]["text"] == "2.8 s"
    assert data["candidates"][0]["key"] == "bits_bytes"
    assert data["candidates"][0]["confirmed"] is True
    status, out, _ = napkin(
        "check", "70e9 param * 16 byte/param", "--expect", "1.1 TB", "--format", "markdown"
    )
    assert status == 0 and "**1.12 TB**" in out and "✅" in out


def test_cli_bad_input_exits_2_with_the_position(napkin):
    status, out, err = napkin("check", "141 GB + 900 GB/s")
    assert status == 2 and out == ""
    assert "cannot add 141 GB and 900 GB/s" in err
    assert "multiply the right side by a time" in err
    assert "  141 GB + 900 GB/s\n         ^" in err  # the caret points at the '+'
    assert "Traceback" not in err


def test_cli_verbose_shows_the_derivation(napkin):
    status, out, _ = napkin(
        "check",
        "train_time",
        "params=7B",
        "tokens=1T",
        "n_gpus=64",
        "mfu=0.4",
        "--gpu",
        "H100-SXM",
        "--expect",
        "19.2 days",
        "-v",
    )
    assert status == 0
    assert "How napkinmath computed train_time:" in out and "Fleet equation" in out


def test_cli_claims_with_unchecked_rows(napkin, tmp_path):
    table = tmp_path / "c.csv"
    table.write_text("expression,claimed\n1 GB,1000 MB\n2 GB + 1 s,2 GB\n")
    status, out, err = napkin("check", str(table))
    assert status == 2
    assert "1 could not be checked" in out and "could not check" in out
    assert "could not be checked" in err and "--allow-unchecked" in err
    status, _, _ = napkin("check", str(table), "--allow-unchecked")
    assert status == 0


def test_cli_claims_from_standard_input(monkeypatch, napkin):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("expression,claimed\n200 Gb/s,25 GB/s\n"))
    status, out, _ = napkin("check", "-")
    assert status == 0 and "1 row read: 1 checked (1 agree, 0 disagree)" in out


def test_cli_expect_with_a_file_is_refused(napkin):
    status, _, err = napkin("check", str(EXAMPLES / "claims.csv"), "--expect", "1 s")
    assert status == 2 and "claims table has its own 'claimed' column" in err


# --- each confusion factor ------------------------------------------------------------------
def test_factor_8_bits_vs_bytes_on_a_link():
    # a calculator default of 200 "GB/s" for a 200 Gb/s (HDR) port: 200 Gb/s = 25 GB/s
    r = check("200 Gb/s", expect="200 GB/s")
    assert r.ratio == pytest.approx(8)
    assert r.candidates[0].key == "bits_bytes" and r.candidates[0].direction == "high"
    assert "200 Gb/s = 25 GB/s" in r.candidates[0].evidence[0]


@pytest.mark.parametrize(
    ("claim", "key", "factor"),
    [
        ("80e3 KiB", "binary_k", 1.024),  # 80 MB as KiB: 80e6/(80e3*1024) = 1/1.024
        ("80 MiB", "binary_m", 1.024**2),  # 80 MB vs 80 x 2^20 B
        ("80 GiB", "binary_g", 1.024**3),  # H100 80 GB read as 80 GiB (W15-style)
        ("80e-3 TiB", "binary_t", 1.024**4),
    ],
)
def test_factor_binary_vs_decimal_prefixes(claim, key, factor):
    value = {"binary_k": "80 MB", "binary_m": "80 MB", "binary_g": "80 GB", "binary_t": "80 GB"}[
        key
    ]
    r = check(value, expect=claim)
    assert r.status == "disagree"
    assert r.ratio == pytest.approx(factor)
    assert r.candidates[0].key == key


def test_factor_binary_confirmed_where_the_expression_has_gib():
    r = check("80 GiB", expect="80 GB")  # 80 GiB = 85.9 GB
    assert r.candidates[0].key == "binary_g" and r.candidates[0].confirmed
    assert "80 GiB = 85.9 GB" in r.candidates[0].evidence[0]


def test_factor_2_one_way_vs_two_way_confirmed_from_the_record():
    # W9: a ring moves data one way: 450 GB/s per direction gives 0.548 s; 0.274 s used 900
    r = check("2*(8-1)/8 * 141 GB / H100-SXM.nvlink_bandwidth", expect="0.274 s")
    top = r.candidates[0]
    assert top.key == "two_way" and top.confirmed
    assert "H100-SXM.nvlink_bandwidth_bidirectional" in top.evidence[0]
    assert any("compared for one GPU, 548.3 ms" in n for n in r.notes)


def test_factor_2_sparse_vs_dense_peak():
    # H100 dense BF16 989.5 TFLOP/s (the record: half the datasheet's 1,979, which assumes 2:4
    # sparsity), so the ratio is exactly 2
    r = check("H100-SXM.peak_flops", expect="1979 TFLOP/(s*GPU)")
    assert r.ratio == pytest.approx(1979 / 989.5)
    found = keys(r)
    assert "sparse_dense" in found and "precision_peak" in found  # FP8 dense is also 1,979
    assert "bits_bytes" not in found  # no data size anywhere


def test_factor_3_training_vs_inference_flops():
    # W1: 6 x 70e9 x 15e12 = 6.3e24 FLOP; 2.1e24 is the 2·N forward-only count
    r = check("6 FLOP/(param*token) * 70e9 param * 15e12 token", expect="2.1e24 FLOP")
    assert r.ratio == pytest.approx(1 / 3)
    assert keys(r) == ["train_vs_inference"]


def test_factor_1000_prefix_slip():
    r = check("70e9 param * 2 B/param", expect="140 MB")  # 140 GB written as MB
    assert r.ratio == pytest.approx(1e-3)
    assert r.candidates[0].key == "prefix_1000"


def test_factor_24_hours_vs_days():
    # W12: 2.50 USD/GPU-h x 64 GPU x 19.2 day x 24 h/day = 73,728 USD
    r = check("2.5 USD/(GPU*h) * 64 GPU * 19.2 day", expect="3072 USD")
    assert r.value.to("USD").magnitude == pytest.approx(73_728)
    assert keys(r) == ["hours_days"]


def test_factor_3600_seconds_vs_hours():
    # W8: 405e9 x 16 B = 6.48 TB at 100 GB/s = 64.8 s; 64.8 h is 3600x too long
    r = check("405e9 param * 16 B/param / (100 GB/s)", expect="64.8 h")
    assert r.ratio == pytest.approx(3600)
    assert r.candidates[0].key == "seconds_hours"


@pytest.mark.parametrize(
    ("claim", "key"), [("64.8 min", "minutes_hours"), ("64.8 day", "seconds_days")]
)
def test_other_time_factors(claim, key):
    r = check("405e9 param * 16 B/param / (100 GB/s)", expect=claim)
    assert r.candidates[0].key == key


def test_gqa_head_ratio_from_the_model_record():
    # W15: Llama-3-70B 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B/token;
    # using the 64 query heads gives 8x: 2.62 MB/token
    r = check("kv_bytes_per_token", expect="2.62 MB/token", model="llama-3-70b")
    assert r.value.to("B/token").magnitude == pytest.approx(2 * 80 * 8 * 128 * 2)
    assert r.candidates[0].key == "gqa_heads" and r.candidates[0].factor_text == "64/8"
    assert {"gqa_heads", "bits_bytes", "per_node"} <= set(keys(r))  # all 8x candidates shown


def test_gqa_head_ratio_from_given_values():
    r = check("2 * 80 * 8 * 128 * 2 B/token", expect="2.62 MB/token", n_heads=64, n_kv_heads=8)
    assert r.candidates[0].key == "gqa_heads"


def test_ring_factor_from_the_expression():
    # the expression has 2*(8-1)/8 = 1.75; a claim that left it out is 1.75x low
    r = check("2*(8-1)/8 * 141 GB / (450 GB/s)", expect="0.3133 s")
    assert r.candidates[0].key == "ring_8"
    assert r.candidates[0].factor == pytest.approx(1.75)


def test_ring_factor_from_the_context():
    r = check("141 GB / (450 GB/s)", expect="0.548 s", n=8)
    assert r.candidates[0].key == "ring_8" and r.candidates[0].direction == "high"
    r = check("141 GB / (450 GB/s)", expect="0.548 s")  # no ring size known: no ring factor
    assert not any(k.startswith("ring") for k in keys(r))


def test_per_gpu_vs_per_node_with_the_gpu_record():
    # a node of 8 H100 holds 8 x 80 GB = 640 GB; a claim of 80 GB took the per-GPU figure
    r = check("80 GB/GPU * 8 GPU", expect="80 GB", gpu="H100-SXM")
    assert "per_node" in keys(r)


def test_percent_vs_fraction():
    r = check("0.4", expect="40")
    assert keys(r) == ["percent"]


def test_two_slips_at_once():
    # bits read as bytes on a two-way figure: 16x
    r = check("400 Gb/s", expect="800 GB/s")
    assert r.ratio == pytest.approx(16)
    assert r.candidates[0].parts == ("bits_bytes", "two_way")
    assert "8 × 2 → 16" in r.candidates[0].factor_text


def test_no_known_confusion_is_said_so():
    r = check("100 GB", expect="137 GB")
    assert r.status == "disagree" and r.candidates == []
    assert "No known confusion explains this ratio" in r.text


def test_edge_values_of_a_claim():
    assert check("0 GB", expect="0 TB").status == "agree"
    r = check("0 GB", expect="1 GB")
    assert r.status == "disagree" and r.ratio is None and "zero" in r.verdict()
    r = check("1e-300", expect="1e300")  # a ratio beyond a float: no factor, still JSON
    assert r.status == "disagree" and r.candidates == []
    assert json.loads(json.dumps(r.to_dict(), allow_nan=False))["ratio"] is None
    r = check("1 GB", expect="-1 GB")
    assert r.status == "disagree" and "opposite sign" in r.verdict()
    assert check("1 GB", expect="1.04 GB", tolerance="5%").status == "agree"
    assert check("1 GB", expect="1.04 GB", tolerance=0.02).status == "disagree"


def test_candidates_rank_by_prior_and_relevance():
    data = Context(dimensions=frozenset({"[information]"}))
    assert [c.key for c in candidates(8.0, data)] == ["bits_bytes", "per_node"]
    # a slip of one kind of quantity is offered only where a name says it is that kind
    # (issue 47 §3: "K and V?" was offered for an HBM capacity 2x off)
    memory = Context(dimensions=frozenset({"[information]"}), words="optimizer memory")
    assert "weights_vs_state" in [c.key for c in candidates(8.0, memory)]
    assert "kv_pair" not in [c.key for c in candidates(2.0, data)]
    kv = Context(dimensions=frozenset({"[information]"}), words="kv_cache_memory")
    assert "kv_pair" in [c.key for c in candidates(2.0, kv)]
    flops = Context(dimensions=frozenset({"[compute]"}))
    assert [c.key for c in candidates(8.0, flops)] == ["per_node"]  # no bits in a FLOP count
    assert candidates(1.01, data) == []  # inside the tolerance: nothing to explain
    assert candidates(-8.0, data) == [] and candidates(float("nan"), data) == []


# --- comparing quantities of different kinds ------------------------------------------------
def test_claim_of_another_dimension_is_a_disagreement_with_a_fix():
    r = check("6.3e24 FLOP", expect="989 TFLOP/s")
    assert r.status == "disagree" and r.ratio is None
    assert "a FLOP rate" in r.mismatch and "a FLOP count" in r.mismatch
    assert "divide the expression by a time" in r.mismatch
    assert r.candidates[0].key == "count_vs_rate"


def test_per_gpu_and_per_node_units_are_converted():
    r = check("900 GB/(s*GPU)", expect="7.2 TB/(s*node)")
    assert r.candidates[0].key == "per_gpu_vs_per_node" and r.candidates[0].confirmed


def test_a_bare_number_claim_for_a_count():
    r = check("6.3e24 FLOP / (30 day * 989 TFLOP/(s*GPU) * 0.4)", expect="6193")
    # W3: 6.3e24 / (2,592,000 s x 989e12 x 0.4) = 6,143 GPU (W3 uses 6.35e24 for 6,193)
    assert r.value.to("GPU").magnitude == pytest.approx(6143.5, rel=1e-3)
    assert r.status == "agree"
    assert "the claim has no unit: read as 6,193 GPU" in r.notes


# --- reading names --------------------------------------------------------------------------
def test_a_unit_wins_over_a_variable_unless_given():
    # "params" is the plural of the unit param ...
    assert check("70e9 params * 2 B/param").value.to("GB").magnitude == pytest.approx(140)
    # ... unless the user gives params a value: then it is the variable
    r = check("params * 2 B/param", params="70B")
    assert r.value.to("GB").magnitude == pytest.approx(140)
    assert [n.origin for n in r.names if n.name == "params"] == ["given"]


def test_a_unit_shadowing_a_record_value_is_noted():
    r = check("tokens * 2", model="llama-3-70b")  # no record has tokens: no note
    assert not any("read as the unit" in n for n in r.notes)
    r = check("params * 2 B/param", model="llama-3-70b")
    assert r.value.to("B").magnitude == pytest.approx(2)
    assert any("'params' is read as the unit param" in n for n in r.notes)


def test_a_bare_variable_name_is_the_variable():
    r = check("params", model="llama-3-70b")
    assert r.value.to("param").magnitude == pytest.approx(70.6e9)


def test_variables_from_records_and_computed_by_napkinmath():
    # W2: 6.35e24 / (16,384 x 989.5e12 x 0.40) = 9.792e5 s = 11.33 day (W2: 11.34 with 989)
    r = check(
        "train_compute / (n_gpus * peak_flops * mfu)",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu=0.4,
        gpu="H100-SXM",
    )
    assert r.value.to("day").magnitude == pytest.approx(11.34, rel=1e-3)
    assert any(n.startswith("peak_flops = 989.5 TFLOP/(s·GPU) (H100-SXM") for n in r.notes)
    # train_compute computed from params and tokens (6ND) when not given
    r = check("train_compute", params="70B", tokens="15T")
    assert r.value.to("FLOP").magnitude == pytest.approx(6.3e24)
    assert "train_compute" in r.derivations
    assert any("assumption: flop_per_param_token" in n for n in r.notes)


def test_a_variable_without_a_value_says_what_to_give():
    with pytest.raises(nm.ParseError) as err:
        check("train_compute / (1 day)")
    message = str(err.value)
    assert "train_compute (total training compute) has no value here" in message
    assert "give train_compute=" in message
    assert err.value.position == 0


def test_record_values():
    r = check("H100-SXM.hbm_bandwidth / H100-SXM.hbm_capacity")
    assert r.value.to("1/s").magnitude == pytest.approx(3.35e12 / 80e9)
    assert [n.origin for n in r.names] == ["record", "record"]
    with pytest.raises(nm.ParseError) as err:
        check("H100-SXM.hbm_bandwith")
    assert "did you mean hbm_bandwidth or" in str(err.value)
    with pytest.raises(nm.ParseError) as err:
        check("H101.peak_flops")
    assert "unknown hardware 'H101'" in str(err.value)


def test_unknown_names_suggest_units_and_variables():
    with pytest.raises(nm.ParseError) as err:
        check("train_compte / 2")
    assert "did you mean train_compute or" in str(err.value)
    with pytest.raises(nm.ParseError) as err:
        check("80 gb")
    assert "did you mean GB or Gb?" in str(err.value)
    with pytest.raises(nm.ParseError) as err:
        check("80 KB")
    assert "kB (1000 B) or KiB (1024 B)" in str(err.value)
    with pytest.raises(nm.ParseError) as err:
        check("80 mb")
    assert "millibit" in str(err.value) and "MB (megabyte) or Mb (megabit)" in str(err.value)


def test_given_values_are_checked():
    with pytest.raises(nm.InputError) as err:
        check("params * 2 B/param", params="140 GB")
    assert "params" in str(err.value)
    with pytest.raises(nm.InputError):
        check("x * 2", x=True)
    with pytest.raises(nm.InputError):
        check("1 GB", tolerance=2)


def test_a_value_too_long_to_print_is_described_in_the_error():
    with pytest.raises(nm.InputError) as err:
        check("1 GB", tolerance=10**5000)  # repr() refuses integers beyond 4,300 digits
    assert "<an integer of about 5,000 digits>" in str(err.value)
    with pytest.raises(nm.InputError) as err:  # and so does a list holding one
        check("1 GB", tolerance=[10**5000])
    assert "tolerance <a list that cannot be printed>: give a fraction" in str(err.value)


def test_wrong_record_kind():
    with pytest.raises(nm.InputError) as err:
        check("1 GB", gpu="llama-3-70b")
    assert "a model record" in str(err.value)


# --- the grammar: precedence, readings, messages --------------------------------------------
def test_a_number_with_its_unit_is_one_factor():
    spaced = check("140 GB / 400 Gb/s")
    assert spaced.value == check("140 GB / (400 Gb/s)").value  # 2.8 s, not GB²/s
    assert spaced.reading == "140 GB / (400 Gb/s)"
    assert "read as" not in check("140 GB / (400 Gb/s)").text  # nothing to say


def test_fractions_and_number_pairs():
    assert check("1/2 GB").value.to("MB").magnitude == pytest.approx(500)
    with pytest.raises(nm.ParseError) as err:
        check("1 000 000 GB")
    assert "two numbers side by side" in str(err.value)
    with pytest.raises(nm.ParseError) as err:
        check("16,384 GPU")
    assert "without thousands separators (16384, not 16,384)" in str(err.value)
    assert check("1_000_000 token").value.to("token").magnitude == 1e6


def test_functions_and_multiplication_signs():
    assert check("sqrt(2 * 65 s * 3.09 h)").value.to("min").magnitude == pytest.approx(
        (2 * 65 * 3.09 * 3600) ** 0.5 / 60
    )  # W19: Young/Daly interval, about 20 min
    assert check("ceil(6193 GPU / (8 GPU/node))").value.to("node").magnitude == 775  # W3
    assert check("max(1 GB, 900 MB) + min(1 min, 30 s) * 0 GB/s").value.to("GB").magnitude == 1
    assert check("8 x 141 GB").value == check("8 × 141 GB").value
    assert check("100 − 5").value.magnitude == 95  # the typographic minus of documents


def test_flops_spellings_are_explained():
    r = check("989 TFLOPS")
    assert r.value.dimensionality == nm.ureg.Quantity(1, "FLOP/s").dimensionality
    assert any("'TFLOPS' is read as a rate, TFLOP/s" in n for n in r.notes)
    r = check("6 TFLOPs")
    assert any("'TFLOPs' is read as a count" in n for n in r.notes)
    r = check("400 Gbps")
    assert r.value.to("GB/s").magnitude == pytest.approx(50)
    assert any("'Gbps' is read as Gb/s" in n for n in r.notes)


def test_ambiguous_count_suffix_follows_the_claim():
    r = check("7B", expect="7e9")
    assert r.status == "agree" and any("read as a count" in n for n in r.notes)
    r = check("7B", expect="7 byte")
    assert r.status == "agree" and any("read as a unit here" in n for n in r.notes)


def test_result_units_a_person_would_choose():
    cases = {
        "70e9 param * 16 B/param": "1.12 TB",
        "989 TFLOP/(s*GPU) * 16384 GPU": "16.2 EFLOP/s",
        "64 GPU * 19.2 day": "29,491 GPU·h",  # W12 GPU-hours
        "700 W/GPU * 16384 GPU": "11.47 MW",
        "2.5 USD/(GPU*h) * 64 GPU * 19.2 day": "73,728 USD",
        "141 GB / (3.35 TB/s)": "42.09 ms",
        "989 TFLOP/s / (3.35 TB/s)": "295.2 FLOP/B",  # W16 ridge point
    }
    for expression, shown in cases.items():
        assert check(expression).text.split(" = ", 1)[1].startswith(shown), expression


# --- tables of claims -----------------------------------------------------------------------
def test_toml_claims_with_defaults():
    report = check_claims(EXAMPLES / "claims.toml")
    by_id = {row.id: row for row in report.rows}
    assert report.summary["agree"] == 3 and report.summary["disagree"] == 1
    # W12: 58.5 GPUs; W6: MFU 0.345 given as 34.5%; W16: 989/3.35 = 295 FLOP/B
    assert by_id["W12 GPUs for 7B on 1T tokens in 3 weeks"].status == "agree"
    assert by_id["W6 MFU of Llama 3 405B"].status == "agree"
    w8 = by_id["W8 checkpoint write"]
    assert w8.status == "disagree" and w8.result.candidates[0].key == "minutes_hours"


def test_json_claims_with_defaults():
    report = check_claims(EXAMPLES / "claims.json")
    statuses = [(row.id, row.status) for row in report.rows]
    assert statuses == [
        ("kv-per-token", "agree"),
        ("weights-bf16", "agree"),
        ("kv-batch", "disagree"),
    ]
    assert report.rows[2].result.candidates[0].key == "binary_g"  # 85.9 GB = 80 GiB


def test_rows_as_dicts_with_context_and_reasons():
    rows = [
        {"id": "a", "expression": "1 GB", "claimed": "1000 MB"},
        {
            "id": "b",
            "quantity": "train_compute",
            "claimed": 6.3e24,
            "unit": "FLOP",
            "context": "params=70B; tokens=15T",
        },
        {"id": "c", "expression": "2 GB + 1 s", "claimed": "1 GB"},
        {"id": "d", "quantity": "train_compte", "claimed": "1 FLOP"},
        {"id": "e", "expression": "1 GB"},
        {"id": "f", "quantity": "train_time", "claimed": "1 day"},
        {"id": "g", "expression": "400 Gb/s", "claimed": "400 GB/s", "tolerance": "1%"},
    ]
    report = check_claims(rows)
    status = {row.id: row.status for row in report.rows}
    assert status == {
        "a": "agree",
        "b": "agree",
        "c": "unchecked",
        "d": "unchecked",
        "e": "unchecked",
        "f": "unchecked",
        "g": "disagree",
    }
    reasons = report.summary["reasons"]
    assert reasons == {
        "could not read an expression or value": 2,
        "unknown name": 1,
        "bad value": 1,
    }
    by_id = {row.id: row for row in report.rows}
    assert "unknown variable 'train_compte'; did you mean train_compute" in by_id["d"].reason
    assert "no claimed value" in by_id["e"].reason
    assert "train_time" in by_id["f"].reason
    assert report.exit_status() == 1  # a disagreement wins over unchecked rows
    assert "could not be checked (2 could not read" in report.summary_line()
    assert json.loads(report.to_json())["summary"]["disagree"] == 1
    assert "| g |" in report.markdown


def test_csv_errors_are_clear(tmp_path):
    with pytest.raises(nm.InputError) as err:
        check_claims(tmp_path / "missing.csv")
    assert "no such claims file" in str(err.value)
    bad = tmp_path / "bad.csv"
    bad.write_text("expression,value\n16,384 GPU,1\n")
    with pytest.raises(nm.InputError) as err:
        check_claims(bad)
    assert "more cells than the header" in str(err.value)
    header = tmp_path / "header.csv"
    header.write_text("what,ever\n1,2\n")
    with pytest.raises(nm.InputError) as err:
        check_claims(header)
    assert "needs a 'claimed' column" in str(err.value)
    with pytest.raises(nm.InputError):
        check_claims(tmp_path / "claims.xlsx")
    toml = tmp_path / "c.toml"
    toml.write_text("[[claimz]]\nexpression = '1 GB'\n")
    with pytest.raises(nm.InputError) as err:
        check_claims(toml)
    assert "no claims found" in str(err.value)


def test_row_values_win_over_file_defaults_and_call_arguments():
    document = {
        "defaults": {"gpu": "H200-SXM"},
        "claims": [
            {"expression": "peak_flops * 1 GPU", "claimed": "989 TFLOP/s"},
            {"expression": "hbm_capacity * 1 GPU", "claimed": "141 GB"},
            {"expression": "hbm_capacity * 1 GPU", "claimed": "80 GB", "gpu": "H100-SXM"},
        ],
    }
    report = check_claims(document, gpu="A100-SXM-80GB")
    assert [row.status for row in report.rows] == ["agree", "agree", "agree"]


# --- the same parser everywhere -------------------------------------------------------------
def test_solve_reads_record_values_with_the_same_parser():
    r = nm.solve(
        "train_time", params="7B", tokens="1T", n_gpus=64, mfu=0.4, peak_flops="H100-SXM.peak_flops"
    )
    assert r.value.to("day").magnitude == pytest.approx(19.2, rel=1e-3)  # W12
    with pytest.raises(nm.InputError) as err:
        nm.solve(
            "train_time", params="__import__('os')", tokens="1T", n_gpus=64, mfu=0.4, gpu="H100-SXM"
        )
    assert "params" in str(err.value)
