"""napkinmath's aggregated serving model beside NVIDIA's aiconfigurator, on the same questions.

    python tools/compare_aiconfigurator.py                       # every case, SOL and SILICON
    python tools/compare_aiconfigurator.py --aiconfigurator /path/to/venv/bin/aiconfigurator

aiconfigurator (`pip install aiconfigurator`, 0.12; large, so not in napkinmath's extras)
runs offline from a local config.json. For each case this writes the model's config.json
(transcribed from the model's published config, as hardware/models.toml records it), asks
aiconfigurator for its best aggregated configurations (``--serving-mode agg``) in its
speed-of-light mode (``--database-mode SOL``: every operator at max(compute, memory) on the
datasheet figures) and its measured one (SILICON: kernel tables measured on the GPU), and
asks napkinmath for the same configuration (tensor-parallel size and batch):
``serving_output_rate_per_gpu``, ``serving_tpot`` and ``serving_ttft``, with every
efficiency at 1 (the datasheet peaks: `SPEED_OF_LIGHT`) beside SOL and as it forecasts by
default (the record's measured matmul FLOP/s and HBM bandwidth, the measured decode weight
read rate, NCCL's bus bandwidth) beside SILICON. Then napkinmath's own optimum over the same
tensor-parallel sizes and batches under the same limits. Then the same for disaggregated
serving (``--serving-mode disagg``: prefill and decode workers, ``disagg_*`` in napkinmath),
unless ``--no-disagg``. Prints Markdown (docs/serving.md holds a run).

aiconfigurator's TTFT multiplies the prefill step by a queueing factor (up to 4) and its
TPOT leaves out three of the mixed steps (a TensorRT-LLM correction); napkinmath's
serving_ttft is the prefill steps before any wait for a slot (the wait is
time_in_queue_quantile), so TTFTs are compared as the mixed step, and throughput per GPU is
the figure both rank by.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: the speed of light: each rate the serving step reaches at its datasheet figure
SPEED_OF_LIGHT = {
    "compute_efficiency": 1,
    "memory_efficiency": 1,
    "decode_weight_read_efficiency": 1,
    "nvlink_collective_efficiency": 1,
}

#: config.json fields of the models the cases use (Hugging Face hub, as hardware/models.toml)
CONFIGS: dict[str, dict[str, object]] = {
    "qwen3-32b": {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "hidden_size": 5120,
        "intermediate_size": 25600,
        "num_hidden_layers": 64,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 151936,
        "max_position_embeddings": 40960,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "hidden_act": "silu",
    },
    "llama-3-70b": {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "hidden_act": "silu",
    },
    "qwen3-235b-a22b": {
        "architectures": ["Qwen3MoeForCausalLM"],
        "model_type": "qwen3_moe",
        "hidden_size": 4096,
        "intermediate_size": 12288,
        "moe_intermediate_size": 1536,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "num_hidden_layers": 94,
        "num_attention_heads": 64,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "vocab_size": 151936,
        "max_position_embeddings": 40960,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "hidden_act": "silu",
    },
}


@dataclass(frozen=True)
class Case:
    """One question: a model on a system, the traffic's lengths and the latency limits."""

    title: str
    model: str
    system: str  # aiconfigurator's system name
    gpu: str  # napkinmath's record
    gpus: int
    isl: int
    osl: int
    ttft_ms: float
    tpot_ms: float


CASES = (
    Case(
        "Qwen3-32B on 8 H200 (aiconfigurator's example)",
        "qwen3-32b",
        "h200_sxm",
        "H200",
        8,
        4000,
        500,
        2000,
        30,
    ),
    Case("Llama 3.3 70B on 8 H100", "llama-3-70b", "h100_sxm", "H100-SXM", 8, 2048, 256, 1000, 40),
    Case(
        "Qwen3-235B-A22B (MoE) on 8 H200",
        "qwen3-235b-a22b",
        "h200_sxm",
        "H200",
        8,
        4000,
        500,
        2000,
        50,
    ),
    Case(
        "Qwen3-32B, 32k prompts, on 8 H200",
        "qwen3-32b",
        "h200_sxm",
        "H200",
        8,
        32000,
        1000,
        10000,
        60,
    ),
)
TP_SIZES = (1, 2, 4, 8)
#: the batch sizes aiconfigurator's agg sweep tries (its sweep.py), up to 512
BATCHES = (
    1,
    2,
    4,
    8,
    16,
    24,
    32,
    40,
    48,
    56,
    64,
    72,
    80,
    96,
    112,
    128,
    144,
    160,
    176,
    192,
    208,
    224,
    240,
    256,
    288,
    320,
    352,
    384,
    416,
    448,
    480,
    512,
)


