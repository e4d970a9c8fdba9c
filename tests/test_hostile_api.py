"""The Python API on hostile arguments: every call returns or raises napkinmath's own error.

A seeded fuzzer calls every public function of `napkinmath` (each name of `nm.__all__` that
is a function, and the record lookups `nm.hardware.get` / `find` / `using`) and then the
public methods and properties of what they return, with arguments drawn from valid ones
(variable names, values with units, record names such as "H100") and hostile ones (None,
bools, ints, nan and inf, bytes, lists, dicts, nested containers, a huge string, control
characters, objects of a wrong type, keyword arguments that do not exist). Each call must
either return or raise a `NapkinError` subclass; any other exception is a failure, counted
by function and shown with the call that raised it.

One exclusion, by choice: a call that does not fit the function's signature (too many
positional arguments, an unknown keyword on a function that takes no `**givens`, a missing
required argument) is Python's to report, as for any library: it must raise Python's own
TypeError from binding the call, and the fuzzer checks that it does (and that the same call
fitted to the signature then behaves). Functions that take `**givens` (solve, check, sweep,
compare, check_claims) see an unknown keyword as an unknown variable name, which is
napkinmath's `UnknownNameError`.

Not called: the classes exported for `isinstance` and type hints (Result, Table, ...), whose
constructors take internal records; pint's `ureg` and `Quantity` (pint's own API); and the
methods that run other programs or draw (`Plan.to_pdf` runs pdflatex, `plot` runs
matplotlib), which are fuzzed only with arguments of a wrong type, rejected before any work.

NAPKIN_API_FUZZ_CASES sets the number of calls (default 600, a few seconds) and
NAPKIN_API_FUZZ_SEED the seed; the run is deterministic for a seed.
"""

from __future__ import annotations

import collections
import inspect
import math
import os
import random
import reprlib
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from test_step_parts import DENSE

import napkinmath as nm
from napkinmath.errors import InputError, NapkinError, UnknownNameError

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 80, 80
CASES = int(os.environ.get("NAPKIN_API_FUZZ_CASES", "600"))
SEED = int(os.environ.get("NAPKIN_API_FUZZ_SEED", "21"))

W12 = {"params": "7B", "tokens": "1T", "train_time": "3 weeks", "mfu": 0.4}
PLAN = {
    "title": "t",
    "givens": W12,
    "records": {"gpu": "H100"},
    "sections": [{"title": "s", "ask": ["n_gpus"]}],
}

# --- the pieces arguments are drawn from ------------------------------------------------------
TARGETS = [
    "n_gpus",
    "train_time",
    "train_cost",
    "mfu",
    "cost_per_token",
    "goodput",
    "cost_per_million_tokens",
    "decode_throughput",
    "kv_cache_bytes",
]
GIVEN_NAMES = [
    "params",
    "tokens",
    "train_time",
    "mfu",
    "n_gpus",
    "train_compute",
    "batch_size",
    "seq_len",
    "gpu_hours",
]
VALUES = [
    "7B",
    "1T",
    "3 weeks",
    "0.4",
    "40%",
    "16384",
    "6.35e24 FLOP",
    "1 GPU",
    "2 h",
    "0.3 to 0.5",
    "30.84e6 GPU*h",
    "1e400",
    "-1",
    "0",
    "5 meters",
    "1 GB/s",
]
RECORDS = [
    "H100",
    "H100-SXM",
    "MI300X",
    "Trainium2",
    "llama-3-70b",
    "Parallel-FS-100GBs",
    "B200",
    "no-such-gpu",
]
_AUDIT = Path(__file__).resolve().parent / "fixtures" / "audit"
AUDITED = [_AUDIT / "a100-sxm-80gb.json", _AUDIT / "estimate.md", _AUDIT / "system_configs.py"]
AUDIT_MAPPING = _AUDIT / "genz_map.toml"
UNITS = ["hour", "day", "GPU", "s", "meter", "TFLOP", "%", "", "not a unit", "1/0"]
FORMULAS = ["fleet_equation", "no_such_formula"]
EXPRESSIONS = [
    "140 GB / (400 Gb/s)",
    "6 * 7B * 1T",
    "H100.peak_flops * 2",
    "1 +",
    "x ** y",
    "2 GPU * 3 hour",
    "__import__('os')",
    "1 GB × 3 µs",
]


