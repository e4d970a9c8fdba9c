"""The what-if Table: text, CSV, JSON, Markdown, HTML, pandas and plot output."""

from __future__ import annotations

import ast
import csv
import io
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import png_size

from napkinmath.errors import InputError
from napkinmath.whatif import table as table_module
from napkinmath.whatif.table import Column, Table, tornado

GPUS = [1024, 2048, 4096]


def train_days(n: float, mfu: float = 0.4) -> float:
    """6.35e24 FLOP on n GPUs of 989 TFLOP/s at `mfu`, in days."""
    return 6.35e24 / (n * 989e12 * mfu) / 86400


def close(a: float, b: float, digits: int = 10) -> bool:
    return math.isclose(a, b, rel_tol=10 ** (1 - digits))


@pytest.fixture
def sweep() -> Table:
    return Table(
        [
            Column("n_gpus", "GPU", np.array(GPUS, dtype=float), role="input", scale="log"),
            Column("train_time", "day", np.array([train_days(n) for n in GPUS])),
        ],
        title="Llama-scale training",
        notes=["mfu = 0.4, 989 TFLOP/(s·GPU)"],
    )


@pytest.fixture
def grid() -> Table:
    mfus = [0.3, 0.4, 0.5]
    pairs = [(n, m) for n in GPUS for m in mfus]
    return Table(
        [
            Column("n_gpus", "GPU", np.array([n for n, _ in pairs], float), "input", "log"),
            Column("mfu", "", np.array([m for _, m in pairs]), "input"),
            Column("train_time", "day", np.array([train_days(n, m) for n, m in pairs])),
        ],
        title="grid",
    )


@pytest.fixture
def records() -> Table:
    return Table(
        [
            Column("gpu", "", ["H100-SXM", "MI300X"], role="input"),
            Column("train_time", "day", np.array([train_days(1024), train_days(1024, 0.35)])),
            Column("source", "", ["vendor <datasheet>", "vendor & co"], role="info"),
        ],
        title="compare",
    )


# ---- structure ---------------------------------------------------------------------------------


def test_column_header_has_unit_in_brackets_or_just_the_name():
    assert Column("train_time", "day", [1.0]).header == "train_time [day]"
    assert Column("gpu", "", ["H100-SXM"], role="input").header == "gpu"
    assert Column("price", "USD/Mtoken", [2.5]).header == "price [USD/Mtoken]"


def test_column_rejects_unknown_role_and_scale():
    with pytest.raises(InputError, match="role"):
        Column("x", "", [1.0], role="answer")
    with pytest.raises(InputError, match="scale"):
        Column("x", "", [1.0], scale="ln")


def test_len_getitem_headers_and_rows(sweep):
    assert len(sweep) == 3
    assert sweep.headers == ["n_gpus [GPU]", "train_time [day]"]
    assert isinstance(sweep["train_time"], np.ndarray)
    assert sweep["train_time"][0] == pytest.approx(181.4277619, rel=1e-9)
    rows = sweep.rows()
    assert rows[1] == [2048.0, pytest.approx(train_days(2048))]
    assert all(type(v) is float for row in rows for v in row)


def test_plain_number_lists_become_float_arrays():
    t = Table([Column("n_gpus", "GPU", [1, 2], role="input"), Column("y", "s", [3, 4])])
    assert t["n_gpus"].dtype == np.float64
    assert t.rows() == [[1.0, 3.0], [2.0, 4.0]]


def test_unknown_column_error_lists_the_names(sweep):
    with pytest.raises(KeyError) as info:
        sweep.column("tokens")
    message = str(info.value)
    assert "tokens" in message and "n_gpus" in message and "train_time" in message


def test_columns_of_different_lengths_or_duplicate_names_are_rejected():
    with pytest.raises(InputError, match="same number of rows"):
        Table([Column("a", "", [1.0, 2.0]), Column("b", "", [1.0])])
    with pytest.raises(InputError, match="'a'"):
        Table([Column("a", "", [1.0]), Column("a", "s", [2.0])])


def test_empty_table_renders():
    t = Table([])
    assert len(t) == 0
    assert t.rows() == []
    assert json.loads(t.to_json())["columns"] == []


def test_optional_and_numeric_libraries_are_not_imported_at_module_level():
    tree = ast.parse(Path(table_module.__file__).read_text(encoding="utf-8"))
    top = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            top |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            top.add(node.module.split(".")[0])
    assert not top & {"numpy", "pandas", "matplotlib"}


