"""Every cache behind one seam (`napkinmath.caches`): registered, listed in docs/caches.md,
emptied by `napkinmath.clear_caches()` without changing an answer, and off with
NAPKIN_NO_CACHE=1 without changing one either."""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath import cache, caches

ROOT = Path(__file__).resolve().parent.parent
W12 = [
    "solve",
    "n_gpus",
    "params=7B",
    "tokens=1T",
    "train_time=3 weeks",
    "mfu=0.4",
    "--gpu",
    "H100-SXM",
]


def _w12() -> str:
    return str(
        nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
    )


def _refusal() -> str:
    with pytest.raises(nm.UnderDeterminedError) as refused:
        nm.solve("n_gpus", params="7B", tokens="1T", mfu=0.4, gpu="H100-SXM")
    return str(refused.value)


def _filled() -> set[str]:
    return {name for name, size in caches.sizes().items() if size}


def test_after_clear_caches_a_solve_answers_alike_and_fills_again_what_it_cleared():
    caches.load_all()
    _w12(), _refusal()  # what lies below the memory caches (the disk, objects' own) is there
    nm.clear_caches()
    answer, refusal = _w12(), _refusal()
    filled = _filled()
    assert {
        "napkinmath.solving.solver.plan_for",
        "napkinmath.solving.plan.analyse_formulas",
        "napkinmath.solving.planner.planned",
        "napkinmath.hardware.records._read",
        "napkinmath.solving.solver._cached_given",
    } <= filled
    nm.clear_caches()
    assert _filled() == set()  # the module states too
    assert (_w12(), _refusal()) == (answer, refusal)
    assert _filled() == filled


def test_a_memo_answers_from_its_cache_and_is_emptied_by_clear_caches():
    calls = []

    @caches.memo(8, invalidated_by=caches.NOTHING)
    def double(x: int) -> int:
        calls.append(x)
        return 2 * x

    entry = caches.registered()[f"{__name__}.{double.__qualname__}"]
    assert entry.key == "x" and entry.kind == "function"
    assert double(2) == double(2) == 4 and calls == [2] and entry.size() == 1
    nm.clear_caches()
    assert entry.size() == 0 and double(2) == 4 and calls == [2, 2]


def _package_modules() -> list:
    found = [nm, nm.formulas, nm.hardware]
    for package in (nm, nm.formulas, nm.hardware):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.endswith("__main__"):
                found.append(importlib.import_module(info.name))
    return found


def test_every_cached_function_of_the_package_is_registered():
    registered = caches.load_all()
    unregistered, properties = [], set()
    for module in _package_modules():
        for value in vars(module).values():
            members = [value]
            if inspect.isclass(value) and value.__module__ == module.__name__:
                members += list(vars(value).values())
                if any(isinstance(m, functools.cached_property) for m in vars(value).values()):
                    properties.add(value.__name__)
            for member in members:
                if (
                    isinstance(member, functools._lru_cache_wrapper)
                    and member.__module__ == module.__name__
                ):
                    name = f"{member.__module__}.{member.__qualname__}"
                    if name not in registered:
                        unregistered.append(name)
    assert unregistered == []
    assert properties == set(caches.PROPERTIES)  # each class with a per-object cache, listed
    # every module whose caches register is one the map imports
    assert {n.rsplit(".", 1)[0] for n in registered if n.startswith("napkinmath.")} <= set(
        caches.MODULES
    )


