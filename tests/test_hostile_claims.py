"""Hostile tables of claims stay bounded, lose no rows, crash no table, inject nothing.

Each test is a reproduction from issue 9 ("Hostile input, bounded"): unbounded reads
(devices, FIFOs, /proc), work amplification (confirmation re-evaluations, solves per row),
rows that vanish (comments, quoted cells, empty tables), rows that crash the table, and
output injection (Markdown, terminals). Work is bounded by deterministic counters, so the
tests assert where the counters stop the work, never how long it took.
"""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath.checking import budget, claims
from napkinmath.checking.evidence import MAX_REWRITES, tree_size
from napkinmath.text.escape import md_code, md_text, visible, visible_lines
from napkinmath.text.expr import parse

ROOT = Path(__file__).resolve().parent.parent
#: A generous guard against a hang (a blocked FIFO read would never return); not a benchmark.
HANG_GUARD_S = 60


def grouped(term: str, size: int = 10, groups: int = 12) -> str:
    """A long expression inside the parser's limits: `groups` parenthesised sums."""
    return "+".join(["(" + "+".join([term] * size) + ")"] * groups)


def run_cli(
    *args: str, env: dict | None = None, cwd: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """`napkin ARGS` in a real process (FIFOs, symlinks to devices, standard input)."""
    return subprocess.run(
        [sys.executable, "-m", "napkinmath.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
        env=env,
        cwd=cwd,
        input=stdin,
    )


# --- 1. unbounded reads ---------------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_symlink_to_a_device_is_refused_before_reading(tmp_path, napkin):
    link = tmp_path / "c.csv"
    link.symlink_to("/dev/zero")
    with pytest.raises(nm.InputError, match="not a regular file") as err:
        nm.check_claims(link)
    assert "character device" in str(err.value)
    status, out, err_text = napkin("check", str(link))
    assert status == 2 and out == "" and "not a regular file" in err_text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_without_a_writer_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "f.csv"
    os.mkfifo(fifo)
    done = run_cli("check", str(fifo))  # a blocking open would never return
    assert done.returncode == 2
    assert "not a regular file (a FIFO" in done.stderr
    with pytest.raises(nm.InputError, match="FIFO"):
        nm.check_claims(fifo)


def test_a_directory_is_refused(tmp_path):
    folder = tmp_path / "d.csv"
    folder.mkdir()
    with pytest.raises(nm.InputError, match="not a regular file \\(a directory\\)"):
        nm.check_claims(folder)


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="needs /proc")
def test_a_symlink_to_proc_never_prints_the_environment(tmp_path):
    link = tmp_path / "e.csv"
    link.symlink_to("/proc/self/environ")
    secret = "hunter2-napkin-secret"
    env = {**os.environ, "NAPKIN_TEST_SECRET": secret}
    for fmt in ("text", "markdown", "json"):
        done = run_cli("check", str(link), "--format", fmt, env=env)
        assert done.returncode == 2
        assert secret not in done.stdout + done.stderr
        assert "not a regular file" in done.stderr


def test_a_pseudo_file_of_size_zero_with_contents_is_refused(tmp_path, monkeypatch):
    # what /proc files look like to fstat: regular, size 0, yet they have contents
    path = tmp_path / "p.csv"
    path.write_text("expression,claimed\n1 GB,1 GB\n")
    real_fstat = os.fstat

    def fstat(fd):
        info = real_fstat(fd)
        return os.stat_result((*info[:6], 0, *info[7:]))

    monkeypatch.setattr(os, "fstat", fstat)
    with pytest.raises(nm.InputError, match="pseudo-file"):
        nm.check_claims(path)


def test_errors_never_quote_what_a_refused_file_holds(tmp_path):
    path = tmp_path / "secret.csv"
    path.write_text("AWS_SECRET_ACCESS_KEY=hunter2/abc,x\n1,2\n")
    with pytest.raises(nm.InputError) as err:
        nm.check_claims(path)
    assert "needs a 'claimed' column" in str(err.value)
    assert "hunter2" not in str(err.value)
    wide = tmp_path / "wide.csv"
    wide.write_text("expression,claimed\n1 GB,1 GB,TOKEN=hunter2\n")
    with pytest.raises(nm.InputError) as err:
        nm.check_claims(wide)
    assert "more cells than the header" in str(err.value) and "hunter2" not in str(err.value)
    keys = tmp_path / "keys.json"
    keys.write_text('{"claims": [], "PASSWORD=hunter2": 1}')
    with pytest.raises(nm.InputError) as err:
        nm.check_claims(keys)
    assert "unknown top-level keys" in str(err.value) and "hunter2" not in str(err.value)


def test_a_file_larger_than_the_cap_is_refused_and_read_no_further(tmp_path, monkeypatch):
    monkeypatch.setattr(claims, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.csv"
    path.write_text("expression,claimed\n" + "1 GB,1 GB\n" * 20)
    with pytest.raises(nm.InputError, match="larger than 100 bytes"):
        nm.check_claims(path)
    # st_size says nothing about devices and /proc: the read itself stops at the cap + 1
    reads = []
    real_read, real_fstat = os.read, os.fstat
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    monkeypatch.setattr(
        os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 0, *real_fstat(fd)[7:]))
    )
    with pytest.raises(nm.InputError, match="larger than 100 bytes"):
        nm.check_claims(path)
    assert sum(reads) <= 101


