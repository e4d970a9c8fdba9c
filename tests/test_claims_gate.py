"""A claims table is a CI gate that cannot be fooled (issue 21, section 5).

Each test is a reproduction: a key given twice (the last value would win), a second list of
claims (the first would be dropped), a misspelt column (taken as an unused value), a row
hidden by '#', a quoted line break or a blank line, and cells that are not text or numbers.
Every one is an error, or a row that is counted and listed with its line; the exit status is
never 0 while a row goes unchecked. Run through `napkin check FILE` and `nm.check_claims`.
"""

import json

import pytest
from helpers import write

import napkinmath as nm
from napkinmath.checking import budget
from napkinmath.checking.columns import closest, near_miss
from napkinmath.checking.strict_json import layout


# --- keys given twice ------------------------------------------------------------------------
def test_a_claimed_key_given_twice_in_json_is_an_error_naming_line_claim_and_key(tmp_path, napkin):
    path = write(
        tmp_path,
        "dup.json",
        '{"claims": [\n'
        '  {"id": "ok", "expression": "1 GB", "claimed": "1 GB"},\n'
        '  {"id": "a", "expression": "1 GB",\n'
        '   "claimed": "5 GB",\n'
        '   "claimed": "1 GB"}\n]}\n',
    )
    status, out, err = napkin("check", str(path))
    assert status == 2 and out == ""  # it used to pass on the last value
    assert (
        "line 5 (claim 2): the key 'claimed' is given twice in one object, first at line 4" in err
    )
    with pytest.raises(nm.InputError, match="'claimed' is given twice"):
        nm.check_claims(path)


def test_keys_given_twice_anywhere_in_a_json_document_are_errors(tmp_path):
    for text, key in (
        ('{"defaults": {"gpu": "H100-SXM", "gpu": "A100"}, "claims": []}', "gpu"),
        ('[{"expression": "1 GB", "claimed": "1 GB", "context": {"n": 1, "n": 2}}]', "n"),
        ('{"defaults": {}, "defaults": {}, "claims": []}', "defaults"),
        # the same key spelt with an escape is still the same key
        ('[{"expression": "1 GB", "claimed": "1 GB", "\\u0063laimed": "2 GB"}]', "claimed"),
    ):
        path = write(tmp_path, "k.json", text)
        with pytest.raises(nm.InputError, match=f"the key '{key}' is given twice"):
            nm.check_claims(path)


def test_a_second_claims_list_cannot_drop_the_first(tmp_path, napkin):
    path = write(
        tmp_path,
        "two.json",
        '{"claims": [{"id": "bad", "expression": "1 GB", "claimed": "5 GB"}],\n'
        ' "claims": [{"id": "ok", "expression": "1 GB", "claimed": "1 GB"}]}',
    )
    status, out, err = napkin("check", str(path))
    assert status == 2 and out == ""  # it used to check only "ok", and pass
    assert "line 2: the key 'claims' is given twice" in err
    assert "a second list of claims would replace the first and drop its rows" in err
    both = write(
        tmp_path,
        "both.json",
        '{"claims": [{"expression": "1 GB", "claimed": "1 GB"}],'
        ' "claim": [{"expression": "1 GB", "claimed": "5 GB"}]}',
    )
    status, _, err = napkin("check", str(both))
    assert status == 2 and "both as 'claims' and as 'claim'" in err
    toml = write(
        tmp_path,
        "both.toml",
        '[[claims]]\nexpression = "1 GB"\nclaimed = "1 GB"\n'
        '[[claim]]\nexpression = "1 GB"\nclaimed = "5 GB"\n',
    )
    status, _, err = napkin("check", str(toml))
    assert status == 2 and "both as 'claims' and as 'claim'" in err
    with pytest.raises(nm.InputError, match="both as 'claims' and as 'claim'"):
        nm.check_claims(
            {
                "claims": [{"expression": "1 GB", "claimed": "1 GB"}],
                "claim": [{"expression": "1 GB", "claimed": "5 GB"}],
            }
        )


def test_toml_refuses_keys_given_twice(tmp_path, napkin):
    for text in (
        '[[claims]]\nexpression = "1 GB"\nclaimed = "5 GB"\nclaimed = "1 GB"\n',
        '[defaults]\ngpu = "A100"\n[defaults]\ngpu = "H100-SXM"\n'
        '[[claims]]\nexpression = "1 GB"\nclaimed = "1 GB"\n',
        'claims = [{expression = "1 GB", claimed = "1 GB"}]\n'
        '[[claims]]\nexpression = "1 GB"\nclaimed = "5 GB"\n',
    ):
        path = write(tmp_path, "dup.toml", text)
        status, out, err = napkin("check", str(path))
        assert status == 2 and out == "" and "not valid TOML" in err, text
        assert "at line" in err


