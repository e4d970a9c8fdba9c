"""pint's disk cache of units.txt (`napkinmath.units._registry`): written on the first run in
the user's cache directory, read on the next, and never a failure: an unusable directory or a
broken cache file only means the registry is built from units.txt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pint

PROBE = ("import napkinmath.units as u; "
         "print(u.ureg._diskcache is not None, u.ureg.Quantity('140 GB / (400 Gb/s)').to('ms'), "
         "u.format_quantity(u.ureg.Quantity(989.5, 'TFLOP/(s*GPU)')), sorted(u.base_units()))")


def _run(cache_home: Path) -> tuple[str, str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          env=env, check=True)
    cached, _, shown = done.stdout.partition(" ")
    return cached, shown


def _files(cache_home: Path) -> dict[str, int]:
    folder = cache_home / "napkinmath" / f"pint-{pint.__version__}"
    return {p.name: p.stat().st_mtime_ns for p in sorted(folder.glob("*"))}


def test_the_cache_is_written_once_then_read_with_the_same_units(tmp_path):
    cached, first = _run(tmp_path)
    written = _files(tmp_path)
    assert cached == "True"
    assert any(name.endswith(".pickle") for name in written)
    assert "2800.0 millisecond" in first and "989.5 TFLOP/(s·GPU)" in first
    assert _run(tmp_path) == ("True", first)
    assert _files(tmp_path) == written  # read, not written again


def test_an_unusable_cache_directory_builds_the_registry_from_the_file(tmp_path):
    _, expected = _run(tmp_path / "fresh")
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    assert _run(blocked) == ("False", expected)


def test_a_broken_cache_file_is_removed_and_written_again(tmp_path):
    _, expected = _run(tmp_path)
    folder = tmp_path / "napkinmath" / f"pint-{pint.__version__}"
    for pickled in folder.glob("*.pickle"):
        pickled.write_bytes(pickled.read_bytes()[:20])  # a write cut short
    assert _run(tmp_path) == ("False", expected)
    assert not folder.exists()
    assert _run(tmp_path) == ("True", expected)
    assert any(name.endswith(".pickle") for name in _files(tmp_path))
