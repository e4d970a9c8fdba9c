"""Plan files, records files and output files on hostile input (issue 21, sections 2 and 7).

* Every file napkinmath reads is bounded as a claims file is (`napkinmath.files`): a FIFO, a
  link to /dev/zero, a file over the size cap, nesting 100,000 deep (brackets, inline tables,
  a dotted key), a top level that is no table: each an error naming the file, exit 2, never
  a hang or exit 3.
* A plan's [records] files stay in the plan's folder, and a file there that is not a records
  file is refused without a word of what it holds.
* No output is written over an input of the same command, nor through a symbolic link; a
  report is written whole or not at all.
* A seeded fuzzer writes plan and records files of hostile shapes and runs `napkin plan`,
  `solve --records`, `hardware --records` and `sweep --records --csv` on them in-process:
  exit 0, 1 or 2, never 3, no traceback, no hang, no input or link target overwritten, no
  secret of a file a plan names in any output. NAPKIN_FUZZ_CASES sets the number of cases
  (default FILE_FUZZ_CASES).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import random
import signal
import sys
from pathlib import Path

import pytest
from test_hostile_cli import _hidden
from test_user_records import OURS

import napkinmath as nm
from napkinmath import files
from napkinmath.cli.main import main
from napkinmath.errors import InputError
from napkinmath.hardware import user

plan_load = importlib.import_module("napkinmath.scenario.load")  # the module, not load()
#: Cases per default run (about ten seconds); NAPKIN_FUZZ_CASES=10000 for the long run.
FILE_FUZZ_CASES = int(os.environ.get("NAPKIN_FUZZ_CASES", "1000"))
FUZZ_SEED = 20260521
#: A case that runs this long is a hang (a blocked read), stopped by an alarm.
HANG_SECONDS = 120

PLAN = """\
title = "Seven B"
[givens]
params = "7B"
tokens = "1T"
n_gpus = 64
mfu = 0.4

[[sections]]
title = "Compute"
ask = ["train_compute"]
"""
DEEP = 100_000
SOLVE = ["solve", "train_compute", "params=7B", "tokens=1T"]


def run(*argv: str) -> tuple[int, str, str]:
    """`napkin ARGV` in-process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = 0 if exc.code is None else exc.code
    return status, out.getvalue(), err.getvalue()


def refused(argv: list[str], *words: str) -> str:
    status, _, err = run(*argv)
    assert status == 2, (status, err)
    assert err.startswith("napkin: ") and "Traceback" not in err and "internal error" not in err
    for word in words:
        assert word in err, (word, err)
    return err


def plan_with(tmp_path: Path, records_files: list[str], name: str = "plan.toml") -> Path:
    path = tmp_path / name
    table = f"[records]\nfiles = {json.dumps(records_files)}\n" if records_files else ""
    path.write_text(PLAN.replace("[givens]", f"{table}[givens]"), encoding="utf-8")
    return path


