"""The library's snapshot and stored rearrangements: a solve without sympy, the same answer.

Each test runs fresh Python processes with their own cache directory (XDG_CACHE_HOME), as a
user's first and second `napkin solve` would.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys

import pytest
import sympy
from helpers import W12, napkin_process

import napkinmath as nm
from napkinmath import caches
from napkinmath.catalog import snapshot
from napkinmath.catalog.lookup import constraints, formulas
from napkinmath.library import print_layout, tree
from napkinmath.library.print_layout import Printer, lower
from napkinmath.solving import invert


@pytest.fixture(autouse=True)
def _no_shipped_rearrangements(monkeypatch):
    """The disk store is what these tests exercise: the rearrangements shipped with the
    package (tests/test_shipped_rearrangements.py) are turned off in their processes."""
    monkeypatch.setenv("NAPKIN_NO_SHIPPED", "1")
    caches.clear_caches()
    yield
    monkeypatch.delenv("NAPKIN_NO_SHIPPED")
    caches.clear_caches()


def _files(cache) -> list[str]:
    return sorted(
        p.name.split("-")[0]
        for p in (cache / "napkinmath").glob("*-*")
        if p.name.startswith(("library", "inversions"))
    )


def _entries(cache, kind: str) -> list:
    return sorted((cache / "napkinmath").glob(f"inversions-*/{kind}-*"))


def test_the_second_solve_imports_neither_sympy_nor_the_formula_modules(tmp_path):
    first, how = napkin_process(str(tmp_path), W12)
    assert how == {"status": 0, "sympy": True, "formulas": True}
    assert _files(tmp_path) == ["inversions", "library"]
    second, how = napkin_process(str(tmp_path), W12)
    assert how == {"status": 0, "sympy": False, "formulas": False}
    assert second == first
    assert (
        "n_gpus = 58.48 GPU" in second
        and "⇒ n_gpus = train_compute / (mfu · peak_flops · train_time)" in second
    )


def test_a_new_inversion_is_found_with_sympy_then_kept(tmp_path):
    napkin_process(str(tmp_path), W12)
    mfu = [
        "solve",
        "mfu",
        "params=7B",
        "tokens=1T",
        "train_time=3 weeks",
        "n_gpus=64",
        "--gpu",
        "H100-SXM",
    ]
    first, how = napkin_process(str(tmp_path), mfu)
    assert how["sympy"] and not how["formulas"]  # the library from disk, the inversion new
    second, how = napkin_process(str(tmp_path), mfu)
    assert not how["sympy"] and second == first
    assert "mfu = 36.55%" in second


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xff\xfe not json",
        b"[]",
        b'{"napkinmath": "library"}',
        b'{"napkinmath": "library", "digest": "%s", '
        b'"variables": [["x"]], "formulas": [], '
        b'"constraints": []}',
    ],
)
def test_a_damaged_file_is_ignored_and_rebuilt(tmp_path, garbage):
    expected, _ = napkin_process(str(tmp_path), W12)
    folder = tmp_path / "napkinmath"
    damaged = [*folder.glob("library-*"), *_entries(tmp_path, "roots")]
    assert len(damaged) > 1
    for path in damaged:
        path.write_bytes(garbage.replace(b"%s", snapshot.digest().encode()))
    again, how = napkin_process(str(tmp_path), W12)
    assert again == expected and how["status"] == 0
    third, how = napkin_process(str(tmp_path), W12)  # rebuilt: no sympy again
    assert third == expected and not how["sympy"]


def test_a_forged_rearrangement_is_refused_not_run(tmp_path, monkeypatch):
    """An entry rewritten with a consistent digest (as someone who can write the cache could)
    is still only data: a tree naming a function that is not in the library is refused."""
    from napkinmath import cache

    expected, _ = napkin_process(str(tmp_path), W12)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    source = snapshot.digest()
    for path in _entries(tmp_path, "roots"):
        name = f"{path.parent.name}/{path.name}"
        data = json.loads(cache.read(name, source=source, limit=10**6))
        data["value"] = [[["fn", "__import__('os').system('echo hacked')", []], ["sym", "x"]]]
        cache.write(name, source=source, payload=json.dumps(data).encode())
    again, how = napkin_process(str(tmp_path), W12)
    assert again == expected and "hacked" not in again and how["status"] == 0


def test_an_unwritable_cache_only_costs_time(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    first, _ = napkin_process(str(blocked), W12)
    second, how = napkin_process(str(blocked), W12)
    assert first == second and how["sympy"] and how["status"] == 0


def test_the_formula_modules_attach_to_a_library_read_from_disk(tmp_path):
    napkin_process(str(tmp_path), W12)
    code = (
        "import napkinmath as nm, sys\n"
        "from napkinmath.catalog.lookup import formulas\n"
        "fleet = formulas()['fleet_equation']\n"
        "assert 'sympy' not in sys.modules\n"
        "from napkinmath.formulas import training\n"  # declares again: attaches, no error
        "assert formulas()['fleet_equation'] is fleet\n"
        "print(fleet.equation, fleet.variables[0].symbol is not None)\n"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == ("Eq(train_time, train_compute/(mfu*n_gpus*peak_flops)) True")


# --- trees and layouts, over the whole library (in this process) ---------------------------


def _sides(item):
    return (
        (item.equation.lhs, item.equation.rhs)
        if hasattr(item, "equation")
        else (item.lhs, item.rhs)
    )


def _library():
    return [*formulas().values(), *constraints().values()]


def test_every_formula_and_constraint_has_a_tree_that_gives_back_its_sympy_expression():
    for item in _library():
        for side, expr in zip(item.trees, _sides(item), strict=True):
            rebuilt = tree.to_sympy(side, lambda n: nm.variables()[n].symbol)
            assert rebuilt == expr, item.name
            assert tree.from_json(json.loads(json.dumps(side))) == side


def test_every_layout_prints_as_the_expression_it_was_made_from():
    printers = [
        Printer(lambda s: s.name),
        Printer(lambda s: f"[{s.name}]", substituted=True),
        Printer(lambda s: s.name, style="latex"),
    ]
    for item in _library():
        for layout, expr in zip(item.layouts, _sides(item), strict=True):
            stored = json.loads(json.dumps(print_layout.to_json(layout)))
            assert print_layout.to_json(print_layout.from_json(stored)) == stored
            assert stored == print_layout.to_json(lower(expr))  # (node kinds included)
            for printer in printers:
                assert printer(layout) == printer(expr)


def test_compiled_trees_agree_with_sympy_at_random_points():
    """Each side, compiled from its tree, against sympy's own evaluation of the expression."""
    rng = random.Random(7)
    for item in _library():
        for side, expr in zip(invert.sides(item), _sides(item), strict=True):
            # inside each variable's bounds (a share stays below 1: Φ⁻¹(1 − α/N) needs it)
            point = {name: _inside(nm.variables()[name].bounds, rng) for name in side.args}
            theirs = complex(
                expr.evalf(
                    subs={nm.variables()[n].symbol: sympy.Float(x) for n, x in point.items()}
                )
            )
            if abs(theirs.imag) > 1e-12 * abs(theirs):
                # outside the real domain (a negative base to a fractional power: more experts
                # a token than a layer has): refused, as sympy finds no real value
                with pytest.raises((TypeError, ValueError)):
                    side.fn(*(point[a] for a in side.args))
                continue
            ours = float(side.fn(*(point[a] for a in side.args)))
            # (abs_tol: a difference that cancels is 0 here and round-off in sympy)
            assert math.isclose(ours, theirs.real, rel_tol=1e-12, abs_tol=1e-9), item.name


