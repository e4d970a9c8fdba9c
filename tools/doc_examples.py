"""Run the examples of napkinmath's Markdown documents and compare their output.

    python tools/doc_examples.py [FILE.md ...]            # check; report each difference
    python tools/doc_examples.py --update [FILE.md ...]   # write the actual outputs back

What runs (tests/test_docs_examples.py runs every document this way):
- a transcript: a fenced block whose lines start with ``$ `` (a command, run by bash in a
  scratch folder that links the checkout's files, so commands read examples/ and write
  nowhere in it), each followed by the output it prints (stdout, then stderr). A line
  ``...`` in the expected output stands for any number of lines, and a line ending in
  `` ...`` for any line that begins as it does; everything else is compared line by line,
  trailing spaces aside.
- a Python block: a fenced ``python`` block, run in one namespace per document (blocks in
  order, as a reader runs them), with the disk cache in the scratch folder. Its ``>>>``
  examples are doctests (ELLIPSIS and NORMALIZE_WHITESPACE): their output is compared; a
  block without them must run without an error.
- a block right after ``<!-- not run: REASON -->`` is skipped, and its reason listed: setup
  commands (pip, venv), a CI workflow, a file shown as text.

``--update`` replaces each differing transcript output that has no ``...`` with what the
command printed; an elided one is reported for a person to edit.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the documents whose examples run
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
FENCE = re.compile(r"^(```+)([a-z]*)\s*$")
SKIP = re.compile(r"^<!--\s*not run:\s*(.+?)\s*-->\s*$")
TIMEOUT = 300


@dataclass
class Block:
    """A fenced block of a document: its language, its lines and where it starts (1-based)."""

    path: Path
    line: int
    language: str
    lines: list[str]
    skipped: str = ""  # why it is not run

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def is_transcript(self) -> bool:
        return any(line.startswith("$ ") for line in self.lines)

    @property
    def is_python(self) -> bool:
        return self.language == "python"


@dataclass
class Command:
    """One ``$`` command of a transcript and the output shown under it."""

    block: Block
    line: int  # of the command, 1-based in the document
    command: str
    expected: list[str] = field(default_factory=list)


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of `path`, with the reason given where one is not run."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        start, fence = i, opened.group(1)
        i += 1
        while i < len(lines) and lines[i].rstrip() != fence:
            i += 1
        previous = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        skipped = SKIP.match(previous)
        found.append(
            Block(
                path,
                start + 1,
                opened.group(2),
                lines[start + 1 : i],
                skipped.group(1) if skipped else "",
            )
        )
        i += 1
    return found


def commands(block: Block) -> list[Command]:
    """The block's ``$`` commands (a line ending in a backslash goes on) and outputs."""
    found: list[Command] = []
    lines = block.lines
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if not found:
                raise ValueError(f"{block.where}: a transcript starts with a '$ ' command")
            found[-1].expected.append(lines[i].rstrip())
            i += 1
            continue
        line, text = block.line + 1 + i, lines[i][2:]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text + "\n" + lines[i]
        found.append(Command(block, line, text))
        i += 1
    return found


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether `actual` fits `expected`: ``...`` any lines, ``text ...`` a line so begun."""
    expected = _trimmed(expected)
    actual = _trimmed(actual)
    memo: dict[tuple[int, int], bool] = {}

    def fit(e: int, a: int) -> bool:
        if (e, a) in memo:
            return memo[(e, a)]
        if e == len(expected):
            ok = a == len(actual)
        elif expected[e].strip() == "...":
            ok = any(fit(e + 1, k) for k in range(a, len(actual) + 1))
        elif a == len(actual):
            ok = False
        elif expected[e].endswith(" ..."):
            ok = actual[a].startswith(expected[e][:-4]) and fit(e + 1, a + 1)
        else:
            ok = expected[e] == actual[a] and fit(e + 1, a + 1)
        memo[(e, a)] = ok
        return ok

    return fit(0, 0)


def _trimmed(lines: list[str]) -> list[str]:
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def scratch() -> tempfile.TemporaryDirectory[str]:
    """A folder holding links to the checkout's top-level files and folders: commands read
    them as in the checkout, and what they write stays in the folder."""
    folder = tempfile.TemporaryDirectory(prefix="napkin-docs-")
    for item in sorted(ROOT.iterdir()):
        if item.name not in (".git", ".venv") and not item.name.startswith("."):
            (Path(folder.name) / item.name).symlink_to(item)
    return folder


def environment() -> dict[str, str]:
    """The commands' environment: the interpreter's scripts first on PATH (its `napkin`),
    no project file, a UTF-8 locale and a fixed width."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(NAPKIN_NO_PROJECT="1", LC_ALL="C.UTF-8", COLUMNS="100", PYTHONHASHSEED="0")
    return env