def test_csv_header_columns_given_twice_are_errors(tmp_path):
    for header, twice in (
        ("id,expression,claimed,claimed", "claimed"),
        ("id,expression,claimed,Claimed", "claimed"),
        ("id,expression,claimed,value", "claimed"),
        ("id,id,expression,claimed", "id"),
        ("n,expression,claimed,n", "n"),
    ):
        path = write(tmp_path, "h.csv", f"{header}\na,1 GB,1 GB,1 GB\n")
        with pytest.raises(nm.InputError, match=f"line 1: the header names '{twice}' twice"):
            nm.check_claims(path)


# --- misspelt and unknown columns ------------------------------------------------------------
ALLOWED = "the claims columns are id, quantity, expression, claimed, unit, tolerance"


@pytest.mark.parametrize(
    ("header", "column", "meant"),
    [
        ("id,expression,claimd", "claimd", "claimed"),
        ("id,expresion,claimed", "expresion", "expression"),
        ("id,expression,claimed,tolerence", "tolerence", "tolerance"),
        ("id,expression,claimed,modle", "modle", "model"),
        ("id,quantiy,claimed", "quantiy", "quantity"),
    ],
)
def test_a_misspelt_csv_column_is_an_error_naming_it_and_the_closest(
    tmp_path, napkin, header, column, meant
):
    path = write(tmp_path, "m.csv", f"{header}\na,1 GB,1 GB,1 GB\n")
    status, out, err = napkin("check", str(path))
    assert status == 2 and out == ""
    assert (
        f"line 1 (the header): column '{column}' is not a claims column: did you mean "
        f"'{meant}'?" in err
    )
    assert ALLOWED in err


def test_a_misspelt_json_or_toml_column_is_an_unchecked_row(tmp_path, napkin):
    path = write(
        tmp_path,
        "m.json",
        '{"claims": [\n'
        '{"id": "loose", "expression": "1 GB", "claimed": "1.2 GB", '
        '"tolerence": "50%"},\n'
        '{"id": "fine", "expression": "1 GB", "claimed": "1 GB"}]}',
    )
    report = nm.check_claims(path)
    loose, fine = report.rows
    assert loose.status == "unchecked" and loose.category == "unknown column"
    assert loose.line == 2 and fine.status == "agree"
    assert "column 'tolerence' is not a claims column: did you mean 'tolerance'?" in loose.reason
    status, out, _ = napkin("check", str(path))
    assert status == 2  # it used to pass: 'tolerence' was a value nothing used
    assert "[1] loose (line 2): unknown column: column 'tolerence'" in out
    toml = write(tmp_path, "m.toml", '[[claims]]\nid = "a"\nexpresion = "1 GB"\nclaimed = "1 GB"\n')
    status, out, _ = napkin("check", str(toml))
    assert status == 2 and "(line 1): unknown column: column 'expresion'" in out


def test_a_misspelt_default_is_an_error(tmp_path, napkin):
    path = write(
        tmp_path,
        "d.json",
        '{"defaults": {"tolerence": "50%"},'
        ' "claims": [{"expression": "1 GB", "claimed": "1.2 GB"}]}',
    )
    status, _, err = napkin("check", str(path))
    assert status == 2 and "d.json: defaults: column 'tolerence' is not a claims column" in err


def test_a_column_that_no_claim_uses_is_an_error_of_its_row(tmp_path, napkin):
    path = write(
        tmp_path,
        "u.csv",
        "id,expression,claimed,n,foo,context\n"
        "uses-n,n * 1 GB,8 GB,8,,\n"
        "unused,1 GB,1 GB,,3,\n"
        "n-unused,1 GB,1 GB,8,,\n"  # n gives context to the confusion finder
        "ctx,1 GB,1 GB,,,bar=2\n",
    )
    report = nm.check_claims(path)
    by_id = {row.id: row for row in report.rows}
    assert by_id["uses-n"].status == "agree" and by_id["n-unused"].status == "agree"
    assert by_id["unused"].category == "unknown column"
    assert (
        "column 'foo' is not a claims column, and the claim does not use it"
        in by_id["unused"].reason
    )
    assert "context value 'bar' is not a claims column" in by_id["ctx"].reason
    status, _, _ = napkin("check", str(path))
    assert status == 2


def test_values_a_computed_quantity_uses_are_not_unknown_columns():
    report = nm.check_claims(
        [
            {
                "quantity": "train_time",
                "claimed": "11.3 days",
                "params": "70B",
                "tokens": "15T",
                "n_gpus": 16384,
                "mfu": 0.4,
                "gpu": "H100-SXM",
            }
        ]
    )
    assert report.rows[0].status == "agree", report.rows[0].reason


