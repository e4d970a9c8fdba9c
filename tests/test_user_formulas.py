"""Your own formulas and variables in your own file (issue 26, item 1): `--formulas FILE`,
`nm.solve(..., formulas=)`, `nm.user_formulas`, `formulas = [...]` or inline tables in a plan.

Hand calculations: 0.4 s of data-loader wait in a 5 s step is 0.4 / 5 = 8%; 8% of 5 s is
0.4 s; 0.4 s at 8% is a 5 s step. With the wait counted in the input share,
(0.4 s + 0.1 s) / 5 s = 10%. A step of 2 s made of 0.5 s of wait has a share 0.25, so
sqrt(0.25) = 0.5 for a formula that takes the square root.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath import cache
from napkinmath.catalog.lookup import formulas as library_formulas
from napkinmath.errors import InputError

# the issue's file, as written there: dataloader_wait is a library variable (step_parts.py)
# already, in seconds; declared again in its own unit, the library's declaration is used
OURS = """\
# ours.toml
[variables.stall_share]
unit = ""
bounds = [0, 1]
description = "share of the step spent waiting for data"

[variables.dataloader_wait]
unit = "s"
description = "time per step the GPUs wait for the input pipeline"

[[formulas]]
name = "dataloader_wait"
title = "Data-loader wait from its share"
equation = "dataloader_wait = stall_share * step_time"
source = "our profiler, 2026-11"
"""
FORMULA_LINE = 11  # the line of [[formulas]] above

REPLACING = """\
[[formulas]]
name = "step_share_input"
title = "Input share, counting the data-loader wait too"
equation = "step_share_input = (profiled_input_wait + dataloader_wait) / step_time"
source = "our profiler, 2026-11"
replaces = "step_share_input"
"""


def _file(tmp_path: Path, text: str, name: str = "ours.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _seconds(r: nm.Result) -> float:
    return r.value.to("s").magnitude


def test_the_library_has_dataloader_wait_in_seconds_and_no_stall_share():
    assert str(nm.variable("dataloader_wait").unit) == "second"
    assert "stall_share" not in nm.variables()
    assert "dataloader_wait" not in library_formulas()


def test_the_issue_example_on_the_command_line(napkin, tmp_path):
    path = _file(tmp_path, OURS)
    status, out, err = napkin(
        "solve", "stall_share", "step_time=5 s", "dataloader_wait=0.4 s", "--formulas", str(path)
    )
    assert status == 0, err
    assert out.startswith("stall_share = 8%\n")
    assert f"your formula {path}:{FORMULA_LINE} (our profiler, 2026-11)" in out
    assert "Data-loader wait from its share, solved for stall_share" in out


@pytest.mark.parametrize(
    ("target", "givens", "expected"),
    [
        ("stall_share", {"step_time": "5 s", "dataloader_wait": "0.4 s"}, 0.08),
        ("step_time", {"stall_share": 0.08, "dataloader_wait": "0.4 s"}, 5.0),
        ("dataloader_wait", {"stall_share": 0.08, "step_time": "5 s"}, 0.4),
    ],
)
def test_each_variable_is_solved_for_through_the_api(tmp_path, target, givens, expected):
    r = nm.solve(target, formulas=str(_file(tmp_path, OURS)), **givens)
    value = r.value.to("s").magnitude if target != "stall_share" else r.value.magnitude
    assert math.isclose(value, expected, rel_tol=1e-12)
    assert any("your formula" in f.source for step in r.steps for f in step.formulas)


@pytest.mark.parametrize(
    ("target", "givens", "shown"),
    [
        ("stall_share", ["step_time=5 s", "dataloader_wait=0.4 s"], "stall_share = 8%"),
        ("step_time", ["stall_share=0.08", "dataloader_wait=0.4 s"], "step_time = 5 s"),
        ("dataloader_wait", ["stall_share=8%", "step_time=5 s"], "dataloader_wait = 400 ms"),
    ],
)
def test_each_variable_is_solved_for_on_the_command_line(napkin, tmp_path, target, givens, shown):
    status, out, err = napkin("solve", target, *givens, "--formulas", str(_file(tmp_path, OURS)))
    assert status == 0, err
    assert out.splitlines()[0] == shown


def test_a_dict_of_the_same_tables_and_the_context_manager():
    import tomllib

    tables = tomllib.loads(OURS)
    r = nm.solve("step_time", stall_share=0.08, dataloader_wait="0.4 s", formulas=tables)
    assert math.isclose(_seconds(r), 5.0)
    with nm.user_formulas(tables):
        assert "stall_share" in nm.variables()
        r = nm.solve("dataloader_wait", stall_share=0.08, step_time="5 s")
        assert math.isclose(_seconds(r), 0.4)
    assert "stall_share" not in nm.variables()
    assert "your formula <dict>, formulas[0]" in str(r)  # it still prints after the block


def test_functions_and_powers_invert():
    tables = {
        "variables": {
            "stall_root": {"unit": "", "description": "the square root of the stall share"}
        },
        "formulas": [
            {
                "name": "stall_root_of_share",
                "title": "Root of the stall share",
                "equation": "stall_root = sqrt(dataloader_wait / step_time)",
                "source": "a test",
            }
        ],
    }
    r = nm.solve("stall_root", dataloader_wait="0.5 s", step_time="2 s", formulas=tables)
    assert math.isclose(r.value.magnitude, 0.5)
    r = nm.solve("dataloader_wait", stall_root=0.5, step_time="2 s", formulas=tables)
    assert math.isclose(_seconds(r), 0.5)


def test_a_plan_file_names_a_formulas_file(napkin, tmp_path):
    _file(tmp_path, OURS)
    plan = _file(
        tmp_path,
        'title = "Input stalls"\nformulas = ["ours.toml"]\n[givens]\nstep_time = "5 s"\n'
        'dataloader_wait = "0.4 s"\n[[sections]]\ntitle = "Share"\nask = ["stall_share"]\n',
        "plan.toml",
    )
    answer = nm.plan(plan)
    assert math.isclose(answer.sections[0].answer.value.magnitude, 0.08)
    status, out, err = napkin("plan", str(plan))
    assert status == 0, err
    assert "stall_share = 8%" in out
    assert f"your formula {tmp_path / 'ours.toml'}:{FORMULA_LINE}" in out


def test_a_plan_file_with_the_tables_inline(napkin, tmp_path):
    body = OURS.replace("# ours.toml\n", "")
    plan = _file(
        tmp_path,
        'title = "Input stalls"\n[givens]\nstall_share = 0.08\ndataloader_wait = "0.4 s"\n'
        '[[sections]]\ntitle = "Step"\nask = ["step_time"]\n' + body,
        "plan.toml",
    )
    answer = nm.plan(plan)
    assert math.isclose(_seconds(answer.sections[0].answer), 5.0)
    status, out, err = napkin("plan", str(plan))
    assert status == 0, err
    line = 7 + body.splitlines().index("[[formulas]]") + 1
    assert f"your formula {plan}:{line} (our profiler, 2026-11)" in out


def test_a_plan_file_reads_formulas_only_from_its_folder(tmp_path):
    (tmp_path / "plan").mkdir()
    _file(tmp_path, OURS)
    plan = _file(
        tmp_path / "plan",
        'title = "t"\nformulas = ["../ours.toml"]\n[[sections]]\ntitle = "s"\n'
        'ask = ["step_time"]\n',
        "plan.toml",
    )
    with pytest.raises(InputError, match=r"line 2, key formulas\[0\].*outside the plan") as err:
        nm.plan(plan)
    assert "name it with --formulas (formulas= in Python)" in str(err.value)


def test_the_shipped_example_file_answers_as_the_readme_shows(napkin):
    """examples/ours.toml is the issue's file; docs/extending.md quotes its answer verbatim."""
    root = Path(__file__).resolve().parent.parent
    path = root / "examples" / "ours.toml"
    status, out, err = napkin(
        "solve", "stall_share", "step_time=5 s", "dataloader_wait=0.4 s", "--formulas", str(path)
    )
    assert status == 0, err
    readme = (root / "docs" / "extending.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Your own formulas") : readme.index("## Adding a formula")]
    shown = out.replace(str(path), "examples/ours.toml")
    assert shown.rstrip() in section
    assert path.read_text(encoding="utf-8").strip() in section


