"""Helpers shared by tests: magnitudes, the W12 question, files, PNG sizes, fresh processes,
the headless-Chromium tool.

(The `napkin` fixture, which runs the CLI in-process, is in conftest.py.)
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

#: W12 (fleet size): `napkin solve` 7B parameters on 1T tokens in 3 weeks at 40% MFU on
#: H100-SXM, 58.48 GPU
W12 = [
    "solve",
    "n_gpus",
    "params=7B",
    "tokens=1T",
    "train_time=3 weeks",
    "mfu=0.4",
    "--gpu",
    "H100-SXM",
]
#: `napkin ARGS` in a fresh Python: its output, then a JSON line saying how it ran
PROBE = (
    "import sys, json; from napkinmath.cli.main import main; status = main({args!r}); "
    "print(json.dumps({{'status': status, 'sympy': 'sympy' in sys.modules, "
    "'formulas': 'napkinmath.formulas' in sys.modules}}))"
)
#: a command that blocks on a FIFO or reads /dev/zero would run past this
PROBE_TIMEOUT = 120
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def mag(q, unit: str = ""):
    """The magnitude of `q` in `unit` (default: a plain number)."""
    return q.to(unit).magnitude


def write(folder: Path, name: str, text: str) -> Path:
    """The file `folder/name` holding `text` (UTF-8)."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) of the PNG file at `path`."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def napkin_process(
    cache: str | None, args: list[str], cwd: Path | None = None, home: Path | None = None
) -> tuple[str, dict]:
    """`napkin ARGS` in a fresh process with the cache directory `cache` (XDG_CACHE_HOME;
    None: unset): its output, and how it ran (`status`; `sympy` and `formulas`: imported)."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    if cache is not None:
        env["XDG_CACHE_HOME"] = cache
    if home is not None:
        env["HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=cwd,
        timeout=PROBE_TIMEOUT,
    )
    *output, status = done.stdout.rstrip("\n").split("\n")
    return "\n".join(output), json.loads(status)


def plan_screenshot():
    """tools/plan_screenshot.py (headless Chromium with no network features and a fresh
    profile), or the test skipped, saying why, where chromium is not installed."""
    import pytest

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    try:
        import plan_screenshot as tool
    finally:
        sys.path.pop(0)
    if tool.chromium() is None:
        pytest.skip("chromium not installed: apt-get install -y --no-install-recommends chromium")
    return tool


def mypy_strict(script: str, extra: str = "") -> tuple[str, int]:
    """`script` checked with `mypy --strict` as a user's own module would be: the package laid
    out as `napkinmath` (tools/typecheck.py) and followed silently, sympy and networkx
    (untyped) ignored, `extra` lines added to the [mypy] section. Returns (output, status)."""
    import tempfile

    from mypy import api

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    try:
        import typecheck
    finally:
        sys.path.pop(0)
    with tempfile.TemporaryDirectory(prefix="napkin-strict-") as folder:
        base = Path(folder)
        typecheck.link_tree(base)
        (base / "user_script.py").write_text(script, encoding="utf-8")
        (base / "mypy.ini").write_text(
            "[mypy]\n"
            f"mypy_path = {base.as_posix()}\n"
            f"cache_dir = {(base / 'cache').as_posix()}\n"
            "strict = True\n"
            "python_version = 3.11\n"
            f"{extra}"
            "[mypy-napkinmath.*]\n"
            "follow_imports = silent\n"
            "[mypy-sympy.*,networkx.*]\n"
            "ignore_missing_imports = True\n",
            encoding="utf-8",
        )
        out, err, status = api.run(
            ["--config-file", str(base / "mypy.ini"), str(base / "user_script.py")]
        )
    assert not err, err
    return out, status


def example_plans() -> list[Path]:
    """The plan files of examples/ (a top-level `title`): not the formulas, records or claims
    files beside them."""
    import tomllib

    examples = Path(__file__).resolve().parent.parent / "examples"
    return sorted(
        p for p in examples.glob("*.toml") if "title" in tomllib.loads(p.read_text("utf-8"))
    )
