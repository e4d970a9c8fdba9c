"""Which input is the odd one out (nm.reconcile, the InconsistentError, `napkin solve
--explain`), and what a claim would require (`napkin check` with no known slip)."""

from __future__ import annotations

import json

import pytest

import napkinmath as nm

LLAMA = dict(
    params="405B",
    tokens="15.6T",
    n_gpus=16384,
    train_time="54 days",
    gpu_hours="30.84e6 GPU*h",
    gpu="H100",
)
LLAMA_TERMS = [
    "mfu",
    "params=405B",
    "tokens=15.6T",
    "n_gpus=16384",
    "train_time=54 days",
    "gpu_hours=30.84e6 GPU*h",
    "--gpu",
    "H100",
]


def _value(alt, unit: str) -> float:
    return float(alt.result[alt.name].to(unit).magnitude)


# --- 1. which input is the odd one out -----------------------------------------------------
def test_405b_alternatives_by_hand():
    r = nm.reconcile("mfu", **LLAMA)
    assert not r.consistent
    assert sorted(r.group) == ["gpu_hours", "n_gpus", "train_time"]
    alts = r.alternatives
    # by hand: gpu_hours = n_gpus × train_time; train_time = gpu_hours / n_gpus; ...
    assert _value(alts["gpu_hours"], "GPU*hour") == pytest.approx(16384 * 54 * 24)  # 21.23M
    assert _value(alts["train_time"], "day") == pytest.approx(30.84e6 / 16384 / 24)  # 78.43
    assert _value(alts["n_gpus"], "GPU") == pytest.approx(30.84e6 / (54 * 24))  # 23,796
    assert alts["gpu_hours"].ratio == pytest.approx(30.84e6 / (16384 * 54 * 24))  # 1.452
    # MFU each alternative implies: 6·N·D / (GPU-seconds × 989.5 TFLOP/s dense BF16)
    flop = 6 * 405e9 * 15.6e12
    mfu_time = float(alts["train_time"].result["mfu"].to("").magnitude)
    mfu_hours = float(alts["gpu_hours"].result["mfu"].to("").magnitude)
    assert mfu_time == pytest.approx(flop / (30.84e6 * 3600 * 989.5e12), rel=1e-3)  # 34.5%
    assert mfu_hours == pytest.approx(flop / (16384 * 54 * 86400 * 989.5e12), rel=1e-3)
    assert r.odd_one_out is not None and r.odd_one_out.name == "train_time"
    assert next(iter(alts)) == "train_time"
    assert alts["n_gpus"].verdict in ("unusual", "implausible")
    assert any("whole nodes of 8" in f.reason for f in alts["n_gpus"].findings)
    assert any("mfu" in f.reason and "30–50%" in f.reason for f in alts["gpu_hours"].findings)
    # renderings
    text = str(r)
    assert "78.43 day" in text and "23,796 GPU" in text and "21.23M GPU·h" in text
    assert "Fleet equation" in text  # each alternative's derivation
    md = r.to_markdown()
    assert "| 1 | train_time |" in md
    d = json.loads(json.dumps(r.to_dict()))
    assert d["odd_one_out"] == "train_time" and len(d["alternatives"]) == 3


def test_405b_error_names_the_odd_one_out():
    with pytest.raises(nm.InconsistentError) as info:
        nm.solve("mfu", **LLAMA)
    message = str(info.value)
    assert (
        "31.1% apart" in message
        and "The givens behind it: gpu_hours, n_gpus, train_time" in message
    )
    assert "Most likely the odd one out: train_time" in message
    assert "78.43 day" in message and "not whole nodes of 8" in message
    assert info.value.groups == [["gpu_hours", "n_gpus", "train_time"]]


def test_405b_cli_explain(napkin):
    status, out, err = napkin("solve", *LLAMA_TERMS)
    assert status == 2 and out == ""
    assert "Most likely the odd one out: train_time" in err
    status, out, err = napkin("solve", *LLAMA_TERMS, "--explain")
    assert status == 2
    assert "Each given solved from the others" in out
    assert out.index("1  train_time") < out.index("2  gpu_hours") < out.index("3  n_gpus")
    assert "78.43 day" in out and "Derivation:" in out
    status, out, _ = napkin("solve", *LLAMA_TERMS, "--explain", "--format", "json")
    assert json.loads(out)["error"]["reconciliation"]["odd_one_out"] == "train_time"


