"""The rearrangements shipped with the package (napkinmath.solving.shipped): built from this
source, equal to what sympy finds now, read as data, ignored when stale or malformed."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath import deadline
from napkinmath.catalog import snapshot
from napkinmath.catalog.lookup import formulas
from napkinmath.catalog.snapshot import source_digest
from napkinmath.solving import shipped

REBUILD = "python tools/build_rearrangements.py"


def _index() -> dict:
    return json.loads((shipped.FOLDER / shipped.INDEX).read_text())


def test_the_shipped_set_was_built_from_this_source():
    index = _index()
    assert index["source"] == source_digest(), (
        f"the shipped rearrangements are stale (built from another source): rebuild them with "
        f"`{REBUILD}` and commit engine/library/rearrangements/"
    )
    invertible = {f.name for f in formulas().values() if not f.forward_only}
    assert set(index["formulas"]) == invertible, f"formulas missing or extra: run `{REBUILD}`"


def test_a_sample_of_shipped_roots_equals_what_sympy_finds_now():
    import sympy

    from napkinmath.solving.invert import solved_for

    same_sympy = _index()["sympy"] == sympy.__version__
    rng = random.Random(7)
    names = sorted(_index()["formulas"])
    for name in rng.sample(names, 25):
        f = formulas()[name]
        stored = json.loads((shipped.FOLDER / f"{name}.json").read_text())["roots"]
        for variable, roots in sorted(stored.items()):
            with deadline.generous(60):  # as the build gives sympy (a fitted law's powers)
                fresh = [r.tree for r in solved_for(f, variable)]
            fresh = json.loads(json.dumps(fresh))
            if same_sympy:
                assert roots == fresh, f"{name} for {variable} differs: run `{REBUILD}`"
            else:
                assert len(roots) == len(fresh), f"{name} for {variable}: run `{REBUILD}`"


def test_every_shipped_root_satisfies_its_formula():
    """Each variable's roots substituted back: at some of 60 random positive points,
    a root makes the formula's sides agree (a max() or a piecewise formula's root holds only
    where its case applies, so not every root at every point)."""
    from napkinmath.library.tree import compile_tree, from_json
    from napkinmath.solving.invert import sides

    rng = random.Random(11)
    unchecked = []
    for name in sorted(_index()["formulas"]):
        f = formulas()[name]
        lhs, rhs = sides(f)
        stored = json.loads((shipped.FOLDER / f"{name}.json").read_text())["roots"]
        for variable, roots in sorted(stored.items()):
            compiled = [compile_tree(from_json(tree)) for tree in roots]
            held = tried = 0
            for _ in range(60):
                point = {v.name: 10 ** rng.uniform(-2, 2) for v in f.variables}
                for args, fn in compiled:
                    try:
                        point[variable] = fn(*(point[a] for a in args))
                        left = lhs.fn(*(point[a] for a in lhs.args))
                        right = rhs.fn(*(point[a] for a in rhs.args))
                    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                        # outside the root's domain at this point (a TypeError: a fractional
                        # power of a negative number, complex, handed to math's functions)
                        continue
                    if not all(isinstance(x, float | int) for x in (left, right, point[variable])):
                        continue
                    tried += 1
                    held += left == pytest.approx(right, rel=1e-6, abs=1e-12)
            if tried and not held:
                raise AssertionError(f"no root of {name} for {variable} satisfies it")
            if not tried:
                unchecked.append((name, variable))
    assert len(unchecked) < 25, unchecked  # integer and rounding formulas mostly


def test_every_shipped_coupled_block_is_in_its_shard_and_its_solutions_solve_it():
    """The joint roots of each shipped block (formulas and unknowns in name order, in the
    shard its key names): at some of 40 random positive points of its other variables, a
    solution makes every formula of the block hold."""
    from napkinmath.library.tree import compile_tree, from_json
    from napkinmath.solving.invert import sides

    rng = random.Random(13)
    blocks = checked = 0
    for digit in "0123456789abcdef"[: shipped.JOINT_SHARDS]:
        name = f"joint-{digit}.json"
        for key, solutions in sorted(json.loads((shipped.FOLDER / name).read_text()).items()):
            blocks += 1
            assert shipped.joint_shard(key) == name, key
            assert shipped.value("joint", key) == solutions  # as the store reads it
            fs_text, unknowns_text = key.split("\t")
            block, unknowns = fs_text.split(","), unknowns_text.split(",")
            assert block == sorted(block) and unknowns == sorted(unknowns), key
            fs = [formulas()[f] for f in block]
            compiled = [
                [compile_tree(from_json(tree)) for tree in solution] for solution in solutions
            ]
            held = tried = 0
            # 40 points a block; more (up to 2,000) where none held yet: a max() block has a
            # solution per branch, each holding only where its branch is the one taken
            for attempt in range(2000):
                if attempt >= 40 and (held or not tried):
                    break
                point = {v.name: 10 ** rng.uniform(-1, 1) for f in fs for v in f.variables}
                for solution in compiled:
                    try:
                        found = [fn(*(point[a] for a in args)) for args, fn in solution]
                        point.update(zip(unknowns, found, strict=True))
                        pairs = [
                            (
                                left.fn(*(point[a] for a in left.args)),
                                right.fn(*(point[a] for a in right.args)),
                            )
                            for left, right in map(sides, fs)
                        ]
                    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                        continue  # outside the solution's domain (or complex) at this point
                    if not all(isinstance(x, float | int) for pair in pairs for x in pair):
                        continue
                    tried += 1
                    held += all(a == pytest.approx(b, rel=1e-6, abs=1e-12) for a, b in pairs)
            assert held or not tried, f"no solution of {key} solves it: run `{REBUILD}`"
            checked += bool(held)
    assert blocks > 300  # every two-formula block that is not singular, and more
    assert checked > 0.85 * blocks  # (blocks with an integer or a rounding mostly go unchecked)


W12 = (
    "import sys, napkinmath as nm\n"
    "r = nm.solve('n_gpus', params='7B', tokens='1T', train_time='3 weeks', mfu=0.4,"
    " gpu='H100-SXM')\n"
    "print(round(r.value.magnitude, 2), 'sympy' in sys.modules,"
    " 'napkinmath.formulas' in sys.modules)\n"
)


def _fresh(cache: Path, code: str = W12, **more: str) -> list[str]:
    """`code` run in a fresh process with the cache folder `cache`: its output's words."""
    env = {"XDG_CACHE_HOME": str(cache), "PYTHONDONTWRITEBYTECODE": "1", "PATH": "", **more}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_fresh_install_answers_its_first_question_without_sympy(tmp_path):
    """An empty cache (the first question after installing): the library is read from the
    shipped file and the rearrangements from the shipped set; neither sympy nor the formula
    modules are imported, and no library entry is written to the cache."""
    assert _fresh(tmp_path) == ["58.48", "False", "False"]
    assert not list((tmp_path / "napkinmath").glob("library-*"))
    # an upgrade: what an older release left, untouched for over a month, goes at the next
    # start, though nothing of the library is stored (as it went when the library was)
    old = tmp_path / "napkinmath" / "inversions-0123456789abcdef01234567"
    old.mkdir(parents=True)
    os.chmod(old.parent, 0o700)
    month_ago = old.stat().st_mtime - (snapshot.STALE_DAYS + 1) * 86_400
    os.utime(old, (month_ago, month_ago))
    assert _fresh(tmp_path) == ["58.48", "False", "False"]
    assert not old.exists()
    # with the shipped set turned off, the same process declares the library (and stores it)
    assert _fresh(tmp_path / "off", NAPKIN_NO_SHIPPED="1") == ["58.48", "True", "True"]
    assert list((tmp_path / "off" / "napkinmath").glob("library-*"))


