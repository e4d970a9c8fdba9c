"""A team's project file (issue 48 §2): napkin.toml, or [tool.napkin] in pyproject.toml, found
from the working folder upwards; a command-line option or a gpu=/model= term overrides it;
`napkin --show-config` says which file applied; a malformed file is an error naming the file
and the line.

Hand calculations: 7B parameters, 1T tokens, 64 GPUs at MFU 0.4: 4.2e22 FLOP. On the team's
private X1 at 1,200 TFLOP/s: 4.2e22 / (64 · 1.2e15 · 0.4) s = 379.8 h; on H100 (989.5
TFLOP/s): 460.6 h.
"""

from __future__ import annotations

from pathlib import Path

import pytest

RECORDS = """\
[team-x1]
name = "The team's X1 accelerator"
kind = "accelerator"
aliases = ["X1"]
source = "the vendor's sheet, 2026-09"
peak_flops = { value = "1200 TFLOP/(s*GPU)", source = "the vendor's sheet", date = "2026-09" }
"""
#: the formulas file the README's example uses
FORMULAS = (Path(__file__).resolve().parent.parent / "examples" / "ours.toml").read_text()
TRAIN = ["train_time:h", "params=7B", "tokens=1T", "n_gpus=64", "mfu=0.4"]


@pytest.fixture
def team(tmp_path, monkeypatch) -> Path:
    """A repository whose napkin.toml names its records, formulas and GPU; the working
    folder two levels below it."""
    monkeypatch.delenv("NAPKIN_NO_PROJECT", raising=False)
    (tmp_path / "hw").mkdir()
    (tmp_path / "hw" / "ours.toml").write_text(RECORDS)
    (tmp_path / "formulas.toml").write_text(FORMULAS)
    (tmp_path / "napkin.toml").write_text(
        '# the team\'s settings\nrecords = ["hw/ours.toml"]\nformulas = "formulas.toml"\n'
        'gpu = "X1"\ntolerance = 0.05\n'
    )
    below = tmp_path / "docs" / "design"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)
    return tmp_path


def hours(out: str) -> float:
    return float(out.splitlines()[0].split("=")[1].split()[0].replace(",", ""))


def test_the_project_file_applies_from_a_subfolder(napkin, team):
    status, out, err = napkin("solve", *TRAIN)
    assert status == 0, err
    assert hours(out) == pytest.approx(4.2e22 / (64 * 1.2e15 * 0.4) / 3600, rel=1e-3)
    assert "team-x1" in out
    status, out, _ = napkin("solve", "dataloader_wait", "stall_share=0.1", "step_time=5 s")
    assert status == 0 and "dataloader_wait = 500 ms" in out  # the team's formula


def test_an_option_or_a_term_overrides_the_file(napkin, team):
    h100 = 4.2e22 / (64 * 989.5e12 * 0.4) / 3600
    assert hours(napkin("solve", *TRAIN, "--gpu", "H100-SXM")[1]) == pytest.approx(h100, rel=1e-3)
    assert hours(napkin("solve", *TRAIN, "gpu=H100-SXM")[1]) == pytest.approx(h100, rel=1e-3)


def test_show_config_says_which_file_applied(napkin, team, capsys):
    with pytest.raises(SystemExit) as done:
        napkin("--show-config")
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert f"project file: {team / 'napkin.toml'}" in out
    assert str(team / "hw" / "ours.toml") in out and "gpu = 'X1'" in out


def test_pyproject_tool_napkin_and_a_pyproject_without_it(napkin, tmp_path, monkeypatch):
    monkeypatch.delenv("NAPKIN_NO_PROJECT", raising=False)
    (tmp_path / "pyproject.toml").write_text('[tool.napkin]\ngpu = "H100-SXM"\n')
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.napkin]
    monkeypatch.chdir(inner)
    status, out, _ = napkin("solve", *TRAIN)
    assert status == 0
    assert hours(out) == pytest.approx(4.2e22 / (64 * 989.5e12 * 0.4) / 3600, rel=1e-3)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('gpu = "H100-SXM"\ncolour = "blue"\n', "napkin.toml, line 2: unknown setting 'colour'"),
        ("gpu = 3\n", "napkin.toml, line 1: gpu = 3: expected a record's name"),
        ("tolerance = 2\n", "napkin.toml, line 1: tolerance = 2: expected a fraction"),
        ('gpu = "H100\n', "not valid TOML"),
    ],
)
def test_a_malformed_file_names_the_file_and_line(napkin, tmp_path, monkeypatch, text, said):
    monkeypatch.delenv("NAPKIN_NO_PROJECT", raising=False)
    (tmp_path / "napkin.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    status, _, err = napkin("solve", *TRAIN)
    assert status == 2
    assert said in err and "Traceback" not in err
    assert "line 1" in err or "line 2" in err


def test_no_project_file_leaves_everything_as_it_was(napkin, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        napkin("--show-config")
    assert "no project file applies" in capsys.readouterr().out
    status, _, err = napkin("solve", *TRAIN)
    assert status == 2 and "peak_flops" in err  # no GPU: the peak is asked for
