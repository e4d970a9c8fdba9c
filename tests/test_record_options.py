"""Records named on the command line (issue 20, section 0): gpu=, model= and precision=
written as givens read exactly as --gpu, --model and --precision (the spelling the claims
CSV's context column teaches); --gpu and --model repeated bind records of different kinds
together (an accelerator and a storage tier), and two of one kind are an error naming both.

Hand calculations: 6 · 7e9 · 1e12 = 4.2e22 FLOP in 21 days at MFU 0.4 on 989.5 TFLOP/s
(H100-SXM, dense BF16) is 4.2e22 / (0.4 · 989.5e12 · 1,814,400 s) = 58.48 GPU; at FP8
(1,979 TFLOP/s) half that, 29.24 GPU. A 70B checkpoint at 16 B/param is 1.12 TB, restored
from a 100 GB/s filesystem (Parallel-FS-100GBs) in 11.2 s.
"""

import json

import pytest

import napkinmath as nm

W12 = ["n_gpus", "params=7B", "tokens=1T", "train_time=3 weeks", "mfu=0.4"]
RESTORE = [
    "checkpoint_restore_time",
    "n_gpus",
    "params=70B",
    "tokens=1T",
    "train_time=3 weeks",
    "mfu=0.4",
]


def test_gpu_written_as_a_given_is_the_gpu_option(napkin):
    status, out, err = napkin("solve", *W12, "gpu=H100")
    assert status == 0, err
    assert out.startswith("n_gpus = 58.48 GPU")
    assert napkin("solve", *W12, "--gpu", "H100")[1] == out  # the same bytes either way


def test_model_and_precision_written_as_givens(napkin):
    status, out, err = napkin("solve", "kv_bytes_per_token", "model=llama-3-70b")
    assert status == 0, err
    # 2 (K and V) x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 B per token
    assert out.startswith("kv_bytes_per_token = 327,680 B/token")
    status, out, err = napkin("solve", *W12, "gpu=H100", "precision=fp8")
    assert status == 0, err
    assert out.startswith("n_gpus = 29.24 GPU")


def test_records_as_givens_in_sweep_compare_and_check(napkin):
    status, out, err = napkin(
        "sweep",
        "train_time",
        "n_gpus=1k..4k:log:3",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "gpu=H100",
    )
    assert status == 0, err
    assert "(H100)" in out
    status, out, err = napkin(
        "compare",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=1024",
        "mfu=0.4",
        "gpu=H100,MI300X",
    )
    assert status == 0, err
    assert "MI300X" in out and "H100" in out
    status, out, err = napkin(
        "check", "kv_bytes_per_token", "model=llama-3-70b", "--expect", "327.68 kB/token"
    )
    assert status == 0, err
    assert "AGREE" in out


def test_the_claims_table_with_a_record_given_on_the_command_line(napkin):
    status, out, err = napkin("check", "examples/claims.csv", "gpu=H100")
    assert status == 1 and "internal error" not in err  # the file's slips disagree, as ever
    assert "11 rows read: 11 checked" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["solve", *W12, "gpu=H100", "--gpu", "MI300X"],
            ["--gpu MI300X and gpu=H100 are both accelerator records", "napkin compare"],
        ),
        (
            ["solve", "kv_bytes_per_token", "model=llama-3-70b", "--model", "llama-3-8b"],
            ["both model records (llama-3-8b, llama-3-70b)"],
        ),
        (
            ["solve", *W12, "--gpu", "H100", "precision=fp8", "--precision", "bf16"],
            ["--precision bf16 and precision=fp8: two precisions"],
        ),
        (["solve", *W12, "--gpu", "H100", "precision=fp9"], ["precision=fp9: expected one of"]),
        (["solve", *W12, "gpu="], ["gpu=: name a record"]),
        (["solve", *W12, "gpu=H100,MI300X"], ["to rank several use napkin compare"]),
        (
            [
                "sweep",
                "train_time",
                "n_gpus=1k..4k:log:3",
                "train_compute=6.35e24FLOP",
                "mfu=0.4",
                "gpu=H100",
                "--gpu",
                "MI300X",
            ],
            ["napkin sweep takes one --gpu"],
        ),
        (
            ["check", "kv_bytes_per_token", "model=llama-3-70b", "--model", "gpt-3-175b"],
            ["both model records"],
        ),
    ],
)
def test_records_given_twice_that_disagree_are_an_error(napkin, args, words):
    status, out, err = napkin(*args)
    assert status == 2 and out == "" and "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


def test_the_same_record_given_both_ways_is_one_record(napkin):
    status, out, err = napkin("solve", *W12, "gpu=H100", "--gpu", "H100-SXM")
    assert status == 0, err
    assert out.startswith("n_gpus = 58.48 GPU")


