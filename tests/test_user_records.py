"""The user's own records (issue 14): `records=` / `--records FILE` in solve, check, compare and
sweep; a private GPU and a negotiated price; bad files with errors naming the file and line.

Hand calculations (7B parameters, 1T tokens, 64 GPUs, MFU 0.4): 6 · 7e9 · 1e12 = 4.2e22 FLOP.
Private GPU at 1,200 TFLOP/s: 4.2e22 / (64 · 1.2e15 · 0.4) = 1.367e6 s = 379.8 h, at 3.10 USD
per GPU-hour 64 · 379.8 · 3.10 = 75,347 USD. H100 (989.5 TFLOP/s) at the negotiated 1.85 USD:
4.2e22 / (64 · 989.5e12 · 0.4) s = 460.6 h, 64 · 460.6 · 1.85 = 54,531 USD.
"""

from __future__ import annotations

import textwrap

import pytest
from helpers import write

import napkinmath as nm
from napkinmath.hardware import get, scope

TRAIN = dict(params="7B", tokens="1T", n_gpus=64, mfu=0.4)
COMPUTE = 6 * 7e9 * 1e12

OURS = """\
# our negotiated price for the shipped H100 record
[H100-SXM.price_per_gpu_hour]
value = "1.85 USD/(GPU*hour)"
source = "ACME Cloud contract 2026-114"
date = "2026-10"

[our-gpu]
name = "Private accelerator X1"
kind = "accelerator"
aliases = ["X1"]
source = "vendor datasheet under NDA"
date = "2026-09"

[our-gpu.peak_flops]
value = "1200 TFLOP/(s*GPU)"

[our-gpu.hbm_bandwidth]
value = "6 TB/(s*GPU)"

[our-gpu.price_per_gpu_hour]
value = "3.10 USD/(GPU*hour)"
source = "vendor quote Q-7781"
date = "2026-11"
"""


@pytest.fixture
def ours(tmp_path):
    path = tmp_path / "ours.toml"
    path.write_text(OURS)
    return path


def records_file(tmp_path, text, name="bad.toml"):
    """The path (as text) of a records file holding `text`, dedented."""
    return str(write(tmp_path, name, textwrap.dedent(text)))


def hours(peak):
    return COMPUTE / (64 * peak * 0.4) / 3600


def test_private_gpu(ours):
    r = nm.solve("train_cost", gpu="our-gpu", records=str(ours), **TRAIN)
    assert r.value.to("USD").magnitude == pytest.approx(64 * hours(1200e12) * 3.10)  # 75,347
    assert "75,347 USD" in str(r)
    note = r.givens["peak_flops"].note
    assert note.startswith("our-gpu: vendor datasheet under NDA (2026-09, your record ")
    assert note.endswith("ours.toml:14)")
    assert nm.solve("peak_flops", gpu="X1", records=[str(ours)]).value.magnitude == 1200


def test_negotiated_price_overrides_only_that_value(ours):
    r = nm.solve("train_cost", gpu="H100", records=str(ours), **TRAIN)
    assert r.value.to("USD").magnitude == pytest.approx(64 * hours(989.5e12) * 1.85)  # 54,531
    assert (
        "ACME Cloud contract 2026-114 (2026-10, your record" in r.givens["price_per_gpu_hour"].note
    )
    assert r.givens["price_per_gpu_hour"].origin == "record"  # no longer the assumption
    # the values the file does not restate keep the shipped source
    assert "your record" not in r.givens["peak_flops"].note
    assert "NVIDIA H100 Tensor Core GPU datasheet" in r.givens["peak_flops"].note


def test_records_apply_only_inside_the_call(ours):
    nm.solve("train_cost", gpu="H100", records=str(ours), **TRAIN)
    assert scope() is None
    assert get("H100").values["price_per_gpu_hour"].text == "2.50 USD/(GPU*hour)"
    with pytest.raises(nm.UnknownNameError, match="our-gpu"):
        nm.solve("train_cost", gpu="our-gpu", **TRAIN)


def test_a_record_value_named_in_a_given_follows_the_records(ours, tmp_path):
    derated = records_file(
        tmp_path,
        """\
        [H100-SXM.peak_flops]
        value = "500 TFLOP/(s*GPU)"
        source = "derated"
        date = "2026"
        """,
        "derated.toml",
    )
    plain = dict(TRAIN, peak_flops="H100-SXM.peak_flops")
    before = nm.solve("train_time", **plain).value.to("s").magnitude
    inside = nm.solve("train_time", records=derated, **plain).value.to("s").magnitude
    after = nm.solve("train_time", **plain).value.to("s").magnitude
    assert before == after == pytest.approx(hours(989.5e12) * 3600)
    assert inside == pytest.approx(hours(500e12) * 3600)


def test_a_later_file_wins(ours, tmp_path):
    later = records_file(
        tmp_path,
        """\
        [our-gpu.price_per_gpu_hour]
        value = "2.00 USD/(GPU*hour)"
        source = "renegotiated"
        date = "2026-12"
        """,
        "later.toml",
    )
    r = nm.solve("price_per_gpu_hour", gpu="our-gpu", records=[str(ours), later])
    assert r.value.magnitude == pytest.approx(2.0)


