"""Packaging and library conventions (issue 11): JSON documents that validate against the
documented schemas, errors as JSON, py.typed with the lazy names typed, the library as
objects (formula, graph, DOT), and Quantities of the user's own pint registry."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pint
import pytest
import sympy

import napkinmath as nm

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "engine" / "schema"
FLEET = ["params=7B", "tokens=1T", "train_time=3 weeks", "mfu=0.4", "--gpu", "H100-SXM"]


def _validator(kind: str):
    jsonschema = pytest.importorskip(
        "jsonschema", reason="jsonschema not installed: pip install -e '.[dev]'"
    )
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize(
    ("kind", "args", "status"),
    [
        ("answer", ["solve", "n_gpus", *FLEET, "peak_flops=989 TFLOP/s"], 0),
        (
            "answer",
            [
                "solve",
                "train_time:h",
                "train_cost",
                "params=7B",
                "tokens=1T",
                "n_gpus=64",
                "mfu=0.4",
                "--gpu",
                "H100-SXM",
            ],
            0,
        ),
        (
            "range",
            [
                "solve",
                "train_time",
                "train_compute=6.35e24FLOP",
                "n_gpus=16384",
                "mfu=0.3..0.5",
                "--gpu",
                "H100",
            ],
            0,
        ),
        (
            "samples",
            [
                "solve",
                "train_time",
                "train_compute=6.35e24FLOP",
                "n_gpus=16384",
                "mfu=0.3 to 0.5",
                "--gpu",
                "H100",
                "--samples",
                "200",
            ],
            0,
        ),
        ("answer", ["solve", "n_gpus", *FLEET, "--sensitivity"], 0),
        (
            "range",
            [
                "solve",
                "n_gpus",
                "params=7B",
                "tokens=1T",
                "train_time=3 weeks",
                "mfu=0.3..0.5",
                "--gpu",
                "H100-SXM",
                "--sensitivity",
            ],
            0,
        ),
        ("check", ["check", "140 GB / (400 Gb/s) -> ms", "--expect", "0.35 s"], 1),
        ("check", ["check", "70e9 param * 2 B/param"], 0),
        ("claims", ["check", str(ROOT / "examples" / "claims.csv")], None),
        (
            "table",
            [
                "sweep",
                "train_time",
                "n_gpus=1k..4k:log:3",
                "train_compute=6.35e24FLOP",
                "mfu=0.4",
                "--gpu",
                "H100",
            ],
            0,
        ),
        # with constraints, violated in some rows, part of the range, some samples
        (
            "table",
            [
                "sweep",
                "cost_per_million_tokens",
                "batch_size=16,256",
                "--model",
                "llama-3-70b",
                "--gpu",
                "H100",
                "n_gpus=4",
                "seq_len=8192",
            ],
            0,
        ),
        (
            "range",
            [
                "solve",
                "cost_per_million_tokens",
                "batch_size=16..256",
                "--model",
                "llama-3-70b",
                "--gpu",
                "H100",
                "n_gpus=4",
                "seq_len=8192",
            ],
            0,
        ),
        (
            "samples",
            [
                "solve",
                "cost_per_million_tokens",
                "batch_size=16 to 128",
                "--model",
                "llama-3-70b",
                "--gpu",
                "H100",
                "n_gpus=4",
                "seq_len=8192",
                "--samples",
                "200",
            ],
            0,
        ),
        (
            "gap",
            [
                "solve",
                "step_time_predicted",
                "--model",
                "llama-3-70b",
                "--gpu",
                "H100",
                "n_gpus=1024",
                "tp=8",
                "pp=4",
                "dp=32",
                "seq_len=8192",
                "global_batch_tokens=16Mi",
                "batch_size=1",
                "step_time=12.4 s",
                "--gap",
            ],
            0,
        ),
        ("error", ["solve", "n_gpus", "params=7B"], 2),
        ("error", ["solve", "n_gpus", "params=7 furlong"], 2),
        ("error", ["check", "140 GB -> s"], 2),
        ("error", ["sweep", "train_time", "n_gpus=1k..4k", "--gpu", "Z100"], 2),
    ],
)
def test_json_output_validates_against_the_documented_schema(napkin, kind, args, status):
    code, out, err = napkin(*args, "--format", "json")
    if status is not None:
        assert code == status
    data = json.loads(out)  # one document on stdout, whatever happened
    assert data["schema"] == f"napkinmath-{kind}/1"
    errors = sorted(_validator(kind).iter_errors(data), key=str)
    assert not errors, errors[0]
    if kind == "error":
        assert data["error"]["message"] in err and data["error"]["exit_status"] == code


def test_error_json_names_what_it_can():
    from napkinmath.cli.jsonout import error

    data = json.loads(error(nm.InputError("mfu=1.5 is out of range", "mfu"), 2))
    assert data == {
        "schema": "napkinmath-error/1",
        "error": {
            "type": "InputError",
            "message": "mfu=1.5 is out of range",
            "exit_status": 2,
            "variable": "mfu",
        },
    }
    data = json.loads(error(ZeroDivisionError("division by zero"), 3))["error"]
    assert data["type"] == "InternalError" and data["exit_status"] == 3


def test_an_under_determined_error_in_json_lists_the_suggestions(napkin):
    status, out, _ = napkin("solve", "n_gpus", "params=7B", "--format", "json")
    error = json.loads(out)["error"]
    assert status == 2 and error["type"] == "UnderDeterminedError"
    assert error["targets"] == ["n_gpus"] and "dp" in error["suggestions"]


def test_the_package_ships_py_typed_and_types_the_lazy_names(tmp_path):
    mypy = shutil.which("mypy") or (
        str(Path(sys.executable).with_name("mypy"))
        if Path(sys.executable).with_name("mypy").exists()
        else None
    )
    if mypy is None:
        pytest.skip("mypy not installed: pip install -e '.[dev]'")
    pytest.importorskip(
        "setuptools",
        reason="setuptools not installed (it builds the package for mypy): pip install -e '.[dev]'",
    )
    build = tmp_path / "build"
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import setuptools; setuptools.setup()",
            "-q",
            "build_py",
            "-d",
            str(build),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert (build / "napkinmath" / "py.typed").exists()  # package-data ships it
    script = tmp_path / "use.py"
    script.write_text(
        "import napkinmath as nm\n"
        "reveal_type(nm.solve)\nreveal_type(nm.check)\nreveal_type(nm.formula)\n"
        "reveal_type(nm.sweep)\n"
    )
    run = subprocess.run(
        [mypy, "--no-incremental", "--follow-imports=silent", str(script)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(build)},
    )
    revealed = [line for line in run.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 4, run.stdout
    # solve is overloaded (samples= gives a SampleResult); the others are plain functions
    assert 'Revealed type is "Overload(def (' in revealed[0], revealed
    assert "-> napkinmath.whatif.answers.SampleResult" in revealed[0]
    assert all('Revealed type is "def (' in line for line in revealed[1:]), revealed
    assert "-> napkinmath.checking.outcome.CheckResult" in revealed[1]
    assert "-> napkinmath.library.declare.Formula" in revealed[2]


def test_the_library_as_objects():
    f = nm.formula("fleet_equation")
    assert isinstance(f.equation, sympy.Eq)
    assert {v.name for v in f.variables} == {
        "train_time",
        "train_compute",
        "mfu",
        "n_gpus",
        "peak_flops",
    }
    assert f.source.startswith("Narayanan et al. 2021")
    g = nm.graph()
    assert g.nodes[("formula", "fleet_equation")]["bipartite"] == 0
    assert g.nodes[("variable", "mfu")]["bipartite"] == 1
    import networkx as nx

    assert nx.is_bipartite(g)
    around = nm.graph("peak_flops")
    formulas = {name for kind, name in around.nodes if kind == "formula"}
    assert "fleet_equation" in formulas
    assert all(around.has_edge(("formula", n), ("variable", "peak_flops")) for n in formulas)
    with pytest.raises(nm.UnknownNameError, match="peak_flops"):
        nm.graph("peak_flop")
    with pytest.raises(nm.InputError, match="depth=0"):
        nm.graph("mfu", depth=0)


def test_napkin_graph_dot_is_deterministic_and_parses(napkin, tmp_path):
    status, out, _ = napkin("graph", "mfu", "--format", "dot")
    assert status == 0 and out.startswith("graph napkinmath {")
    assert '"f:fleet_equation" -- "v:mfu";' in out
    assert '"v:mfu" [shape=ellipse, label="mfu", style=filled' in out
    assert napkin("graph", "mfu", "--format", "dot")[1] == out
    edges = [line for line in out.splitlines() if " -- " in line]
    assert edges == sorted(edges)
    status, text, _ = napkin("graph", "fleet_equation")
    assert text == "fleet_equation  mfu, n_gpus, peak_flops, train_compute, train_time\n"
    status, _, err = napkin("graph", "no_such_thing")
    assert status == 2 and "unknown variable" in err
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("graphviz 'dot' not installed: the DOT text is not rendered")
    rendered = subprocess.run(
        [dot, "-Tsvg"], input=out, capture_output=True, text=True, timeout=120
    )
    assert rendered.returncode == 0 and "<svg" in rendered.stdout


def test_a_quantity_of_the_users_registry_in_and_out():
    other = pint.UnitRegistry()
    r = nm.solve(
        "train_time",
        params="7B",
        tokens=other.Quantity(1e12, ""),
        n_gpus=64,
        mfu=0.4,
        peak_flops="989 TFLOP/(s*GPU)",
    )
    days = 4.2e22 / (64 * 0.4 * 989e12) / 86400
    back = nm.to_registry(r.value, other)
    assert back._REGISTRY is other and back.to("week").magnitude == pytest.approx(days / 7)
    assert nm.to_registry(nm.Quantity(400, "Gb/s"), other).to("GB/s").magnitude == pytest.approx(50)
    with pytest.raises(nm.InputError, match="no unit 'GPU' of the same meaning"):
        nm.to_registry(nm.Quantity(8, "GPU"), other)


def test_the_application_registry(monkeypatch):
    before = pint.get_application_registry().get()
    try:
        pint.set_application_registry(nm.ureg)
        week = pint.Quantity(3, "week")  # what user code writes, now napkinmath's registry
        r = nm.solve(
            "n_gpus",
            params="7B",
            tokens="1T",
            train_time=week,
            mfu=0.4,
            peak_flops="989 TFLOP/(s*GPU)",
        )
        assert r.value.magnitude == pytest.approx(4.2e22 / (0.4 * 989e12 * 21 * 86400))
        assert isinstance(r.value, pint.Quantity)
    finally:
        pint.set_application_registry(before)


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "n_gpus", "--bogus", "1", "--format", "json"],
        ["solve", "--format=json", "--tolerance", "x", "n_gpus"],
        ["check", "--format", "json"],
    ],
)
def test_usage_errors_are_json_too_when_json_is_asked_for(capsys, args):
    from napkinmath.cli.main import main

    with pytest.raises(SystemExit) as exit_:
        main(args)
    captured = capsys.readouterr()
    assert exit_.value.code == 2
    data = json.loads(captured.out)
    assert not list(_validator("error").iter_errors(data))
    assert data["error"]["type"] == "UsageError" and "error:" in captured.err
    assert data["error"]["message"].split(": ", 1)[1] in captured.err


def test_usage_errors_without_json_are_plain(capsys):
    from napkinmath.cli.main import main

    with pytest.raises(SystemExit):
        main(["solve", "n_gpus", "--bogus", "1"])
    captured = capsys.readouterr()
    assert captured.out == "" and "unrecognized arguments: --bogus 1" in captured.err


def test_every_documents_schema_ships_with_the_package():
    """`napkinmath.schemas.schema(kind)` reads the schema from the installed package (a wheel
    carries napkinmath/schema/*.json), and each names the document it describes."""
    from napkinmath.schemas import SCHEMAS, schema

    for kind, name in SCHEMAS.items():
        found = schema(kind)
        assert found["properties"]["schema"]["const"] == name, kind  # type: ignore[index]
    with pytest.raises(nm.InputError, match="schema 'gpa': no such document; one of answer"):
        schema("gpa")
