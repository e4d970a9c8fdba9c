"""The command line as users type it (issue 11): chosen units (TARGET:UNIT, --unit, check
--to and 'EXPR -> UNIT'), targets and givens in any order, --version, python -m napkinmath,
shell completion."""

import subprocess
import sys
from importlib.metadata import version

import pytest

import napkinmath as nm
from napkinmath.hardware import get

TRAIN = ["params=7B", "tokens=1T", "n_gpus=64", "mfu=0.4", "--gpu", "H100-SXM"]


def _peak() -> float:
    return get("H100-SXM").values["peak_flops"].quantity.to("FLOP/(s*GPU)").magnitude


def _hours() -> float:
    return 6 * 7e9 * 1e12 / (64 * _peak() * 0.4) / 3600  # 6ND over the fleet's FLOP/s


def test_a_target_in_a_chosen_unit(napkin):
    status, out, _ = napkin("solve", "train_time:h", *TRAIN)
    assert status == 0
    assert out.startswith(f"train_time = {_hours():.1f} h\n")  # 460.6 h
    assert f"= {_hours():.1f} h" in out.split("Derivation:")[1]
    same = napkin("solve", "train_time", "--unit", "train_time=h", *TRAIN)
    assert same == (0, out, "")


def test_chosen_units_for_two_targets_and_in_json(napkin):
    status, out, _ = napkin(
        "solve",
        "train_time:day",
        "train_cost",
        "--unit",
        "train_cost=kUSD",
        *TRAIN,
        "--format",
        "json",
    )
    assert status == 0
    import json

    data = json.loads(out)
    gpu_hours = _hours() * 64
    assert data["targets"]["train_time"]["unit"] == "day"
    assert data["targets"]["train_time"]["value"] == pytest.approx(_hours() / 24)
    assert data["targets"]["train_cost"]["unit"] == "kUSD"
    assert data["targets"]["train_cost"]["value"] == pytest.approx(gpu_hours * 2.5 / 1000)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["train_time:GB"], "train_time is in day, not GB"),
        (["train_time:furlong"], "unknown unit 'furlong'"),
        (["train_time:"], "write a target with its unit as NAME:UNIT"),
        (["train_time", "--unit", "train_time"], "write NAME=UNIT"),
        (["train_time:h", "--unit", "train_time=day"], "two units chosen (h and day)"),
        (["train_time", "--unit", "n_gpus=GPU"], "'n_gpus' is not a target"),
    ],
)
def test_wrong_chosen_units_are_errors(napkin, args, needle):
    status, out, err = napkin("solve", *args, *TRAIN)
    assert (status, out) == (2, "") and needle in err and "Traceback" not in err


def test_chosen_units_are_for_single_answers(napkin):
    status, _, err = napkin(
        "solve",
        "train_time:h",
        "params=7B",
        "tokens=1T",
        "n_gpus=64",
        "mfu=0.3..0.5",
        "--gpu",
        "H100-SXM",
    )
    assert status == 2 and "units= applies to single answers" in err
    status, _, err = napkin(
        "sweep",
        "train_time:h",
        "n_gpus=1k..4k:log:3",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
    )
    assert status == 2 and "napkin solve train_time:h" in err


def test_check_to_a_unit(napkin):
    # 70e9 params x 2 B = 1.4e11 B = 1.4e11 / 2^30 GiB = 130.385 GiB
    status, out, _ = napkin("check", "70e9 param * 2 B/param", "--to", "GiB")
    assert status == 0 and out.startswith("70e9 param * 2 B/param = 130.4 GiB")
    assert nm.check("70e9 param * 2 B/param", to="GiB").value.magnitude == pytest.approx(
        1.4e11 / 2**30
    )
    # 140 GB / 50 GB/s = 2.8 s = 2,800 ms, written as Numbat and rink write it
    status, out, _ = napkin("check", "140 GB / (400 Gb/s) -> ms")
    assert status == 0 and out.startswith("140 GB / (400 Gb/s) = 2,800 ms")
    status, out, _ = napkin("check", "140 GB / (400 Gb/s) → ms", "--expect", "0.35 s")
    assert status == 1 and "= 2,800 ms" in out and "bits vs bytes" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["140 GB / (400 Gb/s) -> GiB"],
            "cannot show the value in GiB: the expression is a time [time], but GiB is a data size",
        ),
        (["140 GB", "--to", "s"], "the expression is a data size"),
        (["140 GB -> 3 MB"], "give the unit alone (MB), without a number"),
        (["140 GB -> MB -> GB"], "write one conversion"),
        (["140 GB -> MB", "--to", "GB"], "give the unit once"),
        (["140 GB -> furlong"], "unknown unit 'furlong'"),
    ],
)
def test_check_to_a_wrong_unit_is_an_error(napkin, args, needle):
    status, out, err = napkin("check", *args)
    assert (status, out) == (2, "") and needle in err