def test_cli_solve_check_compare_sweep(napkin, ours):
    status, out, _ = napkin(
        "solve",
        "train_cost",
        "params=7B",
        "tokens=1T",
        "n_gpus=64",
        "mfu=0.4",
        "--gpu",
        "our-gpu",
        "--records",
        str(ours),
    )
    assert status == 0 and out.startswith("train_cost = 75,347 USD") and "your record" in out
    status, out, _ = napkin(
        "check",
        "H100-SXM.price_per_gpu_hour * 1000 GPU*hour",
        "--expect",
        "1850 USD",
        "--records",
        str(ours),
    )
    assert status == 0 and "AGREE" in out
    status, out, _ = napkin(
        "check",
        "peak_flops * 2 GPU",
        "--expect",
        "2400 TFLOP/s",
        "--gpu",
        "our-gpu",
        "--records",
        str(ours),
    )
    assert status == 0, out
    status, out, _ = napkin(
        "compare",
        "train_cost",
        "params=7B",
        "tokens=1T",
        "n_gpus=64",
        "mfu=0.4",
        "--gpu",
        "our-gpu,H100",
        "--records",
        str(ours),
    )
    assert status == 0
    assert out.index("H100") < out.index("our-gpu")  # 54,531 < 75,347 USD
    assert "ACME Cloud contract 2026-114 (2026-10, your record" in out
    status, out, _ = napkin(
        "sweep",
        "train_time",
        "n_gpus=32,64",
        "params=7B",
        "tokens=1T",
        "mfu=0.4",
        "--gpu",
        "our-gpu",
        "--records",
        str(ours),
        "--format",
        "csv",
    )
    assert status == 0, out
    last = out.strip().splitlines()[-1].split(",")
    assert float(last[-1]) == pytest.approx(hours(1200e12) / 24, rel=1e-3)
    status, out, _ = napkin("hardware", "our-gpu", "--records", str(ours))
    assert status == 0 and "vendor quote Q-7781" in out
    status, out, _ = napkin("hardware", "--records", str(ours))
    listed = {line.split()[0]: line for line in out.splitlines()}
    assert listed["our-gpu"].endswith("ours.toml:7)")
    assert "your record" in listed["H100-SXM"] and "your record" not in listed["MI300X"]


def test_python_compare_and_sweep_take_records(ours):
    c = nm.compare("train_cost", gpu=["our-gpu", "H100"], records=str(ours), **TRAIN)
    assert c.ranking[0] == "H100"
    t = nm.sweep(
        "train_time",
        over={"n_gpus": [32, 64]},
        gpu="our-gpu",
        records=str(ours),
        params="7B",
        tokens="1T",
        mfu=0.4,
    )
    assert len(t.to_pandas()) == 2


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            """\
     [x1]
     kind = "accelerator"
     source = "s"
     date = "2026"

     [x1.peak_flop]
     value = "1 PFLOP/(s*GPU)"
     """,
            ["bad.toml, line 6", "'peak_flop' is no library variable", "did you mean peak_flops"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"

     [x1.hbm_bandwidth]
     value = "6 TB/s/GPU/GPU"
     """,
            ["bad.toml, line 5", "x1.hbm_bandwidth", "did you mean 6 TB/(s·GPU)"],
        ),
        (
            """\
     [x1.hbm_bandwidth]
     value = "6 TB/(s*GPU)"
     date = "2026"
     """,
            ["bad.toml, line 1", "needs value, source and date"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"
     colour = "red"
     """,
            ["bad.toml, line 4", "unknown fields ['colour']"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"

     [x1.tdp]
     value = "700 W/GPU"
     sauce = "typo"
     """,
            ["bad.toml, line 5", "unknown fields ['sauce']"],
        ),
        (
            """\
     [x1]
     source = "s
     """,
            ["bad.toml: not valid TOML", "line 2"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"

     [x1.tdp]
     value = "700 furlongs"
     """,
            ["bad.toml, line 5", "unknown unit"],
        ),
        (
            """\
     [H100]
     kind = "model"
     source = "s"
     date = "2026"
     """,
            ["bad.toml, line 1", "names the accelerator record H100-SXM"],
        ),
        (
            """\
     [x1]
     aliases = ["MI300X"]
     source = "s"
     date = "2026"
     """,
            ["bad.toml, line 1", "already names the record MI300X"],
        ),
    ],
)
def test_bad_files_name_the_file_and_line(tmp_path, text, words):
    path = records_file(tmp_path, text)
    with pytest.raises(nm.InputError) as err:
        nm.solve("peak_flops", gpu="H100", records=path)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_missing_file_and_bad_argument(tmp_path):
    with pytest.raises(nm.InputError, match="No such file"):
        nm.solve("peak_flops", gpu="H100", records=str(tmp_path / "nowhere.toml"))
    with pytest.raises(nm.InputError, match="expected the path of a TOML records file"):
        nm.solve("peak_flops", gpu="H100", records=3)