# --- plan files and records files: bounded ------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_plan_or_records_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    refused(["plan", str(fifo)], "f.toml: not a regular file (a FIFO")
    refused([*SOLVE, "--records", str(fifo)], "not a regular file (a FIFO")
    refused(["plan", str(plan_with(tmp_path, ["f.toml"]))], "records.files[0]", "FIFO")
    with pytest.raises(InputError, match="FIFO"):
        nm.plan(fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_link_to_dev_zero_is_refused_before_a_byte_is_read(tmp_path):
    link = tmp_path / "z.toml"
    link.symlink_to("/dev/zero")
    refused(["plan", str(link)], "not a regular file (a character device)")
    refused([*SOLVE, "--records", str(link)], "not a regular file (a character device)")
    refused(["hardware", "--records", str(link)], "character device")


def test_files_over_the_size_cap_are_refused_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.toml"
    with open(big, "wb") as out:  # sparse: 200 MB without writing them
        out.truncate(200_000_000)
    refused(["plan", str(big)], "larger than 1,000,000 bytes", "a plan file is limited")
    refused([*SOLVE, "--records", str(big)], "a records file is limited to 1,000,000")
    assert plan_load.MAX_PLAN_BYTES == user.MAX_FILE_BYTES == 1_000_000
    monkeypatch.setattr(plan_load, "MAX_PLAN_BYTES", 50)
    (tmp_path / "p.toml").write_text(PLAN, encoding="utf-8")
    refused(["plan", str(tmp_path / "p.toml")], "larger than 50 bytes")


@pytest.mark.parametrize(
    "deep",
    [
        "a = " + "[" * DEEP + "]" * DEEP,
        "a = " + "{b = " * DEEP + "1" + "}" * DEEP,
        "a" + ".a" * DEEP + " = 1",
        "[a" + ".a" * DEEP + "]",
        "a = " + "[" * 40 + "]" * 40,
    ],
    ids=["brackets", "inline-tables", "dotted-key", "dotted-header", "40-deep"],
)
def test_deep_nesting_is_an_error_not_a_crash(tmp_path, deep):
    path = tmp_path / "deep.toml"
    path.write_text(PLAN + deep + "\n", encoding="utf-8")
    refused(["plan", str(path)], "nested more than 32 deep", "a plan file is limited")
    refused([*SOLVE, "--records", str(path)], "nested more than 32 deep")
    as_json = tmp_path / "deep.json"
    as_json.write_text('{"title": ' + "[" * DEEP + "]" * DEEP + "}", encoding="utf-8")
    refused(["plan", str(as_json)], "nested more than 32 deep")


def test_brackets_inside_strings_and_comments_are_not_nesting(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(
        "# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
        + PLAN.replace('title = "Seven B"', 'title = "' + "[" * 50 + '"')
        + 'notes = """'
        + "{" * 50
        + '"""\n',
        encoding="utf-8",
    )
    status, out, err = run("plan", str(path))
    assert status == 0, err
    assert "train_compute" in out


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("x = 1\n", ["x is a number outside any table"]),
        ("x = [1]\n", ["x is an array outside any table"]),
        (PLAN, ["title is text outside any table"]),
        ("\x00", ["not valid TOML"]),
    ],
)
def test_a_records_file_of_the_wrong_shape_is_exit_2(tmp_path, text, words):
    path = tmp_path / "r.toml"
    path.write_text(text, encoding="utf-8")
    refused([*SOLVE, "--records", str(path)], "r.toml", *words)
    refused(["plan", str(plan_with(tmp_path, [], "bare.toml")), "--records", str(path)], *words)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[1, 2]", ["the top level is an array (a list), not a table"]),
        ("3", ["the top level is a number"]),
        ('{"title": "a", "title": "b"}', ["the key 'title' appears twice"]),
        ('{"title": ', ["line 1: not valid JSON"]),
    ],
)
def test_json_plans_of_the_wrong_shape_are_exit_2(tmp_path, text, words):
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    refused(["plan", str(path)], "p.json", *words)


def test_a_plan_that_is_not_utf8_is_exit_2(tmp_path):
    path = tmp_path / "p.toml"
    path.write_bytes(PLAN.encode().replace(b"Seven", b"S\xe9ven"))
    refused(["plan", str(path)], "not UTF-8 text")