def test_no_source_file_caches_past_the_registry():
    # functools' caches are made by `caches.memo` alone (a class's cached_property aside)
    bypass = re.compile(
        r"lru_cache|functools\.cache\b|^\s*@cache\b|^from functools import "
        r".*\bcache\b",
        re.M,
    )
    found = [
        str(path.relative_to(ROOT))
        for folder in ("engine", "formulas", "hardware")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "caches.py" and bypass.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_cache_map_in_the_docs_is_current():
    shown = (ROOT / "docs" / "caches.md").read_text(encoding="utf-8")
    assert shown == caches.cache_map(), "run: python -m napkinmath.caches > docs/caches.md"


def test_clear_caches_with_disk_removes_the_disk_entries(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.write("inversions-test/facts-1", source="s", payload=b"1")
    cache.write("library-test", source="s", payload=b"{}")
    assert cache.read("library-test", source="s", limit=10) == b"{}"
    assert len(cache.entries()) == 2
    nm.clear_caches()
    assert len(cache.entries()) == 2  # memory only, by default
    nm.clear_caches(disk=True)
    assert cache.entries() == [] and (tmp_path / "napkinmath").is_dir()


def _run(env_extra: dict[str, str], home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if name != "NAPKIN_NO_CACHE"}
    env.update(XDG_CACHE_HOME=str(home), **env_extra)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, check=True, timeout=600
    )


PROBE = """
import napkinmath as nm
from napkinmath import caches
def kept():  # the planner's work count aside: a count, not a cache; nor what is fixed
    fixed = {n for n, c in caches.registered().items() if c.kind == "fixed"}
    return sum(
        n for name, n in caches.sizes().items()
        if not name.endswith("plan.work") and name not in fixed
    )
print(caches.ENABLED, kept())
r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
caches.load_all()
print(kept() > 0)
from napkinmath.solving.planning_graph import library_index
print(library_index.cache_info().misses)  # the library as integers: built once
"""

#: a refusal whose suggestion search plans dozens of candidates
REFUSAL = ["solve", "n_gpus", "params=7B", "tokens=1T", "mfu=0.4", "--gpu", "H100-SXM"]


def test_with_caches_off_the_answers_are_the_same_and_nothing_is_kept(tmp_path):
    # (nothing shipped, so that the library and its rearrangements are worked out here)
    on = _run({"NAPKIN_NO_SHIPPED": "1"}, tmp_path / "on", "-m", "napkinmath", *W12)
    off_env = {"NAPKIN_NO_CACHE": "1", "NAPKIN_NO_SHIPPED": "1"}
    off = _run(off_env, tmp_path / "off", "-m", "napkinmath", *W12)
    assert off.stdout == on.stdout and "n_gpus = 58.48 GPU" in on.stdout
    assert (tmp_path / "on" / "napkinmath").is_dir()  # the disk cache, written with caches on
    assert not (tmp_path / "off" / "napkinmath").exists()  # and not at all with them off
    shipped = _run({}, tmp_path / "shipped", "-m", "napkinmath", *W12)
    assert shipped.stdout == on.stdout  # what is shipped answers alike, and needs no disk
    assert not (tmp_path / "shipped" / "napkinmath").exists()
    probe = _run({"NAPKIN_NO_CACHE": "1"}, tmp_path / "off", "-c", PROBE)
    assert probe.stdout.split() == ["False", "0", "False", "1"]
    assert caches.ENABLED  # this process: the variable unset


def test_with_caches_off_a_refusal_says_the_same_and_builds_the_library_index_once(tmp_path):
    # what only the loaded library decides ("fixed" memos) is kept with caches off: rebuilt
    # on every call, it made this refusal take many minutes
    on = subprocess.run(
        [sys.executable, "-m", "napkinmath", *REFUSAL],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "on")},
        timeout=600,
    )
    probe = (
        "import sys\n"
        "from napkinmath.cli.main import main\n"
        "from napkinmath.solving.planning_graph import library_index\n"
        f"status = main({REFUSAL!r})\n"
        "print(status, library_index.cache_info().misses, file=sys.stderr)\n"
    )
    off = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "off"), "NAPKIN_NO_CACHE": "1"},
    )
    assert on.returncode == 2 and "give one of train_time" in on.stderr
    assert off.stderr.splitlines()[:-1] == on.stderr.splitlines()
    assert off.stderr.splitlines()[-1] == "2 1"  # refused (status 2), the index built once
    registered = caches.load_all()
    fixed = sorted(n for n, c in registered.items() if c.kind == "fixed")
    assert "napkinmath.solving.planning_graph.library_index" in fixed
    # nothing keyed by a question is kept: the planner's analyses and answers stay off
    assert registered["napkinmath.solving.plan.analyse_formulas"].kind == "function"