def test_cli_bad_file_is_a_clear_error(napkin, tmp_path):
    path = records_file(
        tmp_path,
        """\
        [x1]
        source = "s"
        date = "2026"

        [x1.hbm_bandwidth]
        value = "6 TB/s/GPU/GPU"
        """,
    )
    status, out, err = napkin("solve", "hbm_bandwidth", "--gpu", "x1", "--records", path)
    assert status == 2 and out == ""
    assert err.startswith("napkin: ") and "bad.toml, line 5" in err
    assert "Traceback" not in err


def test_python_check_and_claims_take_records(ours):
    r = nm.check("peak_flops * 2 GPU", expect="2400 TFLOP/s", gpu="our-gpu", records=str(ours))
    assert r.status == "agree"
    report = nm.check_claims(
        [{"expression": "H100-SXM.price_per_gpu_hour * 100 GPU*hour", "claimed": "185 USD"}],
        records=str(ours),
    )
    assert report.summary["agree"] == 1
    with pytest.raises(nm.NapkinError):
        nm.check("peak_flops * 2 GPU", expect="2400 TFLOP/s", gpu="our-gpu")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # an array of tables with a nested table (issue 20: AttributeError, exit 3)
        (
            """\
     # our accelerator
     [[accelerator]]
     name = "X1"
     source = "s"
     date = "2026"

     [accelerator.peak_flops]
     value = "1 PFLOP/(s*GPU)"
     """,
            [
                "bad.toml, line 2",
                "[[accelerator]] is an array of tables",
                "a record is one table named by its id",
            ],
        ),
        ("x1 = 5\n", ["bad.toml, line 1", "x1 is a number outside any table"]),
        (
            """\
     [x1]
     source = "s"
     date = "2026"
     aliases = "X1"
     """,
            ["bad.toml, line 4", "x1.aliases: expected an array of names", "got text"],
        ),
        (
            """\
     [x1]
     name = 3
     source = "s"
     date = "2026"
     """,
            ["bad.toml, line 2", "x1.name: expected text, got a number"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"
     peak_flops = "1 PFLOP/(s*GPU)"
     """,
            ["bad.toml, line 4", "unknown fields ['peak_flops']", "[x1.peak_flops] with value"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"

     [x1.peak_flops]
     value = true
     """,
            ["bad.toml, line 5", "x1.peak_flops.value: expected a value with its unit"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"

     [x1.peak_flops]
     value = "1 PFLOP/(s*GPU)"
     source = { by = "me" }
     """,
            ["bad.toml, line 5", "x1.peak_flops.source: expected text, got a table"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"

     [x1.peak_flops]
     value = "1 PFLOP/(s*GPU)"
     alternatives = "2 PFLOP/s"
     """,
            ["bad.toml, line 5", "x1.peak_flops.alternatives: expected a table"],
        ),
        (
            """\
     [x1]
     source = "s"
     date = "2026"

     [[x1.peak_flops]]
     value = "1 PFLOP/(s*GPU)"
     """,
            ["bad.toml, line 5", "peak_flops here is an array of tables"],
        ),
    ],
)
def test_malformed_files_are_errors_with_the_file_line_and_shape(napkin, tmp_path, text, words):
    path = records_file(tmp_path, text)
    with pytest.raises(nm.InputError) as err:
        nm.solve("peak_flops", gpu="H100", records=path)
    for word in words:
        assert word in str(err.value), (word, str(err.value))
    for command in (["solve", "peak_flops", "--gpu", "x1"], ["hardware"]):
        status, out, err_text = napkin(*command, "--records", path)
        assert status == 2 and out == "" and "Traceback" not in err_text
        assert err_text.startswith("napkin: ") and words[0] in err_text


def test_a_records_file_is_read_only_if_regular_utf8_and_bounded(napkin, tmp_path, monkeypatch):
    import os

    from napkinmath.hardware import user

    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    status, _, err = napkin("hardware", "--records", str(fifo))  # returns: never blocks
    assert status == 2 and "not a regular file (a FIFO" in err
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[x1]\nname = "Caf\xe9"\n')
    status, _, err = napkin("hardware", "--records", str(latin))
    assert status == 2 and "not UTF-8 text" in err
    monkeypatch.setattr(user, "MAX_FILE_BYTES", 100)
    big = records_file(tmp_path, "# padding\n" * 20, "big.toml")
    status, _, err = napkin("hardware", "--records", big)
    assert status == 2 and "larger than 100 bytes" in err


def test_a_sweep_asked_again_with_records_follows_them(ours):
    # the sweep's first point is kept by the question and the records in force
    asked = dict(over={"n_gpus": [32, 64]}, gpu="H100-SXM", params="7B", tokens="1T", mfu=0.4)
    shipped = nm.sweep("train_cost", **asked)
    with_ours = nm.sweep("train_cost", records=str(ours), **asked)
    assert str(nm.sweep("train_cost", **asked)) == str(shipped) != str(with_ours)