def _shipped_library() -> dict:
    return json.loads(snapshot.SHIPPED.read_text())


def test_the_shipped_library_is_what_this_source_declares(tmp_path):
    """The shipped library.json was built from this source and holds what the formula modules
    declare now, row by row (trees and print layouts too where sympy is the version it was
    built with; under another, each formula's and constraint's rows up to them)."""
    import sympy

    data = _shipped_library()
    assert data["source"] == source_digest(), (
        f"the shipped library is stale (built from another source): rebuild it with "
        f"`{REBUILD}` and commit engine/library/rearrangements/"
    )
    code = (
        "import json, napkinmath.formulas\n"
        "from napkinmath.library import stored\n"
        "from napkinmath.catalog.lookup import formulas\n"
        "formulas()\n"
        "print(json.dumps(stored.declared()))\n"
    )
    fresh = json.loads(" ".join(_fresh(tmp_path, code, NAPKIN_NO_SHIPPED="1")))
    fresh = json.loads(json.dumps(fresh))  # tuples as lists, as the file holds them
    for part in ("variables", "formulas", "constraints"):
        shipped_rows, fresh_rows = data[part], fresh[part]
        assert [r[0] for r in shipped_rows] == [r[0] for r in fresh_rows], f"run `{REBUILD}`"
        if data["sympy"] == sympy.__version__ or part == "variables":
            assert shipped_rows == fresh_rows, f"the shipped {part} differ: run `{REBUILD}`"
        else:  # each row up to its two trees and two layouts
            assert [r[:-4] for r in shipped_rows] == [r[:-4] for r in fresh_rows]