# ---- text renderings ---------------------------------------------------------------------------


def test_str_is_aligned_with_title_and_notes(sweep):
    lines = str(sweep).splitlines()
    assert lines[0] == "Llama-scale training"
    assert lines[1].split() == ["n_gpus", "[GPU]", "train_time", "[day]"]
    body = lines[3:6]
    assert [line.split() for line in body] == [
        ["1,024", "181.4"],
        ["2,048", "90.71"],
        ["4,096", "45.36"],
    ]
    assert len({len(line) for line in body}) == 1  # right-aligned to one width
    assert lines[-1] == "mfu = 0.4, 989 TFLOP/(s·GPU)"


def test_str_left_aligns_labels(records):
    lines = str(records).splitlines()
    assert lines[3].startswith("H100-SXM")
    assert lines[4].startswith("MI300X  ")


def test_markdown_table(sweep):
    text = sweep.to_markdown()
    assert text.startswith("**Llama-scale training**\n")
    assert "| n_gpus [GPU] | train_time [day] |" in text
    assert "|---:|---:|" in text
    assert "| 1,024 | 181.4 |" in text
    assert text.rstrip().endswith("mfu = 0.4, 989 TFLOP/(s·GPU)")


def test_markdown_uses_napkin_number_format_and_escapes_pipes():
    t = Table([Column("label", "", ["a|b"], role="info"), Column("flop", "FLOP", [4.2e22])])
    text = t.to_markdown()
    assert "| a\\|b | 4.2×10²² |" in text
    assert "|---|---:|" in text
    assert not text.startswith("**")


def test_html_escapes_and_has_caption_and_thead(records):
    html = records._repr_html_()
    # one table in the frame every notebook answer shares (its style; MathJax told to skip it)
    assert html.startswith('<div class="napkin napkin-table tex2jax_ignore mathjax_ignore">')
    assert html.rstrip().endswith("</table>\n</div>") and html.count("<table>") == 1
    assert "<caption>compare</caption>" in html
    assert "<thead>" in html and "<th>gpu</th>" in html
    assert "vendor &lt;datasheet&gt;" in html and "vendor &amp; co" in html
    assert "<datasheet>" not in html


def test_html_escapes_title():
    t = Table([Column("x", "", [1.0])], title="a < b")
    assert "<caption>a &lt; b</caption>" in t._repr_html_()


# ---- csv / json ----------------------------------------------------------------------------------


def test_csv_text_and_file_round_trip(sweep, tmp_path):
    path = tmp_path / "sweep.csv"
    text = sweep.to_csv(path)
    assert text.splitlines()[0] == "n_gpus [GPU],train_time [day]"
    assert path.read_bytes() == text.encode("utf-8")
    with open(path, newline="", encoding="utf-8") as f:
        parsed = list(csv.reader(f))
    assert parsed[0] == sweep.headers
    assert len(parsed) == 4
    for row, n in zip(parsed[1:], GPUS, strict=True):
        assert float(row[0]) == n
        assert close(float(row[1]), train_days(n))
    assert list(csv.reader(io.StringIO(text))) == parsed


def test_csv_accepts_str_path_and_keeps_labels(records, tmp_path):
    path = tmp_path / "records.csv"
    records.to_csv(str(path))
    with open(path, newline="", encoding="utf-8") as f:
        parsed = list(csv.reader(f))
    assert parsed[0] == ["gpu", "train_time [day]", "source"]
    assert [r[0] for r in parsed[1:]] == ["H100-SXM", "MI300X"]
    assert parsed[2][2] == "vendor & co"


def test_json_round_trip(sweep):
    data = json.loads(sweep.to_json())
    assert data == sweep.to_dict()
    assert data["title"] == "Llama-scale training"
    assert data["notes"] == ["mfu = 0.4, 989 TFLOP/(s·GPU)"]
    first, second = data["columns"]
    assert first == {
        "name": "n_gpus",
        "unit": "GPU",
        "role": "input",
        "scale": "log",
        "values": [1024.0, 2048.0, 4096.0],
    }
    assert second["role"] == "output" and second["scale"] == "linear"
    assert second["values"] == [train_days(n) for n in GPUS]


