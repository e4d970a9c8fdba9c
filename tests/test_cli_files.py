"""Files in and out on the command line: a claims table of any format on standard input, and
dotted TOML keys keeping their line in errors."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import helpers
import pytest

from napkinmath.checking.claims import sniffed_format
from napkinmath.text.locate import line_of, toml_lines

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


# --- napkin plan: standard input, standard output, JSON ---------------------------------------
PLANS = helpers.example_plans()


def test_a_plan_from_stdin_answers_as_the_file_does(napkin, monkeypatch):
    path = EXAMPLES / "startup-7b.toml"
    _, from_file, _ = napkin("plan", str(path))
    _stdin(monkeypatch, path.read_text())
    status, from_stdin, err = napkin("plan", "-")
    assert status == 0, err
    assert from_stdin == from_file


def test_a_json_plan_from_stdin_and_its_errors_name_stdin_and_the_line(napkin, monkeypatch):
    _stdin(
        monkeypatch,
        '{"title": "j",\n "sections": [{"title": "a", "ask": ["train_compute"],\n'
        ' "givens": {"params": "7B", "tokens": "1T"}}]}\n',
    )
    status, out, err = napkin("plan", "-", "--format", "markdown")
    assert status == 0, err
    assert out.startswith("# j")
    assert "4.2" in out  # 6 × 7e9 × 1e12 = 4.2e22 FLOP
    _stdin(monkeypatch, 'title = "x"\n[[sections]]\ntitle = "a"\nask = ["n_gpus"]\nmfu = 2\n')
    status, _, err = napkin("plan", "-")
    assert status == 2 and err.startswith("napkin: <stdin>, line 5, key sections[0].mfu")


def test_dash_o_dash_writes_the_report_to_stdout_in_the_format_asked(napkin):
    plan = str(EXAMPLES / "startup-7b.toml")
    _, text, _ = napkin("plan", plan)
    status, dashed, _ = napkin("plan", plan, "-o", "-")
    assert status == 0 and dashed == text
    status, html, _ = napkin("plan", plan, "-o", "-", "--format", "html")
    assert status == 0 and html.lstrip().lower().startswith("<!doctype html")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--format", "pdf"], "a PDF is not written to standard output: use -o plan.pdf"),
        (["--format", "json", "-o", "x.json"], "the suffix of OUT picks a file's format"),
    ],
)
def test_formats_that_cannot_go_to_stdout_are_refused_before_any_work(napkin, args, says):
    status, _, err = napkin("plan", str(EXAMPLES / "startup-7b.toml"), *args)
    assert status == 2 and says in err


@pytest.mark.parametrize("path", PLANS, ids=[p.name for p in PLANS])
def test_a_plans_json_and_each_of_its_parts_validate_against_their_schemas(napkin, path):
    import json

    from test_conventions_packaging import _validator

    status, out, err = napkin("plan", str(path), "--format", "json")
    assert status in (0, 1), err
    data = json.loads(out)
    errors = sorted(_validator("plan").iter_errors(data), key=str)
    assert not errors, errors[0]
    parts = [
        *(s["answer"] for s in data["sections"]),
        *(s["table"] for s in data["sweeps"]),
        *(c["comparison"] for c in data["comparisons"]),
        *(o["optimum"] for o in data["optimizations"]),
    ]
    for part in parts:
        kind = part["schema"].removeprefix("napkinmath-").removesuffix("/1")
        errors = sorted(_validator(kind).iter_errors(part), key=str)
        assert not errors, (kind, errors[0])


# --- the library as JSON: formulas, vars, hardware, graph -----------------------------------
@pytest.mark.parametrize(
    ("kind", "args"),
    [
        ("formulas", ["formulas"]),
        ("formulas", ["formulas", "fleet"]),
        ("variables", ["vars"]),
        ("variables", ["vars", "qps"]),
        ("records", ["hardware"]),
        ("records", ["hardware", "--kind", "link"]),
        ("record", ["hardware", "H100-SXM"]),
        ("graph", ["graph", "mfu"]),
        ("graph", ["graph"]),
    ],
)
def test_listings_as_json_validate_and_are_sorted(napkin, kind, args):
    import json

    from test_conventions_packaging import _validator

    status, out, err = napkin(*args, "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    assert data["schema"] == f"napkinmath-{kind}/1"
    errors = sorted(_validator(kind).iter_errors(data), key=str)
    assert not errors, errors[0]
    rows = data.get(kind, data.get("values", data.get("formulas")))
    key = {"formulas": lambda r: (r["subject"], r["name"]), "records": lambda r: r["id"]}.get(
        kind, lambda r: r.get("name", r.get("key"))
    )
    assert rows and rows == sorted(rows, key=key)
    _, again, _ = napkin(*args, "--format", "json")
    assert again == out  # same bytes every run


def test_listings_json_holds_what_the_text_says(napkin):
    import json

    from napkinmath.catalog.lookup import formulas, variables

    mfu = next(
        v for v in json.loads(napkin("vars", "--format", "json")[1])["variables"]
        if v["name"] == "mfu"
    )  # fmt: skip
    assert mfu["bounds"] == {
        "low": 0.0, "high": 1.0, "low_inclusive": False, "high_inclusive": True, "text": "(0, 1]"
    }  # fmt: skip
    listed = json.loads(napkin("formulas", "--format", "json")[1])["formulas"]
    assert sorted(f["name"] for f in listed) == sorted(formulas())
    assert len(json.loads(napkin("vars", "--format", "json")[1])["variables"]) == len(variables())
    h100 = json.loads(napkin("hardware", "H100-SXM", "--format", "json")[1])
    peak = next(v for v in h100["values"] if v["key"] == "peak_flops")
    assert peak["value"] == pytest.approx(989.5) and peak["unit"] == "TFLOP/(s*GPU)"
    assert "H100" in h100["aliases"] and peak["source"]
    graph = json.loads(napkin("graph", "mfu", "--format", "json")[1])
    fleet = next(f for f in graph["formulas"] if f["name"] == "fleet_equation")
    assert "mfu" in fleet["variables"] and set(fleet["variables"]) <= set(graph["variables"])


def test_a_listing_that_finds_nothing_is_a_json_error(napkin):
    import json

    status, out, _ = napkin("vars", "zzzq", "--format", "json")
    assert status == 2 and json.loads(out)["schema"] == "napkinmath-error/1"
