"""Every rendering of many answers, for a byte-for-byte comparison before and after a change.

    python tools/derivations.py OUT.txt        # in a checkout, with its environment active
    cmp before.txt after.txt                   # identical files: no answer changed

Questions: 1,500 random ones over the whole library (the generator of
tests/test_properties.py, seeds 4242, 777 and 11), W12 and its inverse, and the example plans.
For each: the text derivation, Markdown, JSON, LaTeX and HTML, or the error's class, message
and suggestions. Run it with an empty cache directory (XDG_CACHE_HOME) and again with the
filled one to compare the declared library with the one read back from disk.
"""

from __future__ import annotations

import glob
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import test_properties as props  # noqa: E402

import napkinmath as nm  # noqa: E402


def renderings(answer) -> str:
    return "\n--\n".join(
        [
            str(answer),
            answer.to_markdown(),
            answer.to_json(),
            answer.to_latex(),
            answer._repr_html_(),
        ]
    )


def main(out_path: str) -> None:
    with open(out_path, "w", encoding="utf-8") as out:

        def dump(label: str, ask) -> None:
            try:
                body = renderings(ask())
            except nm.NapkinError as exc:
                body = f"{type(exc).__name__}: {exc} | {getattr(exc, 'suggestions', None)}"
            out.write(f"=== {label}\n{body}\n")

        questions = [q for seed in (4242, 777, 11) for q in props.questions(500, seed=seed)]
        for i, (target, values, gpu) in enumerate(questions):
            dump(
                f"q{i} {target} {sorted(values.items())} {gpu}",
                lambda t=target, g=gpu, v=values: nm.solve(t, gpu=g, **v),
            )
        dump(
            "w12",
            lambda: nm.solve(
                "n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM"
            ),
        )
        dump(
            "w12 inverse",
            lambda: nm.solve(
                "mfu", params="7B", tokens="1T", train_time="3 weeks", n_gpus=64, gpu="H100-SXM"
            ),
        )
        for path in sorted(glob.glob(str(ROOT / "examples" / "*.toml"))):
            if Path(path).name.startswith("claims"):  # a claims table, not a plan
                continue
            try:
                body = str(nm.plan(path))
            except nm.NapkinError as exc:
                body = f"{type(exc).__name__}: {exc}"
            out.write(f"=== plan {Path(path).name}\n{body}\n")


if __name__ == "__main__":
    main(sys.argv[1])