def _inside(bounds, rng: random.Random) -> float:
    """A random value in 0.5..4, or within `bounds` where they are narrower (a fraction)."""
    if bounds.hi <= 1:
        return rng.uniform(max(bounds.lo, 0.0) + 0.05 * bounds.hi, 0.95 * bounds.hi)
    return rng.uniform(0.5, 4.0)


def test_a_tree_never_becomes_code_from_its_text():
    with pytest.raises(ValueError):
        tree.from_json(["fn", "__import__", []])
    with pytest.raises(ValueError):
        tree.from_json(["s", 1])
    with pytest.raises(ValueError):
        tree.from_json(["i", "1 + 1"])
    args, fn = tree.compile_tree(("+", (("s", "os.system('x')"), ("i", 2))))
    assert args == ("os.system('x')",) and fn(1.0) == 3.0


def test_files_of_an_old_source_are_removed_once_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "napkinmath"
    folder.mkdir()
    stale, recent = folder / "library-0123456789abcdef01234567.json", folder / "library-1.json"
    old_inversions = folder / "inversions-0123456789abcdef01234567"
    old_inversions.mkdir()
    for path in (stale, recent):
        path.write_text("{}")
    month_ago = os.stat(stale).st_mtime - (snapshot.STALE_DAYS + 1) * 86_400
    for path in (stale, old_inversions):
        os.utime(path, (month_ago, month_ago))
    # the variable names' entry is keyed by the formula modules' own digest: this source's
    # stays however old (it is read, not written, for months), another's goes

    ours, theirs = folder / f"variables-{snapshot.names_digest()}", folder / "variables-0123"
    for path in (ours, theirs):
        path.write_text("{}")
        os.utime(path, (month_ago, month_ago))
    snapshot.save()
    left = sorted(p.name for p in folder.iterdir())
    assert left == sorted(["library-1.json", f"library-{snapshot.digest()}", ours.name])
