"""Measurements of a device (tools/measure_gpu.py's JSON) as a records file `--records` loads.

    python tools/measure_gpu.py ours.toml                 # on the GPU: measure, then convert
    python tools/measure_gpu.py ours.toml --from-json hardware/measurements/h200-2026-11-30.json

The JSON holds matmul FLOP/s per size and precision (``matmul_bf16_8192_flops``), HBM read and
copy bandwidth, and decode-shaped step times; `records_toml` writes the best matmul of each
precision as ``achievable_flops`` / ``achievable_flops_fp8`` and the read bandwidth as
``achievable_hbm_bandwidth``, each with its provenance (device, software, date, method), under
the record the device is (``NVIDIA H200`` -> H200-SXM) or under a new record. Pure Python: it
runs, and is tested, without a GPU.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from napkinmath.errors import InputError, UnknownNameError

SOURCE = "napkinmath measurement, tools/measure_gpu.py"
_MATMUL = re.compile(r"matmul_(bf16|fp8)_(\d+)_flops")
_KEYS = {"bf16": "achievable_flops", "fp8": "achievable_flops_fp8"}
_VENDORS = ("NVIDIA ", "AMD ", "Intel ")


def read(path: str | Path) -> dict:
    """The measurements JSON at `path` (InputError if unreadable or not an object)."""
    from napkinmath.files import read_document

    try:  # bounded as every file napkinmath reads: regular, at most 1 MB, nesting capped
        data = read_document(path, noun="measurements file", limit=1_000_000, kind="json").data
    except InputError as exc:
        raise InputError(f"measurements {exc}") from None
    if "device" not in data:
        raise InputError(
            f"measurements {path}: expected the JSON object measure_gpu.py "
            "writes (with 'device', 'matmul_bf16_8192_flops', ...)"
        )
    return data


def record_for(device: str) -> str | None:
    """The shipped record a device name reported by the driver is ('NVIDIA H200' ->
    'H200-SXM'), or None."""
    from napkinmath.hardware import get

    name = device
    for vendor in _VENDORS:
        name = name.removeprefix(vendor)
    for candidate in (device, name, name.split(" ")[0]):
        try:
            return get(candidate).id
        except UnknownNameError:
            continue
    return None


def sig(x: float, digits: int = 3) -> str:
    """`x` to `digits` significant figures, without an exponent: 796.9e12/1e12 -> '797'."""
    return f"{float(f'{x:.{digits}g}'):g}" if abs(x) < 1e6 else f"{x:.{digits}g}"


def records_toml(
    measured: Mapping[str, object], *, date: str, record: str | None = None, where: str = ""
) -> str:
    """A records file (TOML) of the achievable figures in `measured` (measure_gpu.py's JSON).

    `date` is the day of the measurement; `record` the record to add them to (default: the
    shipped record the device is, else a new record named after the device); `where` names
    the JSON file, quoted in the source."""
    device = str(measured.get("device", "unknown device"))
    software = f"PyTorch {measured['torch']}" if "torch" in measured else "software unknown"
    sms = f", {measured['sms']} SMs" if "sms" in measured else ""
    on = f"one {device}{sms}, {software}"
    record_id = record or record_for(device) or _slug(device)
    source = f"{SOURCE} ({where})" if where else SOURCE
    lines = [
        f"# Achievable figures measured on {on}, {date}.",
        "# Written by napkinmath.hardware.measured from measure_gpu.py's JSON; load it with",
        "# napkin ... --records THIS_FILE (values here beside the datasheet ones).",
        "",
    ]
    from napkinmath.hardware import find

    if find(record_id) is None:
        note = (
            "a measured device: add peak_flops, hbm_bandwidth and the rest from its "
            "datasheet, with their sources"
        )
        lines += [
            f"[{_key(record_id)}]",
            f"name = {_str(device)}",
            'kind = "accelerator"',
            f"note = {_str(note)}",
            "",
        ]
    for precision, key in _KEYS.items():
        sizes = {
            int(m.group(2)): _number(v)
            for k, v in measured.items()
            if (m := _MATMUL.fullmatch(k)) and m.group(1) == precision
        }
        if not sizes:
            continue
        best = max(sizes, key=sizes.__getitem__)
        shown = ", ".join(f"{n}³ {sig(sizes[n] / 1e12)}" for n in sorted(sizes))
        method = (
            "torch._scaled_mm on float8_e4m3fn, unit scales, bf16 out"
            if precision == "fp8"
            else "torch.matmul"
        )
        lines += _value(
            record_id,
            key,
            f"{sig(sizes[best] / 1e12)} TFLOP/(s*GPU)",
            f"measured: best of square {precision.upper()} matmuls ({shown} TFLOP/s; "
            f"{method}); mean of timed repetitions after warm-ups, CUDA events; "
            f"{on}",
            source,
            date,
        )
    if "read_bytes_per_s" in measured:
        read_bw = _number(measured["read_bytes_per_s"])
        copy = measured.get("copy_bytes_moved_per_s")
        also = f"; a copy moved {sig(_number(copy) / 1e12)} TB/s read + write" if copy else ""
        size = _number(measured.get("hbm_test_bytes", 8 * 2**30)) / 2**30
        lines += _value(
            record_id,
            "achievable_hbm_bandwidth",
            f"{sig(read_bw / 1e12)} TB/(s*GPU)",
            f"measured: a sum over {size:g} GiB of BF16 (one streaming read){also}; "
            f"mean of timed repetitions after warm-ups, CUDA events; {on}",
            source,
            date,
        )
    lines += _decode_comment(measured, record_id)
    return "\n".join(lines).rstrip() + "\n"


def _number(value: object) -> float:
    """A measurement as a float: measure_gpu.py writes numbers (a number's text reads too)."""
    if not isinstance(value, (int, float, str)):
        raise TypeError(f"a measurement is a number, not {type(value).__name__}")
    return float(value)


def _value(
    record_id: str, key: str, value: str, qualifier: str, source: str, date: str
) -> list[str]:
    return [
        f"[{_key(record_id)}.{key}]",
        f"value = {_str(value)}",
        f"qualifier = {_str(qualifier)}",
        f"source = {_str(source)}",
        f"date = {_str(date)}",
        "",
    ]


def _decode_comment(measured: Mapping[str, object], record_id: str) -> list[str]:
    """The batch-1 decode step as a comment, with the command that turns it into MBU."""
    step, size = measured.get("decode_step_s_B1"), measured.get("decode_weight_bytes")
    if step is None or size is None:
        return []
    ms, gb = _number(step) * 1e3, _number(size) / 1e9
    return [
        f"# A decode-shaped step at batch 1 read {gb:.3f} GB of weights in {ms:.2f} ms; its MBU:",
        f'# napkin solve mbu mbu_achievable weight_memory="{gb:.3f} GB" '
        f'kv_cache_memory="0 GB" n_gpus=1 decode_step_time_measured="{ms:.2f} ms" '
        f"--gpu {record_id} --records THIS_FILE",
    ]


def _slug(device: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", device).strip("-") or "measured-device"


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _str(name)


def _str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