def test_an_accelerator_and_a_storage_tier_bind_together(napkin):
    status, out, err = napkin("solve", *RESTORE, "--gpu", "H100", "--gpu", "Parallel-FS-100GBs")
    assert status == 0, err
    assert "checkpoint_restore_time = 11.2 s" in out and "n_gpus = 584.8 GPU" in out
    assert "Parallel-FS-100GBs" in out and "H100-SXM" in out
    # in either order, and written as a given
    assert napkin("solve", *RESTORE, "gpu=Parallel-FS-100GBs", "--gpu", "H100")[1] == out
    status, out, err = napkin(
        "check",
        "checkpoint_size / storage_bandwidth",
        "params=70B",
        "--gpu",
        "H100",
        "--gpu",
        "Parallel-FS-100GBs",
        "--expect",
        "11.2 s",
    )
    assert status == 0, err
    assert "AGREE" in out


def test_several_records_in_python():
    both = nm.solve(
        ["checkpoint_restore_time", "n_gpus"],
        params="70B",
        tokens="1T",
        train_time="3 weeks",
        mfu=0.4,
        gpu=["H100", "Parallel-FS-100GBs"],
    )
    assert both["checkpoint_restore_time"].to("s").magnitude == pytest.approx(11.2)
    assert both.givens["storage_bandwidth"].note.startswith("Parallel-FS-100GBs")
    assert both.givens["peak_flops"].note.startswith("H100-SXM")
    ranged = nm.solve(
        "checkpoint_restore_time",
        params="70B",
        mfu="0.3..0.5",
        tokens="1T",
        gpu=("Parallel-FS-100GBs", "H100"),
        ranges=True,
    )
    assert ranged.value.high.to("s").magnitude == pytest.approx(11.2)
    fp8 = nm.solve(
        "n_gpus",
        params="7B",
        tokens="1T",
        train_time="3 weeks",
        mfu=0.4,
        precision="fp8",
        gpu=["Parallel-FS-100GBs", "H100"],
    )
    assert fp8.value.magnitude == pytest.approx(58.484 / 2, rel=1e-3)  # the accelerator's FP8
    with pytest.raises(nm.InputError, match=r"both accelerator records \(H100-SXM, MI300X\)"):
        nm.solve(
            "n_gpus",
            params="7B",
            tokens="1T",
            train_time="3 weeks",
            mfu=0.4,
            gpu=["H100", "MI300X"],
        )
    with pytest.raises(nm.InputError, match="names llama-3-8b, a model record"):
        nm.solve(
            "n_gpus",
            params="7B",
            tokens="1T",
            train_time="3 weeks",
            mfu=0.4,
            gpu=["H100", "llama-3-8b"],
        )


def test_two_records_that_state_the_same_value_are_an_error(tmp_path):
    ours = tmp_path / "ours.toml"
    ours.write_text(
        '[fast-fs]\nkind = "storage"\nsource = "s"\ndate = "2026"\n\n'
        '[fast-fs.storage_bandwidth]\nvalue = "1 TB/s"\n\n'
        '[fast-fs.price_per_gpu_hour]\nvalue = "1 USD/(GPU*hour)"\n'
    )
    ask = dict(params="7B", tokens="1T", n_gpus=64, mfu=0.4)
    with pytest.raises(nm.InputError, match="H100-SXM and fast-fs both state price_per_gpu_hour"):
        nm.solve("train_cost", gpu=["H100", "fast-fs"], records=str(ours), **ask)
    # the user's own value settles it
    r = nm.solve(
        "train_cost",
        gpu=["H100", "fast-fs"],
        records=str(ours),
        price_per_gpu_hour="2 USD/(GPU*hour)",
        **ask,
    )
    assert r.value.magnitude > 0


def test_json_errors_for_records_given_twice(napkin):
    status, out, _ = napkin("solve", *W12, "gpu=H100", "--gpu", "MI300X", "--format", "json")
    assert status == 2
    assert json.loads(out)["error"]["message"].startswith("--gpu MI300X and gpu=H100")


def test_precision_in_sweep_and_compare_either_way(napkin):
    # 6.35e24 FLOP on 1,000 H100 at MFU 0.4: 185.7 days at BF16, half at FP8 (1,979 TFLOP/s)
    sweep = [
        "sweep",
        "train_time",
        "n_gpus=1000,2000",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
    ]
    status, written, err = napkin(*sweep, "precision=fp8")
    assert status == 0, err
    assert "92.84" in written and "185.7" not in written
    assert napkin(*sweep, "--precision", "fp8")[1] == written
    table = nm.sweep(
        "train_time",
        over={"n_gpus": [1000]},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
        precision="fp8",
    )
    assert table["train_time"][0] == pytest.approx(6.35e24 / (1000 * 1979e12 * 0.4) / 86400)
    status, out, err = napkin(
        "compare",
        "train_time",
        "--gpu",
        "H100,B200",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "n_gpus=1024",
        "--precision",
        "fp8",
    )
    assert status == 0, err
    assert (
        napkin(
            "compare",
            "train_time",
            "--gpu",
            "H100,B200",
            "train_compute=6.35e24FLOP",
            "mfu=0.4",
            "n_gpus=1024",
            "precision=fp8",
        )[1]
        == out
    )
    status, _, err = napkin(*sweep, "precision=fp9")
    assert status == 2 and "expected one of bf16" in err
