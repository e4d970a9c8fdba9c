"""pint's registry is built from units.txt in every process: pint's own disk cache is pickles,
which run code when read, so napkinmath never gives pint a cache folder, and removes the
pickled folders that earlier releases wrote (`napkinmath.catalog.snapshot.prune`)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pint
from helpers import W12

PROBE = (
    "import napkinmath.units as u; "
    "print(u.ureg._diskcache is None, u.ureg.Quantity('140 GB / (400 Gb/s)').to('ms'), "
    "u.format_quantity(u.ureg.Quantity(989.5, 'TFLOP/(s*GPU)')), sorted(u.base_units()))"
)


def _run(cache_home: Path, *args: str) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run(
        [sys.executable, *(args or ("-c", PROBE))],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


class _Planted:
    """A pickle that, when loaded, writes a file (it would as well run any command)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "ran"))


def test_the_registry_has_no_disk_cache_and_writes_no_pickle(tmp_path):
    first = _run(tmp_path)
    assert first.startswith("True ") and "2800.0 millisecond" in first
    assert "989.5 TFLOP/(s·GPU)" in first
    assert not list(tmp_path.rglob("*.pickle"))
    assert _run(tmp_path) == first


def test_a_planted_pickle_in_the_cache_never_runs(tmp_path):
    marker = tmp_path / "marker"
    cache = tmp_path / "cache" / "napkinmath"
    folder = cache / f"pint-{pint.__version__}"
    folder.mkdir(parents=True, mode=0o700)
    os.chmod(cache, 0o700)
    for name in ("registry.pickle", "units.pickle", "0" * 40 + ".pickle"):
        (folder / name).write_bytes(pickle.dumps(_Planted(marker)))
    assert "n_gpus = 58.48 GPU" in _run(tmp_path / "cache", "-m", "napkinmath.cli", *W12)
    assert not marker.exists()
    assert not folder.exists()  # removed with the library's first entry: a pickle is code