@dataclass(frozen=True)
class Row:
    """One aggregated configuration as aiconfigurator ranks it."""

    per_gpu: float
    per_user: float
    ttft_ms: float
    tp: int
    dp: int
    batch: int

    @property
    def tpot_ms(self) -> float:
        return 1000 / self.per_user


@dataclass(frozen=True)
class DisaggRow:
    """One disaggregated configuration as aiconfigurator ranks it: per replica, its prefill
    workers (each `p_tp` GPUs at batch `p_batch`) and decode workers (`d_tp` at `d_batch`)."""

    per_gpu: float
    per_user: float
    ttft_ms: float
    p_workers: int
    p_tp: int
    p_batch: int
    d_workers: int
    d_tp: int
    d_batch: int

    @property
    def tpot_ms(self) -> float:
        return 1000 / self.per_user


def parse_disagg_rows(text: str) -> list[DisaggRow]:
    """The rows of aiconfigurator's 'disagg Top Configurations' table whose workers are plain
    tensor-parallel groups (no attention data parallelism, no pipeline)."""
    rows: list[DisaggRow] = []
    for line in text.partition("disagg Top Configurations")[2].splitlines()[1:]:
        line = line.strip()
        if not line.startswith(("|", "+")):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 19 or not cells[0].isdigit():
            continue
        p_par, d_par = (re.fullmatch(r"tp(\d+)pp1", c) for c in (cells[13], cells[17]))
        if p_par is None or d_par is None:
            continue
        rows.append(
            DisaggRow(
                per_gpu=float(cells[2]),
                per_user=float(cells[3]),
                ttft_ms=float(cells[5]),
                p_workers=int(cells[11]),
                p_tp=int(p_par.group(1)),
                p_batch=int(cells[14]),
                d_workers=int(cells[15]),
                d_tp=int(d_par.group(1)),
                d_batch=int(cells[18]),
            )
        )
    return rows


def run_aiconfigurator(exe: str, case: Case, mode: str, folder: Path) -> list[Row]:
    """aiconfigurator's agg configurations for `case` in `mode` (SOL or SILICON)."""
    return parse_rows(_search(exe, case, mode, folder, "agg"))


def run_disaggregated(exe: str, case: Case, mode: str, folder: Path) -> list[DisaggRow]:
    """aiconfigurator's disagg configurations for `case` in `mode` (SOL or SILICON)."""
    return parse_disagg_rows(_search(exe, case, mode, folder, "disagg"))


def _search(exe: str, case: Case, mode: str, folder: Path, serving: str) -> str:
    """aiconfigurator's printed search of `case` in `mode` for the `serving` architecture."""
    model_dir = folder / case.model
    model_dir.mkdir(exist_ok=True)
    (model_dir / "config.json").write_text(json.dumps(CONFIGS[case.model]))
    command = [
        exe,
        "cli",
        "default",
        "--model-path",
        f"{model_dir}/",
        "--total-gpus",
        str(case.gpus),
        "--system",
        case.system,
        "--isl",
        str(case.isl),
        "--osl",
        str(case.osl),
        "--ttft",
        str(case.ttft_ms),
        "--tpot",
        str(case.tpot_ms),
        "--serving-mode",
        serving,
        "--database-mode",
        mode,
        "--top-n",
        "8",
        "--no-color",
    ]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=folder)
    return out.stdout


def parse_rows(text: str) -> list[Row]:
    """The rows of aiconfigurator's 'agg Top Configurations' table (it ends at the first line
    that is not part of a table)."""
    rows: list[Row] = []
    for line in text.partition("agg Top Configurations")[2].splitlines()[1:]:
        line = line.strip()
        if not line.startswith(("|", "+")):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        parallel = re.match(r"tp(\d+)pp(\d+)(?:dp(\d+))?", cells[12]) if len(cells) > 13 else None
        if not cells[0].isdigit() or parallel is None:
            continue
        rows.append(
            Row(
                per_gpu=float(cells[2]),
                per_user=float(cells[3]),
                ttft_ms=float(cells[5]),
                tp=int(parallel.group(1)),
                dp=int(parallel.group(3) or 1),
                batch=int(cells[13]),
            )
        )
    return rows


