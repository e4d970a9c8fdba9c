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
    ("range", f'nm.solve("train_time", n_gpus="48 to 64", ranges=True, {W12})', True),
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
    (
        "sensitivity",
        f'nm.solve("train_time", n_gpus="48 to 64", ranges=True, {W12}).sensitivity()',
        False,
    ),
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


# --- the outputs in JupyterLab's and VS Code's themes -----------------------------------------
#: the rules of JupyterLab's rendered-HTML stylesheet that reach an output's tables, written
#: here from its behaviour (JupyterLab 4): cells right-aligned outside Markdown, tables
#: centred with a fixed layout, odd rows striped, text in the theme's colour
JUPYTERLAB_RULES = """
.jp-RenderedHTMLCommon { color: var(--jp-content-font-color1); }
.jp-RenderedHTMLCommon table { border-collapse: collapse; border-spacing: 0; border: none;
  color: var(--jp-ui-font-color1); table-layout: fixed; margin-left: auto;
  margin-right: auto; margin-bottom: 1em; }
.jp-RenderedHTMLCommon thead { border-bottom: 1px solid var(--jp-border-color1); }
.jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th, .jp-RenderedHTMLCommon tr {
  vertical-align: middle; padding: .5em; line-height: normal; white-space: normal;
  max-width: none; border: none; }
:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td,
:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon th,
:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon tr { text-align: right; }
.jp-RenderedHTMLCommon th { font-weight: bold; }
.jp-RenderedHTMLCommon tbody tr:nth-child(odd) { background: var(--jp-layout-color0); }
.jp-RenderedHTMLCommon tbody tr:nth-child(even) {
  background: var(--jp-rendermime-table-row-background); }
"""
#: each host: its page's style (theme variables and background) and the output's classes
HOSTS = {
    "jupyterlab-light": (
        ":root { --jp-layout-color0: #fff; --jp-content-font-color1: rgba(0,0,0,1);"
        " --jp-ui-font-color1: rgba(0,0,0,.87); --jp-border-color1: #bdbdbd;"
        " --jp-rendermime-table-row-background: #f5f5f5; }"
        " body { background: #fff; }" + JUPYTERLAB_RULES,
        "jp-RenderedHTMLCommon jp-RenderedHTML jp-OutputArea-output",
    ),
    "jupyterlab-dark": (
        ":root { --jp-layout-color0: #111; --jp-content-font-color1: rgba(255,255,255,1);"
        " --jp-ui-font-color1: rgba(255,255,255,.87); --jp-border-color1: #616161;"
        " --jp-rendermime-table-row-background: #212121; }"
        " body { background: #111; color: #fff; }" + JUPYTERLAB_RULES,
        "jp-RenderedHTMLCommon jp-RenderedHTML jp-OutputArea-output",
    ),
    "vscode-dark-modern": (
        ":root { --vscode-editor-background: #1f1f1f; }"
        " body { background: #1f1f1f; color: #cccccc; }",
        "output_container",
    ),
}

#: in the browser: every element of an output with text of its own, its text's contrast
#: against what lies beneath it (the backgrounds of it and its ancestors composited, and the
#: opacity of the chain), and every table cell not marked as a number that is not read left
#: to right
READABLE = """<script>
const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
function rgba(css) {
  ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = '#000'; ctx.fillStyle = css;
  ctx.fillRect(0, 0, 1, 1); const d = ctx.getImageData(0, 0, 1, 1).data;
  return [d[0], d[1], d[2], d[3] / 255];
}
const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
const lum = c => { const l = c.map(v => { v /= 255;
  return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
function contrast(el) {
  const chain = []; for (let e = el; e; e = e.parentElement) chain.push(e);
  let under = [255, 255, 255], fade = 1;
  for (const e of chain.reverse()) {
    const s = getComputedStyle(e); fade *= parseFloat(s.opacity);
    under = over(rgba(s.backgroundColor), under);
  }
  const ink = rgba(getComputedStyle(el).color); ink[3] *= fade;
  const [a, b] = [lum(over(ink, under)), lum(under)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
const frames = [...document.querySelectorAll('.napkin, .napkin-plan')];
const own = e => [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
const texts = frames.flatMap(f => [f, ...f.querySelectorAll('*')])
  .filter(e => !e.closest('math, svg, style') && own(e));
const faint = texts.map(e => [e, contrast(e)]).filter(([, c]) => c < 4.5)
  .map(([e, c]) => e.tagName + ':' + c.toFixed(2) + ':' + e.textContent.trim().slice(0, 30));
const cells = frames.flatMap(f => [...f.querySelectorAll('td, th')]).filter(c =>
  !c.classList.contains('num') && !(c.getAttribute('style') || '').includes('right')
  && c.textContent.trim());
const right = cells.filter(c => !['left', 'start'].includes(getComputedStyle(c).textAlign));
const b = document.body.dataset;
b.texts = texts.length; b.faint = faint.join(' | '); b.cells = cells.length;
b.right = right.map(c => c.textContent.trim().slice(0, 30)).join(' | ');
</script>"""


@pytest.mark.parametrize("host", list(HOSTS))
def test_every_table_reads_left_to_right_in_light_and_dark_themes(outputs, tmp_path, host):
    """Each output inside a host page with that host's theme: every text has a contrast of
    4.5 or more against what lies beneath it (WCAG AA) and every prose cell is left-aligned.
    A screenshot of each is written (NAPKIN_SCREENSHOT_DIR keeps them) for a person to see."""
    tool = _browser()
    browser = tool.chromium()
    folder = Path(os.environ.get("NAPKIN_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    style, classes = HOSTS[host]
    body = "\n".join(
        f'<h2>{kind}</h2><div class="{classes}">{html}</div>' for kind, html in outputs.items()
    )
    page = folder / f"notebook-{host}.html"
    page.write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{style}</style></head>'
        f"<body>{body}{READABLE}</body></html>",
        encoding="utf-8",
    )
    try:
        dom = tool.run(browser, page, "--dump-dom", "--window-size=1100,2000")
        tool.run(browser, page, f"--screenshot={folder / f'notebook-{host}.png'}",
                 "--window-size=1100,9000")  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("chromium did not finish within its timeout")
    found = dict(re.findall(r'data-([a-z]+)="([^"]*)"', dom[dom.index("<body") :].split(">")[0]))
    assert int(found.get("texts", 0)) > 200 and int(found["cells"]) > 100, found
    assert found["faint"] == "", f"text too faint in {host}: {found['faint']}"
    assert found["right"] == "", f"prose cells not left-aligned in {host}: {found['right']}"
