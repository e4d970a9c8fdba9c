"""Variable names from the cache, for a check of units without the library (nor sympy)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import napkinmath as nm
from napkinmath.catalog import snapshot

PROBE = """
import json, sys
from napkinmath.catalog.names import variable_names
found = variable_names()
print(json.dumps({"names": sorted(found), "sympy": "sympy" in sys.modules}))
"""


def _probe(cache: str) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(done.stdout)


def test_names_come_from_the_cache_once_written(tmp_path):
    first = _probe(str(tmp_path))
    assert first["names"] == sorted(nm.variables())
    written = list((tmp_path / "napkinmath").glob("variables-*"))
    assert [p.name for p in written] == [f"variables-{snapshot.names_digest()}"]
    second = _probe(str(tmp_path))
    assert second == {"names": first["names"], "sympy": False}


def test_a_garbled_cache_is_recomputed(tmp_path):
    folder = tmp_path / "napkinmath"
    folder.mkdir(mode=0o700)
    (folder / f"variables-{snapshot.names_digest()}").write_bytes(b"\xff\xfe garbage")
    assert _probe(str(tmp_path))["names"] == sorted(nm.variables())


def test_an_unwritable_cache_only_costs_time(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert _probe(str(blocked))["names"] == sorted(nm.variables())


def test_a_pure_unit_check_loads_no_formulas(tmp_path):
    _probe(str(tmp_path))  # the cache is written
    code = (
        "import sys; from napkinmath.cli.main import main; "
        "status = main(['check', '140 GB / (400 Gb/s)', '--expect', '0.35 s']); "
        "print(status, 'sympy' in sys.modules, 'napkinmath.formulas' in sys.modules)"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert "2.8 s" in done.stdout  # 140 GB / 50 GB/s
    assert done.stdout.strip().splitlines()[-1] == "1 False False"  # it disagrees: status 1