def test_bits_bytes_bandwidth_is_named():
    """140 GB over 400 Gb/s (50 GB/s) takes 2.8 s; the bandwidth typed as 400 GB/s is 8×."""
    r = nm.reconcile(transfer_size="140 GB", transfer_time="2.8 s", transfer_bandwidth="400 GB/s")
    best = r.odd_one_out
    assert best is not None and best.name == "transfer_bandwidth"
    assert best.ratio == pytest.approx(8.0)
    assert best.slip is not None and best.slip.key == "bits_bytes"
    assert _value(best, "GB/s") == pytest.approx(140 / 2.8)
    with pytest.raises(
        nm.InconsistentError, match=r"odd one out.*transfer_bandwidth.*bits vs bytes"
    ):
        nm.solve(  # a target that takes no part: the givens are checked all the same
            "checkpoint_copy_time",
            checkpoint_size="1 GB",
            inter_site_bandwidth="1 GB/s",
            transfer_size="140 GB",
            transfer_time="2.8 s",
            transfer_bandwidth="400 GB/s",
        )


def test_gib_gb_slip():
    """70B params × 2 B = 140 GB; 130.4 GB is 140 GB written as GiB (140e9 / 1.024³)."""
    r = nm.reconcile(
        params_total="70B", weight_bytes_per_param="2 B/param", weight_memory="130.4 GB"
    )
    best = r.odd_one_out
    assert best is not None and best.name == "weight_memory"
    assert best.slip is not None and best.slip.key == "binary_g"
    assert _value(best, "GB") == pytest.approx(140.0)
    assert best.ratio == pytest.approx(130.4 / 140)


def test_no_slip_explains_it():
    r = nm.reconcile(transfer_size="80 GB", transfer_time="3 s", transfer_bandwidth="20 GB/s")
    assert r.odd_one_out is None
    assert all(a.slip is None for a in r.alternatives.values())
    assert "No given stands out" in r.summary()
    with pytest.raises(nm.InconsistentError, match="No given stands out as the odd one out"):
        nm.solve(
            "checkpoint_copy_time",
            checkpoint_size="1 GB",
            inter_site_bandwidth="1 GB/s",
            transfer_size="80 GB",
            transfer_time="3 s",
            transfer_bandwidth="20 GB/s",
        )
    values = {n: a.value_text() for n, a in r.alternatives.items()}
    assert values == {
        "transfer_bandwidth": "26.67 GB/s",
        "transfer_size": "60 GB",
        "transfer_time": "4 s",
    }


def test_consistent_and_errors():
    r = nm.reconcile("mfu", params="7B", tokens="1T", n_gpus=64, train_time="30 days", gpu="H100")
    assert r.consistent and not r.alternatives and r.odd_one_out is None
    assert "agree" in str(r)
    with pytest.raises(nm.UnknownNameError):
        nm.reconcile(n_gpuz=8)
    with pytest.raises(nm.InputError):
        nm.reconcile("mfu", tolerance=2.0, n_gpus=8)


def test_ranking_failure_keeps_the_message(monkeypatch):
    from napkinmath.checking import reconcile

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(reconcile, "rank", broken)
    with pytest.raises(nm.InconsistentError) as info:
        nm.solve("mfu", **LLAMA)
    assert "odd one out" not in str(info.value)
    assert str(info.value).endswith("(or pass a larger tolerance).")


