"""Decision variables of an optimisation and the values a practitioner means for each.

    whole nodes[:1..512]       n_gpus in multiples of the record's gpus_per_node (nodes 1..512)
    powers of two[:1..64]      1, 2, 4, ... (within the range)
    divisors[:N]               the whole divisors of N (default: tp of the heads, pp of the layers)
    a..b                       every whole number from a to b for a count (n_gpus, tp, batch_size,
                               zero_stage, ...); a continuous range for anything else
    a..b:log:N, a,b,c          N spaced points, or a list, as a sweep reads them
    follows                    dp = n_gpus / (tp · pp · cp · gpus_per_rank), kept where whole
    none,selective,full        a setting's choices (recompute); `all` for every one

Defaults, each said in the answer: n_gpus 1, 2, 4 then whole nodes up to 16,384 nodes; tp the
powers of two up to a node that divide both the query and the KV heads (Megatron-LM's rule);
pp the divisors of the layers up to 128; cp 1..16 in powers of two; dp follows n_gpus when
n_gpus is given or decided; batch_size 1..1,024 in powers of two; zero_stage 0..3;
virtual_pipeline_stages 1, 2, 4, 8; pp_fills_node_first 0, 1 (the placement: data-parallel
replicas or pipeline stages first in a node); a setting every choice. A domain is checked
against its variable's bounds; values are held in base units.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from napkinmath import arguments
from napkinmath.catalog.lookup import variables
from napkinmath.errors import InputError
from napkinmath.library.declare import Variable
from napkinmath.library.settings import SETTINGS
from napkinmath.solving.precision import PRECISIONS
from napkinmath.text.values import to_quantity
from napkinmath.whatif.spread import axis_length, bind_spread, to_axis, to_spread

#: variables whose values are whole numbers: 'a..b' is every whole number between
COUNTS = frozenset(
    {
        "n_gpus",
        "n_nodes",
        "tp",
        "pp",
        "dp",
        "cp",
        "ep",
        "sp",
        "batch_size",
        "zero_stage",
        "virtual_pipeline_stages",
        "n_replicas",
        "n_microbatches",
        "gpus_per_rank",
        "pp_fills_node_first",
        "tp_local_ranks",
        "cp_local_ranks",
        "dp_local_ranks",
        "pp_local_ranks",
        "ep_local_ranks",
    }
)
#: points of a continuous range before its boundary is refined by bisection
CONTINUOUS_POINTS = 1025
#: most values one decision variable may take
MAX_VALUES = 100_000
MAX_NODES = 16_384


@dataclass(frozen=True)
class Domain:
    """The values one decision variable (or setting, or record list) may take.

    `kind` is 'number' (base-unit floats), 'continuous' (a grid whose boundary is refined),
    'follows' (dp, computed from n_gpus), 'setting' or 'record' (names)."""

    name: str
    kind: str
    values: tuple
    description: str
    default: bool = False

    @property
    def numeric(self) -> bool:
        return self.kind in ("number", "continuous")

    @property
    def variable(self) -> Variable | None:
        return variables().get(self.name)


@dataclass(frozen=True)
class Context:
    """What the records and givens say about the shapes a domain depends on (base units)."""

    gpus_per_node: float | None = None
    n_heads: float | None = None
    n_kv_heads: float | None = None
    n_layers: float | None = None


_PREFIX = re.compile(
    r"^(?P<kind>whole nodes|powers of two|pow2|divisors(?: of)?)\s*:?\s*(?P<rest>.*)$"
)


def domain(name: str, spec: object, context: Context) -> Domain:
    """The domain `spec` (text as above, a list, a range object; None for the default) of
    decision variable `name`."""
    if name in SETTINGS:
        return _setting(name, spec)
    if name == "precision":
        return _precision(spec)
    var = variables().get(name)
    if var is None:
        from napkinmath.catalog.lookup import variable

        variable(name)  # raises UnknownNameError with suggestions
        raise AssertionError(name)
    if spec is None or (isinstance(spec, str) and spec.strip() in ("", "default")):
        return _default(var, context)
    if isinstance(spec, range):
        spec = list(spec)
    if isinstance(spec, str):
        text = spec.strip()
        if text == "follows":
            if name != "dp":
                raise InputError(
                    f"{name}=follows: only dp follows the others (dp = n_gpus / (tp·pp·cp)); "
                    f"give {name} a domain such as 'powers of two' or '1..8'",
                    name,
                )
            return Domain(
                name, "follows", (), "dp = n_gpus / (tp · pp · cp · gpus_per_rank), whole"
            )
        match = _PREFIX.match(text)
        if match:
            return _named(var, match.group("kind"), match.group("rest").strip(), context)
        if ".." in text and ":" not in text and "," not in text:
            return _range(var, text)
    count = axis_length(spec)
    if count is not None and count > MAX_VALUES:
        raise InputError(
            f"{name}: {count:,} values; a decision variable takes at most {MAX_VALUES:,}", name
        )
    axis = to_axis(spec, var)
    values = _checked(var, sorted(set(axis.values.tolist())))
    if len(values) <= 12:
        listed = ", ".join(_plain(var, v) for v in values)
        return Domain(name, "number", values, f"{listed} (given)")
    return Domain(name, "number", values, f"{len(values):,} values given")


def _setting(name: str, spec: object) -> Domain:
    setting = SETTINGS[name]
    choices = list(setting.choices)
    if spec is None or (isinstance(spec, str) and spec.strip() in ("", "all", "default")):
        return Domain(name, "setting", tuple(choices), f"every choice: {', '.join(choices)}", True)
    items = spec.split(",") if isinstance(spec, str) else list(spec)  # type: ignore[call-overload]
    picked = []
    for item in items:
        word = str(item).strip()
        if word not in setting.choices:
            raise InputError(
                f"{name}: {arguments.shown(item)} is not a choice; choose from "
                f"{', '.join(map(repr, choices))} ({setting.description})",
                name,
            )
        if word not in picked:
            picked.append(word)
    return Domain(name, "setting", tuple(picked), ", ".join(picked))


def _precision(spec: object) -> Domain:
    """precision as a choice: 'bf16,fp8' (default: bf16 and fp8)."""
    if spec is None or (isinstance(spec, str) and spec.strip() in ("", "default")):
        return Domain("precision", "setting", ("bf16", "fp8"), "bf16, fp8 (the default)", True)
    items = spec.split(",") if isinstance(spec, str) else list(spec)  # type: ignore[call-overload]
    picked: list[str] = []
    for item in items:
        word = str(item).strip().lower()
        if word not in PRECISIONS:
            raise InputError(
                f"precision: {arguments.shown(item)} is not a precision; choose from "
                f"{', '.join(PRECISIONS)}",
                "precision",
            )
        if word not in picked:
            picked.append(word)
    return Domain("precision", "setting", tuple(picked), ", ".join(picked))


def _base(var: Variable, x: float) -> float:
    return float(x) * var.base_factor


def _checked(var: Variable, values: list[float]) -> tuple[float, ...]:
    """Base values inside the variable's bounds (an error names the first outside)."""
    if not values:
        raise InputError(f"{var.name}: the domain holds no value", var.name)
    for x in values:
        plain = x / var.base_factor
        if not (math.isfinite(plain) and var.bounds.contains(plain)):
            to_quantity(plain, var)  # raises the error that names the variable and its range
            raise InputError(f"{var.name}: {plain:g} is outside {var.bounds}", var.name)
    return tuple(values)


