"""Type-check the installed package as `napkinmath`: `python tools/typecheck.py [mypy options]`.

The source folders are named for their jobs (engine/ is `napkinmath`, formulas/ and hardware/
its subpackages) and an editable install maps them with an import hook that mypy cannot
follow. So the package is laid out as links in a temporary folder (napkinmath/ holding links to
engine/'s files and to formulas/ and hardware/) and `mypy -p napkinmath` runs there, with the
settings of pyproject.toml's [tool.mypy]. The exit status is mypy's.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def link_tree(folder: Path) -> Path:
    """`folder`/napkinmath as links into the checkout; returns the package folder."""
    package = folder / "napkinmath"
    package.mkdir()
    for item in sorted((ROOT / "engine").iterdir()):
        if item.name != "__pycache__":
            (package / item.name).symlink_to(item)
    for sub in ("formulas", "hardware"):
        (package / sub).symlink_to(ROOT / sub)
    return package


def run(
    argv: list[str], config: Path = ROOT / "pyproject.toml", capture: bool = False
) -> subprocess.CompletedProcess:
    """mypy on the package laid out as links, with the settings of `config`."""
    with tempfile.TemporaryDirectory(prefix="napkin-types-") as folder:
        link_tree(Path(folder))
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(config), "-p", "napkinmath", *argv],
            cwd=folder,
            capture_output=capture,
            text=True,
        )


def main(argv: list[str]) -> int:
    return run(argv).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