def test_replaces_works_and_is_said(napkin, tmp_path):
    path = _file(tmp_path, REPLACING)
    givens = ["profiled_input_wait=0.4 s", "dataloader_wait=0.1 s", "step_time=5 s"]
    status, out, err = napkin("solve", "step_share_input", *givens, "--formulas", str(path))
    assert status == 0, err
    assert out.startswith("step_share_input = 10%\n")
    assert f"your formula {path}:1, replaces library formula step_share_input" in out
    status, out, err = napkin("solve", "step_share_input", *givens)  # the library's again
    assert status == 0, err
    assert out.startswith("step_share_input = 8%\n")


def test_a_clash_without_replaces_is_an_error(napkin, tmp_path):
    path = _file(tmp_path, REPLACING.replace('replaces = "step_share_input"\n', ""))
    status, out, err = napkin(
        "solve", "step_share_input", "step_time=5 s", "profiled_input_wait=1 s",
        "--formulas", str(path),
    )  # fmt: skip
    assert status == 2 and out == ""
    assert f"{path}, line 2, key formulas[0].name: the library has a formula" in err
    assert 'replaces = "step_share_input"' in err


def test_a_variable_declared_again_in_another_unit_is_an_error(tmp_path):
    path = _file(tmp_path, OURS.replace('unit = "s"', 'unit = "ms"'))
    with pytest.raises(InputError, match=r"line 8, key variables.dataloader_wait.unit: .*in s, "):
        nm.solve("stall_share", step_time="5 s", dataloader_wait="0.4 s", formulas=str(path))