def test_a_stale_or_malformed_shipped_library_is_ignored(tmp_path):
    """Another source's file, a file that is not JSON, rows that are not ours, a file over
    the limit, a folder in its place: each is passed over, the library is declared (or read
    from the cache) and the answer is the same."""
    good = _shipped_library()
    broken_rows = {**good, "formulas": [["fleet_equation", "no more fields"]]}
    cases = {
        "stale": json.dumps({**good, "source": "0" * 24}),
        "not json": "not json",
        "not ours": json.dumps({"napkinmath": "something else", "source": good["source"]}),
        "bad rows": json.dumps(broken_rows),
        "too large": "{" + " " * (snapshot.LIMITS["library"] + 10) + "}",
    }
    template = (
        "import sys\n"
        "from pathlib import Path\n"
        "from napkinmath.catalog import snapshot\n"
        "snapshot.SHIPPED = Path({path!r})\n"
        "assert snapshot.shipped() is None or {label!r} == 'bad rows'\n"
    ) + W12
    for label, text in [*cases.items(), ("a folder", None)]:
        place = tmp_path / label.replace(" ", "-")
        place.mkdir()
        path = place / "library.json"
        path.mkdir() if text is None else path.write_text(text)
        code = template.format(path=str(path), label=label)
        assert _fresh(place / "cache", code) == ["58.48", "True", "True"], label
        # the next process reads the library the first one stored
        assert _fresh(place / "cache", code) == ["58.48", "False", "False"], label


def test_the_package_data_names_the_shipped_library():
    assert snapshot.SHIPPED.parent == shipped.FOLDER  # `rearrangements/*.json` ships it


def test_a_stale_or_malformed_shipped_set_is_ignored(monkeypatch, tmp_path):
    """Another source's index, a file that is not JSON, a tree that is not ours, a file
    over the limit: each is ignored and the question falls back to sympy, same answer."""
    from napkinmath import caches

    expected = nm.solve("train_time", train_compute="6e22 FLOP", n_gpus=64, mfu=0.4, gpu="H100")
    index, real = _index(), shipped.FOLDER
    cases = {
        "stale": {**index, "source": "0" * 24},
        "not ours": {"napkinmath": "something else"},
    }
    for label, data in cases.items():
        folder = tmp_path / label
        folder.mkdir()
        (folder / shipped.INDEX).write_text(json.dumps(data))
        monkeypatch.setattr(shipped, "FOLDER", folder)
        caches.clear_caches()
        assert shipped.value("roots", "fleet_equation\ttrain_time") is None
        r = nm.solve("train_time", train_compute="6e22 FLOP", n_gpus=64, mfu=0.4, gpu="H100")
        assert r.value == expected.value, label
    folder = tmp_path / "malformed"
    folder.mkdir()
    (folder / shipped.INDEX).write_text(json.dumps(index))
    (folder / "fleet_equation.json").write_text(
        json.dumps({"formula": "fleet_equation", "roots": {"train_time": [["exec", "x"]]}})
    )
    (folder / "training_compute.json").write_bytes(b"{" + b" " * (shipped.LIMIT + 10) + b"}")
    (folder / shipped.FACTS).write_text("not json")
    blocks = [json.loads((real / f"joint-{d}.json").read_text()) for d in "01"]
    keys = [sorted(b)[0] for b in blocks]  # a shipped block in each of two shards
    (folder / "joint-0.json").write_text("not json")
    (folder / "joint-1.json").write_bytes(b"{" + b" " * (shipped.LIMIT + 10) + b"}")
    monkeypatch.setattr(shipped, "FOLDER", folder)
    caches.clear_caches()
    assert shipped.value("roots", "training_compute\ttrain_compute") is None  # over the limit
    assert [shipped.value("joint", k) for k in keys] == [None, None]
    r = nm.solve("train_time", train_compute="6e22 FLOP", n_gpus=64, mfu=0.4, gpu="H100")
    assert r.value == expected.value
    caches.clear_caches()


def test_your_formulas_never_read_the_shipped_set(tmp_path):
    ours = tmp_path / "ours.toml"
    ours.write_text(
        "[[formulas]]\n"
        'name = "fleet_equation"\n'
        'replaces = "fleet_equation"\n'
        'title = "Fleet equation, twice the FLOPs"\n'
        'equation = "train_time = 2 * train_compute / (mfu * n_gpus * peak_flops)"\n'
        'source = "test"\n'
    )
    with nm.user_formulas(str(ours)):
        assert shipped.value("roots", "fleet_equation\tn_gpus") is None
        r = nm.solve("n_gpus", train_compute="6e22 FLOP", train_time="1 day", mfu=0.4, gpu="H100")
    plain = nm.solve("n_gpus", train_compute="6e22 FLOP", train_time="1 day", mfu=0.4, gpu="H100")
    assert r.value.magnitude == pytest.approx(2 * plain.value.magnitude)


def test_the_package_data_names_the_shipped_folder():
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    assert '"napkinmath.library" = ["rearrangements/*.json"]' in text
