"""What another tool's names mean: a config key as a napkinmath variable and the unit the key
states, and a device name as a hardware record.

    key_meaning("hbm_bandwidth_in_GB_per_sec")   # ("hbm_bandwidth", "GB/s")
    key_meaning("peak_i8_TFLOPS")                # ("peak_flops_int8", "TFLOP/s")
    key_meaning("FP16")                          # ("peak_flops", "")   a bare count: FLOP/s
    device_record("nvidia_A100_80G")             # "A100-SXM-80GB"

Keys are split into words (snake_case, camelCase, digits); the words name the quantity
(bandwidth of memory, of the links inside a node, of the network between nodes; capacity; a
peak of FLOP/s at a precision) and the unit (GB_per_sec, GBps, Gbps, GiB, TFLOPS). A key with
words that name something no record holds (on-chip buffers, latency, efficiency, FP32) is
left unmapped, never guessed. Device names are matched safely: vendor words dropped, the
model word (`a100`, `v100`, `mi250x`) must equal a record's, and a capacity (`80gb`) or a form
factor (`sxm`, `pcie`) in the name must agree with the record's; anything ambiguous is
unmatched, with the candidates named.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from napkinmath.errors import InputError

#: Words that mean a key is about something napkinmath's records do not hold.
_NOT_RECORDED = {
    "onchip", "buffer", "cache", "l1", "l2", "sram", "latency", "efficiency", "fp32",
    "float32", "tf32", "fp64", "float64", "vector", "min", "message", "usage", "overlap",
    "mode", "ratio", "count", "num", "lat", "util", "utilization", "achieved",
}  # fmt: skip
_VENDOR = {"nvidia", "amd", "intel", "habana", "google", "aws", "tesla", "geforce", "gpu",
           "instinct", "radeon", "cloud", "tpu"}  # fmt: skip
_FORMS = {"sxm", "sxm2", "sxm4", "sxm5", "pcie", "nvl", "oam"}
#: Units a key's name can state: the words (lower case) and, where case matters, the text.
_CASED_UNITS = {"GBps": "GB/s", "Gbps": "Gb/s", "TBps": "TB/s", "MBps": "MB/s",
                "GiBps": "GiB/s", "GB": "GB", "Gb": "Gb", "GiB": "GiB", "TB": "TB", "MB": "MB",
                "MiB": "MiB", "TiB": "TiB"}  # fmt: skip
_WORD_UNITS = {"tflops": "TFLOP/s", "gflops": "GFLOP/s", "pflops": "PFLOP/s",
               "tops": "TFLOP/s", "gbps": "Gb/s", "gibps": "GiB/s",
               "gb": "GB", "gib": "GiB", "tb": "TB", "mb": "MB", "mib": "MiB", "w": "W",
               "watts": "W", "watt": "W"}  # fmt: skip
_PER_SECOND = {"sec", "second", "seconds", "s"}
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
#: The unit a count of each variable means when no unit is stated.
BASE_UNITS = {"bandwidth": "B/s", "flops": "FLOP/s", "capacity": "B", "tdp": "W"}


def _words(key: str) -> list[str]:
    """'peak_i8_TFLOPS' -> ['peak', 'i8', 'TFLOPS']: split at separators and case changes,
    keeping letter-digit runs such as i8, fp16, mem1 whole."""
    parts = []
    for chunk in re.split(r"[^A-Za-z0-9]+", key):
        whole = re.fullmatch(r"[a-z]+[0-9]+|[A-Z]+[0-9]+|[A-Za-z]{1,2}[0-9]+", chunk)
        if chunk in _CASED_UNITS or chunk.lower() in _WORD_UNITS or whole:
            parts.append(chunk)
        elif chunk:
            parts += _WORDS.findall(chunk)
    return parts


def stated_unit(words: list[str]) -> str:
    """The unit the words of a name state ('' when none): GB_per_sec is GB/s, GBps GB/s,
    Gbps Gb/s (bits), TFLOPS TFLOP/s, GiB GiB."""
    for index, word in enumerate(words):
        unit = _CASED_UNITS.get(word) or _WORD_UNITS.get(word.lower())
        if unit is None:
            continue
        rest = [w.lower() for w in words[index + 1 : index + 3]]
        per_second = rest[:1] == ["per"] and rest[1:2] and rest[1] in _PER_SECOND
        if "/" not in unit and (per_second or (rest[:1] and rest[0] in ("s", "ps", "sec"))):
            unit += "/s"
        return unit
    return ""


def _precision(lowered: list[str]) -> str:
    """'' (16-bit: the records' peak_flops), '_fp8', '_int8', '_int4', or 'none'."""
    for word in lowered:
        if word in ("fp8", "float8", "f8"):
            return "_fp8"
        if word in ("int8", "i8"):
            return "_int8"
        if word in ("int4", "i4"):
            return "_int4"
        if word in ("fp32", "float32", "tf32", "fp64", "float64"):
            return "none"
    return ""


def key_meaning(key: str, path: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """The napkinmath variable and stated unit ('' if none) of a config key, read from its
    words and those of the tables it sits in (`path`: Calculon's mem1.GBps), or None."""
    words = _words(key)
    lowered = [w.lower() for w in words]
    around = [w.lower() for part in path for w in _words(part)]
    every = set(lowered) | set(around)
    if set(lowered) & _NOT_RECORDED or every & {"onchip", "buffer", "vector", "mem2"}:
        return None
    unit = stated_unit(words)
    if set(lowered) & {"bandwidth", "bw", "icn"} or (unit.endswith("/s") and "FLOP" not in unit):
        if every & {"intra", "nvlink", "icn", "intranode"}:
            return "nvlink_bandwidth", unit
        if every & {"inter", "internode", "nic", "ib", "infiniband", "scale"}:
            return "scale_out_bandwidth", unit
        if every & {"network", "networks", "net", "link", "links", "interconnect"}:
            return None  # which network: a mapping file says
        if every & {"hbm", "mem", "memory", "dram", "mem1"} or lowered in (["bandwidth"], ["bw"]):
            return "hbm_bandwidth", unit
        return None
    flop_words = {"flops", "tflops", "gflops", "pflops", "tops", "flop"}
    precision = _precision(lowered + around)
    if (
        set(lowered) & flop_words
        or unit.endswith("FLOP/s")
        or set(lowered) & {"fp16", "bf16", "int8", "fp8", "int4"}
    ):
        if precision == "none":
            return None
        return "peak_flops" + precision, unit
    if "FLOP" not in unit and (
        every & {"hbm", "mem", "memory", "dram", "capacity", "mem1"} or unit in ("GiB", "GB")
    ):
        if set(lowered) & {"per", "node"} and "gpu" not in lowered:
            return None
        return "hbm_capacity", unit
    if set(lowered) & {"tdp"}:
        return "tdp", unit or "W"
    return None


def base_unit(variable: str) -> str:
    """The unit a bare number of `variable` is read in: FLOP/s, B/s, B or W."""
    for word, unit in BASE_UNITS.items():
        if word in variable:
            return unit
    return ""


# --- a mapping file: new key names ------------------------------------------------------
_MAPPING_VALUE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[\s*([^\]]{1,40})\s*\])?\s*")
MAX_MAPPING_BYTES = 100_000