def test_json_keeps_unicode_and_turns_non_finite_into_null():
    t = Table([Column("x", "GPU·h", np.array([1.0, math.nan, math.inf]))])
    text = t.to_json()
    assert "GPU·h" in text
    assert json.loads(text)["columns"][0]["values"] == [1.0, None, None]


# ---- pandas ------------------------------------------------------------------------------------


def test_to_pandas_columns_dtypes_and_attrs(sweep):
    df = sweep.to_pandas()
    assert list(df.columns) == sweep.headers
    # a count of whole GPUs is of integers (issue 27); a time is a float
    assert [str(dt) for dt in df.dtypes] == ["Int64", "float64"]
    assert df["n_gpus [GPU]"].tolist() == GPUS
    assert df.attrs["units"] == {"n_gpus": "GPU", "train_time": "day"}
    assert df.attrs["title"] == "Llama-scale training"
    assert df["train_time [day]"].tolist() == [train_days(n) for n in GPUS]


def test_to_pandas_keeps_labels_as_text(records):
    df = records.to_pandas()
    assert df["gpu"].tolist() == ["H100-SXM", "MI300X"]
    assert str(df["train_time [day]"].dtype) == "float64"
    import pandas as pd

    assert not pd.api.types.is_numeric_dtype(df["gpu"])
    assert pd.api.types.is_string_dtype(df["gpu"])


