"""Files in and out on the command line: a claims table of any format on standard input, and
dotted TOML keys keeping their line in errors."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from napkinmath.checking.claims import sniffed_format
from napkinmath.scenario.locate import line_of, toml_lines

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _stdin(monkeypatch, text: str) -> None:
    stream = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stream)


@pytest.mark.parametrize("name", ["claims.json", "claims.toml", "claims.csv"])
def test_a_claims_table_on_stdin_is_read_as_its_own_format(napkin, monkeypatch, name):
    path = EXAMPLES / name
    status, from_file, _ = napkin("check", str(path))
    _stdin(monkeypatch, path.read_text())
    status_in, from_stdin, err = napkin("check", "-")
    assert status_in == status, err
    assert "needs a 'claimed' column" not in err
    # the same verdicts; only the name of the input differs in the summary line
    assert from_stdin.replace("input:", f"{name}:", 1) == from_file


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ('{"claims": []}', "json"),
        ('  \n[{"quantity": "n_gpus"}]', "json"),
        ("[defaults]\ngpu = 'H100'\n[[claims]]\nquantity = 'mfu'\n", "toml"),
        ("# a comment\n[[claims]]\nquantity = 'mfu'\n", "toml"),
        ("claims = [{quantity = 'mfu', claimed = '40%'}]\n", "toml"),
        ("quantity,claimed\nmfu,40%\n", "csv"),
        ("quantity\tclaimed\nmfu\t40%\n", "tsv"),
    ],
)
def test_the_format_of_a_stream_is_told_by_its_content(text, fmt):
    assert sniffed_format(text) == fmt


def test_input_format_still_overrules_the_content(napkin, monkeypatch):
    _stdin(monkeypatch, (EXAMPLES / "claims.json").read_text())
    status, _, err = napkin("check", "-", "--input-format", "csv")
    assert status == 2 and "needs a 'claimed' column" in err


# --- dotted TOML keys -----------------------------------------------------------------------
def test_dotted_keys_are_found_on_their_line():
    text = (
        "[plan]\n"  # 1
        'title = "x"\n'  # 2
        'givens.params = "7B"\n'  # 3
        "givens . tokens = '1T'\n"  # 4
        'site."us-east".pue = 1.2\n'  # 5
        "inline = { a.b = 1, c = 2 }\n"  # 6
    )
    lines = toml_lines(text)
    assert lines[("plan", "givens", "params")] == 3
    assert lines[("plan", "givens", "tokens")] == 4
    assert lines[("plan", "givens")] == 3  # the table a dotted key makes starts there
    assert lines[("plan", "site", "us-east", "pue")] == 5
    assert lines[("plan", "inline", "a", "b")] == 6
    assert lines[("plan", "inline", "c")] == 6
    assert line_of(lines, ("plan", "givens", "params", 0)) == 3


def test_a_bad_value_under_a_dotted_key_names_its_line(napkin, tmp_path):
    plan = tmp_path / "dotted.toml"
    plan.write_text(
        'title = "dotted"\n'
        "\n"
        "[[sections]]\n"
        'title = "Compute"\n'
        'ask = ["train_compute"]\n'
        'givens.params = "7B"\n'
        'givens.tokens = "1T FLOP"\n'
    )
    status, _, err = napkin("plan", str(plan))
    assert status == 2
    assert "line 7" in err and "tokens" in err, err