def run_environment(folder: str) -> dict[str, str]:
    """`environment()` with the disk cache in the scratch folder (a command may clear it)."""
    return {**environment(), "XDG_CACHE_HOME": str(Path(folder) / ".cache")}


def run(command: Command, folder: str) -> list[str]:
    """What `command` prints, stdout then stderr, as lines."""
    done = subprocess.run(
        ["bash", "-c", command.command],
        cwd=folder,
        env=run_environment(folder),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    return (done.stdout + done.stderr).split("\n")


def run_python(blocks_: list[Block], globs: dict[str, object], folder: str) -> list[str]:
    """Run the Python blocks in order in `globs` (cwd `folder`); the failures, each with
    its place."""
    failures: list[str] = []
    parser = doctest.DocTestParser()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    here, cache = os.getcwd(), os.environ.get("XDG_CACHE_HOME")
    os.chdir(folder)
    os.environ["XDG_CACHE_HOME"] = str(Path(folder) / ".cache")  # a block may clear it
    try:
        for block in blocks_:
            source = "\n".join(block.lines)
            if ">>> " in source:
                test = parser.get_doctest(source, globs, block.where, str(block.path), block.line)
                out: list[str] = []
                runner = doctest.DocTestRunner(optionflags=flags)
                runner.run(test, out=out.append, clear_globs=False)
                globs.update(test.globs)  # a DocTest runs in a copy: its names go on
                if runner.failures:
                    failures.append(f"{block.where}:\n" + "".join(out))
                continue
            try:
                exec(compile(source, block.where, "exec"), globs)  # our own documents
            except Exception as exc:  # reported with its place
                failures.append(f"{block.where}: {type(exc).__name__}: {exc}")
    finally:
        os.chdir(here)
        if cache is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = cache
    return failures


def check(path: Path, update: bool = False) -> list[str]:
    """Run every example of `path`; the differences, each with its place (and with
    `update`, the exact transcripts rewritten with what their commands print)."""
    found = [b for b in blocks(path) if not b.skipped]
    failures: list[str] = []
    replace: dict[int, list[str]] = {}  # document line of a command -> actual output
    with scratch() as folder:
        for block in (b for b in found if b.is_transcript and not b.is_python):
            for command in commands(block):
                actual = run(command, folder)
                if matches(command.expected, actual):
                    continue
                elided = any(e.strip() == "..." or e.endswith(" ...") for e in command.expected)
                if update and not elided:
                    replace[command.line] = _trimmed(actual)
                    continue
                failures.append(
                    f"{path.relative_to(ROOT)}:{command.line}: $ {command.command}\n"
                    + "expected:\n  "
                    + "\n  ".join(command.expected)
                    + "\nprinted:\n  "
                    + "\n  ".join(_trimmed(actual))
                )
        python = [b for b in found if b.is_python]
        if python:
            failures += run_python(python, {"__name__": "__docs__"}, folder)
    if replace:
        _rewrite(path, replace)
    return failures


def _rewrite(path: Path, replace: dict[int, list[str]]) -> None:
    """Each command's shown output replaced with its actual one."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        number = i + 1
        out.append(lines[i])
        if number not in replace:
            i += 1
            continue
        while lines[i].endswith("\\"):
            i += 1
            out.append(lines[i])
        i += 1
        while i < len(lines) and not lines[i].startswith("$ ") and not FENCE.match(lines[i]):
            i += 1
        out += replace[number]
    path.write_text("\n".join(out), encoding="utf-8")


def main(argv: list[str]) -> int:
    update = "--update" in argv
    paths = [Path(a).resolve() for a in argv if a != "--update"] or list(DOCUMENTS)
    failed = 0
    for path in paths:
        for failure in check(path, update):
            failed += 1
            print(failure, end="\n\n")
    print(f"{failed} example(s) differ" if failed else "every example agrees")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
