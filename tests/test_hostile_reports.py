"""Every report escaped for where it goes (issue 21, section 4).

A plan whose title, notes, section titles and notes, sweep and comparison titles, and the
notes, sources and names of its records carry HTML, Markdown links and images, an HTML
comment, terminal controls, a right-to-left override, NUL and U+0001, and TeX specials is
rendered in every format, through the API and the CLI: Markdown stays inert (checked as text
and, where markdown-it-py is installed, as rendered HTML), text and Markdown show controls
as escapes, LaTeX keeps every character of the user's text out of TeX's hands and compiles,
HTML stays escaped, JSON round-trips. pdflatex runs without shell escape and reads only its
folder whatever the environment says, and an error quotes at most 60 characters of a name.
"""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath.scenario import report_latex

#: every kind of hostile text at once
HOSTILE = (
    "<script>alert(1)</script> </script> [x](javascript:alert(1)) "
    "![t](http://evil/x.png) <!-- \x1b[31mred\x1b[0m bell\x07 \u202edesrever "
    "nul\x00 one\x01 \\input{/etc/passwd} \\write18{touch pwned} ^^5c ^^M "
    "% # $ & { } ~ _ \\end{document}"
)
#: what no report may carry raw
CONTROLS = ("\x1b", "\x07", "\u202e", "\x00", "\x01")


def q(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text)


RECORDS = f"""\
[our-gpu]
name = {q("X1 " + HOSTILE)}
kind = "accelerator"
source = {q("datasheet " + HOSTILE)}
date = "2026-09"

[our-gpu.peak_flops]
value = "1200 TFLOP/(s*GPU)"
source = {q("measured " + HOSTILE)}
note = {q("a note " + HOSTILE)}

[our-gpu.hbm_bandwidth]
value = "6 TB/(s*GPU)"

[our-gpu.price_per_gpu_hour]
value = "3.10 USD/(GPU*hour)"
source = {q("quote " + HOSTILE)}
"""

PLAN = f"""\
title = {q("Plan " + HOSTILE)}
notes = '''
{HOSTILE.replace(chr(0), "").replace(chr(1), "").replace(chr(7), "").replace(chr(0x1B), "")}
# not a heading
~~~
---
'''
[records]
gpu = "our-gpu"
files = ["ours.toml"]
[givens]
params = "7B"
tokens = "1T"
mfu = 0.4
n_gpus = 64
[[sections]]
title = {q("Section " + HOSTILE)}
notes = {q("Section notes " + HOSTILE)}
ask = ["train_time", "train_cost"]
[[sweeps]]
title = {q("Sweep " + HOSTILE)}
target = "train_time"
over = {{ n_gpus = [32, 64] }}
[[comparisons]]
title = {q("Comparison " + HOSTILE)}
target = "train_time"
gpu = ["our-gpu", "H100-SXM"]
[[optimizations]]
title = {q("Optimization " + HOSTILE)}
minimize = "n_gpus"
over = {{ n_gpus = [32, 64] }}
require = ["train_time <= 1 year"]
"""

#: a plan with a warning (its givens disagree), to show that no title hides it
WARNED = {
    "title": "<!-- " + HOSTILE,
    "notes": "<!--",
    "records": {"gpu": "H100-SXM"},
    "givens": {
        "params": "7B",
        "tokens": "1T",
        "train_compute": "5e22 FLOP",
        "mfu": 0.4,
        "n_gpus": 64,
    },
    "sections": [{"title": "<!-- hidden?", "ask": ["train_time"]}],
}