def test_a_dimension_mismatch_names_file_line_key_and_dimensions(napkin, tmp_path):
    path = _file(tmp_path, OURS.replace("stall_share * step_time", "stall_share * step_time^2"))
    status, _, err = napkin("solve", "stall_share", "step_time=5 s", "--formulas", str(path))
    assert status == 2
    assert f"{path}, line 14, key formulas[0].equation" in err
    assert "dataloader_wait is [time] but stall_share * step_time^2 is [time^2]" in err
    with pytest.raises(InputError, match=r"cannot add or subtract \[time\] and \[a plain number\]"):
        nm.solve(
            "stall_share",
            step_time="5 s",
            formulas=str(_file(tmp_path, OURS.replace("stall_share * step_time", "step_time + 1"))),
        )


def test_a_syntax_error(napkin, tmp_path):
    path = _file(tmp_path, OURS.replace("stall_share * step_time", "stall_share * (step_time"))
    status, _, err = napkin("solve", "stall_share", "step_time=5 s", "--formulas", str(path))
    assert status == 2
    assert f"{path}, line 14, key formulas[0].equation:" in err
    two = _file(tmp_path, OURS.replace("dataloader_wait = stall", "dataloader_wait == stall"))
    with pytest.raises(InputError, match='one "="'):
        nm.solve("stall_share", step_time="5 s", formulas=str(two))


def test_an_unknown_variable_is_named_with_suggestions(tmp_path):
    path = _file(tmp_path, OURS.replace("* step_time", "* step_tme"))
    with pytest.raises(InputError, match=r"unknown variable 'step_tme'.*did you mean step_time"):
        nm.solve("stall_share", step_time="5 s", formulas=str(path))


@pytest.mark.parametrize(
    "equation",
    [
        "dataloader_wait = __import__('os').system('touch HACKED')",
        "dataloader_wait = step_time.__class__",
        "dataloader_wait = step_time * stall_share^100000",
        "dataloader_wait = step_time * ((stall_share^8)^8)^8",
        "dataloader_wait = step_time * stall_share^step_time",
        "dataloader_wait = " + "(" * 200 + "step_time" + ")" * 200,
        "dataloader_wait = step_time * exec(1)",
        "dataloader_wait = step_time; import os",
    ],
)
def test_hostile_expressions_are_refused_and_nothing_runs(napkin, tmp_path, monkeypatch, equation):
    monkeypatch.chdir(tmp_path)
    literal = "'''" + equation + "'''"  # a TOML literal string: any quotes inside
    path = _file(tmp_path, OURS.replace('"dataloader_wait = stall_share * step_time"', literal))
    tables = {"variables": {"stall_share": {"unit": "", "description": "d"}}}
    tables["formulas"] = [{"name": "w", "title": "t", "equation": equation, "source": "s"}]
    with pytest.raises(InputError, match=r"key formulas\[0\]\.equation"):
        nm.solve("stall_share", step_time="5 s", dataloader_wait="0.4 s", formulas=tables)
    status, _, err = napkin("solve", "stall_share", "step_time=5 s", "--formulas", str(path))
    assert status == 2, err
    assert not (tmp_path / "HACKED").exists()


def test_an_oversized_file_is_refused_before_it_is_read(napkin, tmp_path):
    from napkinmath.catalog.user import MAX_BYTES

    path = _file(tmp_path, OURS + "#" * MAX_BYTES)
    status, _, err = napkin("solve", "stall_share", "step_time=5 s", "--formulas", str(path))
    assert status == 2
    assert f"larger than {MAX_BYTES:,} bytes" in err
    status, _, err = napkin("solve", "x", "--formulas", str(tmp_path / "missing.toml"))
    assert status == 2 and "no such formulas file" in err


