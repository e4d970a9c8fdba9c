"""Notebooks offline: a notebook run by nbclient stores every kind of answer as text/html with
its math as presentation MathML and no '$' (nothing for MathJax, which needs the network);
the page of those outputs, opened offline in headless Chromium, lays the math out (fractions
stacked, subscripts lowered), and a screenshot of it is written for a person to look at.

Needs nbclient, nbformat and ipykernel (the `dev` extra); the Chromium part needs chromium
(found and run as tools/plan_screenshot.py does) and skips, saying so, without it. Set
NAPKIN_SCREENSHOT_DIR to keep the page and its screenshot.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import helpers
import pytest

nbformat = pytest.importorskip(
    "nbformat",
    reason="nbformat not installed: pip install 'napkinmath[dev]' (nbformat, nbclient, ipykernel)",
)
nbclient = pytest.importorskip(
    "nbclient",
    reason="nbclient not installed: pip install 'napkinmath[dev]' (nbformat, nbclient, ipykernel)",
)
pytest.importorskip(
    "ipykernel",
    reason="ipykernel not installed: pip install 'napkinmath[dev]' (nbformat, nbclient, ipykernel)",
)

ROOT = Path(__file__).resolve().parent.parent
W12 = 'params="7B", tokens="1T", mfu=0.4, gpu="H100-SXM"'
DENSE = (
    'model="llama-3-70b", gpu="H100", n_gpus=1024, tp=8, pp=4, dp=32, seq_len=8192, '
    'global_batch_tokens="16Mi", batch_size=1, recompute="selective"'
)

#: (kind, cell source, whether its HTML has a derivation, so MathML)
CELLS = [
    ("answer", 'import napkinmath as nm\nnm.solve("train_time", n_gpus=64, ' + W12 + ")", True),
    ("range", f'nm.solve("train_time", n_gpus="48 to 64", {W12})', True),
    ("samples", f'nm.solve("train_time", n_gpus="48 to 64", samples=2000, {W12})', True),
    ("check", 'nm.check("train_compute", "5e25 FLOP", params="405B", tokens="15.6T")', True),
    ("claims", f'nm.check_claims(r"{ROOT / "examples" / "claims.csv"}")', True),
    ("plan", f'nm.plan(r"{ROOT / "examples" / "startup-7b.toml"}")', True),
    ("sweep", f'nm.sweep("train_time", over={{"n_gpus": [32, 64, 128]}}, {W12})', False),
    (
        "comparison",
        'nm.compare("train_time", gpu=["H100-SXM", "H200"], n_gpus=64, params="7B", '
        'tokens="1T", mfu=0.4)',
        False,
    ),
    ("sensitivity", f'nm.solve("train_time", n_gpus="48 to 64", {W12}).sensitivity()', False),
    ("gap", f'nm.gap(nm.solve("step_time_predicted", {DENSE}), step_time="12.4 s")', False),
    (
        "optimum",
        'nm.optimize("n_gpus", over={"n_gpus": "whole nodes"}, params="7B", tokens="1T", '
        'train_time="<= 3 weeks", mfu=0.4, gpu="H100-SXM")',
        True,
    ),
]

#: measures, in the browser, whether the MathML was laid out as math: each fraction's
#: numerator above its denominator, each subscript below its base's top
MEASURE = """<script>
const box = e => e.getBoundingClientRect();
const fr = [...document.querySelectorAll('mfrac')];
const stacked = fr.filter(f => box(f.children[0]).bottom <= box(f.children[1]).top + 1);
const sb = [...document.querySelectorAll('msub')];
const lowered = sb.filter(s => box(s.children[1]).top > box(s.children[0]).top + 1);
document.body.dataset.fractions = stacked.length + '/' + fr.length;
document.body.dataset.subscripts = lowered.length + '/' + sb.length;
</script>"""


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for _, source, _ in CELLS]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True)
    client.execute(cwd=str(ROOT))
    found = {}
    for (kind, _, _), cell in zip(CELLS, nb.cells, strict=True):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{kind}: {errors}"
        [shown] = [o for o in cell.outputs if o.output_type == "execute_result"]
        found[kind] = shown["data"]["text/html"]
    return found


@pytest.mark.parametrize(("kind", "mathml"), [(k, m) for k, _, m in CELLS])
def test_every_kind_of_answer_stores_html_with_mathml_and_no_tex(outputs, kind, mathml):
    html = outputs[kind]
    assert "$" not in html, f"{kind}: a '$' MathJax would read as TeX"
    assert "\\frac" not in html and "\\mathrm" not in html and "\\cdot" not in html
    assert "tex2jax_ignore" in html and "mathjax_ignore" in html
    assert "napkin-" in html.split(">", 1)[0]  # the shared frame
    if mathml:
        assert "<math>" in html and "<mi>" in html and "<mo>=</mo>" in html
    # no preformatted block breaking words across lines (what ranges and samples were)
    assert "<pre" not in html and "```" not in html


def test_a_single_answer_shows_symbols_and_their_names(outputs):
    html = outputs["answer"]
    # C = k·N·D typeset, and the legend maps each symbol to the name solve() takes
    assert "<mi>C</mi><mo>=</mo><mrow><mi>k</mi><mo>·</mo><mi>N</mi><mo>·</mo><mi>D</mi>" in html
    assert "<math><mi>C</mi></math> <code>train_compute</code>" in html
    assert "<math><mi>D</mi></math> <code>tokens</code>" in html


def test_ranges_and_samples_show_each_steps_spread(outputs):
    # 6 × 7e9 × 1e12 FLOP / (0.4 × n × 989.5e12 FLOP/s): 19.19 days at 64 GPUs, 25.59 at 48
    assert "<mtext>19.19 … 25.59 day</mtext>" in outputs["range"]
    assert "low at n_gpus = 64 GPU; high at n_gpus = 48 GPU" in outputs["range"]
    assert "median [5th, 95th percentile] of 2,000 samples" in outputs["samples"]


def _browser():
    """tools/plan_screenshot.py (its Chromium flags: no network features, a fresh profile)."""
    return helpers.plan_screenshot()


def test_the_page_opened_offline_in_chromium_lays_the_math_out(outputs, tmp_path):
    tool = _browser()
    browser = tool.chromium()
    folder = Path(os.environ.get("NAPKIN_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    body = "\n".join(
        f"<section><h2>{kind}</h2>\n{outputs[kind]}</section>"
        for kind in ("answer", "range", "samples", "check", "sweep", "optimum")
    )
    page = folder / "notebook-outputs.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>outputs</title></head>'
        f"<body>{body}{MEASURE}</body></html>",
        encoding="utf-8",
    )
    offline = "--proxy-server=127.0.0.1:9"  # nothing reachable: the page must need no network
    try:
        dom = tool.run(browser, page, offline, "--dump-dom")
        shot = folder / "notebook-outputs.png"
        tool.run(browser, page, offline, f"--screenshot={shot}", "--window-size=1000,2400")
    except subprocess.TimeoutExpired:
        pytest.fail("chromium did not finish within its timeout")
    fractions = re.search(r'data-fractions="(\d+)/(\d+)"', dom)
    subscripts = re.search(r'data-subscripts="(\d+)/(\d+)"', dom)
    assert fractions and subscripts, dom[-2000:]
    assert int(fractions[2]) >= 5 and fractions[1] == fractions[2]  # every fraction stacked
    assert int(subscripts[2]) >= 5 and subscripts[1] == subscripts[2]  # every subscript low
    assert shot.read_bytes().startswith(b"\x89PNG")
