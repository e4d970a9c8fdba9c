"""The `napkin` command on hostile input and at the edges of the process.

* A seeded fuzzer builds a few thousand command lines from random pieces (subcommands,
  variable and record names, values, units, ranges, hostile strings, options with odd
  values, small random claims files) and runs each in-process: the exit status is 0, 1 or 2,
  never 3 (an internal error) and never a traceback; stderr carries no raw control
  character; a stdout that cannot encode the symbols gets ASCII spellings instead.
* In subprocesses, at the process's normal settings: Ctrl-C is one line and exit 130, an ASCII
  locale (PYTHONIOENCODING=ascii) gets ASCII output, a full device (/dev/full) is a one-line
  message and exit 2, a closed pipe exit 0, deep input exit 2.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys
import textwrap
import time
import unicodedata
from pathlib import Path

import pytest
from helpers import W12

from napkinmath.catalog.lookup import variables
from napkinmath.cli.main import _fallback, _Output, main
from napkinmath.hardware import records

#: Command lines per run of the fuzzer (NAPKIN_FUZZ_CASES sets another number, for a long
#: run), and its seed (the run is deterministic).
FUZZ_CASES = int(os.environ.get("NAPKIN_FUZZ_CASES", "3000"))
FUZZ_SEED = 20260509
#: A case slower than this is a hang, not a cold cache (the slowest seen is well under 2 s).
SECONDS_PER_CASE = 20.0


def _napkin(
    *args: str, env: dict | None = None, stdout=subprocess.PIPE
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "napkinmath.cli", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def _hidden(text: str) -> list[str]:
    """Characters that could act on a terminal: controls (but newline and tab), format
    characters (bidi overrides), surrogates, line separators."""
    return [
        c
        for c in text
        if c not in "\n\t" and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")
    ]


# --- the process's edges, in subprocesses ---------------------------------------------------
def test_ascii_locale_gets_ascii_spellings():
    done = _napkin(*W12, env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("ascii")  # every byte is ASCII
    assert "n_gpus = 58.48 GPU" in out
    assert "x10^22" in out and "TFLOP/(s*GPU)" in out  # × and · spelled out
    assert not done.stderr


def test_ascii_locale_error_messages_are_ascii_too():
    done = _napkin("check", "1 GB × 3 µs + 1 s", env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 2
    err = done.stderr.decode("ascii")
    assert err.startswith("napkin: ") and "Traceback" not in err


def test_latin1_keeps_what_it_can_encode():
    assert _fallback("2×10⁹ s⁻¹ · ≤ ✓ µs", "latin-1") == "2×10^9 s^-1 · <= OK µs"
    assert _fallback("2×10⁹ s⁻¹ · ≤ ✓ µs …", "ascii") == "2x10^9 s^-1 * <= OK us ..."
    assert _fallback("δ ½ é 「", "ascii") == "delta 1/2 e <U+300C>"


def test_full_device_is_one_line_and_exit_2():
    with open("/dev/full", "w") as full:
        done = _napkin(*W12, stdout=full)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode() == "napkin: cannot write the output: No space left on device\n"


def test_full_device_under_help_is_exit_2_too():
    # argparse ignores a failed write of its help; napkin does not
    with open("/dev/full", "w") as full:
        done = _napkin("--help", stdout=full)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode() == "napkin: cannot write the output: No space left on device\n"


def test_full_device_on_a_file_option_is_exit_2(tmp_path):
    done = _napkin(
        "sweep",
        "train_time",
        "n_gpus=1k..4k:log:3",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
        "--json",
        "/dev/full",
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == b"napkin: /dev/full: No space left on device\n"
    missing = tmp_path / "no" / "such" / "dir.csv"
    done = _napkin(
        "sweep",
        "train_time",
        "n_gpus=1k..4k:log:3",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
        "--csv",
        str(missing),
    )
    assert done.returncode == 2, done.stderr
    assert b"Traceback" not in done.stderr and str(missing).encode() in done.stderr


@pytest.mark.parametrize("args", [["formulas"], ["--help"], W12])
def test_closed_pipe_is_a_quiet_success(args):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: every write is EPIPE
    try:
        done = _napkin(*args, stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""


_INTERRUPT = textwrap.dedent("""
    import os, signal, sys, time
    import napkinmath.solving.solver as solver
    from napkinmath.cli.main import main

    def interrupted(*args, **kwargs):
        if sys.argv[1] == "signal":  # a real SIGINT, as Ctrl-C sends
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)
        raise KeyboardInterrupt

    solver.solve = interrupted
    sys.exit(main(["solve", "n_gpus", "params=7B", "mfu=0.4"]))
