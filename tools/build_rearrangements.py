"""Build the library's rearrangements shipped with the package (`napkinmath.solving.shipped`).

    python tools/build_rearrangements.py          # writes engine/library/rearrangements/
    python tools/build_rearrangements.py --full     # solves everything again
    python tools/build_rearrangements.py --restamp  # keys it to this source, where sound

Every library formula that can be inverted is solved with sympy for each of its variables,
exactly as a question would solve it (`napkinmath.solving.invert.solved_for`), and written as
JSON trees (their print layouts are made from them, `napkinmath.library.tree_layout`): one
file per formula and an index holding the digest of
the library's source. Then a fixed workload of questions (each formula's variables from the
others, random chains through the graph, seed `SEED`, and every variable from a GPU record
with at most one of its neighbours) is answered with nothing on disk,
and every other entry the solver would keep (singularity facts, coupled blocks, cancelling
compositions) is kept: the coupled blocks in `joint-*.json` (see `shipped.joint_shard`), the
others in facts.json. Last, every coupled block that is not singular of two formulas (in two
variables they share) or of three of one subject (in three variables each meets twice) is
solved jointly, each given at most `BLOCK_SECONDS` of sympy's time, and its roots kept too.
A block left out for its time that the previous build shipped is kept when each of its
formulas is unchanged (its row of the declared library, library.json, the same bytes), so
that a rebuild on a busy machine loses nothing (its solutions are checked at random points
with every shipped block's by tests/test_shipped_rearrangements.py).
The declared library itself (`napkinmath.library.stored.declared`) is written beside them,
as library.json, so that a fresh install's first question imports neither sympy nor the
formula modules. Deterministic: the same source and previous build give the same bytes (a
block left out for its time is named on stderr; on a much slower machine the set may
differ). Run it after changing a formula, units.txt or the code that declares, lays out or
rearranges them; tests/test_shipped_rearrangements.py says when it is due.

A build is incremental where it can be: roots, facts and blocks are facts about the formulas
their keys name, so where the code beside the formulas (`snapshot.code_digest`, kept in the
index as `code`) and sympy are those of the last build, each formula whose declared row is
unchanged keeps its roots, and every fact and block about unchanged formulas only is kept;
the changed formulas are solved again, with the workload's questions that name one of their
less common variables (`NEAR_FORMULAS`) and the blocks of two or three that hold one of
them. `--full` ignores the last build (a full build took about 95 minutes of workload on 2
cores, 2026-12-06; the blocks phase is cut at `BLOCKS_SECONDS`).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "engine" / "library" / "rearrangements"


def _dump(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


class Previous:
    """What the last build shipped: its coupled blocks, its facts, each formula's roots and
    row of the declared library (library.json), which tells whether the formula changed
    since, and the digest of the code beside the formulas it was built with (`code`)."""

    def __init__(self, folder: Path) -> None:
        self.joint: dict[str, object] = {}
        self.facts: dict[str, dict] = {}
        self.roots: dict[str, str] = {}
        self.rows: dict[str, str] = {}
        self.code: str | None = None
        library = folder / "library.json"
        if not library.is_file():  # (nothing to compare with: nothing is kept)
            return
        for shard in sorted(folder.glob("joint-*.json")):
            self.joint.update(json.loads(shard.read_text()))
        self.rows = {row[0]: _dump(row) for row in json.loads(library.read_text())["formulas"]}
        index = json.loads((folder / "index.json").read_text())
        self.code = index.get("code") if index.get("sympy") == _sympy_version() else None
        if (folder / "facts.json").is_file():
            self.facts = json.loads((folder / "facts.json").read_text())
        for name in index.get("formulas", []):
            self.roots[name] = (folder / f"{name}.json").read_text()

    def unchanged(self, name: str, row: str | None) -> bool:
        """Whether formula `name`, now declared as `row` (None: no longer), is the same as in
        the last build."""
        return row is not None and self.rows.get(name) == row


def _sympy_version() -> str:
    return str(__import__("sympy").__version__)


def _formulas_of(kind: str, key: str) -> list[str]:
    """The formulas a fact of `kind` is about, from its key: a singularity fact's or a
    coupled block's first field (`f,g\tunknowns...`), a cancelling composition's
    `formula:variable` steps (`target\tf:x;g:y`)."""
    fields = key.split("\t")
    if kind == "cancel":
        return [step.partition(":")[0] for step in fields[1].split(";")]
    return fields[0].split(",")


def build(target: Path = TARGET, previous: Previous | None = None, *, full: bool = False) -> int:
    """Write the shipped set for this source into `target`; returns how many formulas have
    roots there. Unless `full`, and where the code beside the formulas is what `previous`
    was built with, what `previous` found for each unchanged formula is kept (its roots, and
    every fact and block about unchanged formulas only) and only the changed formulas are
    solved again, with the questions of the workload that name one of their variables."""
    from napkinmath import deadline
    from napkinmath.catalog.lookup import formulas
    from napkinmath.catalog.snapshot import code_digest, source_digest
    from napkinmath.library.stored import declared
    from napkinmath.solving import shipped as shipping
    from napkinmath.solving.invert import solved_for

    source, code = source_digest(), code_digest()
    if source is None or code is None:
        raise SystemExit("the library's source cannot be read")
    built = target.with_name(target.name + ".new")
    shutil.rmtree(built, ignore_errors=True)
    built.mkdir(parents=True)
    all_formulas = sorted(formulas().values(), key=lambda f: f.name)
    library = declared()
    if library is None:
        raise SystemExit("a part of the library has no stored form (see stored.declared)")
    rows = {row[0]: _dump(row) for row in library["formulas"]}
    kept = previous if previous is not None and not full and previous.code == code else None
    changed = {n for n in rows if kept is None or not kept.unchanged(n, rows[n])}
    print(
        f"{'incremental' if kept else 'full'} build: {len(changed)} of {len(rows)} formulas "
        "solved again",
        file=sys.stderr,
    )
    shipped = []
    for f in all_formulas:
        if f.forward_only:
            continue
        if kept is not None and f.name not in changed:  # its roots as the last build found
            if f.name in kept.roots:
                (built / f"{f.name}.json").write_text(kept.roots[f.name])
                shipped.append(f.name)
            continue
        roots = {}
        for v in sorted(f.variables, key=lambda v: v.name):
            try:
                with deadline.generous(GENEROUS):
                    found = solved_for(f, v.name)
            except deadline.OutOfTimeError as stopped:  # left to the question that asks
                print(f"left out: {f.name} for {v.name} ({stopped})", file=sys.stderr)
                continue
            if found and all(r.tree is not None for r in found):
                roots[v.name] = [r.tree for r in found]
        if roots:
            (built / f"{f.name}.json").write_text(_dump({"formula": f.name, "roots": roots}))
            shipped.append(f.name)
        print(f"{f.name}: {len(roots)} of {len(f.variables)} variables", file=sys.stderr)
    index = {
        "napkinmath": "rearrangements",
        "source": source,
        "code": code,
        "sympy": _sympy_version(),
        "formulas": shipped,
    }
    (built / "index.json").write_text(_dump(index))
    (built / "library.json").write_text(
        _dump({"napkinmath": "library", "source": source, "sympy": index["sympy"], **library})
    )
    only = None if kept is None else changed
    facts = _facts(only)
    if kept is not None:  # the last build's facts about unchanged formulas only
        for kind, entries in sorted(kept.facts.items()):
            for key, value in sorted(entries.items()):
                if not changed.intersection(_formulas_of(kind, key)):
                    facts.setdefault(kind, {}).setdefault(key, value)
    facts["joint"].update(_block_roots(facts["joint"], only))
    joint = facts.pop("joint")
    for key, value in sorted((previous.joint if previous else {}).items()):
        names = key.partition("\t")[0].split(",")
        if key not in joint and all(
            previous is not None and previous.unchanged(n, rows.get(n)) for n in names
        ):
            joint[key] = value
            if kept is None:
                print(f"kept from the previous build: {key}", file=sys.stderr)
    (built / "facts.json").write_text(_dump(facts))
    for digit in "0123456789abcdef"[: shipping.JOINT_SHARDS]:
        name = f"joint-{digit}.json"
        shard = {k: v for k, v in joint.items() if shipping.joint_shard(k) == name}
        (built / name).write_text(_dump(shard))
    shutil.rmtree(target, ignore_errors=True)
    built.rename(target)
    return len(shipped)


SEED = 2026
#: random chains through the graph answered to collect the facts
N_CHAINS = 16000


def _plausible(var, rng, records):
    """A value of `var` near what practitioners use: a record's or a default's, or a round
    number in its unit (fractions inside (0, 1))."""
    import napkinmath as nm

    if var.name in records and rng.random() < 0.8:
        return records[var.name] * rng.choice([0.5, 1, 2])
    if var.default is not None and var.default.value.magnitude and rng.random() < 0.8:
        return var.default.value
    if var.bounds.hi == 1.0:
        return nm.Quantity(round(rng.uniform(0.1, 0.9), 2), var.unit)
    return nm.Quantity(round(10 ** rng.uniform(0, 4), 1), var.unit)


def _workload():
    """(target, givens, gpu) questions: every formula's variables from its others, then
    chains of two or three formulas from a random variable, and some of a variable's
    neighbours (often too few: the refusal's search for suggestions reaches further), and
    last every variable from a GPU record with at most one of its neighbours."""
    import random

    from napkinmath.catalog.lookup import formulas, variables
    from napkinmath.hardware import get

    rng = random.Random(SEED)
    vs, fs = variables(), formulas()
    records = {k: v.quantity for r in ("H100-SXM", "llama-3-70b") for k, v in get(r).values.items()}
    by_var: dict[str, list] = {}
    for f in sorted(fs.values(), key=lambda f: f.name):
        for v in sorted(f.variables, key=lambda v: v.name):
            by_var.setdefault(v.name, []).append(f)
    for f in sorted(fs.values(), key=lambda f: f.name):
        names = sorted(v.name for v in f.variables)
        for target in names:
            givens = {n: _plausible(vs[n], rng, records) for n in names if n != target}
            yield target, givens, None
    names = sorted(by_var)

    def neighbours(target: str) -> list[str]:
        """The variables that share a formula with `target`, by name."""
        return sorted({v.name for f in by_var[target] for v in f.variables} - {target})

    for i in range(N_CHAINS):
        target = rng.choice(names)
        if i % 3 == 0:  # some of the variables beside it, often too few (a refusal)
            near = neighbours(target)
            picked = rng.sample(near, min(len(near), rng.randint(1, 5)))
            givens = {n: _plausible(vs[n], rng, records) for n in sorted(picked)}
            yield target, givens, rng.choice([None, "H100-SXM", "MI300X"])
            continue
        chosen: set[str] = set()
        f = rng.choice(by_var[target])
        used = {f.name}
        for name in sorted(v.name for v in f.variables if v.name != target):
            others = [g for g in by_var[name] if g.name not in used and not g.forward_only]
            if others and rng.random() < 0.4:
                g = rng.choice(others)
                used.add(g.name)
                chosen |= {v.name for v in g.variables} - {name, target}
            else:
                chosen.add(name)
        givens = {n: _plausible(vs[n], rng, records) for n in sorted(chosen - {target})}
        yield target, givens, rng.choice([None, "H100-SXM", "MI300X"])
    # each variable from a GPU record alone and with each one of its neighbours: a record's
    # values are knowns of their own, and which unknowns cancel changes with them (its own
    # generator, so that the chains above stay what they were)
    near_rng = random.Random(SEED + 1)
    for target in names:
        near = neighbours(target)
        for gpu in ("H100-SXM", "MI300X"):
            yield target, {}, gpu
            for n in near:
                yield target, {n: _plausible(vs[n], near_rng, records)}, gpu


@contextlib.contextmanager
def _collected(kinds: tuple[str, ...]) -> Iterator[dict[str, dict]]:
    """While inside, every entry of `kinds` the solver's store puts, as the disk holds it,
    kept by kind and key in the dict yielded (the store still writes it)."""
    from napkinmath.solving import invert

    found: dict[str, dict] = {kind: {} for kind in kinds}
    put = invert._Store.put

    def collect(self, kind: str, key: str, value: object) -> None:
        if kind in found:
            found[kind][key] = json.loads(json.dumps(value))
        put(self, kind, key, value)

    invert._Store.put = collect  # type: ignore[method-assign]
    try:
        yield found
    finally:
        invert._Store.put = put  # type: ignore[method-assign]


#: a variable of a changed formula in at most this many formulas marks a workload question
#: an incremental build asks again (n_gpus or batch_size, in dozens, would mark most of them;
#: at 8, the serving and disaggregated formulas of 2026-12-07 marked 5,918 questions, about
#: 75 minutes on 2 cores, at 3 they mark 2,625; a fact not shipped is found when first asked)
NEAR_FORMULAS = 3


def _distinctive(only: set[str]) -> set[str]:
    """The variables of the formulas `only` that at most `NEAR_FORMULAS` formulas use."""
    from napkinmath.catalog.lookup import formulas

    uses: dict[str, int] = {}
    for f in formulas().values():
        for v in f.variables:
            uses[v.name] = uses.get(v.name, 0) + 1
    return {
        v.name
        for f in formulas().values()
        if f.name in only
        for v in f.variables
        if uses[v.name] <= NEAR_FORMULAS
    }


def _facts(only: set[str] | None = None) -> dict[str, dict]:
    """Every non-root entry the solver keeps while answering the workload, by kind and key;
    with `only`, the workload's questions whose target or a given is a variable of one of
    those formulas."""
    import time

    import napkinmath as nm
    from napkinmath import deadline
    from napkinmath.solving import shipped

    near = None if only is None else _distinctive(only)
    started, asked = time.monotonic(), 0
    with _collected(shipped.FACT_KINDS) as found, deadline.generous(GENEROUS):
        for target, givens, gpu in _workload():
            if near is not None and target not in near and near.isdisjoint(givens):
                continue
            with contextlib.suppress(nm.NapkinError):
                nm.solve(target, gpu=gpu, **givens)
            asked += 1
            if asked % 1000 == 0:
                spent = time.monotonic() - started
                print(f"workload: {asked} questions in {spent:.0f} s", file=sys.stderr)
    return found


#: how many times a question's bounds on symbolic work (`napkinmath.deadline`) the build
#: gives sympy: it may spend a minute on what a question must not
GENEROUS = 60

#: sympy's time for one coupled block at most (a few systems of the activation-memory and
#: communication formulas take minutes, and are left to the question that asks)
BLOCK_SECONDS = 5

#: the time the blocks phase may take in all (a full build's pairs of formulas sharing
#: batch_size, hidden_size and n_heads took over an hour on 2 cores, 2026-12-06)
BLOCKS_SECONDS = 1800


def blocks_of():
    """The coupled blocks shipped whatever the workload reaches: every two of the library's
    independent invertible formulas with two of the variables they share, and every three of
    one subject with three variables that each of them meets twice (names in order). (All
    blocks of three are too many to ship: about 3,500 are not singular.)"""
    from itertools import combinations

    from napkinmath.catalog.lookup import formulas

    fs = sorted(
        (f for f in formulas().values() if not f.forward_only and not f.derived),
        key=lambda f: f.name,
    )
    names = [frozenset(v.name for v in f.variables) for f in fs]
    for i, j in combinations(range(len(fs)), 2):
        for unknowns in combinations(sorted(names[i] & names[j]), 2):
            yield (fs[i], fs[j]), unknowns
    by_var: dict[str, set[int]] = {}
    for i, vs in enumerate(names):
        for v in vs:
            by_var.setdefault(v, set()).add(i)
    for i in range(len(fs)):
        near = sorted(
            {k for v in names[i] for k in by_var[v] if k > i and fs[k].subject == fs[i].subject}
        )
        for j, k in combinations(near, 2):
            shared = (names[i] & names[j]) | (names[i] & names[k]) | (names[j] & names[k])
            for unknowns in combinations(sorted(shared), 3):
                if all(len(names[x] & set(unknowns)) >= 2 for x in (i, j, k)):
                    yield (fs[i], fs[j], fs[k]), unknowns


def _block_roots(known: dict, only: set[str] | None = None) -> dict[str, object]:
    """The joint roots of every block of `blocks_of` not in `known` (with `only`: of one of
    those formulas at least) that is coupled (not singular) and that sympy solves within
    `BLOCK_SECONDS`, by the store's key, until `BLOCKS_SECONDS` have passed (the rest are
    solved when a question first needs them)."""
    import time

    from napkinmath import deadline
    from napkinmath.solving import invert, plan

    stop, skipped = time.monotonic() + BLOCKS_SECONDS, 0
    with _collected(("joint",)) as found:
        for fs, unknowns in blocks_of():
            key = f"{','.join(f.name for f in fs)}\t{','.join(unknowns)}"
            formula_names = tuple(f.name for f in fs)
            if key in known or (only is not None and only.isdisjoint(formula_names)):
                continue
            if time.monotonic() > stop:
                skipped += 1
                continue
            if plan.is_singular(formula_names, unknowns, True):
                continue
            try:
                with deadline.generous(BLOCK_SECONDS / deadline.PER_CALL):
                    invert.joint_roots(fs, unknowns)
            except deadline.OutOfTimeError:
                print(f"left out (over {BLOCK_SECONDS} s): {key}", file=sys.stderr)
            except Exception as problem:  # sympy's own failures: the block is left out
                print(f"left out ({type(problem).__name__}): {key}", file=sys.stderr)
    if skipped:
        print(f"left out for the phase's time ({BLOCKS_SECONDS} s): {skipped}", file=sys.stderr)
    return found["joint"]


def restamp(target: Path = TARGET) -> str:
    """Key the shipped set to this source without solving anything again, where that is
    sound: the library this source declares is the shipped library.json row for row, and
    every shipped root is a tree this code reads (their print layouts are made from the
    trees when printed, not stored). Then the set holds exactly what a build would put
    there from the same formulas (the roots and facts are facts about them, checked by
    content in tests/test_shipped_rearrangements.py),
    and an edit to code the digest covers that changes neither (the registries of
    `library.declare`, say) need not cost a build. Returns the new digest, or stops with
    what differs."""
    from napkinmath.catalog.lookup import formulas
    from napkinmath.catalog.snapshot import source_digest
    from napkinmath.library import tree
    from napkinmath.library.stored import declared

    source = source_digest()
    if source is None:
        raise SystemExit("the library's source cannot be read")
    formulas()
    library = declared()
    if library is None:
        raise SystemExit("a part of the library has no stored form (see stored.declared)")
    shipped = json.loads((target / "library.json").read_text())
    now = json.loads(_dump({**shipped, **library}))
    if now != shipped:
        changed = [k for k in library if now[k] != shipped[k]]
        raise SystemExit(f"the declared library differs from library.json in {changed}: rebuild")
    index = json.loads((target / "index.json").read_text())
    for name in index["formulas"]:
        entry = json.loads((target / f"{name}.json").read_text())
        for variable, roots in entry["roots"].items():
            for root in roots:
                try:
                    tree.from_json(root)
                except (TypeError, ValueError):
                    raise SystemExit(
                        f"a root of {name} for {variable} is no tree: rebuild"
                    ) from None
    from napkinmath.catalog.snapshot import code_digest

    index = {**index, "code": code_digest()}
    for file, data in (("index.json", index), ("library.json", shipped)):
        (target / file).write_text(_dump({**data, "source": source}))
    return source


if __name__ == "__main__":
    import os
    import tempfile

    # nothing on disk and nothing shipped yet: every entry is worked out and seen
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="napkin-build-")
    os.environ["NAPKIN_NO_SHIPPED"] = "1"
    if sys.argv[1:] == ["--restamp"]:
        print(f"the shipped set is keyed to {restamp()}: nothing in it differs")
        raise SystemExit(0)
    last = Previous(TARGET)
    count = build(previous=last, full=sys.argv[1:] == ["--full"])
    print(f"wrote {count} formulas' rearrangements to {TARGET.relative_to(ROOT)}")
