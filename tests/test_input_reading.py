"""Forgiving input, read visibly (issue 11): a per-count rate or size given without its
count, count shorthands with a note where people mean binary, common spellings, record
values named by key, and the mistakes that stay errors."""

import json

import pytest

import napkinmath as nm
from napkinmath.hardware import get

FLEET = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4)


def test_a_rate_without_per_gpu_is_read_per_gpu_and_says_so(napkin):
    r = nm.solve("n_gpus", peak_flops="989 TFLOP/s", **FLEET)
    # 6 x 7e9 x 1e12 FLOP / (0.4 x 989e12 FLOP/s per GPU x 21 x 86,400 s) = 58.51 GPU
    assert r.value.magnitude == pytest.approx(4.2e22 / (0.4 * 989e12 * 21 * 86400))
    given = r.givens["peak_flops"]
    assert given.reading == "989 TFLOP/s, read as per GPU" and given.origin == "given"
    assert str(given.quantity.units) == "teraFLOP / GPU / second"
    args = [
        "solve",
        "n_gpus",
        "peak_flops=989 TFLOP/s",
        "params=7B",
        "tokens=1T",
        "train_time=3 weeks",
        "mfu=0.4",
    ]
    status, out, _ = napkin(*args)
    assert status == 0
    assert "peak_flops           = 989 TFLOP/(s·GPU)   (you: 989 TFLOP/s, read as per GPU)" in out
    _, out, _ = napkin(*args, "--format", "markdown")
    assert "| `peak_flops` | 989 TFLOP/(s·GPU) | you: 989 TFLOP/s, read as per GPU |" in out
    _, out, _ = napkin(*args, "--format", "json")
    givens = {g["name"]: g for g in json.loads(out)["givens"]}
    assert givens["peak_flops"]["reading"] == "989 TFLOP/s, read as per GPU"
    assert givens["mfu"]["reading"] is None


def test_a_size_per_gpu_and_a_length_per_sequence():
    r = nm.solve("n_gpus_for_state", training_state_memory="1120 GB", hbm_capacity="80 GB")
    assert r.value.to("GPU").magnitude == pytest.approx(1120 / 80)  # 14 GPU
    assert r.givens["hbm_capacity"].reading == "80 GB, read as per GPU"
    r = nm.solve("global_batch_tokens", global_batch=512, seq_len="8192 token")
    assert r.value.to("token").magnitude == pytest.approx(512 * 8192)
    assert r.givens["seq_len"].reading == "8192 token, read as per sequence"
    plain = nm.solve("global_batch_tokens", global_batch=512, seq_len=8192)
    assert plain.value == r.value and plain.givens["seq_len"].reading == ""


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("peak_flops", "989 TFLOP", "did you mean 989 TFLOP/(s·GPU)?"),  # the time is missing
        ("peak_flops", "989 TFLOP/s/node", "expected TFLOP/(s·GPU)"),  # per node is not per GPU
        ("hbm_capacity", "80 GB/s", "expected GB/GPU"),
        ("seq_len", "8192 sequence", "expected token/sequence"),
        ("peak_flops", "989 TFLOP*GPU/s", "expected TFLOP/(s·GPU)"),  # GPU on the wrong side
        ("mfu", "0.4 GPU", "expected a plain number"),  # a count too many is no missing count
    ],
)
def test_other_mismatches_stay_errors(name, value, words):
    givens = {**FLEET, "n_gpus": 64} if name == "peak_flops" else {}
    target = "train_time" if name == "peak_flops" else "kv_cache_memory"
    if name == "peak_flops":
        givens.pop("train_time")
    with pytest.raises(
        nm.InputError, match=words.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")
    ):
        nm.solve(target, **{name: value}, **givens)


def test_binary_minded_count_shorthands_carry_a_note(napkin):
    r = nm.solve("global_batch_tokens", global_batch=512, seq_len="8k")
    assert r.value.to("token").magnitude == 512 * 8000
    assert r.givens["seq_len"].reading == "8k read as 8,000; write 8Ki for 8,192"
    r = nm.solve("global_batch_tokens", global_batch=512, seq_len="8Ki")
    assert r.value.to("token").magnitude == 512 * 8192 and r.givens["seq_len"].reading == ""
    r = nm.solve("global_batch_tokens", global_batch=512, seq_len="128k token")
    assert r.givens["seq_len"].reading == (
        "128k token, read as per sequence; 128k read as 128,000; write 128Ki for 131,072"
    )
    status, out, _ = napkin(
        "solve", "train_time", "train_compute=6.35e24FLOP", "n_gpus=16k", "mfu=0.4", "--gpu", "H100"
    )
    assert status == 0
    assert "n_gpus        = 16,000 GPU   (you: 16k read as 16,000; write 16Ki for 16,384)" in out
    # no note where nobody means binary: parameters, a non-power of two, a plain 1k
    for name, value in (("params", "8k"), ("n_gpus", "3k"), ("n_gpus", "1k")):
        given = nm.solve(
            "train_compute" if name == "params" else "gpu_hours",
            **(
                {name: value, "tokens": "1T"}
                if name == "params"
                else {name: value, "train_time": "1 h"}
            ),
        ).givens[name]
        assert given.reading == ""