""")


@pytest.mark.parametrize("how", ["raise", "signal"])
def test_ctrl_c_is_one_line_and_exit_130(how):
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPT, how], capture_output=True, text=True, timeout=120
    )
    assert time.perf_counter() - start < 60  # the signal ended the sleep
    assert done.returncode == 130, done.stderr
    assert done.stderr == "napkin: interrupted\n"


def test_closed_output_in_process_is_exit_2(monkeypatch, capsys):
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdout", closed)
    assert main(["vars", "mfu"]) == 2
    assert capsys.readouterr().err == "napkin: cannot write the output: the output is closed\n"


def test_deep_input_is_exit_2_not_an_internal_error():
    done = _napkin("check", "s " * 330)
    assert done.returncode == 2
    assert b"nested too deeply" in done.stderr and b"Traceback" not in done.stderr


# --- the terminal side of output injection --------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["check", "1 GB\x1b[2J\x1b]0;pwned\x07"],
        ["check", "1 GB +\r 3 GBq"],
        ["check", "\u202e1 GB"],
        ["check", "\udcff GB"],
        ["solve", "n_gpus", "params=7B\x1b[31m"],
        ["solve", "n_\x1bgpus", "params=7B"],
        ["hardware", "H100\x1b[2J"],
        ["vars", "\u202enope"],
        ["solve", "n_gpus", "--format", "\x1b[2J"],
    ],
)
def test_error_messages_show_control_characters_as_escapes(argv, capsys):
    with contextlib.suppress(SystemExit):
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert err and _hidden(err) == [], repr(err)
    assert any(shown in err for shown in ("\\x1b", "<U+", "\\r", "\\u")), err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_stdout_gets_no_control_characters(tmp_path, monkeypatch):
    claims = tmp_path / "claims.csv"
    claims.write_text('id,expression,claimed\n"a\x1b[2Jb\u202e",1 GB,1 GB\n')
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["check", str(claims)]) in (0, 1, 2)
    assert _hidden(terminal.getvalue()) == [], repr(terminal.getvalue())


def test_output_wrapper_passes_text_through_unchanged_on_a_pipe():
    plain = io.StringIO()
    _Output(plain, escape=False).write("a\x1b b × ⁻¹\n")
    assert plain.getvalue() == "a\x1b b × ⁻¹\n"


# --- the fuzzer ----------------------------------------------------------------------------
_HOSTILE = [
    "__import__('os').system('true')",
    "().__class__.__bases__",
    "lambda: 0",
    "{0.__class__}",
    "9^9^9^9",
    "1e999",
    "1e-999",
    "9" * 45,
    "(" * 60 + "1" + ")" * 60,
    "-" * 60 + "1",
    "s " * 330,
    "1+" * 199 + "1",
    "2^" * 199 + "1",
    "a" * 1200,
    "sqrt(" * 60 + "4",
    "\x1b[2J",
    "\x1b]0;pwned\x07",
    "\r",
    "\u202e",
    "\u2066x\u2069",
    "\udcff",
    "\x00",
    "\x85",
    "5 min (8-1)",
    "min(8-1)",
    "5 min(8-1)",
    "1 GB\r\n",
    "=",
    "==",
    "--",
    "-",
    "",
    " ",
    "1..",
    "..",
    "...",
    "1..2..3",
    "1 to",
    "to 2",
    "0.3..0.5:log:x",
    "1..2:",
    ":log:3",
    "nan",
    "inf",
    "-inf",
    "NaN GB",
    "1e308 TB",
    "1e-320",
    "0/0",
    "1/0 s",
    "１２ GB",
    "٣",
    "H100-SXM.__class__",
    "H100-SXM.nope",
    "nope.peak_flops",
    "x",
    "%",
    "%%",
    "1 GB = 2 GB",
    "[1, 2]",
    '{"a": 1}',
    "'1 GB'",
    "0x10",
    "1,000",
    "1_000_000",
    "--gpu",
    "-h",
    "-e",
    "name=",
    "=value",
    "a=b=c",
    "params=params",
    "n_gpus=n_gpus",
    "mfu=mfu*2",
]
_NUMBERS = [
    "0",
    "1",
    "-1",
    "2",
    "7B",
    "1T",
    "16k",
    "0.4",
    "40%",
    "1e300",
    "1e-300",
    "1e308",
    "1e-320",
    "0.0",
    ".5",
    "1_000",
    "3.5",
    "64",
    "8192",
    "100%",
    "1e3",
    "-0",
    "15.6T",
]
_UNITS = [
    "GB",
    "GiB",
    "Gb/s",
    "GB/s",
    "TB/s",
    "s",
    "ms",
    "min",
    "h",
    "day",
    "days",
    "weeks",
    "TFLOP/s",
    "TFLOPS",
    "FLOP",
    "param",
    "params",
    "token",
    "tokens",
    "GPU",
    "GPUs",
    "node",
    "USD",
    "W",
    "kWh",
    "B",
    "b",
    "bit",
    "byte",
    "GPU*h",
    "USD/(GPU*h)",
    "token/s",
    "TFLOP/(s*GPU)",
    "mb",
    "KB",
    "%",
    "Gbps",
    "request/s",
    "years",
]
_OPS = [" + ", " - ", " * ", " / ", "/", "*", " ^ ", "^", " ", " x ", ", "]
_FUNCS = ["sqrt", "log", "log2", "exp", "ceil", "floor", "abs", "min", "max", "nope"]
_FORMATS = ["text", "markdown", "json", "latex", "csv", "xml", ""]
_EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
_WORKING = [
    W12,
    [
        "solve",
        "train_time",
        "train_cost",
        "params=7B",
        "tokens=1T",
        "n_gpus=64",
        "mfu=0.4",
        "--gpu",
        "H100-SXM",
        "price_per_gpu_hour=2 USD/(GPU*h)",
    ],
    [
        "solve",
        "mfu",
        "params=405B",
        "tokens=15.6T",
        "gpu_hours=30.84e6 GPU*h",
        "--gpu",
        "H100",
        "--format",
        "markdown",
    ],
    [
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.3..0.5",
        "--gpu",
        "H100",
    ],
    [
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.3 to 0.5",
        "--gpu",
        "H100",
        "--samples",
        "100",
        "--sensitivity",
    ],
    [
        "solve",
        "kv_cache_memory",
        "--model",
        "llama-3-70b",
        "batch_size=8",
        "seq_len=8192",
        "--strict",
    ],
    [
        "solve",
        "n_gpus",
        "train_compute=6.35e24FLOP",
        "train_time=30 days",
        "mfu=35%..45%",
        "--gpu",
        "H100",
        "--format",
        "json",
    ],
    [
        "sweep",
        "train_time",
        "n_gpus=1k..16k:log:5",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
    ],
    [
        "sweep",
        "train_time",
        "n_gpus=1024,2048",
        "mfu=0.3..0.5:3",
        "train_compute=6.35e24FLOP",
        "--gpu",
        "H100",
        "--format",
        "csv",
    ],
    [
        "sweep",
        "cost_per_million_tokens",
        "batch_size=1,8",
        "--gpu",
        "H100-SXM,MI300X",
        "--model",
        "llama-3-70b",
        "n_gpus=4",
        "seq_len=8192",
    ],
    [
        "compare",
        "cost_per_million_tokens",
        "--gpu",
        "H100-SXM,MI300X,Trainium2",
        "--model",
        "llama-3-70b",
        "n_gpus=4",
        "batch_size=32",
        "seq_len=8192",
    ],
    [
        "compare",
        "train_time",
        "--gpu",
        "H100-SXM,H200-SXM,B200",
        "train_compute=6.35e24FLOP",
        "n_gpus=8192",
        "mfu=0.4",
        "--format",
        "markdown",
        "--derivations",
    ],
    ["check", "2*(8-1)/8 * 141 GB / (900 GB/s)"],
    ["check", "70e9 param * 16 byte/param", "--expect", "1.1 TB"],
    ["check", "140 GB / (400 Gb/s)", "--expect", "0.35 s"],
    ["check", "140 GB / (400 Gb/s) = 0.35 s"],
    ["check", "params * 2 B/param", "params=70B", "--expect", "140 GB", "--format", "markdown"],
    [
        "check",
        "train_compute / (n_gpus * peak_flops * mfu)",
        "params=70B",
        "tokens=15T",
        "n_gpus=16384",
        "mfu=0.4",
        "--gpu",
        "H100-SXM",
        "--expect",
        "11.3 days",
        "-v",
    ],
    ["check", "kv_bytes_per_token", "--model", "llama-3-70b", "--expect", "2.62 MB/token"],
    ["check", f"{_EXAMPLES}/claims.csv"],
    ["check", f"{_EXAMPLES}/claims.json", "--format", "json"],
    ["check", f"{_EXAMPLES}/claims.toml", "--format", "markdown"],
    ["vars", "mfu"],
    ["formulas", "fleet"],
    ["hardware", "H100-SXM"],
]
_SUBJECTS = ["training", "memory", "serving", "communication", "storage", "reliability", "nope", ""]
_KINDS = ["accelerator", "link", "model", "storage", "nope", ""]


class _Fuzzer:
    """Random command lines, from a seed; files go under `root`."""

    def __init__(self, seed: int, root: Path) -> None:
        self.rng = random.Random(seed)
        self.root = root
        self.files = 0
        self.vars = sorted(variables())
        self.records = sorted(records())

    def pick(self, items):
        return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # pieces
    def name(self) -> str:
        if self.chance(0.9):
            return self.pick(self.vars)
        return self.pick(
            [
                "",
                "x",
                "__class__",
                "n_gpus,mfu",
                "a b",
                "Params",
                "é",
                "-x",
                "n_gpus ",
                "1abc",
                "s",
                "GB",
                "min",
                "H100-SXM.peak_flops",
            ]
        )

    def record(self) -> str:
        roll = self.rng.random()
        if roll < 0.6:
            return self.pick(self.records)
        if roll < 0.8:
            return ",".join(self.pick(self.records) for _ in range(self.rng.randint(2, 4)))
        return self.pick(
            [
                "H100",
                "h100",
                "nope",
                ",",
                "",
                "H100-SXM,,",
                "x" * 300,
                "H100-SXM,nope",
                "llama-3-70b",
                "\x1b[2J",
                "H100-SXM.peak_flops",
            ]
        )

    def number(self) -> str:
        return self.pick(_NUMBERS)

    def quantity(self) -> str:
        if self.chance(0.3):
            return self.number()
        return f"{self.number()}{self.pick([' ', ''])}{self.pick(_UNITS)}"

    def expression(self, depth: int = 0) -> str:
        roll = self.rng.random()
        if depth > 3 or roll < 0.35:
            return self.pick(
                [
                    self.quantity(),
                    self.quantity(),
                    self.name(),
                    f"{self.pick(self.records)}.{self.pick(self.vars)}",
                ]
            )
        if roll < 0.75:
            return self.expression(depth + 1) + self.pick(_OPS) + self.expression(depth + 1)
        if roll < 0.85:
            return f"({self.expression(depth + 1)})"
        if roll < 0.95:
            return f"{self.pick(_FUNCS)}({self.expression(depth + 1)})"
        return self.pick(_HOSTILE)

    def spread(self) -> str:
        low, high = self.quantity(), self.quantity()
        roll = self.rng.random()
        if roll < 0.4:
            text = f"{low}..{high}"
        elif roll < 0.6:
            text = f"{low} to {high}"
        elif roll < 0.8:
            text = ",".join(self.quantity() for _ in range(self.rng.randint(1, 5)))
        else:
            text = f"{self.number()}..{self.number()}"
        if self.chance(0.4):  # a point count, small: the fuzz is not a load test
            count = self.pick(["0", "1", "2", "3", "5", "9", "12", "-2", "x", "", "1.5"])
            text += f":{self.pick(['log', 'lin', 'nope', ''])}:{count}"
        return text

    def value(self) -> str:
        roll = self.rng.random()
        if roll < 0.35:
            return self.quantity()
        if roll < 0.55:
            return self.spread()
        if roll < 0.75:
            return self.expression()
        if roll < 0.9:
            return self.pick(_HOSTILE)
        return "".join(
            self.pick("0123456789.eE+-*/^()%, _xkMBTGs\x1b\r\u202e…×·≤µ")
            for _ in range(self.rng.randint(0, 12))
        )

    def givens(self, most: int = 5) -> list[str]:
        return [f"{self.name()}={self.value()}" for _ in range(self.rng.randint(0, most))]

    def path(self, suffix: str) -> str:
        self.files += 1
        roll = self.rng.random()
        if roll < 0.6:
            return str(self.root / f"out{self.files}{suffix}")
        if roll < 0.75:
            return str(self.root / "no" / "such" / f"dir{suffix}")
        if roll < 0.85:
            return str(self.root)  # a directory
        return self.pick(["/dev/full", "", "-", "/proc/nope/x.csv", f"x\x1b{suffix}"])

    def claims_file(self) -> str:
        self.files += 1
        suffix = self.pick([".csv", ".tsv", ".json", ".toml", ".csv", ".json", ".txt", ""])
        path = self.root / f"claims{self.files}{suffix}"
        path.write_bytes(self.claims_bytes(suffix))
        return str(path)

    def cell(self) -> str:
        return self.pick(
            [
                self.quantity(),
                self.expression(),
                self.name(),
                self.pick(_HOSTILE),
                f"gpu={self.record()}; n={self.number()}",
                "",
            ]
        )

    def claims_bytes(self, suffix: str) -> bytes:
        rows = self.rng.randint(0, 6)
        columns = self.rng.sample(
            [
                "id",
                "quantity",
                "expression",
                "claimed",
                "unit",
                "tolerance",
                "gpu",
                "model",
                "context",
                "source",
                "params",
                "n",
                "__x",
                "",
                "claimed",
            ],
            self.rng.randint(1, 6),
        )
        roll = self.rng.random()
        if roll < 0.1:
            return self.rng.randbytes(self.rng.randint(0, 200))
        if suffix in (".json", "") and roll < 0.6:
            if self.chance(0.1):
                return b"[" * 5000 + b"]" * self.rng.randint(0, 5000)
            table = [
                {
                    c: self.pick([self.cell(), 1, 2.5, None, True, [1], {"a": 1}, 1e308])
                    for c in columns
                }
                for _ in range(rows)
            ]
            data = json.dumps(table if self.chance(0.7) else {"claims": table})
            return (
                data[: self.rng.randint(0, len(data))].encode()
                if self.chance(0.15)
                else data.encode()
            )
        if suffix == ".toml" and roll < 0.7:
            lines = [
                "[[claims]]\n"
                + "".join(f"{c or 'x'} = {json.dumps(self.cell())}\n" for c in columns)
                for _ in range(rows)
            ]
            data = "".join(lines) + self.pick(["", "x = ", "[[claims", "a = [[[[", "\x00"])
            return data.encode("utf-8", "surrogatepass")
        sep = "\t" if suffix == ".tsv" else ","
        lines = [sep.join(columns)]
        for _ in range(rows):
            cells = [self.cell() for _ in columns]
            lines.append(sep.join(json.dumps(c) if self.chance(0.3) else c for c in cells))
        return ("\n".join(lines) + self.pick(["", "\n", "\r\n", '"', "\n#x"])).encode(
            "utf-8", "surrogatepass"
        )

    def options(self, allowed: dict[str, list]) -> list[str]:
        argv: list[str] = []
        for option, values in allowed.items():
            if not self.chance(0.25):
                continue
            if values:
                argv += [option, str(self.pick(values))]
            else:
                argv.append(option)
        return argv

    # command lines
    def argv(self) -> list[str]:
        if self.chance(0.35):
            return self.mutated()
        command = self.pick(
            ["solve"] * 6
            + ["check"] * 6
            + ["sweep"] * 2
            + ["compare"] * 2
            + ["vars", "formulas", "hardware", "junk"]
        )
        return getattr(self, "_" + command)()

    def mutated(self) -> list[str]:
        """A command line that works, with a piece or two changed: reaches the renderers."""
        argv = list(self.pick(_WORKING))
        for _ in range(self.rng.randint(0, 2)):
            roll = self.rng.random()
            at = self.rng.randrange(1, len(argv)) if len(argv) > 1 else 1
            if at >= len(argv):
                argv.append(self.value())
                continue
            if roll < 0.3 and "=" in argv[at]:
                argv[at] = argv[at].partition("=")[0] + "=" + self.value()
            elif roll < 0.5:
                argv.insert(at, f"{self.name()}={self.value()}")
            elif roll < 0.6:
                argv[at] = self.value()
            elif roll < 0.8:
                argv += self.options(
                    {"--format": _FORMATS, "--gpu": [self.record()], "--model": [self.record()]}
                )
            else:
                del argv[at]
        return argv

    def _solve(self) -> list[str]:
        targets = [self.name() for _ in range(self.rng.randint(1, 3))]
        options = self.options(
            {
                "--gpu": [self.record()],
                "--model": [self.record()],
                "--format": _FORMATS,
                "--tolerance": ["0.01", "0", "-1", "nan", "1e309", "x", "2%"],
                "--strict": [],
                "--warn-inconsistent": [],
                "--sensitivity": [],
                "--samples": ["0", "1", "-3", "50", "200", "x"],
                "--seed": ["0", "-1", "x", "7"],
            }
        )
        return ["solve", *targets, *self.givens(), *options]

    def _check(self) -> list[str]:
        target = self.claims_file() if self.chance(0.3) else self.expression()
        if self.chance(0.1):
            target += " = " + self.quantity()
        options = self.options(
            {
                "--expect": [self.value()],
                "--tolerance": ["0.02", "2%", "-1", "nan", "x", "1e309", "100%", ""],
                "--gpu": [self.record()],
                "--model": [self.record()],
                "--format": _FORMATS,
                "--input-format": ["csv", "tsv", "json", "toml", "xml"],
                "--allow-unchecked": [],
                "--verbose": [],
            }
        )
        return ["check", target, *self.givens(3), *options]

    def _sweep(self) -> list[str]:
        swept = [f"{self.name()}={self.spread()}" for _ in range(self.rng.randint(0, 3))]
        options = self.options(
            {
                "--gpu": [self.record()],
                "--model": [self.record()],
                "--format": _FORMATS,
                "--points": ["0", "1", "3", "11", "-1", "x"],
                "--csv": [self.path(".csv")],
                "--json": [self.path(".json")],
                "--tolerance": ["0.01", "nan", "-1"],
            }
        )
        if self.chance(0.01):
            options += ["--plot", self.path(self.pick([".png", ".svg", ".gif", ""]))]
        return ["sweep", self.name(), *swept, *self.givens(3), *options]

    def _compare(self) -> list[str]:
        options = self.options(
            {
                "--gpu": [self.record()],
                "--model": [self.record()],
                "--format": _FORMATS,
                "--best": ["lower", "higher", "x"],
                "--derivations": [],
                "--csv": [self.path(".csv")],
                "--tolerance": ["0.01", "nan"],
            }
        )
        return ["compare", self.name(), *self.givens(4), *options]

    def _vars(self) -> list[str]:
        return [
            "vars",
            *([self.pick([self.name(), self.pick(_HOSTILE)])] if self.chance(0.7) else []),
        ]

    def _formulas(self) -> list[str]:
        return [
            "formulas",
            *([self.pick([self.name(), self.pick(_HOSTILE)])] if self.chance(0.6) else []),
            *self.options({"--subject": _SUBJECTS}),
        ]

    def _hardware(self) -> list[str]:
        return [
            "hardware",
            *([self.record()] if self.chance(0.7) else []),
            *self.options({"--kind": _KINDS}),
        ]

    def _junk(self) -> list[str]:
        pieces = [
            "solve",
            "check",
            "sweep",
            "--gpu",
            "--format",
            "-e",
            "--help",
            "-h",
            "--samples",
            "--points",
            "--",
            "-",
            "=",
            *_HOSTILE[:20],
        ]
        return [self.pick([*pieces, self.value()]) for _ in range(self.rng.randint(0, 5))]


def _stream(fuzzer: _Fuzzer) -> tuple[io.TextIOBase, str]:
    """Where stdout goes: mostly text in memory; sometimes ASCII or latin-1 bytes, or a
    terminal."""
    roll = fuzzer.rng.random()
    if roll < 0.1:
        return io.TextIOWrapper(io.BytesIO(), encoding="ascii"), "ascii"
    if roll < 0.15:
        return io.TextIOWrapper(io.BytesIO(), encoding="latin-1"), "latin-1"
    if roll < 0.2:
        return _Terminal(), "terminal"
    return io.StringIO(), ""


def _run_case(argv: list[str], stdout, stdin_text: str) -> tuple[object, str, str]:
    stderr = io.StringIO()
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr, sys.stdin = stdout, stderr, io.StringIO(stdin_text)
    try:
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse: --help, or a malformed command line
            status = 0 if exc.code is None else exc.code
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved
    if isinstance(stdout, io.TextIOWrapper):
        stdout.flush()
        out = stdout.buffer.getvalue().decode(stdout.encoding)
    else:
        out = stdout.getvalue()
    return status, out, stderr.getvalue()


def test_fuzz_command_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    fuzzer = _Fuzzer(FUZZ_SEED, tmp_path)
    failures: list[str] = []
    slowest = (0.0, [])
    start = time.perf_counter()
    for case in range(FUZZ_CASES):
        argv = fuzzer.argv()
        stdout, kind = _stream(fuzzer)
        stdin_text = fuzzer.claims_bytes(".csv").decode("utf-8", "replace")
        began = time.perf_counter()
        with warnings_as_output():
            status, out, err = _run_case(argv, stdout, stdin_text)
        elapsed = time.perf_counter() - began
        slowest = max(slowest, (elapsed, argv))
        problems = []
        if status not in (0, 1, 2):
            problems.append(f"exit {status}")
        if "Traceback" in err or "internal error" in err:
            problems.append("traceback or internal error")
        if _hidden(err):
            problems.append(f"raw control characters on stderr: {_hidden(err)[:3]}")
        if kind == "terminal" and _hidden(out):
            problems.append(f"raw control characters on a terminal: {_hidden(out)[:3]}")
        if elapsed > SECONDS_PER_CASE:
            problems.append(f"took {elapsed:.1f} s")
        if problems:
            failures.append(f"case {case}: {argv!r}: {'; '.join(problems)}\n{err[-600:]}")
    total = time.perf_counter() - start
    print(
        f"{FUZZ_CASES} command lines in {total:.1f} s; slowest {slowest[0]:.2f} s: {slowest[1]!r}"
    )
    assert not failures, f"{len(failures)} failing command lines:\n" + "\n".join(failures[:15])


@contextlib.contextmanager
def warnings_as_output():
    """Warnings (a RuntimeWarning from numpy) print to stderr as text, not as a traceback."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_fuzz_is_deterministic_and_large_enough(tmp_path):
    def lines(fuzzer: _Fuzzer) -> list:
        return [(fuzzer.argv(), _stream(fuzzer)[1]) for _ in range(300)]

    assert lines(_Fuzzer(FUZZ_SEED, tmp_path)) == lines(_Fuzzer(FUZZ_SEED, tmp_path))
    assert FUZZ_CASES >= 2000 or "NAPKIN_FUZZ_CASES" in os.environ  # several thousand