def read_mapping(path: str) -> dict[str, tuple[str, str]]:
    """A mapping file (TOML: `key = "variable [unit]"`, a key a name or a dotted path with
    array indices as numbers, `"networks.1.bandwidth" = "scale_out_bandwidth [GB/s]"`),
    read bounded; each variable must be one napkinmath knows."""
    from napkinmath.catalog.lookup import variables
    from napkinmath.files import decode, read_regular_file

    data = read_regular_file(
        path,
        noun="mapping file",
        limit=MAX_MAPPING_BYTES,
        rule="a mapping file is read only from a regular file",
    )
    try:
        table = tomllib.loads(decode(data, path))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    known = variables()
    out: dict[str, tuple[str, str]] = {}
    for key, value in table.items():
        found = _MAPPING_VALUE.fullmatch(value) if isinstance(value, str) else None
        if found is None or found.group(1) not in known:
            raise InputError(
                f'{path}: {key!r} must map to "VARIABLE [UNIT]" naming a napkinmath variable '
                "(e.g. hbm_bandwidth [GB/s]); see `napkin vars`"
            )
        out[key] = (found.group(1), (found.group(2) or "").strip())
    return out


# --- peers' formats, read unaided ------------------------------------------------------------
@dataclass(frozen=True)
class PeerFormat:
    """Another tool's file format: the keys that tell it (all of them in one table, at most
    `DEPTH` tables down), and what its keys hold that their names do not say."""

    name: str
    what: str  # how its values are read, and where that is defined
    keys: frozenset[str]
    mapping: dict[str, tuple[str, str]]


