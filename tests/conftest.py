"""Shared test helpers: run the CLI in-process as a user would, capturing its output."""

from __future__ import annotations

import os

import pytest

# a napkin.toml above the checkout (a developer's own) must not change what the tests see;
# tests/test_project_file.py lifts this for its own folders
os.environ["NAPKIN_NO_PROJECT"] = "1"

from napkinmath.cli.main import main


@pytest.fixture
def napkin(capsys):
    """Run `napkin ARGS...`; returns (exit status, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        status = main(list(args))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run
