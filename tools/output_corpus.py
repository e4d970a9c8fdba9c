"""The regression corpus of a refactor that must change no output: one line per output.

    python tools/output_corpus.py > before.txt      # on the commit before the change
    python tools/output_corpus.py > after.txt       # on the change
    diff before.txt after.txt                       # empty: no answer and no output moved

Each line is a digest of one output and its first line, so that a difference names what
moved: the answers of random questions from tests/test_properties.py's generator (the
answer's text and JSON, or its error with the suggestions it names), every example plan as
text, Markdown and JSON, `napkin check` of the example claims files and `napkin audit` of
every example file (each with its exit status). Issue 45's refactor was held to it:
1,500 questions (seed 31) and every example, byte for byte.

    python tools/output_corpus.py --questions 300 --seed 7
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(ROOT / "tests"))


def _line(label: str, text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    first = text.splitlines()[0][:90] if text else ""
    return f"{digest}  {label}  {first}"


def questions(count: int, seed: int) -> list[str]:
    """A line for each answer of `count` random questions (tests/test_properties.py's)."""
    import test_properties as props

    import napkinmath as nm

    lines = []
    for number, (target, values, gpu) in enumerate(props.questions(count, seed=seed)):
        try:
            result = nm.solve(target, gpu=gpu, **values)
            text = f"{result}\n{result.to_json()}"
        except nm.NapkinError as exc:
            text = f"{type(exc).__name__}: {exc}"
        lines.append(_line(f"question {number} ({target})", text))
    return lines


def _napkin(*args: str) -> str:
    """What `napkin ARGS` prints, and its exit status, run in this process."""
    from napkinmath.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code
    return f"{out.getvalue()}\nexit {status}"


def examples() -> list[str]:
    """A line for each example's outputs: plans in three formats, claims checked, audits;
    run from examples/ by file name, so that no output holds the checkout's path."""
    lines = []
    with contextlib.chdir(EXAMPLES):
        for name in sorted(p.name for p in EXAMPLES.iterdir() if p.is_file()):
            if name.endswith(".toml"):
                for form in ("text", "markdown", "json"):
                    text = _napkin("plan", name, "--format", form)
                    lines.append(_line(f"plan {name} {form}", text))
            if name.startswith("claims"):
                lines.append(_line(f"check {name}", _napkin("check", name)))
            lines.append(_line(f"audit {name}", _napkin("audit", name)))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1500, help="random questions")
    parser.add_argument("--seed", type=int, default=31, help="their generator's seed")
    options = parser.parse_args()
    for line in [*questions(options.questions, options.seed), *examples()]:
        print(line)


if __name__ == "__main__":
    main()