class _Endless(io.RawIOBase):
    """Standard input that never ends (as `napkin check - < /dev/zero`)."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        assert n is not None and n >= 0, "an unbounded read of standard input"
        self.asked.append(n)
        return b"\0" * n


def test_standard_input_is_read_up_to_the_cap(monkeypatch, napkin):
    endless = _Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(endless))
    status, out, err = napkin("check", "-")
    assert status == 2 and out == ""
    assert "larger than 5,000,000 bytes" in err
    assert sum(endless.asked) <= claims.MAX_FILE_BYTES + 1


def test_standard_input_still_works(monkeypatch, napkin):
    monkeypatch.setattr(sys, "stdin", io.StringIO("expression,claimed\n200 Gb/s,25 GB/s\n"))
    status, out, _ = napkin("check", "-")
    assert status == 0 and "1 row read: 1 checked (1 agree" in out
    done = run_cli("check", "-", stdin="expression,claimed\n200 Gb/s,25 GB/s\n")
    assert done.returncode == 0 and "1 row read: 1 checked (1 agree" in done.stdout


# --- 2. work amplification -------------------------------------------------------------------
def test_confirmation_work_is_budgeted_per_check():
    text = grouped("1 Gb")
    size = tree_size(parse(text))
    result = nm.check(text, expect="1 GB")  # 120 Gb = 15 GB: no slip explains 1 GB
    assert result.status == "disagree"
    tried = budget.MAX_CONFIRM_NODES // size  # each re-evaluation costs the tree's size
    assert tried < MAX_REWRITES
    assert result.confirmation_stopped.startswith("confirmation stopped early")
    assert (
        f"{tried} re-evaluations tried, {120 - tried} names not tried"
        in result.confirmation_stopped
    )
    assert result.confirmation_stopped in result.notes
    assert "confirmation stopped early" in result.text
    assert result.to_dict()["confirmation_stopped"] == result.confirmation_stopped


def test_ordinary_claims_are_still_confirmed_in_full():
    result = nm.check("140 GB / (400 Gb/s)", expect="0.35 s")
    assert result.candidates[0].confirmed and result.confirmation_stopped == ""
    assert result.to_dict()["confirmation_stopped"] is None


def test_a_table_stops_when_its_work_budget_is_spent(monkeypatch, napkin, tmp_path):
    monkeypatch.setattr(budget, "MAX_TABLE_WORK", 10_000)
    rows = [
        {"id": f"r{i}", "expression": grouped("1 Gb"), "claimed": "15 GB"} for i in range(15)
    ]  # every claim agrees, and each costs about 1,000 units
    report = nm.check_claims(rows)
    assert report.stopped_after is not None and 0 < report.stopped_after < 15
    checked, left = report.rows[: report.stopped_after], report.rows[report.stopped_after :]
    assert all(row.status == "agree" for row in checked)
    assert all(
        row.status == "unchecked" and row.category == budget.TABLE_BUDGET_SPENT for row in left
    )
    assert left[0].id == f"r{report.stopped_after}"  # shown by id, not checked
    assert report.work_budget == 10_000 and report.work_spent >= 10_000
    assert report.exit_status() == 2 and report.exit_status(allow_unchecked=True) == 0
    assert "Stopped early: the table's work budget (10,000 work units" in report.text
    assert "not checked: the table's work budget is spent" in report.summary_line()
    data = json.loads(report.to_json())
    assert data["work"] == {
        "spent": report.work_spent,
        "budget": 10_000,
        "stopped_after": report.stopped_after,
    }
    # the same stop, deterministically, from the command line
    path = tmp_path / "t.csv"
    path.write_text(
        "id,expression,claimed\n" + "".join(f"r{i},{grouped('1 Gb')},15 GB\n" for i in range(15))
    )
    status, out, err = napkin("check", str(path))
    assert status == 2 and "work budget" in out and "work budget was spent" in err
    status, _, _ = napkin("check", str(path), "--allow-unchecked")
    assert status == 0
    again = nm.check_claims(rows)
    assert again.stopped_after == report.stopped_after  # counters, not clocks


def test_the_budget_also_cuts_confirmation_short_inside_a_table(monkeypatch):
    monkeypatch.setattr(budget, "MAX_TABLE_WORK", 3_000)
    report = nm.check_claims([{"expression": grouped("1 Gb"), "claimed": "1 GB"}])
    result = report.rows[0].result
    assert result.status == "disagree"
    assert "the table's work budget is spent" in result.confirmation_stopped


def _count_solves(monkeypatch) -> list:
    from napkinmath.solving import solver

    calls = []
    real = solver.solve

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "solve", counting)
    return calls


def test_a_solve_is_answered_once_per_name_and_givens_within_a_table(monkeypatch):
    calls = _count_solves(monkeypatch)
    rows = [
        {
            "id": f"r{i}",
            "expression": f"train_time * {i + 1}",
            "claimed": "1 day",
            "context": "params=7B",
        }
        for i in range(30)
    ]
    report = nm.check_claims(rows)
    assert {row.category for row in report.rows} == {"could not read an expression or value"}
    assert "train_time" in report.rows[0].reason and "has no value here" in report.rows[0].reason
    assert len(calls) == 1  # the slow under-determined search ran once, not 30 times
    assert report.work_spent < 30 * budget.FAILED_SOLVE_COST


def test_distinct_solves_count_against_the_table_budget(monkeypatch):
    monkeypatch.setattr(budget, "MAX_TABLE_WORK", 10 * budget.FAILED_SOLVE_COST)
    calls = _count_solves(monkeypatch)
    rows = [
        {"quantity": "train_time", "claimed": "1 day", "context": f"params={i + 1}B"}
        for i in range(100)
    ]
    report = nm.check_claims(rows)
    assert len(calls) <= 11  # the budget, not the table, decides how many solves run
    assert report.stopped_after is not None and report.stopped_after <= 11
    assert report.summary["reasons"][budget.TABLE_BUDGET_SPENT] >= 89


def test_given_values_are_charged_too(monkeypatch):
    monkeypatch.setattr(budget, "MAX_TABLE_WORK", 5_000)
    context = "; ".join(f"g{j}={grouped('1 GB', 10, 6)}" for j in range(40))
    report = nm.check_claims([{"expression": "1 GB", "claimed": "1 GB", "context": context}])
    row = report.rows[0]
    assert row.status == "unchecked" and row.category == budget.TABLE_BUDGET_SPENT
    assert "before reading the given values" in row.reason


# --- 5. rows that vanish ----------------------------------------------------------------------
def test_a_row_whose_id_starts_with_hash_is_reported_and_an_empty_table_fails(tmp_path, napkin):
    path = tmp_path / "h.csv"
    path.write_text("id,expression,claimed\n#1,1 GB,2 GB\n")
    status, out, err = napkin("check", str(path))
    assert status == 2 and out == ""
    assert "no claims to check (1 row skipped as comments or blank)" in err


def test_a_header_only_table_is_an_error(tmp_path, napkin):
    path = tmp_path / "header.csv"
    path.write_text("id,expression,claimed\n")
    status, _, err = napkin("check", str(path))
    assert status == 2 and "no claims to check" in err
    for empty in ([], {"claims": []}):
        with pytest.raises(nm.InputError, match="no claims to check"):
            nm.check_claims(empty)
    blank = tmp_path / "blank.csv"
    blank.write_text("\n\n")
    with pytest.raises(nm.InputError, match="no claims"):
        nm.check_claims(blank)


def test_a_quoted_line_break_cannot_hide_rows_inside_a_cell(tmp_path, napkin):
    path = tmp_path / "q.csv"
    path.write_text(
        'id,expression,claimed\na,"1 GB\n# not a comment\nb,1 GB,2 GB",1 GB\nc,1 GB,1 GB\n'
    )
    with pytest.raises(nm.InputError, match="lines 2–4: a quoted cell holds a line break"):
        nm.check_claims(path)
    status, out, err = napkin("check", str(path))
    assert status == 2 and out == "" and "lines 2–4" in err


def test_every_skipped_row_is_reported_with_its_line(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text(
        "# preamble\nid,expression,claimed\na,1 GB,1 GB\n# off,2 GB,3 GB\n\nb,1 GB,1000 MB\n,,\n"
    )
    report = nm.check_claims(path)
    assert [row.id for row in report.rows] == ["a", "b"]
    assert [(s.first_line, s.last_line, s.comments, s.blank) for s in report.skipped] == [
        (4, 5, 1, 1),
        (7, 7, 0, 1),
    ]
    assert report.summary["skipped"] == 3
    assert report.summary_line() == (
        "5 rows read: 2 checked (2 agree, 0 disagree), 1 skipped "
        "as comment, 2 blank, 0 could not be checked"
    )
    assert "lines 4–5: a comment (its first cell starts with '#') and a blank row" in report.text
    assert "line 7: a blank row" in report.text
    assert "lines 4–5" in report.markdown
    assert json.loads(report.to_json())["skipped"][0]["first_line"] == 4
    assert report.exit_status() == 0


def test_a_comment_that_opens_a_quote_cannot_swallow_rows(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text('id,expression,claimed\n#,"x\na,1 GB,2 GB\n",\nb,1 GB,1 GB\n')
    with pytest.raises(nm.InputError, match="a comment row runs over several lines"):
        nm.check_claims(path)


def test_malformed_csv_is_refused_not_guessed(tmp_path):
    unclosed = tmp_path / "u.csv"
    unclosed.write_text('expression,claimed\n1 GB,"1 GB\n2 GB,2 GB\n')
    with pytest.raises(nm.InputError, match="not valid CSV"):
        nm.check_claims(unclosed)
    twice = tmp_path / "t.csv"
    twice.write_text("expression,claimed,value\n1 GB,1 GB,2 GB\n")
    with pytest.raises(nm.InputError, match="names 'claimed' twice"):
        nm.check_claims(twice)


# --- 6. rows that crash the table ------------------------------------------------------------
def test_a_context_cannot_override_a_column_or_an_argument(tmp_path, napkin):
    path = tmp_path / "ctx.csv"
    path.write_text(
        "id,expression,claimed,context\n"
        "a,1 GB,1 GB,expect=1 GB\n"
        "b,1 GB,1 GB,expr=2 GB\n"
        "c,1 GB,1 GB,id=other\n"
        "d,1 GB,2 GB,claimed=1 GB\n"
        "e,1 GB,1 GB,gpu=H100-SXM; n=8\n"
    )
    report = nm.check_claims(path)
    by_id = {row.id: row for row in report.rows}
    for key, column in (("a", "claimed"), ("b", "expression"), ("c", "id"), ("d", "claimed")):
        row = by_id[key]
        assert row.status == "unchecked" and row.category == "bad value", key
        assert f"which names the '{column}' column" in row.reason, key
    assert by_id["e"].status == "agree"
    status, _, err = napkin("check", str(path))
    assert status == 2 and "internal error" not in err


def test_rows_that_used_to_crash_the_table_are_unchecked_with_a_reason(tmp_path, napkin):
    digits = "9" * 5000
    path = tmp_path / "crash.json"
    path.write_text(
        '{"claims": ['
        '{"id": "gpu-int", "expression": "1 GB", "claimed": "1 GB", "gpu": 5},'
        f'{{"id": "huge-claim", "expression": "1 GB", "claimed": {digits}}},'
        f'{{"id": "huge-given", "expression": "n * 1 GB", "claimed": "1 GB", "n": {digits}}},'
        f'{{"id": "huge-tol", "expression": "1 GB", "claimed": "1 GB", "tolerance": {digits}}},'
        '{"id": "twice", "expression": "1 GB", "claimed": "1 GB", "value": "2 GB"},'
        '{"id": "fine", "expression": "1 GB", "claimed": "1000 MB"}]}'
    )
    report = nm.check_claims(path)
    by_id = {row.id: row for row in report.rows}
    assert by_id["fine"].status == "agree"  # the table went on
    for key in ("gpu-int", "huge-claim", "huge-given", "huge-tol", "twice"):
        assert by_id[key].status == "unchecked", key
        assert by_id[key].category == "bad value", (key, by_id[key].reason)
    assert "is not a record name" in by_id["gpu-int"].reason
    assert "an integer of 5,000 digits" in by_id["huge-claim"].reason
    assert "claimed is given twice" in by_id["twice"].reason
    status, out, err = napkin("check", str(path))
    assert status == 2 and "internal error" not in out + err


def test_huge_python_integers_and_odd_values_do_not_crash():
    rows = [
        {"expression": "1 GB", "claimed": "1 GB", "tolerance": 10**400},
        {"expression": "n * 1 GB", "claimed": "1 GB", "n": 10**400},
        {"expression": "1 GB", "claimed": "1 GB", "model": ["llama-3-70b"]},
        {"expression": "1 GB", "claimed": "1 GB", "context": {"gpu": 5}},
        {"expression": "1 GB", "claimed": "1 GB", "context": {"claimed": "2 GB"}},
        {"expression": "1 GB", "claimed": "1 GB"},
    ]
    report = nm.check_claims(rows)
    assert [row.status for row in report.rows] == ["unchecked"] * 5 + ["agree"]
    assert all(row.category == "bad value" for row in report.rows[:5])
    with pytest.raises(nm.InputError, match="tolerance"):
        nm.check("1 GB", expect="1 GB", tolerance=10**400)


def test_defaults_cannot_stand_in_for_each_claims_own_columns():
    with pytest.raises(nm.InputError, match="cannot have a default"):
        nm.check_claims({"defaults": {"claimed": "1 GB"}, "claims": [{"expression": "1 GB"}]})


def test_an_unexpected_failure_is_one_unchecked_row(monkeypatch):
    from napkinmath.checking import claims as module

    real = module.check

    def flaky(expression, *args, **kwargs):
        if expression == "2 GB":
            raise KeyError("boom")
        return real(expression, *args, **kwargs)

    monkeypatch.setattr(module, "check", flaky)
    report = nm.check_claims(
        [{"expression": "2 GB", "claimed": "2 GB"}, {"expression": "1 GB", "claimed": "1 GB"}]
    )
    assert report.rows[0].category == claims.INTERNAL_ERROR
    assert "KeyError" in report.rows[0].reason and report.rows[1].status == "agree"
    assert report.exit_status() == 2


# --- 8. output injection -----------------------------------------------------------------------
HOSTILE_ID = "x\n## ✅ All claims agree\n<img src=x onerror=alert(1)>"


def test_markdown_escapes_ids_sources_claims_and_names():
    report = nm.check_claims(
        [
            {"id": HOSTILE_ID, "expression": "1 GB", "claimed": "2 GB", "source": "a | b `c`"},
            {"id": "tick`s", "expression": "1 GB + `", "claimed": "1 GB"},
        ]
    )
    md = report.markdown
    assert not any(line.startswith("## ") for line in md.splitlines())
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "x␤\\#\\# ✅ All claims agree" in md
    table = [line for line in md.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") == 5 for line in table)  # no cell split by a '|'
    assert "tick&#96;s" in md
    # the unchecked reason quotes the expression in a code span no backtick can close
    reason = next(line for line in md.splitlines() if line.startswith("- 2."))
    assert "``" in reason
    single = nm.check("1 GB", expect="2 GB")
    single.label = HOSTILE_ID
    assert "<img" not in single.markdown and "\n## " not in single.markdown


def test_markdown_helpers():
    assert md_text("a|b") == "a\\|b"
    assert md_text("<b>&") == "&lt;b&gt;&amp;"
    assert md_text("line\nbreak") == "line␤break"
    assert md_code("a ``` b") == "````a ``` b````"
    assert md_code("`edge`") == "`` `edge` ``"
    assert md_code("a|b", in_table=True) == "`a\\|b`"


def test_terminal_output_shows_control_characters(napkin, tmp_path):
    hostile = "evil\x1b[2J\rok\u202egnp.exe"
    report = nm.check_claims(
        [
            {"id": hostile, "expression": "1 GB", "claimed": "2 GB", "source": "s\x1b]0;title\x07"},
            {"id": "bad", "expression": "1 GB\x1b[31m", "claimed": "1 GB"},
        ]
    )
    text = report.text
    for raw in ("\x1b", "\r", "\u202e", "\x07"):
        assert raw not in text
    assert "evil\\x1b[2J\\rok<U+202E>gnp.exe" in text
    # JSON keeps the values as they are (json escapes them)
    assert json.loads(report.to_json())["rows"][0]["id"] == hostile
    path = tmp_path / "t.csv"
    path.write_text(
        f'id,expression,claimed\n"{hostile.replace(chr(13), "")}",1 GB,2 GB\n', encoding="utf-8"
    )
    status, out, err = napkin("check", str(path))
    assert status == 1 and "\x1b" not in out and "\u202e" not in out
    path.write_text(f'id,expression,claimed\n"{hostile}",1 GB,2 GB\n', encoding="utf-8")
    status, out, err = napkin("check", str(path))  # a carriage return is a line break in CSV
    assert status == 2 and "a quoted cell holds a line break" in err
    status, out, err = napkin("check", "1 GB\x1b[31m + \u202e", "--expect", "1 GB")
    assert status == 2 and "\x1b" not in err and "\u202e" not in err
    assert "  1 GB\\x1b[31m + <U+202E>\n      ^" in err  # the caret still points at ESC


def test_a_file_name_with_control_characters_is_shown_visibly(tmp_path):
    path = tmp_path / "a\x1b[31mb.csv"
    path.write_text("expression,claimed\n1 GB,1 GB\n")
    report = nm.check_claims(path)
    assert "\x1b" not in report.text and "a\\x1b[31mb.csv" in report.text
    with pytest.raises(nm.InputError) as err:
        nm.check_claims(tmp_path / "gone\x1b[2J.csv")
    assert "\x1b" not in str(err.value)


def test_visible_text():
    assert visible("a\x1bb") == "a\\x1bb"
    assert visible("\u2066x\u2069") == "<U+2066>x<U+2069>"
    assert visible("\x85") == "\\x85"
    assert visible("plain ✓ ünïcode") == "plain ✓ ünïcode"
    assert visible_lines("a\x1b\n ^") == "a\\x1b\n ^"
    assert visible_lines("msg\n  a\x1bb\n    ^") == "msg\n  a\\x1bb\n       ^"


def test_the_examples_still_check():
    report = nm.check_claims(ROOT / "examples" / "claims.csv")
    assert report.summary["total"] == 11 and report.skipped == []
    assert report.stopped_after is None and report.work_spent < budget.MAX_TABLE_WORK