def test_binary_count_suffixes():
    r = nm.solve("train_compute", params="2Mi", tokens="1Gi")
    assert r.value.to("FLOP").magnitude == pytest.approx(6 * 2**21 * 2**30)
    r = nm.solve("train_compute", params="70G", tokens="1T")
    assert r.value.to("FLOP").magnitude == pytest.approx(6 * 70e9 * 1e12)


def test_common_spellings():
    r = nm.solve("train_cost", gpu_hours="1000 GPU-hours", price_per_gpu_hour="$2/h")
    assert r.value.to("USD").magnitude == pytest.approx(2000)
    assert r.givens["price_per_gpu_hour"].reading == "$2/h, read as per GPU"
    for hours, price in (
        ("1000 GPUh", "2 USD/GPU-hour"),
        ("1000 GPU_hours", "2 USD/GPUh"),
        ("1000 GPU*h", "2 USD/(GPU*h)"),
        ("41.667 GPU-days", "$2/GPU-h"),
    ):
        r = nm.solve("train_cost", gpu_hours=hours, price_per_gpu_hour=price)
        assert r.value.to("USD").magnitude == pytest.approx(2000, rel=1e-4)
        assert all(g.reading == "" for g in r.givens.values())
    r = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus="16384 count",
        mfu="40 percent",
        peak_flops="989 TFLOP/(s*GPU)",
    )
    assert r.value.to("s").magnitude == pytest.approx(6.35e24 / (16384 * 0.4 * 989e12))
    assert nm.check("$11.06M / (100 GPU-hours)", expect="110.6 kUSD/(GPU*h)").status == "agree"
    assert nm.check("50 percent * 8 GPU").value.magnitude == 4


@pytest.mark.parametrize(
    ("name", "value", "words", "not_words"),
    [
        ("params", "70 G", "70G (= 70,000,000,000, a count)", "did you mean g"),
        ("n_gpus", "16 k", "16k (= 16,000, a count)", ""),
        ("seq_len", "8 Ki", "8Ki (= 8,192, a count)", ""),
        ("weight_memory", "70G", "did you mean '70 GB' (G as a prefix", ""),
        ("hbm_bandwidth", "3T", "did you mean '3 TB/(s*GPU)'", ""),
        ("price_per_gpu_hour", "$ 2/h", "with '$' before a number: $2.5/h", ""),
    ],
)
def test_spelling_mistakes_get_the_right_suggestion(name, value, words, not_words):
    with pytest.raises(nm.InputError) as err:
        nm.solve("gpu_hours" if name != "gpu_hours" else "train_cost", **{name: value})
    assert words in str(err.value)
    if not_words:
        assert not_words not in str(err.value)


def test_a_record_value_by_key(napkin):
    fp8 = get("H100-SXM").values["peak_flops_fp8"].quantity.to("FLOP/(s*GPU)").magnitude
    for value, options in (("peak_flops_fp8", ["--gpu", "H100"]), ("H100-SXM.peak_flops_fp8", [])):
        status, out, _ = napkin(
            "solve",
            "train_time",
            "train_compute=6.35e24FLOP",
            "n_gpus=16384",
            "mfu=0.4",
            f"peak_flops={value}",
            *options,
        )
        assert status == 0 and "(you: the H100-SXM record's peak_flops_fp8, dense FP8" in out
        days = 6.35e24 / (16384 * 0.4 * fp8) / 86400  # 5.667 days
        assert out.startswith(f"train_time = {days:.3f} day")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ([], "peak_flops_fp8 is a value of hardware records (MI300X"),
        (
            ["--gpu", "H100"],
            "the H100-SXM record has no value 'peak_flops_fp9': did you mean peak_flops_fp8",
        ),
    ],
)
def test_a_record_key_that_cannot_be_read(napkin, options, words):
    key = "peak_flops_fp9" if options else "peak_flops_fp8"
    status, out, err = napkin(
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.4",
        f"peak_flops={key}",
        *options,
    )
    assert (status, out) == (2, "") and words in err


def test_sweeps_and_comparisons_show_the_readings_too(napkin):
    table = nm.sweep(
        "train_time",
        n_gpus="1k..4k:log:3",
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        peak_flops="989 TFLOP/s",
    )
    assert "peak_flops: 989 TFLOP/s, read as per GPU" in table.notes
    days = table.to_pandas()["train_time [day]"].tolist()
    assert days[0] == pytest.approx(6.35e24 / (1000 * 0.4 * 989e12) / 86400)
    status, out, _ = napkin(
        "compare",
        "train_time",
        "--gpu",
        "H100-SXM,H200",
        "train_compute=6.35e24FLOP",
        "n_gpus=8k",
        "mfu=0.4",
    )
    assert status == 0 and "Read: n_gpus: 8k read as 8,000; write 8Ki for 8,192" in out


def test_check_reads_givens_as_solve_does(napkin):
    r = nm.check("n_gpus * peak_flops", n_gpus=8, peak_flops="989 TFLOP/s")
    assert r.value.to("FLOP/s").magnitude == pytest.approx(8 * 989e12)
    assert "peak_flops: 989 TFLOP/s, read as per GPU" in r.notes
    with pytest.raises(nm.InputError, match="expected TFLOP/"):
        nm.check("n_gpus * peak_flops", n_gpus=8, peak_flops="989 TFLOP")