def test_targets_and_givens_in_any_order(napkin):
    canonical = napkin(
        "solve",
        "n_gpus",
        "params=7B",
        "tokens=1T",
        "train_time=3 weeks",
        "mfu=0.4",
        "--gpu",
        "H100-SXM",
    )
    mixed = napkin(
        "solve",
        "params=7B",
        "n_gpus",
        "tokens=1T",
        "--gpu",
        "H100-SXM",
        "train_time=3 weeks",
        "mfu=0.4",
    )
    assert canonical[0] == 0 and mixed == canonical
    # 4.2e22 FLOP / (0.4 x 989.5 TFLOP/s x 21 days) = 58.48 GPU
    gpus = 4.2e22 / (0.4 * _peak() * 21 * 86400)
    assert canonical[1].startswith(f"n_gpus = {gpus:.2f} GPU")


def test_version_from_the_package_metadata(capsys):
    from napkinmath.cli.main import main

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"napkin {version('napkinmath')}\n"


def test_version_and_python_dash_m(tmp_path):
    expected = f"napkin {version('napkinmath')}\n"
    run = subprocess.run(
        [sys.executable, "-m", "napkinmath", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert (run.returncode, run.stdout) == (0, expected)
    run = subprocess.run(
        [sys.executable, "-m", "napkinmath", "check", "2 GB -> MB"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0 and run.stdout.startswith("2 GB = 2,000 MB")


def test_shell_completion(napkin, monkeypatch):
    pytest.importorskip("shtab", reason="shtab not installed: pip install 'napkinmath[completion]'")
    status, out, _ = napkin("completion", "bash")
    assert status == 0 and "napkin" in out and "solve" in out and "--unit" in out
    monkeypatch.setitem(sys.modules, "shtab", None)  # as if it were not installed
    status, out, err = napkin("completion", "bash")
    assert (status, out) == (2, "") and "pip install 'napkinmath[completion]'" in err


def test_a_fraction_in_percent_and_units_with_spaces(napkin):
    # C = 6 x 405e9 x 15.6e12 = 3.791e25 FLOP over 30.84e6 GPU-hours at the H100's peak
    mfu = 6 * 405e9 * 15.6e12 / (30.84e6 * 3600 * _peak())
    for target in ("mfu:%", "mfu:percent"):
        status, out, _ = napkin(
            "solve",
            target,
            "params=405B",
            "tokens=15.6T",
            "gpu_hours=30.84e6 GPU*h",
            "--gpu",
            "H100",
        )
        assert status == 0 and out.startswith(f"mfu = {100 * mfu:.2f}%\n")  # 34.51%
    status, out, _ = napkin("solve", "train_time : h, train_cost:USD/ (1)", *TRAIN)
    assert status == 0 and out.startswith(f"train_time = {_hours():.1f} h\ntrain_cost = ")
    status, _, err = napkin("solve", "train_time:3 h", *TRAIN)
    assert status == 2 and "give the unit alone (h), without a number" in err


def test_the_python_check_takes_the_arrow_too():
    r = nm.check("140 GB / (400 Gb/s) -> ms", expect="0.35 s")
    assert r.value.units == nm.ureg.ms and r.value.magnitude == pytest.approx(2800)
    assert r.status == "disagree" and r.expression == "140 GB / (400 Gb/s)"
    with pytest.raises(nm.InputError, match="give the unit once"):
        nm.check("140 GB -> MB", to="GB")