def test_a_missing_claimed_value_names_the_columns_that_might_be_it():
    report = nm.check_claims(
        [{"expression": "1 GB", "amount": "1 GB"}, {"expression": "1 GB", "claimed value": "1 GB"}]
    )
    amount, spaced = report.rows
    assert amount.category == "unknown column"
    assert "no claimed value; column 'amount' is not a claims column" in amount.reason
    assert spaced.category == "unknown column"
    assert (
        "column 'claimed value' is neither a claims column nor a variable name (did you "
        "mean 'claimed'?)" in spaced.reason
    )


def test_close_matches():
    assert near_miss("claimd") == "claimed" and near_miss("Expresion") == "expression"
    for name in ("n", "params", "n_gpus", "tokens", "mfu", "claimed", "value", "ring_size"):
        assert near_miss(name) is None, name
    assert closest("amount") is None


def test_unknown_top_level_keys_are_errors_with_the_closest(tmp_path, napkin):
    path = write(
        tmp_path,
        "t.json",
        '{"defualts": {}, "claims": [{"expression": "1 GB", "claimed": "1 GB"}]}',
    )
    status, _, err = napkin("check", str(path))
    assert status == 2 and "unknown top-level keys (defualts) (did you mean 'defaults'?)" in err
    toml = write(
        tmp_path, "t.toml", 'title = "x"\n[[claims]]\nexpression = "1 GB"\nclaimed = "1 GB"\n'
    )
    status, _, err = napkin("check", str(toml))
    assert status == 2 and "unknown top-level keys (title)" in err


# --- rows that vanish ------------------------------------------------------------------------
def test_a_quoted_line_break_is_refused_with_its_lines(tmp_path, napkin):
    hidden = 'id,expression,claimed\nok,1 GB,1 GB\nb,"1 GB\nc,1 GB,5 GB\n",1 GB\n'
    for name, text in (
        ("nl.csv", hidden),
        ("cr.csv", hidden.replace("\n", "\r\n")),
        ("nl.tsv", hidden.replace(",", "\t")),
    ):
        path = write(tmp_path, name, text)
        status, out, err = napkin("check", str(path))
        assert status == 2 and out == "", name
        assert "lines 3–5: a quoted cell holds a line break" in err, name


def test_every_row_read_is_counted_and_every_skipped_row_listed(tmp_path, napkin):
    path = write(
        tmp_path,
        "s.csv",
        "# preamble, before the header\n"
        "id,expression,claimed\n"
        "a,1 GB,1 GB\n"
        "#hidden,1 GB,5 GB\n"
        "\n"
        ",,\n"
        "b,1 GB,2 GB\n"
        "  # indented,1 GB,5 GB\n"
        "c,1 GB,\n",
    )
    report = nm.check_claims(path)
    summary = report.summary
    assert (
        summary["read"],
        summary["checked"],
        summary["comments"],
        summary["blank"],
        summary["unchecked"],
    ) == (7, 2, 2, 2, 1)
    # every line after the header is a claim or a skipped row, each with its line
    lines = {row.line for row in report.rows}
    for group in report.skipped:
        lines |= set(range(group.first_line, group.last_line + 1))
    assert lines == set(range(3, 10))
    assert report.summary_line() == (
        "7 rows read: 2 checked (1 agree, 1 disagree), 2 skipped "
        "as comments, 2 blank, 1 could not be checked (1 bad "
        "value)"
    )
    status, out, _ = napkin("check", str(path))
    assert status == 1
    assert "lines 4–6: a comment (its first cell starts with '#') and 2 blank rows" in out
    assert "line 8: a comment" in out and "[3] c (line 9): bad value: no claimed value" in out
    data = json.loads(report.to_json())
    assert data["summary"]["read"] == 7 and data["rows"][2]["line"] == 9


def test_a_table_of_only_comments_fails_and_says_how_many(tmp_path, napkin):
    path = write(tmp_path, "c.csv", "id,expression,claimed\n#a,1 GB,5 GB\n\n")
    status, out, err = napkin("check", str(path))
    assert status == 2 and out == ""
    assert "no claims to check (2 rows skipped as comments or blank)" in err


