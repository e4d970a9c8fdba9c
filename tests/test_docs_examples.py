"""Every command and Python example of README.md and docs/*.md runs, and its output is what the
document shows (`tools/doc_examples.py`: transcripts run by bash in a scratch folder, Python
blocks as doctests in one namespace per document), so no example drifts from the tool."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
try:
    import doc_examples as runner
finally:
    sys.path.pop(0)


@pytest.mark.parametrize("path", runner.DOCUMENTS, ids=lambda p: p.name)
def test_every_example_prints_what_the_document_shows(path):
    failures = runner.check(path)
    assert failures == [], "\n\n".join(failures)


def test_the_readme_is_a_guide_and_its_examples_run():
    readme = runner.ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").split("\n")) < 300
    found = runner.blocks(readme)
    assert sum(b.is_transcript for b in found) >= 5 and any(b.is_python for b in found)


def test_a_block_left_out_says_why_and_few_are():
    skipped = [b for path in runner.DOCUMENTS for b in runner.blocks(path) if b.skipped]
    ran = [
        b
        for path in runner.DOCUMENTS
        for b in runner.blocks(path)
        if not b.skipped and (b.is_transcript or b.is_python)
    ]
    assert all(len(b.skipped) > 10 for b in skipped)  # a reason, not a bare marker
    assert len(ran) > 5 * len(skipped), [b.where for b in skipped]


@pytest.mark.parametrize(
    ("expected", "actual", "fits"),
    [
        (["a", "b"], ["a", "b", ""], True),  # trailing blank lines aside
        (["a", "b"], ["a", "c"], False),
        (["a", "...", "z"], ["a", "b", "c", "z"], True),  # any lines
        (["a", "...", "z"], ["a", "z"], True),  # none too
        (["a", "..."], ["b"], False),
        (["n_gpus = 57 ..."], ["n_gpus = 58.48 GPU"], False),  # a line so begun, or not
        (["n_gpus = 58.48 ..."], ["n_gpus = 58.48 GPU   (rounded)"], True),
        (["x  "], ["x"], True),  # trailing spaces aside
    ],
)
def test_the_matcher_reads_elisions(expected, actual, fits):
    assert runner.matches(expected, actual) is fits