# --- 2. what a claim would require ---------------------------------------------------------
def test_expression_requirements():
    r = nm.check("2 * 70e9 param * 2 byte/param / H100.hbm_bandwidth", expect="25 ms")
    assert r.status == "disagree" and not r.candidates
    by_name = {q.name: q for q in r.requirements}
    # a plain product: each factor scaled by the ratio (or its inverse for the divisor)
    ratio = 0.025 / (2 * 70e9 * 2 / 3.35e12)
    assert by_name["2 byte/param"].factor == pytest.approx(ratio)
    assert by_name["H100.hbm_bandwidth"].factor == pytest.approx(1 / ratio)
    assert by_name["H100.hbm_bandwidth"].verdict == "impossible"  # above every record's (B200)
    assert "above every record's hbm_bandwidth" in by_name["H100.hbm_bandwidth"].text()
    assert "4.8-bit quantisation" in by_name["2 byte/param"].text()
    assert by_name["2"].verdict == "implausible"  # a whole number as written
    assert r.requirements[0].name == "2 byte/param"
    assert "What the claim would require" in r.text and "What the claim would require" in r.markdown
    assert r.to_dict()["requirements"][0]["input"] == "2 byte/param"


def test_solved_variable_requirements(napkin):
    args = dict(gpu="H100", model="llama-3-8b", batch_size=1, seq_len=2048, n_gpus=1)
    r = nm.check("decode_speed", expect="400 token/(s*sequence)", **args)
    by_name = {q.name: q for q in r.requirements}
    assert "speculative decoding" in by_name["tokens_per_step"].text()
    assert by_name["tokens_per_step"].factor == pytest.approx(by_name["hbm_bandwidth"].factor)
    assert by_name["hbm_bandwidth"].verdict == "implausible"  # the record's datasheet value
    assert by_name["weight_bytes_per_param"].factor == pytest.approx(0.5048, rel=1e-3)
    terms = [
        "decode_speed",
        *(f"{k}={v}" for k, v in args.items()),
        "--expect",
        "400 token/(s*sequence)",
    ]
    status, out, _ = napkin("check", *terms)
    assert status == 1 and "tokens_per_step = 1.95 token/sequence" in out
    assert "from the claim:" not in out
    status, out, _ = napkin("check", *terms, "--explain")
    assert status == 1 and "tokens_per_step from the claim:" in out and "Derivation:" in out


def test_agree_and_known_slip_unchanged():
    agree = nm.check("70e9 param * 16 byte/param", expect="1.12 TB")
    assert agree.status == "agree" and not agree.requirements
    slip = nm.check("140 GB / (400 Gb/s)", expect="0.35 s")
    assert slip.candidates and not slip.requirements
    assert "What the claim would require" not in slip.text
    assert "requirements" not in slip.to_dict()


def test_requirements_are_bounded(monkeypatch):
    from napkinmath.checking import requires

    monkeypatch.setattr(requires, "MAX_REQUIRE_WORK", 0)  # spent at once: no list, no error
    r = nm.check("140 GB / (25 GB/s)", expect="3.1 s")
    assert r.status == "disagree" and r.requirements == []
    assert "No known confusion explains this ratio" in r.text
    monkeypatch.setattr(requires, "MAX_REQUIRE_WORK", 12_000)
    r = nm.check("140 GB / (25 GB/s)", expect="3.1 s")
    assert [q.factor for q in r.requirements] == pytest.approx([3.1 / 5.6, 5.6 / 3.1])


def test_claims_table_lists_requirements(tmp_path):
    table = tmp_path / "claims.csv"
    table.write_text("id,expression,claimed,unit\nslow link,140 GB / (25 GB/s),3.1,s\n")
    report = nm.check_claims(str(table))
    assert report.exit_status() == 1
    assert "What the claim would require" in report.text
    assert report.to_dict()["rows"][0]["check"]["requirements"][0]["factor"] == pytest.approx(
        3.1 / 5.6
    )


def test_claims_table_quantity_row_solves_each_input(napkin, tmp_path):
    """A vendor's decode speed for Llama 3 8B on one H100: 400 tokens/s per sequence needs
    1.95 tokens per step (speculative decoding), or 8-bit weights, or another card."""
    table = tmp_path / "vendor.csv"
    table.write_text(
        "id,quantity,claimed,unit,gpu,model,batch_size,seq_len,n_gpus\n"
        "vendor decode,decode_speed,400,token/(s*sequence),H100,llama-3-8b,1,2048,1\n"
    )
    status, out, _ = napkin("check", str(table))
    assert status == 1
    assert "tokens_per_step = 1.95 token/sequence" in out
    assert "speculative decoding" in out and "FP8/INT8 weights" in out
