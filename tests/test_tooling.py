"""The tools that say what the code is, run as CI runs the tests: ruff's lint and its
formatter agree with the tree, and mypy finds no error in the package
(`python tools/typecheck.py`, which checks it as `napkinmath`), with no module exempt."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import typecheck  # noqa: E402


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (pip install -e '.[dev]' installs it)")
    return found


def _run(*argv: str):
    import subprocess

    return subprocess.run(list(argv), cwd=ROOT, capture_output=True, text=True)


def test_ruff_lint_is_clean():
    done = _run(_ruff(), "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tree_is_formatted():
    done = _run(_ruff(), "format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_no_error_in_the_package():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[dev]' installs it)")
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    overrides = settings["tool"]["mypy"].get("overrides", [])
    assert not [o for o in overrides if o.get("ignore_errors")], "no module is exempt"
    done = typecheck.run([], capture=True)
    assert done.returncode == 0, done.stdout[-5000:]
    assert "Success: no issues found" in done.stdout
