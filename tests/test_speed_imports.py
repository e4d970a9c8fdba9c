"""Cold start: commands import only what they use (checked by module, not by time)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import contextlib, io, json, sys
from napkinmath.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        status = main(sys.argv[1:])
    except SystemExit as exc:
        status = exc.code
print(json.dumps({"status": status, "output": out.getvalue(),
                  "loaded": sorted(m for m in ("pint", "sympy", "networkx", "numpy")
                                   if m in sys.modules)}))
"""


def _probe(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_help_imports_no_dependency():
    found = _probe("--help")
    assert found["status"] == 0 and "napkin" in found["output"]
    assert found["loaded"] == []


@pytest.mark.parametrize("name", ["H100-SXM", "llama-3-70b"])
def test_hardware_record_needs_pint_only(name):
    found = _probe("hardware", name)
    assert found["status"] == 0 and name in found["output"]
    assert "pint" in found["loaded"]  # (pint imports numpy where it is installed)
    assert "sympy" not in found["loaded"] and "networkx" not in found["loaded"]


def test_hardware_listing_needs_no_formulas():
    found = _probe("hardware")
    assert found["status"] == 0 and "H100-SXM" in found["output"]
    assert "sympy" not in found["loaded"] and "networkx" not in found["loaded"]


def test_import_napkinmath_is_light():
    code = (
        "import sys, napkinmath; print(sorted(m for m in ('pint', 'sympy', 'networkx') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    code = "import napkinmath as nm; print(nm.Quantity(3, 'GB').to('MB').magnitude)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(done.stdout) == 3000.0