class _Odd:
    """An object of no type napkinmath expects, whose str and repr still work."""

    def __repr__(self) -> str:
        return "<odd>"


class _Name(str):
    """A str subclass: a valid name, of a type a check by `type(x) is str` would refuse."""


def _atom(rng: random.Random) -> object:
    """One hostile value: wrong types, edge numbers, odd strings."""
    choices: list[Callable[[], object]] = [
        lambda: None,
        lambda: True,
        lambda: False,
        lambda: 0,
        lambda: 1,
        lambda: -1,
        lambda: 2**80,
        lambda: -(2**70),
        lambda: 0.5,
        lambda: -0.0,
        lambda: math.nan,
        lambda: math.inf,
        lambda: -math.inf,
        lambda: 1e308,
        lambda: 5e-324,
        lambda: complex(1, 2),
        lambda: Decimal("1.5"),
        lambda: Fraction(1, 3),
        lambda: b"H100",
        lambda: bytearray(b"mfu"),
        lambda: "",
        lambda: " ",
        lambda: "x" * rng.choice([1000, 100_000, 1_000_000]),
        lambda: "\x00\x01\x1b[31m\u202e\x07mfu",
        lambda: "mfu\n= 1",
        lambda: "\ud800",
        lambda: "é" * 50,
        lambda: "𝑥",
        lambda: "../../etc/passwd",
        lambda: "/dev/zero",
        lambda: "/proc/self/environ",
        lambda: rng.choice(TARGETS),
        lambda: rng.choice(VALUES),
        lambda: rng.choice(RECORDS),
        lambda: rng.choice(UNITS),
        lambda: rng.choice(FORMULAS),
        lambda: rng.choice(EXPRESSIONS),
        lambda: [],
        lambda: {},
        lambda: (),
        lambda: set(),
        lambda: frozenset({"mfu"}),
        lambda: [1, 2],
        lambda: ["n_gpus"],
        lambda: ("0.3", "0.5"),
        lambda: (0.3, 0.5, 0.7),
        lambda: {"n_gpus": [1, 2]},
        lambda: {"a": {"b": [None]}},
        lambda: [[[[[]]]]],
        lambda: {1: 2},
        lambda: {None: None},
        lambda: _Odd(),
        lambda: _Name(rng.choice(TARGETS)),
        lambda: np.float64(0.4),
        lambda: np.int64(64),
        lambda: np.array([1.0, 2.0]),
        lambda: np.array("mfu"),
        lambda: np.float32(math.nan),
        lambda: object(),
        lambda: len,
        lambda: int,
        lambda: Path("examples"),
        lambda: Path("/dev/null"),
        lambda: nm.ureg.Quantity(3, "hour"),
        lambda: nm.ureg.Quantity(math.nan, "GPU"),
        lambda: nm.ureg.hour,
        lambda: range(3),
        lambda: iter([1, 2]),
        lambda: Ellipsis,
        lambda: NotImplemented,
    ]
    return rng.choice(choices)()