def napkin_row(case: Case, tp: int, batch: int, ideal: bool) -> dict[str, float] | None:
    """napkinmath's busy replica at `tp` and `batch` (`ideal`: at the speed of light), or
    None when it refuses."""
    import napkinmath as nm

    try:
        r = nm.solve(
            ["serving_output_rate_per_gpu", "serving_tpot", "serving_mixed_step_time"],
            model=case.model,
            gpu=case.gpu,
            n_gpus=tp,
            batch_size=batch,
            prompt_len=case.isl,
            output_len=case.osl,
            **(SPEED_OF_LIGHT if ideal else {}),
        )
    except nm.NapkinError:
        return None
    return {
        "per_gpu": r["serving_output_rate_per_gpu"].m_as("token/(s*GPU)"),
        "tpot_ms": r["serving_tpot"].m_as("ms*sequence/token"),
        "mixed_ms": r["serving_mixed_step_time"].m_as("ms"),
    }


def napkin_best(case: Case, ideal: bool) -> tuple[int, int, float] | None:
    """napkinmath's best (tp, batch, tokens/s/GPU) under the case's limits."""
    import napkinmath as nm

    o = nm.optimize(
        "serving_output_rate_per_gpu",
        maximize=True,
        over={"n_gpus": list(TP_SIZES), "batch_size": list(BATCHES)},
        require=[
            f"serving_tpot <= {case.tpot_ms} ms*sequence/token",
            f"serving_ttft <= {case.ttft_ms} ms",
        ],
        model=case.model,
        gpu=case.gpu,
        prompt_len=case.isl,
        output_len=case.osl,
        **(SPEED_OF_LIGHT if ideal else {}),
    )
    if o.best is None:
        return None
    point = o.best_candidate.point
    return (int(point["n_gpus"]), int(point["batch_size"]), o.best.value.m_as("token/(s*GPU)"))


def napkin_disagg_row(case: Case, row: DisaggRow, ideal: bool) -> dict[str, float] | None:
    """napkinmath's disaggregated fleet in `row`'s layout, or None when it refuses."""
    import napkinmath as nm

    try:
        r = nm.solve(
            ["disagg_output_rate_per_gpu", "disagg_tpot", "disagg_ttft"],
            model=case.model,
            gpu=case.gpu,
            prefill_workers=row.p_workers,
            prefill_worker_gpus=row.p_tp,
            prefill_sequences=row.p_batch,
            decode_workers=row.d_workers,
            n_gpus=row.d_tp,
            batch_size=row.d_batch,
            prompt_len=case.isl,
            output_len=case.osl,
            **(SPEED_OF_LIGHT if ideal else {}),
        )
    except nm.NapkinError:
        return None
    return {
        "per_gpu": r["disagg_output_rate_per_gpu"].m_as("token/(s*GPU)"),
        "tpot_ms": r["disagg_tpot"].m_as("ms*sequence/token"),
        "ttft_ms": r["disagg_ttft"].m_as("ms"),
    }


def napkin_disagg_best(case: Case, ideal: bool) -> tuple[dict[str, int], float] | None:
    """napkinmath's best disaggregated layout (its decisions, tokens/s/GPU) in the case's
    GPUs under its limits: prompts prefilled one at a time, as aiconfigurator's best do."""
    import napkinmath as nm

    o = nm.optimize(
        "disagg_output_rate_per_gpu",
        maximize=True,
        over={
            "prefill_workers": list(range(1, case.gpus + 1)),
            "prefill_worker_gpus": [t for t in TP_SIZES if t < case.gpus],
            "decode_workers": [1, 2, 4],
            "n_gpus": [t for t in TP_SIZES if t < case.gpus],
            "batch_size": [b for b in BATCHES if b >= 8],
        },
        require=[
            f"disagg_tpot <= {case.tpot_ms} ms*sequence/token",
            f"disagg_ttft <= {case.ttft_ms} ms",
            f"disagg_gpus <= {case.gpus} GPU",
        ],
        model=case.model,
        gpu=case.gpu,
        prompt_len=case.isl,
        output_len=case.osl,
        **(SPEED_OF_LIGHT if ideal else {}),
    )
    if o.best is None:
        return None
    point = {k: int(v) for k, v in o.best_candidate.point.items()}
    return point, o.best.value.m_as("token/(s*GPU)")


