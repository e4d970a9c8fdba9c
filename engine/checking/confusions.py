"""Unit confusions that sink capacity plans, recognised by the ratio they leave behind.

When a claimed value disagrees with napkinmath's, the ratio claimed / computed often is a
known factor, and the factor names the slip:

    8            bits vs bytes (400 Gb/s read as 400 GB/s); per-GPU vs per-node (8 GPUs)
    1.024^1..4   decimal vs binary prefixes (GB vs GiB: 1.024^3 = 1.074)
    2            one-way vs two-way link bandwidth; 2:4 sparse vs dense peak; K and V; MAC
    3            training 6·N vs inference 2·N FLOP per token
    1000, 10^6   a prefix slip (MB vs GB)
    24, 60, 3600, 86400, 7   days, hours, minutes, seconds, weeks
    100          a percentage read as a fraction
    a/a_kv       attention heads used where KV heads belong (GQA), from the model
    2(n-1)/n     the ring all-reduce factor, from the ring size

`candidates(ratio, context)` returns every confusion whose factor (or its inverse) is within
the tolerance of the ratio, most likely first: closeness times a prior (how often the slip
happens), times relevance (the dimensions involved: bits vs bytes needs a data size
somewhere), times evidence (a bit unit in the expression, a keyword such as "kv" in a name).
When no single factor fits, products of two common slips are tried (bits and two-way: 16).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

INFORMATION = "[information]"
TIME = "[time]"
COMPUTE = "[compute]"


@dataclass(frozen=True)
class Confusion:
    """One known slip: the factor it multiplies a value by, and what it is."""

    key: str
    label: str
    factor: float
    prior: float  # how common the slip is, 0..1
    hint: str  # one sentence: what gets mixed up, with an example
    needs: tuple[str, ...] = ()  # base dimensions that must be involved for it to be plausible
    keywords: tuple[str, ...] = ()  # words in the names used that make it likelier
    factor_text: str = ""  # how to show the factor when it is not a round number
    dimensionless_only: bool = False
    compound: bool = False  # may combine with another slip (bits and two-way: 16x)
    from_context: bool = False  # built from values the user gave (heads, ring size)
    #: offered only where one of its keywords is in the names used: a factor of 2 in a
    #: network bandwidth or an HBM capacity is no K and V slip (issue 47 §3)
    keyword_only: bool = False
    #: a binary prefix slip's prefix ("g" for GB vs GiB): offered only where a unit with that
    #: prefix, decimal or binary, is among the words
    prefix: str = ""

    def shown_factor(self) -> str:
        return self.factor_text or f"{self.factor:g}"


def _static() -> tuple[Confusion, ...]:
    info, rate = (INFORMATION,), (INFORMATION, TIME)
    bits_words = (
        "bit",
        "gb/s",
        "gbps",
        "gbit",
        "link",
        "network",
        "nic",
        "infiniband",
        "ib",
        "ethernet",
        "roce",
        "bandwidth",
    )
    binary_words = ("gib", "mib", "tib", "kib", "memory", "hbm", "capacity")
    binary_hint = (
        "decimal vs binary prefixes: {d} = 1000^{k} B but {b} = 1024^{k} B (80 GB = 74.5 GiB)"
    )
    # a prefix slip needs that prefix in the units used: 1600 GB/s against 1,555 is rounding,
    # not kB vs KiB (issue 47 §3, GenZ's A100 40GB)
    binary = [
        Confusion(
            f"binary_{p.lower()}",
            f"{p}B vs {p.upper()}iB",
            1.024**k,
            prior,
            binary_hint.format(d=f"{p}B", b=f"{p.upper()}iB", k=k),
            info,
            (f"{p.lower()}b", f"{p.lower()}ib", *binary_words),
            f"1.024{'¹²³⁴'[k - 1]}" if k > 1 else "1.024",
            compound=True,
            prefix=f"{p.lower()}",
        )
        for k, p, prior in ((1, "k", 0.4), (2, "M", 0.6), (3, "G", 0.85), (4, "T", 0.7))
    ]
    return (
        Confusion(
            "bits_bytes",
            "bits vs bytes",
            8,
            0.9,
            "bits and bytes mixed up (1 B = 8 bit), e.g. a 400 Gb/s link taken as 400 GB/s",
            info,
            bits_words,
            compound=True,
        ),
        *binary,
        Confusion(
            "two_way",
            "one-way vs two-way bandwidth",
            2,
            0.7,
            "a link's two-way figure (both directions added, as datasheets quote "
            "NVLink 4 at 900 GB/s) used where one direction (450 GB/s) moves the data, "
            "or the reverse",
            rate,
            (
                "bandwidth",
                "link",
                "nvlink",
                "bidirectional",
                "allreduce",
                "ring",
                "busbw",
                "algbw",
                "network",
                "pcie",
            ),
            compound=True,
        ),
        Confusion(
            "sparse_dense",
            "sparse vs dense peak",
            2,
            0.7,
            "a 2:4-sparsity peak used as dense (H100: 1,979 vs 989 TFLOP/s BF16), or the reverse",
            (COMPUTE, TIME),
            ("peak", "flops", "tflop", "mfu"),
            compound=True,
        ),
        Confusion(
            "precision_peak",
            "FP8 vs BF16 peak",
            2,
            0.35,
            "the FP8 peak used where the BF16 peak applies (H100: 1,979 vs 989 "
            "TFLOP/s), or the reverse",
            (COMPUTE, TIME),
            ("fp8", "peak", "flops"),
        ),
        Confusion(
            "precision_bytes",
            "bytes per value (precision)",
            2,
            0.35,
            "bytes per value mixed up: bf16 is 2 B, fp32 4 B, fp8 1 B",
            info,
            ("bytes_per", "precision", "bf16", "fp32", "fp8", "weight", "param", "dtype"),
            keyword_only=True,
        ),
        Confusion(
            "kv_pair",
            "K and V",
            2,
            0.4,
            "the factor 2 for keys and values left out or counted twice in a KV cache",
            info,
            ("kv", "cache", "key", "value"),
            keyword_only=True,
        ),
        Confusion(
            "mac_flop",
            "MACs vs FLOPs",
            2,
            0.35,
            "multiply-accumulates counted as FLOPs (1 MAC = 2 FLOP), or the reverse",
            (COMPUTE,),
            ("flop", "mac"),
        ),
        Confusion(
            "train_vs_inference",
            "6·N vs 2·N FLOP per token",
            3,
            0.8,
            "training FLOP (6·N per token: forward + backward) vs inference FLOP (2·N "
            "per token: forward only)",
            (COMPUTE,),
            ("train", "flop", "compute", "inference", "forward", "mfu", "6nd"),
            compound=True,
        ),
        Confusion(
            "recompute",
            "8·N vs 6·N FLOP per token",
            4 / 3,
            0.4,
            "training FLOP with full activation recomputation (8·N per token) vs without (6·N)",
            (COMPUTE,),
            ("recompute", "checkpointing", "flop"),
            factor_text="4/3",
        ),
        Confusion(
            "weights_vs_state",
            "weights vs training state",
            8,
            0.4,
            "bf16 weights alone (2 B/param) vs the mixed-precision Adam training state "
            "(16 B/param)",
            info,
            ("param", "state", "optimizer", "weight", "memory", "adam", "zero"),
            keyword_only=True,
        ),
        Confusion(
            "prefix_1000",
            "a prefix slip (1000×)",
            1000,
            0.6,
            "one SI prefix off: MB vs GB, ms vs s, TFLOP vs PFLOP",
            compound=True,
        ),
        Confusion(
            "prefix_1e6",
            "two prefixes off (10⁶×)",
            1e6,
            0.3,
            "two SI prefixes off: kB vs GB, µs vs s",
            factor_text="10⁶",
        ),
        Confusion(
            "hours_days",
            "hours vs days",
            24,
            0.7,
            "hours and days mixed up (1 day = 24 h)",
            (TIME,),
            ("time", "day", "hour", "gpu_hours"),
            compound=True,
        ),
        Confusion(
            "minutes_hours",
            "minutes vs hours (or seconds vs minutes)",
            60,
            0.5,
            "minutes and hours, or seconds and minutes, mixed up (× 60)",
            (TIME,),
            ("time", "min", "hour"),
        ),
        Confusion(
            "seconds_hours",
            "seconds vs hours",
            3600,
            0.7,
            "seconds and hours mixed up (1 h = 3,600 s)",
            (TIME,),
            ("time", "hour", "gpu_hours", "price"),
            compound=True,
        ),
        Confusion(
            "seconds_days",
            "seconds vs days",
            86400,
            0.5,
            "seconds and days mixed up (1 day = 86,400 s)",
            (TIME,),
            ("time", "day"),
        ),
        Confusion(
            "days_weeks",
            "days vs weeks",
            7,
            0.25,
            "days and weeks mixed up",
            (TIME,),
            ("week", "day"),
        ),
        Confusion(
            "days_years",
            "days vs years",
            365.25,
            0.25,
            "days and years mixed up (1 year = 365.25 days)",
            (TIME,),
            ("year", "annual"),
        ),
        Confusion(
            "percent",
            "percent vs fraction",
            100,
            0.5,
            "a percentage read as a fraction (40 for 0.40), or the reverse",
            dimensionless_only=True,
            keywords=("mfu", "utilization", "fraction", "%"),
        ),
    )


STATIC = _static()


@dataclass(frozen=True)
class Context:
    """What is known around a claim: dimensions, names, and values that make factors."""

    #: base dimensions of the result, e.g. frozenset({"[time]"})
    result_dimensions: frozenset[str] = frozenset()
    #: base dimensions of everything the result is computed from (units, values, the result)
    dimensions: frozenset[str] = frozenset()
    #: names and units used, lower-cased, for keyword evidence
    words: str = ""
    bits: bool = False  # a bit unit (b, Gb, Gbps) appears
    binary: bool = False  # a binary prefix (GiB) appears
    gpus_per_node: float | None = None
    n_gpus: float | None = None
    n_heads: float | None = None
    n_kv_heads: float | None = None
    ring_sizes: tuple[float, ...] = ()


def catalog(context: Context | None = None) -> list[Confusion]:
    """Every confusion that applies, the context-dependent ones included."""
    context = context or Context()
    found = list(STATIC)
    g = context.gpus_per_node or 8.0
    if g > 1:
        found.append(
            Confusion(
                "per_node",
                "per-GPU vs per-node",
                g,
                0.55,
                f"a per-GPU figure used as per-node, or the reverse (one node holds {g:g} GPUs)",
                keywords=("node", "per_gpu", "gpu", "server"),
                factor_text=f"{g:g} GPU/node",
                compound=True,
                from_context=context.gpus_per_node is not None,
            )
        )
    n = context.n_gpus
    if n is not None and n > 1 and not math.isclose(n, g):
        found.append(
            Confusion(
                "per_job",
                "per-GPU vs whole job",
                n,
                0.5,
                f"a per-GPU figure used for the whole job of {n:g} GPUs, or the reverse",
                keywords=("gpu", "cluster", "total"),
                factor_text=f"{n:g} GPUs",
                from_context=True,
            )
        )
    a, kv = context.n_heads, context.n_kv_heads
    if a and kv and a > kv > 0:
        found.append(
            Confusion(
                "gqa_heads",
                "attention heads vs KV heads (GQA)",
                a / kv,
                0.8,
                f"the {a:g} attention (query) heads used where the {kv:g} key/value heads belong: "
                "with grouped-query attention only the KV heads are cached",
                (INFORMATION,),
                ("kv", "cache", "head"),
                factor_text=f"{a:g}/{kv:g}",
                compound=True,
                from_context=True,
            )
        )
    for size in sorted(set(context.ring_sizes)):
        if size < 2 or size != int(size):
            continue
        ring = 2 * (size - 1) / size
        found.append(
            Confusion(
                f"ring_{size:g}",
                "ring all-reduce factor",
                ring,
                0.8,
                f"the ring all-reduce factor 2(n−1)/n = {ring:.4g} (n = {size:g}) left out, or "
                "applied where it does not belong",
                (INFORMATION,),
                ("allreduce", "all_reduce", "ring", "busbw", "algbw", "gradient"),
                factor_text=f"2(n−1)/n = {ring:.4g}",
                compound=True,
                from_context=True,
            )
        )
        found.append(
            Confusion(
                f"ring_two_{size:g}",
                "2 used for the ring factor",
                size / (size - 1),
                0.4,
                f"a flat 2 used where the ring moves 2(n−1)/n = {ring:.4g} (n = {size:g})",
                (INFORMATION,),
                ("allreduce", "ring", "busbw"),
                factor_text=f"n/(n−1) = {size / (size - 1):.4g}",
                from_context=True,
            )
        )
        found.append(
            Confusion(
                f"ring_collective_{size:g}",
                "all-reduce vs all-gather/reduce-scatter",
                2,
                0.35,
                "an all-reduce (2(n−1)/n of the buffer per rank) mixed up with an all-gather or "
                "reduce-scatter ((n−1)/n)",
                (INFORMATION,),
                ("allreduce", "allgather", "reduce_scatter", "ring"),
                from_context=True,
            )
        )
    return found


@dataclass
class Candidate:
    """A confusion that explains an observed ratio, with how well and how likely."""

    key: str
    label: str
    factor: float  # the factor matched, >= 1
    direction: str  # "high": claim = factor × computed; "low": claim = computed / factor
    hint: str
    distance: float  # relative distance between the ratio and the factor
    score: float
    factor_text: str = ""
    parts: tuple[str, ...] = ()
    evidence: list[str] = field(default_factory=list)
    correction: str = ""  # the claim with this slip undone: "0.35 s × 8 = 2.8 s"

    @property
    def confirmed(self) -> bool:
        """Re-evaluating with the slip undone reproduced the claim."""
        return bool(self.evidence)

    def summary(self) -> str:
        """'bits vs bytes (8): the claim is 8× lower'."""
        if self.direction == "kind":
            return self.label
        factor = self.factor_text or f"{self.factor:.4g}"
        way = "higher" if self.direction == "high" else "lower"
        return f"{self.label} ({factor}): the claim is {self.factor:.4g}× {way}"

    def text(self) -> str:
        lines = f"{self.summary()}. {self.hint[0].upper()}{self.hint[1:]}."
        for item in self.evidence:
            lines += f" Confirmed: {item}."
        if self.correction:
            lines += f" Corrected claim: {self.correction}."
        return lines

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "label": self.label,
            "factor": self.factor,
            "factor_text": self.factor_text or f"{self.factor:g}",
            "direction": self.direction,
            "hint": self.hint,
            "distance": self.distance,
            "score": round(self.score, 6),
            "parts": list(self.parts or (self.key,)),
            "confirmed": self.confirmed,
            "evidence": list(self.evidence),
            "correction": self.correction or None,
        }


def _relevant(c: Confusion, context: Context) -> bool:
    if c.dimensionless_only:
        return not context.result_dimensions
    if c.keyword_only and not _mentions(context.words, c.keywords):
        return False
    if c.prefix and not re.search(rf"(?<![a-z]){c.prefix}i?b(?![a-z])", context.words.lower()):
        return False
    return all(dim in context.dimensions for dim in c.needs)


def _mentions(words: str, keywords: tuple[str, ...]) -> bool:
    """A keyword starts one of the words ("kv" in kv_bytes_per_token), or, when it holds a
    '/', '_' or '%', appears anywhere ("gb/s")."""
    lowered = words.lower()
    tokens = [t for t in re.split(r"[^a-z0-9]+", lowered) if t]
    for keyword in keywords:
        if any(ch in keyword for ch in "/_%"):
            if keyword in lowered:
                return True
        elif any(token.startswith(keyword) for token in tokens):
            return True
    return False


def _weight(c: Confusion, context: Context) -> float:
    weight = c.prior
    if c.keywords and _mentions(context.words, c.keywords):
        weight *= 1.5
    if c.key == "bits_bytes" and context.bits:
        weight *= 2.0
    if c.key.startswith("binary_") and context.binary:
        weight *= 2.0
    if c.from_context:
        weight *= 1.3
    return weight


def candidates(
    ratio: float, context: Context | None = None, tolerance: float = 0.02
) -> list[Candidate]:
    """Known confusions whose factor explains `ratio` = claimed / computed, most likely first.

    A factor f matches when the ratio is within `tolerance` (relative) of f or of 1/f.
    Confusions that cannot apply to the dimensions involved (bits vs bytes where no data
    size appears, hours vs days where no time does) are left out.

    >>> [c.key for c in candidates(8.0, Context(dimensions=frozenset({"[information]"})))][:2]
    ['bits_bytes', 'per_node']
    """
    context = context or Context()
    if not (isinstance(ratio, (int, float)) and math.isfinite(ratio) and ratio > 0):
        return []
    if abs(math.log(ratio)) <= math.log1p(tolerance):
        return []
    limit = math.log1p(max(tolerance, 1e-6))
    confusions = catalog(context)
    matches = [_match(ratio, (c,), context, limit) for c in confusions]
    found = [c for c in matches if c is not None]
    if not any(_relevant_key(c, confusions, context) for c in found):
        pairs = [c for c in confusions if c.compound and _relevant(c, context)]
        for first, second in itertools.combinations(pairs, 2):
            match = _match(ratio, (first, second), context, limit)
            if match is not None:
                found.append(match)
    found = [c for c in found if _relevant_key(c, confusions, context)]
    found.sort(key=lambda c: -c.score)
    return found


def _relevant_key(candidate: Candidate, confusions: list[Confusion], context: Context) -> bool:
    by_key = {c.key: c for c in confusions}
    return all(_relevant(by_key[k], context) for k in candidate.parts)


def _match(
    ratio: float, slips: tuple[Confusion, ...], context: Context, limit: float
) -> Candidate | None:
    factor = math.prod(c.factor for c in slips)
    if factor <= 1.0 + 1e-12:
        return None
    log_ratio = math.log(ratio)
    distance = abs(abs(log_ratio) - math.log(factor))
    if distance > limit:
        return None
    closeness = 1.0 - 0.5 * distance / limit
    weight = math.prod(_weight(c, context) for c in slips)
    if len(slips) > 1:
        weight *= 0.4
    direction = "high" if log_ratio > 0 else "low"
    if len(slips) == 1:
        (c,) = slips
        return Candidate(
            c.key,
            c.label,
            factor,
            direction,
            c.hint,
            math.expm1(distance),
            weight * closeness,
            c.shown_factor(),
            (c.key,),
        )
    label = " and ".join(c.label for c in slips)
    hint = "; and ".join(c.hint for c in slips)
    text = " × ".join(c.shown_factor() for c in slips) + f" → {factor:.4g}"
    return Candidate(
        "+".join(c.key for c in slips),
        label,
        factor,
        direction,
        hint,
        math.expm1(distance),
        weight * closeness,
        text,
        tuple(c.key for c in slips),
    )
