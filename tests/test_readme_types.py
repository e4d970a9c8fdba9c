"""The Python examples of README.md and docs/python.md type-check with no cast and no narrowing:
under `mypy --strict` and under pyright (basedpyright's standard mode, the mode editors run),
as a user's script would be checked. A point question is a `Result`, a range asked with
`ranges=True` a `RangeResult`, and `.value.to("day").magnitude` a float.

pyright's strict mode is not the bar: pint's registry `Quantity` is built from generic facets
that pyright cannot resolve (its `.magnitude` is Unknown to pyright even in a user's own
annotation), which no annotation of napkinmath's can change.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import helpers
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
try:
    import doc_examples
    import typecheck
finally:
    sys.path.pop(0)

DOCUMENTS = (ROOT / "README.md", ROOT / "docs" / "python.md")


def _script() -> str:
    """Every Python block of the documents, in order, as one module (doctest prompts
    removed, their shown output left out)."""
    parts = []
    for path in DOCUMENTS:
        for block in doc_examples.blocks(path):
            if not block.is_python or block.skipped:
                continue
            if any(line.startswith(">>> ") for line in block.lines):
                code = [line[4:] for line in block.lines if line.startswith((">>> ", "... "))]
            else:
                code = block.lines
            parts.append(f"# {block.where}\n" + "\n".join(code))
    return "\n\n".join(parts) + "\n"


@pytest.fixture(scope="module")
def laid_out():
    """A folder with the package laid out as `napkinmath` (tools/typecheck.py) and the
    examples as user_script.py."""
    with tempfile.TemporaryDirectory(prefix="napkin-readme-types-") as folder:
        base = Path(folder)
        typecheck.link_tree(base)
        (base / "user_script.py").write_text(_script(), encoding="utf-8")
        yield base


def test_the_documents_have_python_examples():
    script = _script()
    assert "nm.solve(" in script and "ranges=True" in script and "nm.to_frame(" in script


def test_mypy_strict_accepts_the_examples():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[dev]' installs it)")
    # IPython ships without annotations: its Latex() is the notebook's, not ours
    out, status = helpers.mypy_strict(_script(), extra="untyped_calls_exclude = IPython\n")
    assert status == 0, out


def test_pyright_accepts_the_examples(laid_out):
    pyright = shutil.which("basedpyright", path=str(Path(sys.executable).parent))
    if pyright is None:
        pytest.skip("basedpyright is not installed (pip install -e '.[dev]' installs it)")
    (laid_out / "pyrightconfig.json").write_text(
        '{"typeCheckingMode": "standard", "include": ["user_script.py"]}', encoding="utf-8"
    )
    done = subprocess.run(
        [pyright, "--pythonpath", sys.executable, "-p", str(laid_out / "pyrightconfig.json")],
        cwd=laid_out,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 errors" in done.stdout