PEER_FORMATS = (
    PeerFormat(
        "Calculon system file",
        "Calculon's systems/*.json (github.com/calculon-ai/calculon): each network's "
        "bandwidth in GB/s one way, the first network the tensor-parallel (NVLink) domain, "
        "the second the data-parallel (inter-node) one",
        frozenset({"matrix", "vector", "mem1", "networks"}),
        {
            "networks.0.bandwidth": ("nvlink_bandwidth", "GB/s"),
            "networks.1.bandwidth": ("scale_out_bandwidth", "GB/s"),
        },
    ),
    PeerFormat(
        "GenZ system configs",
        "GenZ's Systems/system_configs.py (github.com/abhibambhaniya/GenZ-LLM-Analyzer): "
        "Flops in TFLOP/s, Memory_size in GB, Memory_BW in GB/s; its ICN (the bandwidth its "
        "collectives use) is a GPU's NVLink on NVIDIA parts but one ICI link on TPUs, no one "
        "napkinmath variable: teach it with --mapping where it is the NVLink figure",
        frozenset({"Flops", "Memory_size", "Memory_BW"}),
        {
            "Flops": ("peak_flops", "TFLOP/s"),
            "Memory_size": ("hbm_capacity", "GB"),
            "Memory_BW": ("hbm_bandwidth", "GB/s"),
        },
    ),
)
#: how many tables down a peer format's keys are looked for (GenZ: a dict of systems)
DEPTH = 3


def peer_format(data: object) -> PeerFormat | None:
    """The peer format `data` (a parsed config, or a Python module's values) is written in,
    told by its keys, or None."""
    tables: list[tuple[object, int]] = [(data, 0)]
    found: list[set[str]] = []
    while tables and len(found) < 1000:
        node, depth = tables.pop()
        node = getattr(node, "value", node)  # a Python module's value carries its line
        if not isinstance(node, dict):
            continue
        found.append(set(map(str, node)))
        if depth < DEPTH:
            tables.extend((child, depth + 1) for child in node.values())
    for peer in PEER_FORMATS:
        if any(peer.keys <= keys for keys in found):
            return peer
    return None


# --- device names -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Name:
    models: frozenset[str]
    forms: frozenset[str]
    capacity: int | None


def _parse_name(name: str) -> _Name:
    tokens = [t for t in re.split(r"[^a-z0-9]+", name.lower()) if t]
    models, forms, capacity = set(), set(), None
    for token in tokens:
        size = re.fullmatch(r"(\d{1,3})(?:g|gb|gib)", token)
        if size:
            capacity = int(size.group(1))
        elif token in _FORMS:
            forms.add(token.rstrip("0123456789") if token.startswith("sxm") else token)
        elif token in _VENDOR or re.fullmatch(r"nvl\d+", token):
            continue  # (nvl8: the NVLink domain's size, Calculon's h100_80g_nvl8)
        elif re.search(r"\d", token):
            models.add(token)
    return _Name(frozenset(models), frozenset(forms), capacity)


def device_record(name: str) -> tuple[str | None, str]:
    """The accelerator record `name` stands for, and a note: ('A100-SXM-80GB', '') or
    (None, why). Safe: the model word must be a record's, and a stated capacity and form
    factor must agree, or the match is refused with the candidates named."""
    from napkinmath import hardware as hw

    if not name or len(name) > 80:
        return None, "no device name"
    exact = hw.find(name) if re.fullmatch(r"[\w .()+-]{1,80}", name) else None
    wanted = _parse_name(name)
    if exact is not None and not wanted.capacity and not wanted.forms:
        return exact, ""
    if not wanted.models:
        return (exact, "") if exact else (None, f"{name!r} names no model a record has")
    candidates = []
    for record_id, record in hw.listed().items():
        if record.kind != "accelerator":
            continue
        names = [_parse_name(n) for n in (record_id, *record.aliases)]
        if not any(wanted.models <= n.models for n in names):
            continue
        forms = frozenset().union(*(n.forms for n in names))
        capacity = record.values.get("hbm_capacity")
        gb = round(capacity.quantity.to("GB/GPU").magnitude) if capacity else None
        candidates.append((record_id, forms, gb))
    if not candidates:
        return None, f"no record for {name!r}"
    fitting = [c for c in candidates if not wanted.forms or not c[1] or wanted.forms <= c[1]]
    if not fitting:
        return None, (
            f"{name!r}: no {'/'.join(sorted(wanted.forms)).upper()} record among "
            f"{', '.join(c[0] for c in candidates)}"
        )
    sized = [c for c in fitting if wanted.capacity is None or c[2] == wanted.capacity]
    if len(sized) == 1:
        return sized[0][0], ""
    if not sized and len(fitting) == 1:
        return fitting[0][0], (
            f"the name says {wanted.capacity} GB; {fitting[0][0]} has {fitting[0][2]} GB"
        )
    choices = sized or fitting
    ids = {c[0] for c in choices}
    if exact in ids:
        return exact, ""
    named = hw.find(" ".join(sorted(wanted.models)))
    if named in ids:
        model = " ".join(sorted(wanted.models)).upper()
        return named, f"{name!r} taken as {named}, the record {model} names"
    return None, f"{name!r} could be {' or '.join(c[0] for c in choices)}: pass --gpu"
