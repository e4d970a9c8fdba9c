"""Record what the planner answers, to show a change to it changes no plan, check, suggestion
or message.

    python tools/compare_plans.py record OUT.jsonl      # random questions, several seeds
    PLAN_RECORD=OUT.jsonl PYTHONPATH=tools python -m pytest -p compare_plans tests/...
    python tools/compare_plans.py diff A.jsonl B.jsonl

Every call of `make_plan` made by the solver is recorded with its plan (blocks, checks, used
and block inputs) or its exception (class, message, suggestions, missing, explanation), and
so are the analyses and blocks the consistency checks take from the planner; each random
question also records a digest of its whole answer (text and JSON) or refusal. Run `record`
with the code before and after a change (each in its own environment) and `diff` the files.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path

#: seeds and counts of `tests/test_properties.questions`
QUESTIONS = ((4242, 700), (7, 600), (20261130, 1200))
#: the questions that once took seconds (tests/test_speed_questions.py)
EXTRA = [
    (
        "attention_score_bytes",
        dict(
            global_batch_tokens="929749536 token",
            n_microbatches=6,
            tp=1,
            head_dim=82,
            tokens="19685472860543 token",
            grad_bytes_per_param="2 B/param",
        ),
        "H100-SXM",
    ),
    (
        "pipeline_bubble_fraction",
        dict(
            gpus_per_node="8 GPU/node",
            pp=1,
            global_batch="511020 sequence",
            optimizer_memory="505.9 GB",
            virtual_pipeline_stages=1,
            zero2_memory_per_gpu="31.2 GB",
        ),
        None,
    ),
]


def _names(fs) -> list[str]:
    return [f.name for f in fs]


def _plan(plan) -> dict:
    return {
        "targets": list(plan.targets),
        "blocks": [[_names(b.formulas), [v.name for v in b.unknowns]] for b in plan.blocks],
        "checks": _names(plan.checks),
        "used": sorted(plan.used),
        "block_inputs": sorted(plan.block_inputs),
    }


def _error(exc: Exception) -> dict:
    return {
        "error": type(exc).__name__,
        "message": str(exc),
        "suggestions": list(getattr(exc, "suggestions", []) or []),
        "missing": list(getattr(exc, "missing", []) or []),
        "explanation": getattr(exc, "explanation", ""),
    }


def _analysis(a) -> dict:
    return {
        "determined": sorted(a.determined),
        "computed_by": sorted((v, f.name) for v, f in a.computed_by.items()),
        "reads": sorted((v, list(r)) for v, r in a.reads.items()),
        "leftover": _names(a.leftover),
        "coupled": sorted(a.coupled),
    }


def install(out) -> None:
    """Wrap the planner's entry points as the solver and consistency checks see them."""
    from napkinmath.solving import consistency, solver

    def write(row: dict) -> None:
        out.write(json.dumps(row, sort_keys=True) + "\n")

    make_plan = solver.make_plan

    @functools.wraps(make_plan)
    def recorded_plan(targets, knowns, suggest=True, *more):  # more: cancel (not recorded)
        row = {
            "call": "make_plan",
            "targets": list(targets),
            "knowns": sorted(knowns),
            "suggest": suggest,
        }
        try:
            found = make_plan(targets, knowns, suggest, *more)
        except Exception as exc:
            write({**row, **_error(exc)})
            raise
        write({**row, **_plan(found)})
        return found

    from napkinmath.solving.plan import _formula_sets

    analyse = consistency.independent_analysis

    @functools.wraps(analyse)
    def recorded_analyse(knowns):  # rows as when the checks called _analyse(knowns, names)
        found = analyse(knowns)
        write(
            {
                "call": "_analyse",
                "knowns": sorted(knowns),
                "names": sorted(_formula_sets().sets[0]),
                "args": [[], []],
                **_analysis(found),
            }
        )
        return found

    blocks = consistency._blocks

    @functools.wraps(blocks)
    def recorded_blocks(analysis, needed):
        found = blocks(analysis, needed)
        write(
            {
                "call": "_blocks",
                "needed": sorted(needed),
                "blocks": [[_names(b.formulas), [v.name for v in b.unknowns]] for b in found],
            }
        )
        return found

    solver.make_plan = recorded_plan
    consistency.independent_analysis = recorded_analyse
    consistency._blocks = recorded_blocks


def record(path: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    import test_properties as props

    with open(path, "w", encoding="utf-8") as out:
        install(out)
        questions = [q for seed, n in QUESTIONS for q in props.questions(n, seed=seed)]
        for i, q in enumerate(questions + EXTRA):
            out.write(json.dumps({"question": i, "target": q[0]}) + "\n")
            kind, found = props.answer(q)
            text = f"{kind}\n{found}\n{found.to_json()}" if kind == "ok" else f"{kind}\n{found}"
            out.write(
                json.dumps(
                    {"answer": i, "kind": kind, "digest": hashlib.sha256(text.encode()).hexdigest()}
                )
                + "\n"
            )


def diff(a: str, b: str) -> int:
    with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
        left, right = fa.read().splitlines(), fb.read().splitlines()
    questions = sum(1 for line in left if line.startswith('{"question"'))
    calls = sum(1 for line in left if line.startswith('{"call"') or '"call":' in line)
    differ = [(i, x, y) for i, (x, y) in enumerate(zip(left, right, strict=False)) if x != y]
    print(
        f"{a}: {len(left)} rows ({questions} questions, {calls} planner calls); "
        f"{b}: {len(right)} rows"
    )
    for i, x, y in differ[:5]:
        print(f"row {i}:\n  - {x[:600]}\n  + {y[:600]}")
    same = not differ and len(left) == len(right)
    print("identical" if same else f"{len(differ)} rows differ")
    return 0 if same else 1


_out = None


def pytest_configure(config) -> None:
    """As a pytest plugin (-p compare_plans): record to $PLAN_RECORD."""
    global _out
    path = os.environ.get("PLAN_RECORD")
    if path:
        _out = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed at unconfigure)
        install(_out)


def pytest_runtest_setup(item) -> None:
    if _out is not None:
        _out.write(json.dumps({"test": item.nodeid}) + "\n")


def pytest_unconfigure(config) -> None:
    if _out is not None:
        _out.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"] and len(sys.argv) == 3:
        record(sys.argv[2])
    elif sys.argv[1:2] == ["diff"] and len(sys.argv) == 4:
        sys.exit(diff(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
