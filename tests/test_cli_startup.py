"""What `napkin` does to its own process at start: no cyclic garbage collection while a
command runs (switched back on after), and single-threaded OpenBLAS unless the user chose
otherwise; `main(argv)` called from Python leaves the environment alone."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from napkinmath.cli.main import main

PROBE = """
import gc, json, os, sys
from napkinmath.cli.main import main
cli = sys.modules["napkinmath.cli.main"]
seen, real = {}, cli._run
def spy(argv):
    seen["collecting"] = gc.isenabled()
    return real(argv)
cli._run = spy
sys.argv = ["napkin", "hardware", "H100-SXM"]
status = main(%s)
print(json.dumps({"status": status, "during": seen["collecting"], "after": gc.isenabled(),
                  "blas": os.environ.get("OPENBLAS_NUM_THREADS")}))
"""


def _probe(argv: str, **env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE % argv],
        capture_output=True,
        text=True,
        env={**environ, **env},
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_the_napkin_process_runs_without_the_collector_and_one_blas_thread():
    found = _probe("")
    assert found["status"] == 0
    assert found["during"] is False and found["after"] is True
    assert found["blas"] == "1"


def test_a_users_blas_threads_are_kept():
    assert _probe("", OPENBLAS_NUM_THREADS="3")["blas"] == "3"


def test_main_called_with_arguments_leaves_the_environment_alone():
    found = _probe("['hardware', 'H100-SXM']")
    assert found["status"] == 0 and found["blas"] is None
    assert found["during"] is False and found["after"] is True


@pytest.mark.parametrize("collecting", [True, False])
def test_main_restores_the_collector_as_it_found_it(collecting, capsys):
    was = gc.isenabled()
    (gc.enable if collecting else gc.disable)()
    try:
        with pytest.raises(SystemExit):
            main(["--version"])
        assert gc.isenabled() is collecting
        assert main(["hardware", "H100-SXM"]) == 0
        assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()
    assert "H100-SXM" in capsys.readouterr().out