def disagg_report(case: Case, mode: str, rows: list[DisaggRow]) -> list[str]:
    ideal = mode == "SOL"
    lines = [
        f"### {case.title}, disaggregated: aiconfigurator {mode} beside napkinmath "
        f"at its {'speed of light' if ideal else 'forecast'}",
        "",
        "| prefill workers × tp, batch | decode workers × tp, batch | tokens/s/GPU theirs | ours "
        "| Δ | TPOT ms theirs | ours | Δ | TTFT ms theirs | ours |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        ours = napkin_disagg_row(case, row, ideal)
        layout = (
            f"| {row.p_workers} × tp{row.p_tp}, {row.p_batch} "
            f"| {row.d_workers} × tp{row.d_tp}, {row.d_batch} "
        )
        if ours is None:
            lines.append(f"{layout}| {row.per_gpu:,.1f} | refused | | | | | | |")
            continue
        lines.append(
            f"{layout}| {row.per_gpu:,.1f} | {ours['per_gpu']:,.1f} | "
            f"{_pct(ours['per_gpu'], row.per_gpu)} | {row.tpot_ms:.2f} | {ours['tpot_ms']:.2f} | "
            f"{_pct(ours['tpot_ms'], row.tpot_ms)} | {row.ttft_ms:,.1f} | {ours['ttft_ms']:,.1f} |"
        )
    best = napkin_disagg_best(case, ideal)
    theirs = max(rows, key=lambda r: r.per_gpu, default=None)
    lines.append("")
    if best is not None:
        p = best[0]
        lines.append(
            f"napkinmath's best: {p['prefill_workers']} × tp{p['prefill_worker_gpus']} prefill, "
            f"{p['decode_workers']} × tp{p['n_gpus']} decode at batch {p['batch_size']}, "
            f"{best[1]:,.1f} tokens/s/GPU"
            + (f" ({_pct(best[1], theirs.per_gpu)} on theirs)." if theirs else ".")
        )
    lines.append("")
    return lines


def _pct(ours: float, theirs: float) -> str:
    return f"{100 * (ours / theirs - 1):+.1f}%"


def report(case: Case, mode: str, rows: list[Row]) -> list[str]:
    ideal = mode == "SOL"
    ours_label = "speed of light" if ideal else "forecast"
    lines = [
        f"### {case.title}: aiconfigurator {mode} beside napkinmath at its {ours_label}",
        "",
        f"{case.isl} prompt and {case.osl} output tokens, TTFT ≤ {case.ttft_ms:g} ms, "
        f"TPOT ≤ {case.tpot_ms:g} ms, {case.gpus} GPUs.",
        "",
        "| tp | batch | tokens/s/GPU theirs | ours | Δ | TPOT ms theirs | ours | Δ "
        "| TTFT ms theirs | our mixed step ms |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        if row.dp != 1:  # attention data parallelism: a layout napkinmath does not model
            continue
        ours = napkin_row(case, row.tp, row.batch, ideal)
        if ours is None:
            lines.append(f"| {row.tp} | {row.batch} | {row.per_gpu:,.1f} | refused | | | | | |")
            continue
        lines.append(
            f"| {row.tp} | {row.batch} | {row.per_gpu:,.1f} | {ours['per_gpu']:,.1f} | "
            f"{_pct(ours['per_gpu'], row.per_gpu)} | {row.tpot_ms:.2f} | "
            f"{ours['tpot_ms']:.2f} | {_pct(ours['tpot_ms'], row.tpot_ms)} | "
            f"{row.ttft_ms:,.1f} | {ours['mixed_ms']:,.1f} |"
        )
    theirs = max((r for r in rows), key=lambda r: r.per_gpu, default=None)
    best = napkin_best(case, ideal)
    lines.append("")
    if theirs is not None:
        lines.append(
            f"Best: aiconfigurator tp{theirs.tp}"
            f"{f' (attention dp{theirs.dp})' if theirs.dp > 1 else ''} batch {theirs.batch}, "
            f"{theirs.per_gpu:,.1f} tokens/s/GPU"
            + (
                f"; napkinmath tp{best[0]} batch {best[1]}, {best[2]:,.1f} tokens/s/GPU "
                f"({_pct(best[2], theirs.per_gpu)})."
                if best
                else "; napkinmath: no configuration meets the limits."
            )
        )
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aiconfigurator", default=shutil.which("aiconfigurator"))
    parser.add_argument("--modes", default="SOL,SILICON")
    parser.add_argument(
        "--no-disagg", dest="disagg", action="store_false", help="the aggregated search only"
    )
    args = parser.parse_args(argv)
    if not args.aiconfigurator:
        print("aiconfigurator is not installed: pip install aiconfigurator", file=sys.stderr)
        return 2
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            for mode in args.modes.split(","):
                rows = run_aiconfigurator(args.aiconfigurator, case, mode, Path(tmp))
                out.extend(report(case, mode, rows))
                if args.disagg:
                    found = run_disaggregated(args.aiconfigurator, case, mode, Path(tmp))
                    out.extend(disagg_report(case, mode, found))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