def _hostile(rng: random.Random, depth: int = 0) -> object:
    """A hostile value, sometimes a container of hostile values (nested up to 3 deep)."""
    if depth < 3 and rng.random() < 0.2:
        kind = rng.choice(["list", "tuple", "dict", "deep"])
        if kind == "deep":
            value: object = []
            for _ in range(rng.choice([5, 50, 2000])):
                value = [value]
            return value
        items = [_hostile(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        if kind == "list":
            return items
        if kind == "tuple":
            return tuple(items)
        return {rng.choice([*GIVEN_NAMES, "x", ""]): item for item in items}
    return _atom(rng)


@dataclass
class Arg:
    """One parameter: a generator of a valid value, and whether it may be left out."""

    valid: Callable[[random.Random], object]
    optional: bool = True


def _pick(pool: list) -> Callable[[random.Random], object]:
    return lambda rng: rng.choice(pool)


def _const(value: object) -> Callable[[random.Random], object]:
    return lambda rng: value


def _givens(rng: random.Random) -> dict[str, object]:
    base = dict(W12)
    for _ in range(rng.randint(0, 2)):
        base[rng.choice(GIVEN_NAMES)] = rng.choice(VALUES)
    return base


@dataclass
class Target:
    """A public function, its parameters, and whether it takes `**givens`."""

    name: str
    fn: Callable
    args: dict[str, Arg] = field(default_factory=dict)
    givens: bool = False


def _targets(tmp: Path) -> list[Target]:
    claims = tmp / "claims.csv"
    claims.write_text("expression,claimed\n6 * 7B * 1T,4.2e22 FLOP\n", encoding="utf-8")
    plan_file = Path(__file__).resolve().parent.parent / "examples" / "startup-7b.toml"
    plan_dict = PLAN
    records = tmp / "records.toml"
    records.write_text(
        '[mygpu]\nname = "My GPU"\nkind = "accelerator"\n'
        'peak_flops = { value = "1e15 FLOP/s/GPU", source = "t", '
        'date = "2024-01-01" }\n',
        encoding="utf-8",
    )
    record_choice = [*RECORDS, ["H100-SXM", "MI300X"], str(records)]
    common = {
        "gpu": Arg(_pick(record_choice)),
        "model": Arg(_pick(RECORDS)),
        "tolerance": Arg(_pick([0.01, 0.02, 0.5])),
        "records": Arg(_pick([str(records), [str(records)], None])),
        "achievable": Arg(_pick([True, False])),
        "precision": Arg(_pick(["bf16", "fp8", None])),
    }
    hw = nm.hardware
    return [
        Target(
            "solve",
            nm.solve,
            {
                "targets": Arg(_pick([*TARGETS, TARGETS[:2]]), False),
                **common,
                "samples": Arg(_pick([None, 50, 200])),
                "seed": Arg(_pick([None, 1])),
                "on_inconsistent": Arg(_pick(["error", "warn"])),
                "units": Arg(_pick([None, {"n_gpus": "GPU"}, {"train_time": "day"}])),
                "digits": Arg(_pick([None, 2, 6])),
            },
            givens=True,
        ),
        Target(
            "check",
            nm.check,
            {
                "expr": Arg(_pick(EXPRESSIONS), False),
                "expect": Arg(_pick([None, "0.35 s", "4.2e22 FLOP", 3])),
                "tolerance": common["tolerance"],
                "gpu": common["gpu"],
                "model": common["model"],
                "records": common["records"],
                "to": Arg(_pick([None, *UNITS])),
            },
            givens=True,
        ),
        Target(
            "check_claims",
            nm.check_claims,
            {
                "path_or_rows": Arg(
                    _pick(
                        [
                            str(claims),
                            claims,
                            [{"expression": "6 * 7B * 1T", "claimed": "4.2e22 FLOP"}],
                        ]
                    ),
                    False,
                ),
                "tolerance": common["tolerance"],
                "gpu": common["gpu"],
                "model": common["model"],
                "input_format": Arg(_pick([None, "csv", "json"])),
                "records": common["records"],
            },
            givens=True,
        ),
        Target(
            "sweep",
            nm.sweep,
            {
                "targets": Arg(_pick(TARGETS[:3]), False),
                "over": Arg(_pick([{"n_gpus": [512, 1024]}, {"mfu": "0.3 to 0.5"}, None])),
                **common,
                "points": Arg(_pick([2, 3, 11])),
            },
            givens=True,
        ),
        Target(
            "compare",
            nm.compare,
            {
                "targets": Arg(_pick(TARGETS[:3]), False),
                **common,
                "gpu": Arg(_pick([["H100-SXM", "MI300X"], "H100"])),
                "best": Arg(_pick([None, "min", "max", "fastest"])),
            },
            givens=True,
        ),
        Target(
            "plan",
            nm.plan,
            {
                "source": Arg(_pick([str(plan_file), plan_file, plan_dict]), False),
                "records": common["records"],
                "achievable": Arg(_pick([None, True, False])),
            },
        ),
        Target(
            "audit",
            nm.audit,
            {
                "path": Arg(_pick([*AUDITED, str(AUDITED[0])]), False),
                "kind": Arg(_pick([None, "json", "text"])),
                "mapping": Arg(_pick([None, AUDIT_MAPPING])),
                "columns": Arg(_pick([None, "id=Item,value=Value,expression=Formula"])),
                "gpu": common["gpu"],
                "tolerance": common["tolerance"],
            },
        ),
        Target("variable", nm.variable, {"name": Arg(_pick(TARGETS + GIVEN_NAMES), False)}),
        Target("variables", nm.variables),
        Target("constraints", nm.constraints),
        Target("formula", nm.formula, {"name": Arg(_pick(FORMULAS), False)}),
        Target(
            "graph",
            nm.graph,
            {"around": Arg(_pick([None, "mfu", "fleet_equation"])), "depth": Arg(_pick([1, 2]))},
        ),
        *(
            Target(
                name,
                getattr(nm, name),
                {
                    "p5": Arg(_pick(["0.3", 0.3, "1 h", "1 GB"]), False),
                    "p95": Arg(_pick(["0.5", 0.5, "2 h", "2 GB"]), False),
                },
            )
            for name in ("lognormal", "normal", "uniform")
        ),
        Target(
            "uniform",
            nm.uniform,
            {
                "low": Arg(_pick(["0.3", 0.3, "1 h"]), False),
                "high": Arg(_pick(["0.5", 0.5, "2 h"]), False),
            },
        ),
        Target("to_frame", nm.to_frame, {"obj": Arg(_pick(["results", "result"]), False)}),
        Target(
            "to_registry",
            nm.to_registry,
            {
                "value": Arg(lambda rng: nm.ureg.Quantity(3, "hour"), False),
                "registry": Arg(lambda rng: _other_registry(), False),
            },
        ),
        Target(
            "hardware.get",
            hw.get,
            {"name": Arg(_pick(RECORDS), False), "checked": Arg(_pick([True, False]))},
        ),
        Target("hardware.find", hw.find, {"name": Arg(_pick(RECORDS), False)}),
        Target("hardware.records", hw.records),
        Target("hardware.listed", hw.listed),
        Target(
            "hardware.using",
            _using,
            {"paths": Arg(_pick([str(records), [str(records)], None]), False)},
        ),
    ]


def _using(paths: object) -> object:
    """`with nm.hardware.using(paths):` as a user writes it; the records found inside."""
    with nm.hardware.using(paths) as overlay:
        return overlay


_REGISTRY: list = []


def _other_registry():
    if not _REGISTRY:
        import pint

        _REGISTRY.append(pint.UnitRegistry())
    return _REGISTRY[0]


# --- calling and judging ---------------------------------------------------------------------
@dataclass
class Tally:
    """The calls made, by function, and the ones that raised a foreign exception."""

    calls: collections.Counter = field(default_factory=collections.Counter)
    foreign: collections.Counter = field(default_factory=collections.Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def call(self, name: str, fn: Callable, args: tuple, kwargs: dict) -> object:
        """Call `fn`; a foreign exception is counted. Returns the result, or None."""
        self.calls[name] += 1
        fits = _fits(fn, args, kwargs)
        try:
            return fn(*args, **kwargs)
        except NapkinError as exc:
            str(exc)  # the message itself must build
            return None
        except TypeError as exc:
            if fits:
                self._foreign(name, exc, args, kwargs)
            return None
        except Exception as exc:  # what the fuzzer looks for
            self._foreign(name, exc, args, kwargs)
            return None

    def _foreign(self, name: str, exc: BaseException, args: tuple, kwargs: dict) -> None:
        self.foreign[name] += 1
        key = f"{name}: {type(exc).__name__}"
        if key not in self.examples:
            self.examples[key] = (
                f"{name}(*{_shown(args)}, **{_shown(kwargs)}) raised "
                f"{type(exc).__name__}: {_shown(str(exc))} "
                f"(at {_where(exc)})"
            )


def _fits(fn: Callable, args: tuple, kwargs: dict) -> bool:
    """Whether the call binds to `fn`'s signature (else Python's TypeError is the answer)."""
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return False
    except ValueError:  # no signature to read
        return True
    return True


def _shown(value: object) -> str:
    text = _REPR.repr(value)
    return text if len(text) < 200 else text[:200] + "…"


def _where(exc: BaseException) -> str:
    """The innermost frame of napkinmath's in the exception's traceback: file and line."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if "napkinmath" in f.filename or "/engine/" in f.filename or "/hardware/" in f.filename
    ]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "the fuzzer"


def _arguments(rng: random.Random, target: Target, samples: dict) -> tuple[tuple, dict]:
    """Arguments for one call: mostly valid ones, some hostile, now and then a wrong call."""
    hostility = rng.choice([0.0, 0.15, 0.4, 1.0])
    params = inspect.signature(target.fn).parameters
    args: list = []
    kwargs: dict = {}
    for name, arg in target.args.items():
        if arg.optional and rng.random() < 0.4:
            continue
        value = _hostile(rng) if rng.random() < hostility else arg.valid(rng)
        if target.name == "to_frame" and isinstance(value, str) and value in ("results", "result"):
            value = samples["result"] if value == "result" else list(samples["results"])
        kind = params[name].kind if name in params else inspect.Parameter.KEYWORD_ONLY
        if kind is inspect.Parameter.POSITIONAL_ONLY or (
            kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
            and not kwargs
            and len(args) == list(params).index(name)
            and rng.random() < 0.7
        ):
            args.append(value)
        else:
            kwargs[name] = value
    if target.givens:
        if rng.random() < 0.8:
            kwargs.update(_givens(rng))
        for _ in range(rng.choice([0, 0, 1, 2])):
            kwargs[rng.choice([*GIVEN_NAMES, "no_such_variable", "gpu_", "x" * 300])] = (
                _hostile(rng) if rng.random() < hostility else rng.choice(VALUES)
            )
    roll = rng.random()
    if roll < 0.03:
        kwargs["no_such_option"] = _hostile(rng)
    elif roll < 0.05:
        args.append(_hostile(rng))
    return tuple(args), kwargs


#: Methods to call on what a public function returns, with valid argument pools; any method
#: or property not listed here is called with no arguments (properties are read).
METHOD_ARGS: dict[str, dict[str, Callable[[random.Random], object]]] = {
    "format": {"digits": _pick([None, 1, 3]), "style": _pick(["text", "markdown", "latex"])},
    "headline": {"style": _pick(["text", "markdown"])},
    "sensitivity": {"target": _pick([None, *TARGETS]), "relative": _pick([0.1, 0.5])},
    "to_json": {"indent": _pick([None, 2])},
    "to_latex": {
        "digits": _pick([None, 2]),
        "math_only": _pick([True, False]),
        "standalone": _pick([True, False]),
    },
    "to_markdown": {"digits": _pick([None, 2])},
    "to_text": {"digits": _pick([None, 2])},
    "percentile": {"name": _pick(TARGETS), "q": _pick([5, 50, 95, 0.5])},
    "column": {"name": _pick(TARGETS)},
    "to_csv": {"path": _pick([None, "out.csv"])},
    "fits": {"label": _pick(["H100-SXM", "MI300X"])},
    "ratio": {"label": _pick(["H100-SXM", "MI300X"])},
    "sources": {"label": _pick(["H100-SXM", "MI300X"])},
    "used": {"label": _pick(["H100-SXM", "MI300X"]), "differing": _pick([True, False])},
    "write": {"path": _pick(["plan.md", "plan.html", "plan.txt", "plan.tex"])},
    "exit_status": {"allow_unchecked": _pick([True, False])},
    "to": {"unit": _pick(UNITS)},
}
#: Methods that start another program or draw: called only with wrongly typed arguments.
TYPED_ONLY = {"to_pdf", "plot"}
SKIP = {"to_pandas", "to_frame", "to_table"}  # pandas: slow, and fuzzed through nm.to_frame


def _methods(rng: random.Random, tally: Tally, owner: str, obj: object, depth: int = 0) -> None:
    """Call a few public methods and properties of `obj` with fuzzed arguments, and the
    methods of what they return (one level down)."""
    names = [n for n in dir(type(obj)) if not n.startswith("_") and n not in SKIP]
    names += ["_repr_markdown_", "_repr_html_", "_repr_latex_", "__str__", "__repr__"]
    for name in rng.sample(names, min(len(names), 3)):
        label = f"{owner}.{name}"
        static = inspect.getattr_static(obj, name, None)
        if static is None:
            continue
        if isinstance(static, property) or not callable(static):
            value = tally.call(label, lambda name=name: getattr(obj, name), (), {})
            if depth == 0 and _ours(value):
                _methods(rng, tally, f"{owner}.{name}", value, depth + 1)
            continue
        method = getattr(obj, name)
        pools = METHOD_ARGS.get(name, {})
        kwargs: dict = {}
        for param in inspect.signature(method).parameters.values():
            if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
                continue
            pool = pools.get(param.name)
            if name in TYPED_ONLY:
                if param.name == "path" or rng.random() < 0.5:
                    kwargs[param.name] = rng.choice([1, b"x", [], {}, _Odd(), math.nan])
                continue
            if param.default is not param.empty and rng.random() < 0.4:
                continue
            if pool is None or rng.random() < 0.4:
                kwargs[param.name] = _hostile(rng)
            else:
                kwargs[param.name] = pool(rng)
        if name in TYPED_ONLY and not kwargs:
            continue
        if rng.random() < 0.03:
            kwargs["no_such_option"] = 1
        value = tally.call(label, method, (), kwargs)
        if depth == 0 and _ours(value):
            _methods(rng, tally, f"{owner}.{name}()", value, depth + 1)


def _ours(value: object) -> bool:
    """An object of napkinmath's own classes; not the library's registries (nm.variables()
    is a dict whose missing names fall back to your retired variables: its methods are
    dict's, and clearing it would empty the library)."""
    return type(value).__module__.startswith("napkinmath") and not isinstance(value, (type, dict))


def _samples() -> dict:
    """Answers of each kind, for to_frame and for their methods."""
    r = nm.solve("n_gpus", gpu="H100-SXM", **W12)
    ranged = nm.solve(
        "train_time", train_compute="6.35e24 FLOP", n_gpus=16384, mfu=(0.3, 0.5), gpu="H100"
    )
    sampled = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu="0.3 to 0.5",
        gpu="H100",
        samples=200,
        seed=1,
    )
    table = nm.sweep(
        "train_time",
        over={"n_gpus": [1024, 2048]},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    comparison = nm.compare(
        "cost_per_million_tokens",
        gpu=["H100-SXM", "MI300X"],
        model="llama-3-70b",
        n_gpus=4,
        batch_size=32,
        seq_len=8192,
    )
    return {
        "result": r,
        "results": [
            r,
            nm.solve(
                "train_time",
                gpu="H100",
                **{k: v for k, v in W12.items() if k != "train_time"},
                n_gpus=64,
            ),
        ],
        "answers": [
            r,
            ranged,
            sampled,
            table,
            comparison,
            ranged.value,
            r.sensitivity(),
            nm.check("140 GB / (400 Gb/s)", expect="0.35 s"),
            nm.check_claims([{"expression": "6 * 7B * 1T", "claimed": "4.2e22 FLOP"}]),
            nm.formula("fleet_equation"),
            nm.variable("mfu"),
            nm.hardware.get("H100"),
            nm.plan(PLAN),
        ],
    }


def fuzz(cases: int, seed: int, tmp: Path) -> Tally:
    """Make `cases` calls (each public function, then methods of what it returned)."""
    rng = random.Random(seed)
    targets = _targets(tmp)
    samples = _samples()
    tally = Tally()
    for i in range(cases):
        if i % 10 == 9:  # the methods of known answers of every kind
            obj = rng.choice(samples["answers"])
            _methods(rng, tally, type(obj).__name__, obj)
            continue
        target = rng.choice(targets)
        args, kwargs = _arguments(rng, target, samples)
        value = tally.call(target.name, target.fn, args, kwargs)
        if _ours(value) and rng.random() < 0.5:
            _methods(rng, tally, type(value).__name__, value)
    return tally


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in a scratch folder (methods given a file name write there), matplotlib headless."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return tmp_path


def test_fuzzed_calls_raise_only_napkinmath_errors(in_tmp):
    tally = fuzz(CASES, SEED, in_tmp)
    assert sum(tally.calls.values()) >= CASES
    assert set(tally.calls) >= {"solve", "check", "variable", "formula", "graph", "plan"}
    report = "\n".join(f"{name}: {count}" for name, count in tally.foreign.most_common())
    examples = "\n".join(tally.examples.values())
    assert not tally.foreign, f"foreign exceptions by function:\n{report}\n\n{examples}"


# --- the reproductions, one by one ----------------------------------------------------------
@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: nm.variable(3), "name"),
        (lambda: nm.variable(None), "name"),
        (lambda: nm.variable(["mfu"]), "name"),
        (lambda: nm.formula(b"fleet_equation"), "name"),
        (lambda: nm.formula({"a": 1}), "name"),
        (lambda: nm.graph(["mfu"]), "around"),
        (lambda: nm.graph("mfu", depth=1.5), "depth"),
        (lambda: nm.graph(depth=True), "depth"),
        (lambda: nm.hardware.get(7), "name"),
        (lambda: nm.hardware.find(None), "name"),
        (lambda: nm.lognormal([1], 2), "p5"),
        (lambda: nm.uniform(0.3, None), "high"),
        (lambda: nm.plan(("a.toml",)), "source"),
        (lambda: nm.plan("plan\x00.toml"), "source"),
        (lambda: nm.solve("n_gpus", records="r\x00.toml", **W12), "records"),
        (lambda: nm.optimize("n_gpus", maximize=1.5, over=["n_gpus"], **W12), "maximize"),
        (lambda: nm.optimize("n_gpus", minimize=[3], over=["n_gpus"], **W12), "minimize"),
        (lambda: nm.optimize("n_gpus", over=5, **W12), "over"),
    ],
)
def test_a_wrong_argument_is_an_input_error_naming_it(call, argument):
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{argument}=")
    assert "expected" in message or "NUL byte" in message
    assert info.value.variable == argument


def test_the_message_says_what_was_expected_and_the_fix():
    with pytest.raises(
        InputError,
        match=r"^name=3: expected a variable name \(a string\) "
        r"such as 'mfu'; list them with `napkin vars`$",
    ):
        nm.variable(3)
    with pytest.raises(InputError, match=r"hardware record name .* such as 'H100'"):
        nm.hardware.get(["H100"])


def test_a_huge_or_deep_value_is_quoted_short():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    for call in (
        lambda: nm.variable(deep),
        lambda: nm.solve(deep),
        lambda: nm.solve("n_gpus", tolerance=deep, **W12),
        lambda: nm.variable("x" * 1_000_000),
        lambda: nm.formula("y" * 1_000_000),
        lambda: nm.hardware.get("z" * 1_000_000),
    ):
        with pytest.raises(NapkinError) as info:
            call()
        assert len(str(info.value)) < 2000


def test_an_answer_method_given_a_wrong_argument_names_it(in_tmp):
    r = nm.solve("n_gpus", gpu="H100-SXM", **W12)
    sampled = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu="0.3 to 0.5",
        gpu="H100",
        samples=200,
        seed=1,
    )
    table = nm.sweep(
        "train_time",
        over={"n_gpus": [1024, 2048]},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    for call, argument in [
        (lambda: r.to_json(indent=[2]), "indent"),
        (lambda: r.format(style=[]), "style"),
        (lambda: r.to_latex(math_only="yes"), "math_only"),
        (lambda: r.sensitivity(relative={}), "relative"),
        (lambda: r.sensitivity(target=1), "target"),
        (lambda: sampled.percentile("mfu_typo", 50), "name"),
        (lambda: sampled.percentile("train_time", 150), "q"),
        (lambda: sampled.interval.to("meter"), "unit"),
        (lambda: sampled.interval.to(3), "unit"),
        (lambda: table.column(len), "name"),
        (lambda: table.to_csv(b"x.csv"), "path"),
        (lambda: table.plot(1), "path"),
        (lambda: table.to_json(indent=1.5), "indent"),
    ]:
        with pytest.raises(InputError) as info:
            call()
        assert info.value.variable == argument, str(info.value)
    assert sampled.interval.to("hour").high.units == nm.ureg.hour


def test_an_unknown_column_or_row_is_also_a_key_error():
    table = nm.sweep(
        "train_time",
        over={"n_gpus": [1024, 2048]},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    with pytest.raises(KeyError) as info:
        table["tokens"]
    assert isinstance(info.value, NapkinError)
    assert str(info.value) == (
        "name='tokens': no column of that name; the columns here are: n_gpus, train_time"
    )
    c = nm.compare(
        "cost_per_million_tokens",
        gpu=["H100-SXM", "MI300X"],
        model="llama-3-70b",
        n_gpus=4,
        batch_size=32,
        seq_len=8192,
    )
    with pytest.raises(KeyError, match="label='B200': no row of that name; the rows here"):
        c.ratio("B200")


def test_a_wrong_call_signature_is_pythons_type_error():
    """The exclusion the fuzzer makes: Python reports a call that does not fit."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'nmae'"):
        nm.variable(nmae="mfu")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        nm.formula()  # type: ignore[call-arg]
    with pytest.raises(UnknownNameError):  # solve takes **givens: an unknown variable
        nm.solve("n_gpus", gpu="H100-SXM", no_such_option=1, **W12)


def test_issue_44s_foreign_exceptions_are_napkinmaths_own():
    """r["nope"] was a plain KeyError, gap(measured=5) and to_registry of an array a
    TypeError: each is now napkinmath's error (a KeyError too, for the lookup)."""
    import pint

    r = nm.solve("n_gpus", gpu="H100-SXM", **W12)
    with pytest.raises(KeyError) as info:
        r["nope"]
    assert isinstance(info.value, NapkinError)
    assert str(info.value) == (
        "name='nope': not a target of this answer; the targets here are: n_gpus "
        "(the givens are in .givens)"
    )
    with pytest.raises(InputError, match="measured=5: expected the parts a profiler measured"):
        nm.gap(nm.solve("step_time_predicted", **DENSE), measured=5)
    with pytest.raises(InputError, match="expected one value, got a magnitude of type ndarray"):
        nm.to_registry(nm.Quantity(np.array([1.0, 2.0]), "s"), pint.UnitRegistry())