def test_other_file_errors(tmp_path):
    bad = [
        ('unit = ""\nbounds = [0, 1]', 'unit = "parsecs of nonsense"', "unit"),
        ("bounds = [0, 1]", "bounds = [1, 0]", "bounds"),
        ('title = "Data', 'colour = "red"\ntitle = "Data', "unknown key 'colour'"),
        ("[variables.stall_share]", "[variables.Stall]", "snake_case"),
    ]
    for old, new, said in bad:
        with pytest.raises(InputError, match=said):
            nm.solve("step_time", formulas=str(_file(tmp_path, OURS.replace(old, new, 1))))


def test_the_library_is_as_before_after_the_block(tmp_path):
    question = {"params": "7B", "tokens": "1T", "n_gpus": 512, "mfu": 0.4, "gpu": "H100-SXM"}
    before = str(nm.solve("train_time", **question))
    variables, formulas = dict(nm.variables()), dict(library_formulas())
    stored = sorted(str(p) for p in cache.entries())
    with nm.user_formulas([str(_file(tmp_path, OURS)), str(_file(tmp_path, REPLACING, "r.toml"))]):
        assert "stall_share" in nm.variables()
        assert library_formulas()["step_share_input"].source.startswith("your formula")
        inside = str(nm.solve("train_time", **question))
        nm.solve("step_time", stall_share=0.08, dataloader_wait="0.4 s")
    assert str(nm.solve("train_time", **question)) == before == inside
    assert dict(nm.variables()) == variables and dict(library_formulas()) == formulas
    assert sorted(str(p) for p in cache.entries()) == stored  # nothing of ours on disk
    r = nm.solve("step_share_input", profiled_input_wait="0.4 s", step_time="5 s")
    assert "your formula" not in str(r)


def test_a_sweep_on_the_command_line_uses_your_formula(napkin, tmp_path):
    path = str(_file(tmp_path, OURS))
    status, out, err = napkin(
        "sweep", "stall_share", "step_time=2 s..10 s", "dataloader_wait=0.4 s", "--formulas", path
    )
    assert status == 0, err
    assert out.splitlines()[3].split() == ["2", "20%"]  # 0.4 s / 2 s


def test_an_answer_made_with_your_formulas_prints_after_the_block(tmp_path):
    r = nm.solve(
        "stall_share", step_time="5 s", dataloader_wait="0.4 s", formulas=str(_file(tmp_path, OURS))
    )
    assert "stall_share" not in nm.variables()
    assert str(r).startswith("stall_share = 8%")
    assert "stall_share" in r.to_markdown()
    assert r"\mathrm{stall}_{\mathrm{share}} = 8\%" in r.to_latex()
    assert r.to_dict()["targets"]["stall_share"]


@pytest.mark.parametrize(
    ("formulas", "said"),
    [
        (5, "expected the path of a formulas file"),
        ({"formula": []}, "unknown key 'formula'"),
        ({"formulas": "dataloader_wait = step_time"}, r"expected \[\[formulas\]\] tables"),
        ({"formulas": [{"name": "w", "title": "t", "equation": "step_time = 2"}]}, "source"),
    ],
)
def test_bad_formulas_arguments_are_input_errors(formulas, said):
    with pytest.raises(InputError, match=said):
        nm.solve("step_time", formulas=formulas)


@pytest.mark.parametrize(
    ("symbol", "problem"),
    [
        ("x_{\\input{/etc/passwd}}", "the command \\input is not allowed"),
        ("\\immediate\\write18{touch pwned}", "the command \\immediate is not allowed"),
        ("x^^5cinput", "'^^' (a character escape) is not allowed"),
        ("a$b", "the character '$' is not allowed"),
        ("x_{a", "a '{' is not closed"),
        ("x}\\def", "a '}' closes no '{'"),
    ],
)
def test_a_symbol_that_would_run_tex_is_refused(symbol, problem):
    """Your symbol goes raw into --format latex and plan .tex files (issue 44): only letters,
    digits, a few signs, balanced braces and harmless commands are accepted."""
    tables = {
        "variables": {"xv": {"unit": "", "description": "x", "symbol": symbol}},
        "formulas": [{"name": "f", "title": "f", "equation": "xv = 2 * mfu", "source": "t"}],
    }
    with pytest.raises(nm.InputError) as info:
        nm.solve("xv", mfu=0.5, formulas=tables)
    assert problem in str(info.value) and "variables.xv.symbol" in str(info.value)


def test_every_library_symbol_passes_the_check_yours_do():
    from napkinmath.catalog.lookup import variables
    from napkinmath.text.latex import checked_symbol

    assert {v.name: checked_symbol(v.latex) for v in variables().values()} == {
        v.name: None for v in variables().values()
    }
