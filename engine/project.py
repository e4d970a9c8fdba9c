"""A team's settings for `napkin`, in a project file found from the working folder upwards.

    # napkin.toml (or the same keys under [tool.napkin] in pyproject.toml)
    records = ["hardware/ours.toml"]     # --records, relative to this file
    formulas = "formulas/ours.toml"      # --formulas
    gpu = "H100-SXM"                     # --gpu / gpu=
    model = "llama-3-70b"                # --model / model=
    precision = "bf16"                   # --precision / precision=
    tolerance = 0.02                     # --tolerance (check, audit, solve, optimize)

The nearest folder with a `napkin.toml`, or a `pyproject.toml` holding `[tool.napkin]`,
applies (a pyproject.toml without it does not stop the search). A command-line option, or a
gpu=/model=/precision= term, overrides the file's value for that setting; `napkin
--show-config` says which file applied and what it sets. A malformed file, an unknown key or a
value of the wrong kind is an error naming the file and the line. NAPKIN_NO_PROJECT=1 in the
environment ignores every project file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from napkinmath.errors import InputError

NAMES = ("napkin.toml", "pyproject.toml")
#: a project file is a few lines; far larger ones are not ours
LIMIT = 1_000_000
#: each setting: what it holds, for the error that names a wrong one
KEYS = {
    "records": "a file name or a list of them",
    "formulas": "a file name or a list of them",
    "gpu": "a record's name, such as 'H100-SXM'",
    "model": "a record's name, such as 'llama-3-70b'",
    "precision": "a precision, such as 'bf16'",
    "tolerance": "a fraction, such as 0.02",
}


@dataclass(frozen=True)
class Project:
    """The settings of one project file (`path`), each as written there."""

    path: Path
    settings: dict[str, object] = field(default_factory=dict)

    def files(self, key: str) -> list[str]:
        """`records` or `formulas` as paths, relative ones against the file's folder."""
        value = self.settings.get(key)
        names = [value] if isinstance(value, str) else list(value or [])  # type: ignore[call-overload]
        return [str(self.path.parent / name) for name in names]

    def describe(self) -> str:
        """What `napkin --show-config` prints."""
        lines = [f"project file: {self.path}"]
        if not self.settings:
            lines.append("  (no settings)")
        for key in KEYS:
            if key in self.settings:
                shown = self.files(key) if key in ("records", "formulas") else self.settings[key]
                lines.append(f"  {key} = {shown!r}")
        return "\n".join(lines)


def find(start: Path | None = None) -> Project | None:
    """The project file that applies in `start` (default: the working folder), or None."""
    if os.environ.get("NAPKIN_NO_PROJECT"):
        return None
    folder = (start or Path.cwd()).resolve()
    for place in (folder, *folder.parents):
        for name in NAMES:
            candidate = place / name
            if candidate.is_file():
                found = read(candidate)
                if found is not None:
                    return found
    return None


def read(path: Path) -> Project | None:
    """The settings in `path` (None for a pyproject.toml without [tool.napkin])."""
    from napkinmath.files import decode, parse_document, read_regular_file
    from napkinmath.text.visible import visible

    shown = visible(str(path))
    data = read_regular_file(
        path,
        noun="project file",
        limit=LIMIT,
        shown=shown,
        rule="a project file is read only from a regular file",
    )
    text = decode(data, shown)
    settings = parse_document(text, kind="toml", noun="project file", shown=shown).data
    if path.name == "pyproject.toml":
        tool = settings.get("tool")
        if not isinstance(tool, dict) or "napkin" not in tool:
            return None
        settings = tool["napkin"]
        if not isinstance(settings, dict):
            raise InputError(f"{shown}: [tool.napkin] must be a table of settings", "project")
    table = _table_line(text) if path.name == "pyproject.toml" else 0
    for key, value in settings.items():
        where = f"{shown}, line {_line(text, key, table)}"
        if key not in KEYS:
            raise InputError(
                f"{where}: unknown setting {key!r}; a project file may set {', '.join(KEYS)}",
                "project",
            )
        if not _fits(key, value):
            raise InputError(f"{where}: {key} = {value!r}: expected {KEYS[key]}", "project")
    return Project(path, dict(settings))


def _fits(key: str, value: object) -> bool:
    if key in ("records", "formulas"):
        return isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
    if key == "tolerance":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1
    return isinstance(value, str) and bool(value.strip())


def _line(text: str, key: str, after: int = 0) -> int:
    """The line `key` is set on, after line `after` (its table's header), or `after` + 1."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number, line in enumerate(text.splitlines(), 1):
        if number > after and pattern.match(line):
            return number
    return after + 1


def _table_line(text: str) -> int:
    """The line of pyproject.toml's [tool.napkin] header (0 if not found)."""
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^\s*\[\s*tool\s*\.\s*napkin\s*\]", line):
            return number
    return 0