def _ends(var: Variable, text: str) -> tuple[float, float]:
    """'1..64', '1k..16k', '0.3..0.5' as base-unit ends, low first."""
    bound = bind_spread(to_spread(text, var.name), var)
    low, high = sorted((bound.low_base, bound.high_base))
    return low, high


def _range(var: Variable, text: str) -> Domain:
    low, high = _ends(var, text)
    unit = var.base_factor
    if var.name in COUNTS:
        first, last = math.ceil(low / unit - 1e-9), math.floor(high / unit + 1e-9)
        count = last - first + 1
        if count < 1:
            raise InputError(f"{var.name}={text}: no whole number in the range", var.name)
        if count > MAX_VALUES:
            raise InputError(
                f"{var.name}={text}: {count:,} whole numbers; a decision variable takes at most "
                f"{MAX_VALUES:,} (use 'powers of two:{text}' or 'a..b:log:N')",
                var.name,
            )
        values = _checked(var, [_base(var, k) for k in range(first, last + 1)])
        return Domain(var.name, "number", values, f"every whole number from {first:,} to {last:,}")
    n = CONTINUOUS_POINTS
    grid = [low + (high - low) * i / (n - 1) for i in range(n)]
    values = _checked(var, grid)
    return Domain(
        var.name,
        "continuous",
        values,
        f"continuous from {_plain(var, low)} to {_plain(var, high)} ({n:,}-point grid, the "
        "boundary of the binding constraint refined by bisection)",
    )


def _plain(var: Variable, base: float) -> str:
    from napkinmath.answer.data import from_base
    from napkinmath.text.numbers import format_value
    from napkinmath.units import humanize

    return format_value(humanize(from_base(base, var), var.display_unit), var)