def test_to_pandas_without_pandas_says_how_to_install(sweep, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(InputError, match=r"napkinmath\[frames\]"):
        sweep.to_pandas()


# ---- plots ---------------------------------------------------------------------------------------


def test_plot_png_of_log_sweep(sweep, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    path = tmp_path / "sweep.png"
    assert sweep.plot(path) == path
    width, height = png_size(path)
    assert width > 100 and height > 100
    assert plt.get_fignums() == before  # the figure was closed


def test_plot_returns_axes_with_log_x_and_header_labels(sweep):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = sweep.plot()
    try:
        assert ax.get_xscale() == "log"
        assert ax.get_yscale() == "linear"  # 4x span
        assert ax.get_xlabel() == "n_gpus [GPU]"
        assert ax.get_ylabel() == "train_time [day]"
        assert ax.get_title() == "Llama-scale training"
        (line,) = ax.get_lines()
        assert list(line.get_xdata()) == [1024.0, 2048.0, 4096.0]
    finally:
        plt.close(ax.figure)


def test_plot_svg(sweep, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    path = sweep.plot(str(tmp_path / "sweep.svg"))
    text = Path(path).read_text(encoding="utf-8")
    assert text.startswith("<?xml") or "<svg" in text


def test_plot_bad_extension_is_an_input_error(sweep, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    with pytest.raises(InputError, match=r"\.png.*\.svg"):
        sweep.plot(tmp_path / "sweep.jpg")
    assert not (tmp_path / "sweep.jpg").exists()


def test_plot_grid_draws_one_line_per_second_input(grid, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = grid.plot()
    try:
        lines = ax.get_lines()
        assert [ln.get_label() for ln in lines] == ["mfu = 0.3", "mfu = 0.4", "mfu = 0.5"]
        assert all(list(ln.get_xdata()) == [1024.0, 2048.0, 4096.0] for ln in lines)
        assert list(lines[1].get_ydata()) == [train_days(n, 0.4) for n in GPUS]
        assert ax.get_xscale() == "log"
    finally:
        plt.close(ax.figure)
    width, height = png_size(grid.plot(tmp_path / "grid.png"))
    assert width > 100 and height > 100


def test_plot_grid_labels_carry_the_unit():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = Table(
        [
            Column("mfu", "", np.array([0.3, 0.5, 0.3, 0.5]), "input"),
            Column("n_gpus", "GPU", np.array([1024.0, 1024, 2048, 2048]), "input"),
            Column("train_time", "day", np.array([4.0, 3.0, 2.0, 1.0])),
        ]
    )
    ax = t.plot()
    try:
        assert [ln.get_label() for ln in ax.get_lines()] == [
            "n_gpus = 1,024 GPU",
            "n_gpus = 2,048 GPU",
        ]
        assert ax.get_xlabel() == "mfu"
    finally:
        plt.close(ax.figure)


def test_plot_labels_as_bars(records, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = records.plot()
    try:
        assert len(ax.patches) == 2
        heights = [p.get_height() for p in ax.patches]
        assert heights == pytest.approx(list(records["train_time"]))
        assert [t.get_text() for t in ax.get_xticklabels()] == ["H100-SXM", "MI300X"]
        assert ax.get_xlabel() == "gpu"
    finally:
        plt.close(ax.figure)
    width, height = png_size(records.plot(tmp_path / "records.png"))
    assert width > 100 and height > 100


def test_plot_uses_log_y_for_wide_spans():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = Table(
        [
            # evenly spaced: a linear x (a geometric series would be drawn on a log one)
            Column("params", "param", np.array([1e9, 2e9, 3e9, 4e9]), "input"),
            Column("train_compute", "FLOP", np.array([6e21, 6e22, 6e23, 6e25])),
        ]
    )
    ax = t.plot()
    try:
        assert ax.get_xscale() == "linear"
        assert ax.get_yscale() == "log"
    finally:
        plt.close(ax.figure)


def test_plot_several_outputs_and_explicit_axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = Table(
        [
            Column("n_gpus", "GPU", np.array([1.0, 2.0]), "input"),
            Column("a", "day", np.array([2.0, 1.0])),
            Column("b", "day", np.array([4.0, 2.0])),
        ]
    )
    fig, ax = plt.subplots()
    try:
        assert t.plot(ax=ax, y=["a", "b"]) is ax
        assert [ln.get_label() for ln in ax.get_lines()] == ["a [day]", "b [day]"]
    finally:
        plt.close(fig)


def test_plot_rejects_label_column_as_y(records):
    import matplotlib

    matplotlib.use("Agg")
    with pytest.raises(InputError, match="labels"):
        records.plot(y="source")


def test_plot_without_matplotlib_says_how_to_install(sweep, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(InputError, match=r"napkinmath\[plot\]"):
        sweep.plot()


def test_tornado_widest_swing_on_top(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [
        ("mfu", 60.0, 36.0, "0.3 → 0.5"),
        ("tokens", 22.5, 67.5, "0.5T → 1.5T"),
        ("peak_flops", 46.0, 44.0, ""),
    ]
    ax = tornado(rows, "train_time [day]", 45.0)
    try:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels[0].startswith("tokens")
        assert labels == ["tokens\n0.5T → 1.5T", "mfu\n0.3 → 0.5", "peak_flops"]
        assert ax.get_ylim()[0] > ax.get_ylim()[1]  # inverted: first row at the top
        assert ax.get_xlabel() == "train_time [day]"
        spans = {}
        for p in ax.patches:
            y = round(p.get_y() + p.get_height() / 2)
            lo, hi = sorted((p.get_x(), p.get_x() + p.get_width()))
            old = spans.get(y, (math.inf, -math.inf))
            spans[y] = (min(old[0], lo), max(old[1], hi))
        assert spans[0] == pytest.approx((22.5, 67.5))
        assert spans[1] == pytest.approx((36.0, 60.0))
        assert spans[2] == pytest.approx((44.0, 46.0))
    finally:
        plt.close(ax.figure)
    path = tornado(rows, "train_time [day]", 45.0, path=tmp_path / "tornado.png")
    width, height = png_size(path)
    assert width > 100 and height > 100
    with pytest.raises(InputError, match="svg"):
        tornado(rows, "train_time [day]", 45.0, path=tmp_path / "tornado.pdf")


def test_a_text_cell_a_spreadsheet_would_run_is_written_as_text():
    """OWASP's CSV injection rule (issue 44): a record or section named "=IMPORTXML(...)"
    reaches compare, optimize --csv and sweep --csv; a cell starting = + - @ (or a tab or a
    carriage return) gets an apostrophe, numbers (a negative one too) stay numbers."""
    t = Table(
        [
            Column("=gpu", "", ['=IMPORTXML("http://x")', "+1", "-cmd", "@SUM(A1)"], role="input"),
            Column("delta", "s", [-1.5, 2.0, -3.0, 4.0]),
            Column("source", "", ["\tsheet", "\rline", "plain", "a=b"], role="info"),
        ]
    )
    rows = list(csv.reader(io.StringIO(t.to_csv(), newline="")))
    assert rows[0] == ["'=gpu", "delta [s]", "source"]
    assert [r[0] for r in rows[1:]] == ['\'=IMPORTXML("http://x")', "'+1", "'-cmd", "'@SUM(A1)"]
    assert [r[1] for r in rows[1:]] == ["-1.5", "2", "-3", "4"]
    assert [r[2] for r in rows[1:]] == ["'\tsheet", "'\nline", "plain", "a=b"]
