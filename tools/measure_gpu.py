"""Measure what napkinmath predicts on a real GPU, and write a records file `--records` loads.

    python tools/measure_gpu.py ours.toml --json ours.json      # where PyTorch sees a GPU
    python tools/measure_gpu.py ours.toml --from-json hardware/measurements/h200-2026-11-30.json
    napkin solve decode_step_time weight_memory="15 GB" kv_cache_memory="0 GB" n_gpus=1 \\
        --gpu H200 --records ours.toml --achievable

Measured on GPU 0 (CUDA events; the mean of timed repetitions after warm-ups; random data):
BF16 and FP8 (torch._scaled_mm) square matmuls of 4096, 8192 and 16384; HBM bandwidth as a
read (a sum over 8 GiB) and a copy; and decode-shaped steps over Llama-3-8B's weight shapes
(batch 1 to 2048). The records file holds the best matmul of each precision
(achievable_flops, achievable_flops_fp8) and the read bandwidth (achievable_hbm_bandwidth),
with the device, software, date and method; the conversion is napkinmath.hardware.measured.
To measure it needs PyTorch with a GPU; the raw measurements are written first (OUT.json),
so that a machine without napkinmath still keeps them for a later --from-json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

HBM_TEST_BYTES = 8 * 2**30


def measure() -> dict:
    """The measurements, as the JSON object napkinmath.hardware.measured converts."""
    try:
        import torch
    except ImportError:
        raise SystemExit(
            "measure_gpu.py: PyTorch is not installed; run it where PyTorch sees "
            "a GPU, or convert an earlier run with --from-json"
        ) from None
    if not torch.cuda.is_available():
        raise SystemExit(
            "measure_gpu.py: PyTorch sees no GPU; run it on the machine to "
            "measure, or convert an earlier run with --from-json"
        )
    dev = "cuda"
    out = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "sms": torch.cuda.get_device_properties(0).multi_processor_count,
        "date": datetime.date.today().isoformat(),
        "hbm_test_bytes": HBM_TEST_BYTES,
    }

    def bench(fn, n=20, warm=5):
        for _ in range(warm):
            fn()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / n / 1e3

    for n in (4096, 8192, 16384):  # 1. dense matmul FLOP/s, BF16 and FP8
        reps = 10 if n == 16384 else 20
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        out[f"matmul_bf16_{n}_flops"] = 2 * n**3 / bench(lambda a=a, b=b: a @ b, n=reps)
        try:
            a8 = a.to(torch.float8_e4m3fn)
            b8 = b.to(torch.float8_e4m3fn).t().contiguous().t()
            one = torch.tensor(1.0, device=dev)
            out[f"matmul_fp8_{n}_flops"] = (
                2
                * n**3
                / bench(
                    lambda a8=a8, b8=b8, one=one: torch._scaled_mm(
                        a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16
                    ),
                    n=reps,
                )
            )
        except Exception as exc:  # no FP8 path on this device or build
            out[f"matmul_fp8_{n}_error"] = str(exc)[:200]
        del a, b
    torch.cuda.empty_cache()

    x = torch.empty(HBM_TEST_BYTES // 2, dtype=torch.bfloat16, device=dev).normal_()
    y = torch.empty_like(x)  # 2. HBM: a copy (read + write) and a read-only reduction
    out["copy_bytes_moved_per_s"] = 2 * x.numel() * 2 / bench(lambda x=x, y=y: y.copy_(x))
    out["read_bytes_per_s"] = x.numel() * 2 / bench(lambda x=x: x.sum(dtype=torch.float32))
    del x, y
    torch.cuda.empty_cache()

    # 3. decode-shaped steps: every Llama-3-8B weight matrix times a batch of B vectors
    h, ffn, kv, vocab, layers = 4096, 14336, 1024, 128256, 32
    shapes = [(h, h), (h, kv), (h, kv), (h, h), (h, ffn), (h, ffn), (ffn, h)]
    mats = [
        [torch.randn(k, m, device=dev, dtype=torch.bfloat16) for k, m in shapes]
        for _ in range(layers)
    ]
    head = torch.randn(h, vocab, device=dev, dtype=torch.bfloat16)
    params = layers * sum(k * m for k, m in shapes) + h * vocab
    out["decode_params"], out["decode_weight_bytes"] = params, 2 * params
    for batch in (1, 8, 32, 64, 128, 256, 512, 1024, 2048):
        xin = torch.randn(batch, h, device=dev, dtype=torch.bfloat16)
        xf = torch.randn(batch, ffn, device=dev, dtype=torch.bfloat16)

        def step(xin=xin, xf=xf):
            for layer in mats:
                for w in layer:
                    (xf if w.shape[0] == ffn else xin) @ w
            xin @ head

        t = bench(step, n=10, warm=3)
        out[f"decode_step_s_B{batch}"] = t
        out[f"decode_flops_B{batch}"] = 2 * params * batch / t
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the records file to write (TOML)")
    parser.add_argument(
        "--json", help="write the raw measurements here (default: OUT with the suffix .json)"
    )
    parser.add_argument(
        "--from-json",
        metavar="FILE",
        help="convert an earlier run's JSON instead of measuring (no GPU)",
    )
    parser.add_argument(
        "--record",
        help="the record to add the figures to (default: the "
        "shipped record the device is, else a new one)",
    )
    parser.add_argument(
        "--date", help="the day of the measurement (default: the JSON's 'date', else today)"
    )
    args = parser.parse_args(argv)
    data = None if args.from_json else measure()
    if data is not None:  # keep the measurements, whatever happens next
        raw = Path(args.json or Path(args.out).with_suffix(".json"))
        raw.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    try:
        from napkinmath.errors import NapkinError
        from napkinmath.hardware.measured import read, records_toml
    except ImportError:
        kept = (
            ""
            if data is None
            else (
                f"; the measurements are in {raw}: convert them where it is, with python "
                f"tools/measure_gpu.py {args.out} --from-json {raw.name}"
            )
        )
        print(
            f"measure_gpu.py: napkinmath is not installed here (pip install -e .){kept}",
            file=sys.stderr,
        )
        return 2
    try:
        if data is None:
            data = read(args.from_json)
        date = args.date or str(data.get("date") or datetime.date.today().isoformat())
        where = Path(args.from_json or raw).name
        text = records_toml(data, date=date, record=args.record, where=where)
    except NapkinError as exc:
        print(f"measure_gpu.py: {exc}", file=sys.stderr)
        return 2
    Path(args.out).write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