def _named(var: Variable, kind: str, rest: str, context: Context) -> Domain:
    name = var.name
    if kind == "whole nodes":
        if name != "n_gpus":
            raise InputError(f"{name}: 'whole nodes' is a domain of n_gpus", name)
        per = context.gpus_per_node
        if per is None:
            raise InputError(
                "n_gpus='whole nodes' needs gpus_per_node: name a GPU record (--gpu H100) or "
                "give gpus_per_node=8",
                "n_gpus",
            )
        first, last = 1, MAX_NODES
        if rest:
            low, high = _ends(variables()["n_nodes"], rest)
            first, last = max(1, math.ceil(low - 1e-9)), math.floor(high + 1e-9)
        if last < first:
            raise InputError(f"n_gpus='whole nodes:{rest}': no whole node count in the range", name)
        if last - first + 1 > MAX_VALUES:
            raise InputError(f"n_gpus: at most {MAX_VALUES:,} node counts", name)
        values = _checked(var, [_base(var, k * per) for k in range(first, last + 1)])
        return Domain(
            name,
            "number",
            values,
            f"whole nodes of {per:g} GPU, {first:,} to {last:,} nodes",
        )
    if kind in ("powers of two", "pow2"):
        low, high = _ends(var, rest) if rest else (_base(var, 1), _base(var, 2**20))
        powers = [
            _base(var, 2**k)
            for k in range(0, 63)
            if low / var.base_factor - 1e-9 <= 2**k <= high / var.base_factor + 1e-9
        ]
        values = _checked(var, powers)
        return Domain(
            name,
            "number",
            tuple(values),
            f"powers of two from {_plain(var, values[0])} to {_plain(var, values[-1])}",
        )
    # divisors
    if rest:
        try:
            of = float(rest)
        except ValueError:
            raise InputError(
                f"{name}='divisors:{rest}': write divisors:N with a whole number N", name
            ) from None
        sources = [("N", of)]
    else:
        sources = _divided(name, context)
    divisors = _common_divisors([n for _, n in sources], 10**6)
    what = " and ".join(f"{label} ({n:g})" for label, n in sources)
    return Domain(
        name, "number", _checked(var, [_base(var, v) for v in divisors]), f"divisors of {what}"
    )


def _divided(name: str, context: Context) -> list[tuple[str, float]]:
    if name == "tp":
        found = [
            (k, v)
            for k, v in (("n_heads", context.n_heads), ("n_kv_heads", context.n_kv_heads))
            if v
        ]
    elif name == "pp":
        found = [("n_layers", context.n_layers)] if context.n_layers else []
    else:
        found = []
    if not found:
        raise InputError(
            f"{name}='divisors': of what? write divisors:N, or name a model record (--model)",
            name,
        )
    return [(k, float(v)) for k, v in found if v is not None]


def _common_divisors(numbers: list[float], cap: int) -> list[int]:
    whole = [round(n) for n in numbers]
    if any(w < 1 or abs(w - n) > 1e-9 for w, n in zip(whole, numbers, strict=True)):
        raise InputError(f"divisors of {numbers}: each must be a whole number")
    g = 0
    for w in whole:
        g = math.gcd(g, w)
    return [d for d in range(1, min(g, cap) + 1) if g % d == 0]


def _default(var: Variable, context: Context) -> Domain:
    name = var.name
    per = context.gpus_per_node
    if name == "n_gpus":
        node = int(per) if per else 8
        small = [k for k in (1, 2, 4) if k < node]
        values = [*small, *(node * k for k in range(1, MAX_NODES + 1))]
        return Domain(
            name,
            "number",
            _checked(var, [_base(var, v) for v in values]),
            f"{', '.join(map(str, small))}, then whole nodes of {node} up to {MAX_NODES:,} nodes"
            " (the default)",
            True,
        )
    if name == "tp":
        node = int(per) if per else 8
        heads = [int(h) for h in (context.n_heads, context.n_kv_heads) if h]
        values = [2**k for k in range(0, 11) if 2**k <= node and all(h % 2**k == 0 for h in heads)]
        rule = " that divide the heads" if heads else ""
        return Domain(
            name,
            "number",
            _checked(var, [float(v) for v in values]),
            f"powers of two up to a node ({node}){rule} (the default)",
            True,
        )
    if name == "pp":
        if context.n_layers:
            values = [d for d in _common_divisors([context.n_layers], 128)]
            return Domain(
                name,
                "number",
                _checked(var, [float(v) for v in values]),
                f"divisors of the {context.n_layers:g} layers up to 128 (the default)",
                True,
            )
        values = [2**k for k in range(0, 8)]
        return Domain(
            name,
            "number",
            _checked(var, [float(v) for v in values]),
            "powers of two up to 128 (the default)",
            True,
        )
    table: Mapping[str, tuple[list[float], str]] = {
        "cp": ([1, 2, 4, 8, 16], "powers of two up to 16"),
        "ep": ([1, 2, 4, 8, 16, 32, 64], "powers of two up to 64"),
        "batch_size": ([2.0**k for k in range(0, 11)], "powers of two up to 1,024"),
        "zero_stage": ([0, 1, 2, 3], "0, 1, 2, 3"),
        "virtual_pipeline_stages": ([1, 2, 4, 8], "1, 2, 4, 8"),
        "dp": ([2.0**k for k in range(0, 15)], "powers of two up to 16,384"),
        "pp_fills_node_first": (
            [0, 1],
            "0 (Megatron's order: replicas in the node, stages across), 1 (stages in the node)",
        ),
    }
    if name in table:
        listed, text = table[name]
        return Domain(
            name,
            "number",
            _checked(var, [_base(var, v) for v in listed]),
            f"{text} (the default)",
            True,
        )
    raise InputError(
        f"{name}: no default domain; give one, such as over={{'{name}': '1..8'}} "
        f"(in the shell --over {name}=1..8): a range a..b, 'powers of two:1..64', or a list",
        name,
    )