def test_the_document_reader_is_general(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": 4096, "layers": [{"a": 1}]}', encoding="utf-8")
    document = files.read_document(path, noun="model config", limit=1000)
    assert document.kind == "json" and document.data["hidden_size"] == 4096
    with pytest.raises(InputError, match="model config is limited to 2 levels"):
        files.read_document(path, noun="model config", limit=1000, depth=2)
    with pytest.raises(InputError, match="no such model config"):
        files.read_document(tmp_path / "nope.json", noun="model config", limit=1000)
    with pytest.raises(InputError) as info:  # private: the parser's reason quotes no key
        files.parse_document(
            "secret_key = 1\nsecret_key = 2\n", kind="toml", noun="file", shown="f", private=True
        )
    assert "secret_key" not in str(info.value) and "line 2" in str(info.value)


# --- a plan's [records] files -------------------------------------------------------------
def test_a_plans_records_files_stay_in_its_folder(tmp_path):
    (tmp_path / "ours.toml").write_text(OURS, encoding="utf-8")
    inside = tmp_path / "plans"
    inside.mkdir()
    (inside / "sub").mkdir()
    (inside / "sub" / "ours.toml").write_text(OURS, encoding="utf-8")
    (inside / "link.toml").symlink_to(tmp_path / "ours.toml")
    for item in ("../ours.toml", str(tmp_path / "ours.toml"), "link.toml", "sub/../../ours.toml"):
        refused(
            ["plan", str(plan_with(inside, [item]))], "outside the plan file's folder", "--records"
        )
    status, _, err = run(
        "plan", str(plan_with(inside, ["sub/ours.toml", "./sub/../sub/ours.toml"]))
    )
    assert status == 0, err
    # the command line may name any file
    status, _, err = run(
        "plan", str(plan_with(inside, [])), "--records", str(tmp_path / "ours.toml")
    )
    assert status == 0, err


def test_a_file_a_plan_names_that_is_no_records_file_is_not_shown(tmp_path):
    (tmp_path / "secrets.toml").write_text(
        '[deploy]\napi_token_name = "hunter2"\nzebra = 1\n', encoding="utf-8"
    )
    (tmp_path / "flat.toml").write_text('api_token = "hunter2"\n', encoding="utf-8")
    (tmp_path / "broken.toml").write_text("api_token = 1\napi_token = 2\n", encoding="utf-8")
    (tmp_path / "other-plan.toml").write_text(PLAN, encoding="utf-8")
    for name in ("secrets.toml", "flat.toml", "broken.toml", "other-plan.toml"):
        err = refused(["plan", str(plan_with(tmp_path, [name]))], name, "records.files[0]")
        for secret in ("deploy", "api_token", "hunter2", "zebra", "title", "givens", "Seven"):
            assert secret not in err, (secret, err)
    assert "not a records file" in refused(["plan", str(plan_with(tmp_path, ["flat.toml"]))])


# --- outputs ------------------------------------------------------------------------------
def test_no_output_over_an_input(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(PLAN, encoding="utf-8")
    ours = tmp_path / "ours.toml"
    ours.write_text(OURS, encoding="utf-8")
    os.link(plan, tmp_path / "hard.toml")
    (tmp_path / "alias.toml").symlink_to(plan)
    refused(["plan", str(plan), "-o", str(plan)], "is this command's plan file", "overwrite")
    refused(["plan", str(tmp_path / "alias.toml"), "-o", str(plan)], "plan file")
    refused(["plan", str(plan), "-o", str(tmp_path / "hard.toml")], "by another name")
    refused(
        ["plan", str(plan), "--records", str(ours), "-o", str(ours)],
        "is this command's records file",
    )
    sweep = [
        "sweep",
        "train_time",
        "n_gpus=1k..4k:log:3",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
        "--records",
        str(ours),
    ]
    refused([*sweep, "--csv", str(ours)], "records file")
    refused([*sweep, "--json", str(ours)], "records file")
    refused([*sweep, "--csv", "a.csv", "--json", "a.csv"], "named for two outputs")
    assert plan.read_text(encoding="utf-8") == PLAN and ours.read_text() == OURS
    os.link(plan, tmp_path / "hard.md")
    with pytest.raises(InputError, match="plan file"):  # the Python API refuses it too
        nm.plan(plan).write(tmp_path / "hard.md")
    assert plan.read_text(encoding="utf-8") == PLAN


def test_no_output_through_a_link(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(PLAN, encoding="utf-8")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    link = tmp_path / "out.html"
    link.symlink_to(victim)
    dangling = tmp_path / "new.html"
    dangling.symlink_to(tmp_path / "would-be-created.html")
    refused(["plan", str(plan), "-o", str(link)], "is a symbolic link", "remove the link")
    refused(["plan", str(plan), "-o", str(dangling)], "is a symbolic link")
    refused(
        [
            "sweep",
            "train_time",
            "n_gpus=1k..4k:log:3",
            "train_compute=6.35e24FLOP",
            "mfu=0.4",
            "--gpu",
            "H100",
            "--csv",
            str(link),
        ],
        "symbolic link",
    )
    assert victim.read_text(encoding="utf-8") == "keep" and link.is_symlink()
    assert not (tmp_path / "would-be-created.html").exists()


def test_outputs_are_written_whole_keep_their_mode_and_leave_no_temporary(tmp_path, monkeypatch):
    from napkinmath import writing

    plan = tmp_path / "p.toml"
    plan.write_text(PLAN, encoding="utf-8")
    out = tmp_path / "r.md"
    out.write_text("old report", encoding="utf-8")
    out.chmod(0o640)
    status, _, err = run("plan", str(plan), "-o", str(out))
    assert status == 0, err
    assert "train_compute" in out.read_text(encoding="utf-8")
    assert out.stat().st_mode & 0o777 == 0o640

    def full(fd, payload):  # a disk that fills half-way
        os.write(fd, payload[:10])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing, "_write_all", full)
    before = out.read_bytes()
    refused_status, _, err = run("plan", str(plan), "-o", str(out))
    assert refused_status == 2 and f"{out}: No space left on device" in err
    assert out.read_bytes() == before  # the old report, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.toml", "r.md"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_devices_and_pipes_as_outputs(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(PLAN, encoding="utf-8")
    sweep = [
        "sweep",
        "train_time",
        "n_gpus=1k..4k:log:3",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
    ]
    status, _, err = run(*sweep, "--csv", os.devnull)
    assert status == 0, err
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    refused([*sweep, "--csv", str(fifo)], "a pipe that no process reads")  # never a wait
    refused(["plan", str(plan), "-o", str(tmp_path)], "is a directory")


# --- the fuzzer ---------------------------------------------------------------------------
SECRET = "ZQXJ-secret-7731"  # in a file only a plan names: must never be shown


class _Hang(BaseException):
    """Raised by the alarm: a case that never returned."""


class _FileFuzzer:
    """Plan and records files of hostile shapes, from a seed, under `root`."""

    def __init__(self, seed: int, root: Path) -> None:
        self.rng = random.Random(seed)
        self.root = root
        self.count = 0
        self.links: list[Path] = []  # the links made as outputs: never to be replaced

    def pick(self, items):
        return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def junk_value(self) -> object:
        return self.pick(
            [
                1,
                -1,
                0,
                1.5,
                float("nan"),
                float("inf"),
                True,
                False,
                "",
                "7B",
                "1T",
                "x" * 2000,
                "0.3..0.5",
                "0.3 to 0.5",
                "\x1b[2J",
                "\u202e",
                "__import__('os')",
                [],
                [1, "a"],
                {},
                {"a": 1},
                [[[[1]]]],
                "nope",
                "H100",
                10**30,
                -(10**30),
                "1e999",
                "1 GB",
                {"value": "1 TB"},
                [{"title": "x"}],
            ]
        )

    def name(self) -> str:
        return self.pick(
            [
                "params",
                "tokens",
                "n_gpus",
                "mfu",
                "train_time",
                "train_compute",
                "train_cost",
                "peak_flops",
                "nope",
                "",
                "a b",
                "__class__",
                "é",
                "title",
                "sections",
                "x" * 300,
                "\x1b",
                "1",
            ]
        )

    def mutate(self, value: object, depth: int = 0) -> object:
        """`value` with a few parts changed: keys dropped, added or retyped."""
        if isinstance(value, dict):
            out = dict(value)
            for key in list(out):
                roll = self.rng.random()
                if roll < 0.08:
                    del out[key]
                elif roll < 0.2:
                    out[key] = self.junk_value()
                elif roll < 0.7 and depth < 6:
                    out[key] = self.mutate(out[key], depth + 1)
            if self.chance(0.15):
                out[self.name()] = self.junk_value()
            return out
        if isinstance(value, list):
            out = [self.mutate(v, depth + 1) if self.chance(0.5) else v for v in value]
            if self.chance(0.1):
                out.append(self.junk_value())
            return out
        return self.junk_value() if self.chance(0.3) else value

    def plan(self) -> dict:
        doc: dict = {
            "title": "Fuzz",
            "givens": {"params": "7B", "tokens": "1T", "n_gpus": 64, "mfu": 0.4},
            "sections": [{"title": "Compute", "ask": ["train_compute"]}],
        }
        if self.chance(0.3):
            doc["sections"].append(
                {
                    "title": "Time",
                    "ask": ["train_time"],
                    "uses": [],
                    "givens": {"peak_flops": "989 TFLOP/(s*GPU)"},
                }
            )
        if self.chance(0.2):
            doc["sweeps"] = [{"target": "train_compute", "over": {"params": "1B..7B:3"}}]
        if self.chance(0.2):
            doc["records"] = {"gpu": self.pick(["H100", "our-gpu", "nope"])}
        return self.mutate(doc) if self.chance(0.7) else doc

    def records(self) -> dict:
        doc: dict = {
            "our-gpu": {
                "name": "X1",
                "kind": "accelerator",
                "source": "s",
                "date": "2026",
                "peak_flops": {"value": "1 PFLOP/(s*GPU)"},
                "price_per_gpu_hour": {"value": "3 USD/(GPU*hour)"},
            }
        }
        return self.mutate(doc) if self.chance(0.7) else doc

    def toml(self, doc: object) -> str:
        """TOML text for `doc`: a table becomes scalars, [headers] and [[arrays]]."""
        if not isinstance(doc, dict):
            return f"x = {self.toml_value(doc)}\n"
        lines, tables = [], []
        for key, value in doc.items():
            if isinstance(value, dict) and self.chance(0.8):
                tables.append(
                    f"[{json.dumps(key)}]\n"
                    + "".join(f"{json.dumps(k)} = {self.toml_value(v)}\n" for k, v in value.items())
                )
            elif (
                isinstance(value, list)
                and value
                and all(isinstance(v, dict) for v in value)
                and self.chance(0.8)
            ):
                tables += [
                    f"[[{json.dumps(key)}]]\n"
                    + "".join(f"{json.dumps(k)} = {self.toml_value(v)}\n" for k, v in item.items())
                    for item in value
                ]
            else:
                lines.append(f"{json.dumps(key)} = {self.toml_value(value)}\n")
        return "".join(lines) + "\n".join(tables)

    def toml_value(self, value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float) and value != value:
            return "nan"
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        if isinstance(value, dict):
            return (
                "{"
                + ", ".join(f"{json.dumps(k)} = {self.toml_value(v)}" for k, v in value.items())
                + "}"
            )
        if isinstance(value, list):
            return "[" + ", ".join(self.toml_value(v) for v in value) + "]"
        if isinstance(value, str):
            return json.dumps(value, ensure_ascii=False)
        return str(value)

    def shape(self, text: str, json_doc: object | None) -> bytes:
        """`text` (or the JSON of `json_doc`) made hostile now and then."""
        roll = self.rng.random()
        depth = self.pick([33, 40, 1000, DEEP])
        if roll < 0.05:
            return self.rng.randbytes(self.rng.randint(0, 400))
        if roll < 0.10:
            return ("a = " + "[" * depth + "]" * self.rng.randint(0, depth)).encode()
        if roll < 0.13:
            return ("a" + ".a" * depth + " = 1\n").encode()
        if roll < 0.16:
            return (text + "x = " + "{y = " * depth + "1" + "}" * depth).encode()
        if roll < 0.19:
            return text.encode()[: self.rng.randint(0, len(text))]
        if roll < 0.21:
            return b"\xef\xbb\xbf" + text.encode() + b"\n\xff\xfe"
        if roll < 0.23:
            return text.encode() + b"\x00" + text.encode()
        if roll < 0.25:
            return text.encode() + b"# pad\n" * 170_000  # just over the size cap
        if roll < 0.28:
            return self.pick(
                [
                    "x = 1\n",
                    "x = [1]\n",
                    "[[x]]\na = 1\n",
                    "",
                    "\n",
                    "= 1\n",
                    f'secret = "{SECRET}"\n',
                    '"" = 1\n',
                    "a = 1\na = 2\n",
                ]
            ).encode()
        if json_doc is not None and roll < 0.45:
            data = (
                json.dumps(json_doc, ensure_ascii=False)
                if self.chance(0.9)
                else json.dumps(self.pick([[json_doc], 1, "x", None]))
            )
            return data.encode("utf-8", "surrogatepass")
        return text.encode("utf-8", "surrogatepass")

    def special(self, suffix: str) -> Path | None:
        """Now and then a file that is no regular file: a FIFO, a link to /dev/zero, a
        directory, a missing file, a link to /proc."""
        if not self.chance(0.12):
            return None
        self.count += 1
        path = self.root / f"special{self.count}{suffix}"
        kind = self.pick(["fifo", "zero", "dir", "missing", "proc", "loop"])
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "zero":
            path.symlink_to("/dev/zero")
        elif kind == "dir":
            path.mkdir()
        elif kind == "proc":
            path.symlink_to("/proc/self/environ")
        elif kind == "loop":
            path.symlink_to(path)
        return path

    def records_file(self, folder: Path) -> Path:
        special = self.special(".toml")
        if special is not None:
            return special
        self.count += 1
        path = folder / f"records{self.count}.toml"
        path.write_bytes(self.shape(self.toml(self.records()), None))
        return path

    def plan_file(self) -> tuple[Path, list[Path]]:
        """A plan file and the files it names (a secret among them, now and then)."""
        suffix = self.pick([".toml"] * 4 + [".json"])
        special = self.special(suffix)
        if special is not None:
            return special, []
        self.count += 1
        folder = self.root / f"case{self.count}"
        folder.mkdir()
        doc = self.plan()
        named: list[Path] = []
        if isinstance(doc, dict) and self.chance(0.35):
            items = []
            for _ in range(self.rng.randint(1, 2)):
                roll = self.rng.random()
                if roll < 0.4:
                    path = self.records_file(folder)
                    items.append(
                        os.path.relpath(path, folder) if path.parent == folder else str(path)
                    )
                    named.append(path)
                elif roll < 0.6:
                    secret = folder / f"secret{self.count}.toml"
                    secret.write_text(
                        self.pick(
                            [
                                f'[tokens]\nkey = "{SECRET}"\n',
                                f'{SECRET} = "{SECRET}"\n',
                                f"[{SECRET}]\n{SECRET} = 1\n",
                                f"{SECRET} = [1, 2]\n[{SECRET}]\n",
                                f"[[{SECRET}]]\nsource = 1\n",
                            ]
                        ),
                        encoding="utf-8",
                    )
                    items.append(secret.name)
                else:
                    items.append(
                        self.pick(
                            [
                                "../outside.toml",
                                "/etc/hostname",
                                "plan.toml",
                                "nope.toml",
                                "",
                                ".",
                                "a\x00b",
                                "../" * 30 + "x",
                                f"plan{suffix}",
                                "sub/../plan.toml",
                            ]
                        )
                    )
            records = doc.setdefault("records", {})
            if isinstance(records, dict):
                records["files"] = items if self.chance(0.9) else items[0]
        path = folder / f"plan{suffix}"
        text = json.dumps(doc, ensure_ascii=False) if suffix == ".json" else self.toml(doc)
        path.write_bytes(self.shape(text, doc if suffix == ".json" else None))
        return path, named

    def output(self, inputs: list[Path], suffix: str) -> str:
        self.count += 1
        roll = self.rng.random()
        if roll < 0.45 or not inputs:
            return str(self.root / f"out{self.count}{suffix}")
        if roll < 0.65:
            return str(self.pick(inputs))  # an input: must be refused
        link = self.root / f"link{self.count}{suffix}"
        if roll < 0.8:
            link.symlink_to(self.pick(inputs))
            self.links.append(link)
            return str(link)
        if roll < 0.88:
            with contextlib.suppress(OSError):
                os.link(self.pick(inputs), link)
            return str(link)
        return self.pick([os.devnull, str(self.root), str(self.root / "no" / "x.csv"), ""])

    def case(self) -> tuple[list[str], list[Path]]:
        """A command line, and the files it must leave as they were."""
        roll = self.rng.random()
        if roll < 0.55:
            plan, named = self.plan_file()
            argv = ["plan", str(plan)]
            extra = [self.records_file(self.root) for _ in range(self.rng.randint(0, 1))]
            for path in extra:
                argv += ["--records", str(path)]
            inputs = [p for p in (plan, *named, *extra) if p.is_file()]
            if self.chance(0.4):
                argv += ["-o", self.output(inputs, self.pick([".md", ".html", ".txt", ".tex"]))]
            if self.chance(0.2):
                argv.append("--check")
            return argv, inputs
        records = self.records_file(self.root)
        inputs = [records] if records.is_file() else []
        if roll < 0.75:
            return [
                *SOLVE,
                "--gpu",
                self.pick(["our-gpu", "H100", "X1"]),
                "--records",
                str(records),
            ], inputs
        if roll < 0.85:
            return [
                "hardware",
                *([] if self.chance(0.5) else ["our-gpu"]),
                "--records",
                str(records),
            ], inputs
        return [
            "sweep",
            "train_time",
            "n_gpus=1k..4k:log:3",
            "train_compute=6.35e24FLOP",
            "mfu=0.4",
            "--gpu",
            "H100",
            "--records",
            str(records),
            "--csv",
            self.output(inputs, ".csv"),
        ], inputs


def _snapshot(paths: list[Path]) -> dict[Path, bytes]:
    out = {}
    for path in paths:
        with contextlib.suppress(OSError):
            out[path] = path.read_bytes()
    return out


def _alarm(signum, frame):
    raise _Hang


def test_fuzz_plan_and_records_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fuzzer = _FileFuzzer(FUZZ_SEED, tmp_path)
    (tmp_path / "outside.toml").write_text(f'[x]\nsecret = "{SECRET}"\n', encoding="utf-8")
    failures: list[str] = []
    statuses: dict[object, int] = {}
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for case in range(FILE_FUZZ_CASES):
            argv, inputs = fuzzer.case()
            links = {p: os.readlink(p) for p in fuzzer.links[-1:]}  # this case's, if any
            before = _snapshot([*inputs, *(Path(t) for t in links.values())])
            signal.alarm(HANG_SECONDS)
            try:
                with warnings_off():
                    status, out, err = run(*argv)
            except _Hang:
                status, out, err = "hang", "", ""
            finally:
                signal.alarm(0)
            statuses[status] = statuses.get(status, 0) + 1
            problems = []
            if status not in (0, 1, 2):
                problems.append(f"exit {status}")
            if "Traceback" in err or "internal error" in err:
                problems.append("traceback or internal error")
            if _hidden(err):
                problems.append(f"raw control characters on stderr: {_hidden(err)[:3]}")
            if SECRET in out + err:
                problems.append("a named file's secret shown")
            if _snapshot(list(before)) != before:
                problems.append("an input or a link's target was overwritten")
            if any(os.readlink(p) != t for p, t in links.items() if p.is_symlink()):
                problems.append("a link was replaced")
            if problems:
                failures.append(f"case {case}: {argv!r}: {'; '.join(problems)}\n{err[-600:]}")
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"{FILE_FUZZ_CASES} file cases: exit statuses {statuses}", file=sys.__stdout__)
    assert not failures, f"{len(failures)} failing cases:\n" + "\n".join(failures[:15])
    assert statuses.get(0, 0) > FILE_FUZZ_CASES // 20  # the fuzz reaches working plans too


@contextlib.contextmanager
def warnings_off():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_file_fuzz_is_deterministic(tmp_path):
    def cases(root: Path) -> list:
        root.mkdir()
        fuzzer = _FileFuzzer(FUZZ_SEED, root)
        out = []
        for _ in range(60):
            argv, _ = fuzzer.case()
            out.append([a.replace(str(root), "ROOT") for a in argv])
        return out

    assert cases(tmp_path / "a") == cases(tmp_path / "b")