def test_rows_that_are_not_tables_are_errors(tmp_path, napkin):
    for text, kind in (
        ('{"claims": [{"expression": "1 GB", "claimed": "1 GB"}, null]}', "null"),
        ('[{"expression": "1 GB", "claimed": "1 GB"}, ["1 GB", "1 GB"]]', "a list"),
        ('[{"expression": "1 GB", "claimed": "1 GB"}, "1 GB"]', "text"),
        ('[{"expression": "1 GB", "claimed": "1 GB"}, 3]', "a number"),
    ):
        path = write(tmp_path, "r.json", text)
        status, _, err = napkin("check", str(path))
        assert status == 2 and f"claim 2 is {kind}" in err, text
    toml = write(tmp_path, "r.toml", 'claims = [{expression = "1 GB", claimed = "1 GB"}, 1]\n')
    status, _, err = napkin("check", str(toml))
    assert status == 2 and "claim 2 is a number, not a table of columns" in err


def test_an_empty_entry_is_a_claim_that_could_not_be_checked(tmp_path, napkin):
    path = write(tmp_path, "e.json", '[{"expression": "1 GB", "claimed": "1 GB"}, {}]')
    status, out, _ = napkin("check", str(path))
    assert status == 2 and "2 rows read: 1 checked" in out
    assert "[2] 2 (line 1): bad value: no quantity or expression to check" in out
    status, _, _ = napkin("check", str(path), "--allow-unchecked")
    assert status == 0


def test_cells_that_are_not_text_or_numbers_are_errors_of_their_row(tmp_path):
    path = write(
        tmp_path,
        "v.json",
        "[\n"
        '{"id": "list", "expression": "1 GB", "claimed": ["1 GB"]},\n'
        '{"id": "bool", "expression": "1 GB", "claimed": "1 GB", "tolerance": true},\n'
        '{"id": "table", "expression": {"a": 1}, "claimed": "1 GB"},\n'
        '{"id": "inf", "expression": "1 GB", "claimed": 1e999},\n'
        '{"id": "fine", "expression": "1 GB", "claimed": 1000000000, "unit": "B"}\n]',
    )
    report = nm.check_claims(path)
    by_id = {row.id: row for row in report.rows}
    assert "column 'claimed' holds a list" in by_id["list"].reason
    assert "column 'tolerance' holds true or false" in by_id["bool"].reason
    assert "column 'expression' holds a table" in by_id["table"].reason
    assert "column 'claimed' is inf, not a finite number" in by_id["inf"].reason
    assert by_id["fine"].status == "agree"
    assert [row.line for row in report.rows] == [2, 3, 4, 5, 6]
    nan = write(tmp_path, "nan.json", '[{"expression": "1 GB", "claimed": NaN}]')
    with pytest.raises(nm.InputError, match="NaN is not a JSON number"):
        nm.check_claims(nan)
    toml = write(
        tmp_path,
        "v.toml",
        '[[claims]]\nexpression = "1 GB"\nclaimed = nan\n'
        '[[claims]]\nexpression = "1 GB"\nclaimed = 1979-05-27\n',
    )
    first, second = nm.check_claims(toml).rows
    assert "is nan, not a finite number" in first.reason and first.line == 1
    assert "holds a date" in second.reason and second.line == 4


def test_json_lines_survive_strings_that_look_like_structure():
    text = (
        '{"defaults": {"note": "[{ not a claim"},\n "claims": [\n'
        '  {"expression": "1 GB", "claimed": "1 GB", "note": "}]\\"{"},\n'
        '  {"expression": "1 GB", "claimed": "1 GB", "context": {"claims": [{}]}}\n]}'
    )
    found = layout(text)
    assert found.claim_lines == [3, 4] and found.duplicate is None


def test_rows_left_by_the_budget_are_listed_with_their_lines(monkeypatch, tmp_path):
    monkeypatch.setattr(budget, "MAX_TABLE_WORK", 300)
    path = write(
        tmp_path,
        "b.csv",
        "id,expression,claimed\n" + "".join(f"r{i},1 GB,1 GB\n" for i in range(20)),
    )
    report = nm.check_claims(path)
    assert report.stopped_after is not None
    first = report.stopped_after + 1
    assert f"claims {first}–20 (lines {first + 1}–21) were not checked" in report.budget_line()
    assert report.exit_status() == 2


@pytest.mark.parametrize(
    "deep", [".".join(["a"] * 20_000) + " = 1", "x = " + "[" * 100_000 + "]" * 100_000]
)
def test_a_toml_claims_file_nested_past_the_cap_is_refused_before_it_is_parsed(
    tmp_path, napkin, deep
):
    """A dotted key of 20,000 parts in 40 kB took TOML's parser 1.6 GB; brackets 100,000 deep
    would recurse past Python's limit. One scan of the text refuses both first."""
    path = write(
        tmp_path, "deep.toml", '[[claims]]\nexpression = "1 GB"\nclaimed = "1 GB"\n' + deep + "\n"
    )
    status, out, err = napkin("check", str(path))
    assert status == 2 and out == ""
    assert "nested more than 32 deep" in err and "claims file is limited to 32 levels" in err
