"""Notebooks: a notebook built with nbformat and run by nbclient stores an answer as text/html
(its math as MathML, typeset offline; tests/test_notebook_mathml.py runs every kind),
text/latex and text/markdown beside text/plain; IPython.display.Latex
renders the math-only form; a napkinmath error shows its message, not a traceback; `nm.so<TAB>`
completes to `nm.solve`; `nm.to_frame` shows as a table.

Needs nbclient, nbformat and ipykernel (the `dev` extra); skips, saying so, without them.
"""

from __future__ import annotations

import json

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

CELLS = [
    # 0: an answer as the cell's value
    "import napkinmath as nm\n"
    'r = nm.solve("mfu", params="405B", tokens="15.6T", gpu_hours="30.84e6 GPU*h", gpu="H100")\n'
    "r",
    # 1: the math-only LaTeX through IPython.display.Latex
    "from IPython.display import Latex\nLatex(r.to_latex(math_only=True))",
    # 2: an error: too few givens
    'nm.solve("n_gpus", params="7B")',
    # 3: tab completion of the lazily loaded names
    "from IPython.core.completer import provisionalcompleter\n"
    "with provisionalcompleter():\n"
    '    done = [c.text for line in ("nm.so", "nm.che")\n'
    "            for c in get_ipython().Completer.completions(line, len(line))]\n"
    "print(sorted(done))",
    # 4: a DataFrame of two answers
    'nm.to_frame([r, nm.solve("mfu", params="70B", tokens="15T", gpu_hours="6.4e6 GPU*h",\n'
    '                         gpu="H100")])',
]


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True)
    client.execute()
    return nb


def _data(cell) -> dict:
    [output] = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
    return output["data"]


def test_an_answer_stores_html_latex_markdown_and_plain_text(executed):
    data = _data(executed.cells[0])
    assert set(data) >= {"text/plain", "text/html", "text/latex", "text/markdown"}
    # 6 × 405e9 × 15.6e12 FLOP / (30.84e6 h × 3600 × 989.5e12 FLOP/s) = 0.3451
    assert data["text/plain"] == "<Result mfu = 34.51%>"
    html = data["text/html"]
    assert "<strong>mfu = 34.51%</strong>" in html
    # MathML, which the browser typesets with no MathJax and no network: MFU = C / (H · P_peak)
    assert '<mi mathvariant="normal">MFU</mi><mo>=</mo><mrow><mfrac>' in html
    assert "<mtext>34.51%</mtext>" in html and "$" not in html
    assert "<p>Sources:</p><ol>" in html
    assert data["text/latex"].startswith("$$\\begin{aligned}\\mathrm{MFU} &= 34.51\\%")
    assert data["text/markdown"].startswith("**mfu = 34.51%**")


def test_display_latex_of_the_math_only_form(executed):
    data = _data(executed.cells[1])
    assert data["text/latex"].startswith("$$\\begin{aligned}")
    assert data["text/latex"].endswith("\\end{aligned}$$")


def test_an_error_cell_shows_the_message_not_a_traceback(executed):
    [error] = [o for o in executed.cells[2].outputs if o.output_type == "error"]
    assert error["ename"] == "UnderDeterminedError"
    assert len(error["traceback"]) == 1
    shown = error["traceback"][0]
    assert shown.startswith("UnderDeterminedError: ") and "n_gpus" in shown
    assert "Traceback" not in shown and "File " not in shown and ".py" not in shown


def test_tab_completion_offers_solve_and_check(executed):
    [out] = [o for o in executed.cells[3].outputs if o.output_type == "stream"]
    offered = out["text"]
    assert "'solve'" in offered and "'check'" in offered


def test_to_frame_shows_a_table_with_one_unit_per_column(executed):
    data = _data(executed.cells[4])
    assert "<table" in data["text/html"]
    header = data["text/plain"].split("\n")[0]
    assert "gpu_hours [GPU·h]" in header and "params [param]" in header
    json.dumps(executed)  # the executed notebook is plain JSON