SOLVE = ["train_cost", "params=7B", "tokens=1T", "mfu=0.4", "n_gpus=64", "--gpu", "our-gpu"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("hostile")
    (where / "ours.toml").write_text(RECORDS, encoding="utf-8")
    (where / "plan.toml").write_text(PLAN, encoding="utf-8")
    return where


@pytest.fixture(scope="module")
def plan(folder):
    return nm.plan(folder / "plan.toml")


@pytest.fixture(scope="module")
def answer(folder):
    return nm.solve(
        "train_cost",
        params="7B",
        tokens="1T",
        mfu=0.4,
        n_gpus=64,
        gpu="our-gpu",
        records=str(folder / "ours.toml"),
    )


# --- the checks, one per kind of output -------------------------------------------------------
def assert_no_controls(text: str) -> None:
    raw = [c for c in text if c != "\n" and unicodedata.category(c) in ("Cc", "Cf")]
    assert raw == [], f"raw control or format characters: {sorted(set(raw))!r}"


def code_free(markdown: str) -> str:
    """The Markdown without its code spans (where < and ]( are only text)."""
    return re.sub(r"(`+)(?:(?!\1).)*?\1", "", markdown)


#: the report's own image links, to its plots in the folder beside it (a written report)
OWN_FIGURE = re.compile(r"^!\[[^\]\\]*\]\([a-z0-9.-]+-figures/[a-z]+-\d+\.svg\)$", re.M)


def assert_inert_markdown(markdown: str) -> None:
    assert_no_controls(markdown)
    prose = OWN_FIGURE.sub("", code_free(markdown))
    assert "<" not in prose, "raw HTML or comment"  # every < is &lt;: no tag, no <!--
    assert not re.search(r"(?<!\\)\]\(", prose), "a link or an image"  # [x](url)
    assert not re.search(r"(?<!\\)\]:", prose), "a link definition"
    assert not re.search(r"^ {0,3}(#|~~~|```|---|===)", _notes_lines(markdown), re.M)
    assert "\\x1b[31mred" in markdown.replace("\\\\", "\\")  # shown, not obeyed
    assert "<U+202E>" in markdown.replace("&lt;", "<").replace("&gt;", ">")


def _notes_lines(markdown: str) -> str:
    """The lines of the notes: those after the title, before the summary."""
    return markdown.split("\n\n## Summary")[0].split("\n", 1)[1]


def assert_rendered_inert(markdown: str) -> str:
    """The Markdown rendered as a forge would (CommonMark with tables, raw HTML allowed):
    no script, image, javascript: link or comment in the page."""
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py renders Markdown")
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script" not in page.lower() and "<img" not in page and "<!--" not in page
    assert "href=" not in page  # no link at all: the report has none of its own
    return page


def assert_safe_latex(latex: str) -> None:
    assert all(32 <= ord(c) < 127 or c == "\n" for c in latex), "a non-ASCII or control byte"
    assert latex.count("\\end{document}") == 1 and latex.count("\\begin{document}") == 1
    for command in ("\\input{", "\\write18", "^^", "\\x1b", "\\end{document} "):
        assert command not in latex
    assert "\\textbackslash{}input\\{/\\allowbreak{}etc/\\allowbreak{}passwd\\}" in latex
    assert "\\% \\# \\$ \\& \\{ \\} \\textasciitilde{}" in latex
    assert "\\textbackslash{}x00" in latex and "\\textbackslash{}x01" in latex  # shown
    body = re.sub(r"\\[{}%#$&_]", "", latex)  # escaped braces are no group
    assert body.count("{") == body.count("}"), "unbalanced braces"


def strings(data: object):
    """Every string in a JSON document."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from strings(value)


class Comments(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.comments: list[str] = []
        self.scripts = 0

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"


# --- the plan's reports -----------------------------------------------------------------------
def test_text_report_shows_controls_as_escapes(plan):
    text = plan.to_text()
    assert_no_controls(text)
    assert "\\x1b[31mred\\x1b[0m bell\\x07 <U+202E>desrever nul\\x00 one\\x01" in text
    title, rule = text.split("\n")[:2]
    assert len(rule) == len(title)  # the rule under the title as long as it is shown


def test_markdown_report_is_inert(plan):
    markdown = plan.to_markdown()
    assert_inert_markdown(markdown)
    assert "&lt;script&gt;" in markdown and "[x\\](javascript:alert(1))" in markdown
    assert "![t\\](http://evil/x.png)" in markdown and "&lt;!--" in markdown
    assert "\\# not a heading" in markdown and "\\~~~" in markdown and "\\---" in markdown
    page = assert_rendered_inert(markdown)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown as the user wrote it


def test_a_comment_in_the_title_hides_no_warning():
    p = nm.plan(WARNED)
    assert p.warnings
    markdown = p.to_markdown()
    assert "<!--" not in markdown and markdown.count("> **Warning:**") == len(p.warnings)
    page = assert_rendered_inert(markdown)
    assert page.count("<strong>Warning:</strong>") == len(p.warnings)
    assert "<h2>1. &lt;!-- hidden?</h2>" in page


def test_latex_report_keeps_user_text_out_of_tex(plan):
    latex = plan.to_latex()
    assert_safe_latex(latex)
    # the comparison's first cells are record names: none can open \\'s optional argument
    assert not re.search(r"\\\\\s*\n\s*\[", latex)


def test_tex_has_no_marker_for_user_text_to_collide_with():
    tex = report_latex.tex
    assert tex("a\x00b\x01c") == r"a\textbackslash{}x00b\textbackslash{}x01c"
    assert tex("10⁹ \x00 10⁻³ \x01") == (
        r"10\ensuremath{^{9}} \textbackslash{}x00 "
        r"10\ensuremath{^{-3}} \textbackslash{}x01"
    )
    assert tex("one\n\n\ntwo") == "one two"  # no \par inside \section{...}
    assert tex("one\n\ntwo", paragraphs=True) == "one\n\ntwo"
    assert (
        tex("\u202e\x1b\x07") == r"\textless{}U+202E\textgreater{}\textbackslash{}x1b"
        r"\textbackslash{}x07"
    )


def test_html_report_stays_escaped(plan):
    page = plan.to_html()
    assert_no_controls(page)
    assert "\\x1b[31mred\\x1b[0m bell\\x07 &lt;U+202E&gt;desrever nul\\x00" in page
    checker = Comments()
    checker.feed(page)
    assert checker.scripts == 0 and checker.comments == []
    assert "</script> </script>" not in page and "&lt;/script&gt;" in page
    assert "<!--" not in page and "&lt;!--" in page
    assert "<title>Plan &lt;script&gt;" in page


def test_pdf_compiles(plan, tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip(
            "pdflatex is not installed here (apt-get install texlive-latex-recommended)"
            ": the .tex text is checked by test_latex_report_keeps_user_text_out_of_tex"
        )
    pdf = plan.to_pdf(tmp_path / "hostile.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


# --- pdflatex's command line ------------------------------------------------------------------
def test_pdflatex_runs_without_shell_escape_and_reads_only_its_folder(plan, tmp_path, monkeypatch):
    """Whatever the environment (a texmf.cnf's settings, or variables that override it)."""
    for name, value in (("shell_escape", "t"), ("openin_any", "a"), ("openout_any", "a")):
        monkeypatch.setenv(name, value)
    calls = []

    def run(argv, cwd, env, **kwargs):
        calls.append((list(argv), dict(env)))
        (Path(cwd) / "plan.pdf").write_bytes(b"%PDF-1.5 fake")
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(report_latex.shutil, "which", lambda name: "/usr/bin/pdflatex")
    monkeypatch.setattr(report_latex.subprocess, "run", run)
    nm.plan(
        {
            "title": "t",
            "givens": {"params": "7B"},
            "sections": [{"title": "s", "ask": "weight_memory"}],
        }
    ).to_pdf(tmp_path / "x.pdf")
    assert len(calls) == 2
    for argv, env in calls:
        assert argv[0] == "/usr/bin/pdflatex" and "-no-shell-escape" in argv
        assert "-shell-escape" not in argv and argv[-1] == "plan.tex"
        assert (env["shell_escape"], env["openin_any"], env["openout_any"]) == ("f", "p", "p")


def test_pdflatex_settings_refuse_to_read_outside_the_folder(tmp_path):
    program = shutil.which("pdflatex")
    if program is None:
        pytest.skip("pdflatex is not installed here: its command line is checked above")
    (tmp_path / "a.tex").write_text(
        "\\documentclass{article}\\begin{document}"
        "\\input{/etc/hostname}\\immediate\\write18{touch pwned}"
        "\\end{document}\n"
    )
    done = subprocess.run(
        [program, *report_latex.PDFLATEX_OPTIONS, "a.tex"],
        cwd=tmp_path,
        env=report_latex.pdflatex_env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    assert done.returncode != 0 and "/etc/hostname" in done.stdout
    assert not (tmp_path / "pwned").exists()


# --- the CLI: napkin plan -o, napkin solve --format ------------------------------------------
@pytest.mark.parametrize("suffix", [".md", ".txt", ".tex", ".html"])
def test_napkin_plan_writes_every_report_escaped(napkin, folder, suffix):
    out = folder / f"report{suffix}"
    status, _, err = napkin("plan", str(folder / "plan.toml"), "-o", str(out))
    assert status == 0, err
    text = out.read_text(encoding="utf-8")
    if suffix == ".md":
        assert_inert_markdown(text)
    elif suffix == ".txt":
        assert_no_controls(text)
    elif suffix == ".tex":
        assert_safe_latex(text)
    else:
        assert "<script" not in text and "<!--" not in text


def test_napkin_plan_on_the_terminal_shows_escapes(napkin, folder):
    status, out, _ = napkin("plan", str(folder / "plan.toml"))
    assert status == 0
    assert_no_controls(out)
    assert "\\x1b[31mred" in out


@pytest.mark.parametrize("form", ["text", "markdown", "latex", "json"])
def test_napkin_solve_escapes_record_text_in_every_format(napkin, folder, form):
    status, out, err = napkin(
        "solve", *SOLVE, "--records", str(folder / "ours.toml"), "--format", form
    )
    assert status == 0, err
    assert_no_controls(out)
    if form == "text":
        assert "measured <script>alert(1)</script>" in out and "\\x1b[31mred" in out
    elif form == "markdown":
        assert "<" not in code_free(out) and not re.search(r"(?<!\\)\]\(", code_free(out))
        assert_rendered_inert(out)
    elif form == "latex":
        assert all(32 <= ord(c) < 127 or c == "\n" for c in out)
        assert "\\input{" not in out and "\\write18" not in out and "^^" not in out
    else:  # the user's text round-trips exactly, its invisible characters as \\u escapes
        assert any("measured " + HOSTILE in t for t in strings(json.loads(out)))
        assert "\\u202e" in out and "\\u001b" in out


def test_the_api_answer_escapes_record_text(answer):
    assert_no_controls(str(answer))
    markdown = answer.to_markdown()
    assert "<" not in code_free(markdown) and "&lt;script&gt;" in markdown
    assert_no_controls(markdown)
    latex = answer.to_latex()
    assert all(32 <= ord(c) < 127 or c == "\n" for c in latex) and "\\input{" not in latex
    text = answer.to_json()
    assert_no_controls(text)
    assert any("measured " + HOSTILE in t for t in strings(json.loads(text)))


# --- what an error quotes ---------------------------------------------------------------------
BIG = "a" * 1_000_000


@pytest.mark.parametrize(
    "call",
    [
        lambda: nm.solve(BIG),
        lambda: nm.solve("train_time", **{BIG: 1}),
        lambda: nm.solve("train_time", gpu=BIG),
        lambda: nm.solve("train_time", precision=BIG),
        lambda: nm.variable(BIG),
        lambda: nm.formula(BIG),
        lambda: nm.solve(" ".join(["a"] * 500_000)),  # spaces do not escape the cap
        lambda: nm.plan(
            {"title": "t", "givens": {BIG: 1}, "sections": [{"title": "s", "ask": "train_time"}]}
        ),
        lambda: nm.plan({"title": "t", BIG: 1, "sections": [{"title": "s", "ask": "train_time"}]}),
    ],
    ids=[
        "target",
        "given",
        "gpu",
        "precision",
        "variable",
        "formula",
        "spaced",
        "plan-given",
        "plan-key",
    ],
)
def test_an_error_quotes_at_most_60_characters_of_a_name(call):
    with pytest.raises(nm.InputError) as caught:
        call()
    message = str(caught.value)
    assert len(message) < 1_000 and "a" * 61 not in message and "a " * 31 not in message
    assert re.search(r"… \((999,999|1,000,0\d\d) characters\)", message)


def test_napkin_plan_with_a_megabyte_name_says_so_briefly(napkin, tmp_path):
    path = tmp_path / "big.toml"  # a 900 kB name: under the plan file's 1,000,000 bytes
    path.write_text(
        f'title = "t"\n[givens]\n{"a" * 900_000} = 1\n[[sections]]\n'
        'title = "s"\nask = ["train_time"]\n'
    )
    status, out, err = napkin("plan", str(path))
    assert status == 2 and out == ""
    assert len(err) < 1_000 and "characters)" in err and "a" * 61 not in err


def test_a_short_name_is_quoted_whole():
    with pytest.raises(nm.UnknownNameError, match=r"unknown variable 'n_gpu'; did you mean"):
        nm.variable("n_gpu")
    from napkinmath.errors import capped
    from napkinmath.text.visible import quoted

    assert quoted("x" * 60) == repr("x" * 60)
    assert quoted("x" * 61) == repr("x" * 60) + "… (61 characters)"
    assert (
        capped("key givens." + "b" * 2000 + ": unknown")
        == "key givens." + "b" * 53 + "… (2,007 characters): unknown"
    )
    expression = "params: expected ')'\n  " + "(" * 999 + "\n  " + " " * 999 + "^"
    assert capped(expression) == expression  # the grammar's longest input, under its caret


def test_a_parse_error_keeps_its_caret_under_the_text():
    with pytest.raises(nm.InputError) as caught:
        nm.solve("train_time", params="7 * (( 8")
    assert str(caught.value).endswith("\n  7 * (( 8\n          ^")
