"""A model record from a local Hugging Face ``config.json`` (never the network).

    napkin solve weight_memory --model ./config.json
    nm.solve("kv_bytes_per_token", model="./config.json")

The file is read bounded (`MAX_CONFIG_BYTES`), parsed by the json module alone (a key twice
in one object, NaN and Infinity are refused), and its shapes become a record of kind "model"
with the keys of ``hardware/models.toml``; each value says which config field it came from
and is labelled "your config FILE". The parameter counts are summed from the matrix shapes,
per architecture (Hugging Face transformers' modeling files name each matrix):

    attention (GQA)   hidden·(heads·head_dim) + 2·hidden·(kv_heads·head_dim)
                      + (heads·head_dim)·hidden                      q, k, v, o
    MLA (DeepSeek)    hidden·q_lora + q_lora·heads·(nope+rope)       q_a, q_b (no q_lora_rank:
                                                                      hidden·heads·(nope+rope))
                      + hidden·(kv_lora+rope) + kv_lora·heads·(nope+v_dim)   kv_a, kv_b
                      + heads·v_dim·hidden + q_lora + kv_lora         o, the two latent norms
    SwiGLU MLP        3·hidden·ffn                                    gate, up, down
    GPT MLP           2·hidden·ffn + ffn + hidden                     up, down and their biases
    MoE layer         experts·3·hidden·moe_ffn + hidden·experts       experts and router
                      + shared·3·hidden·moe_ffn                       shared experts (DeepSeek)
    norms             hidden per RMSNorm weight; 2·hidden per LayerNorm (weight and bias)
    embeddings        vocab·hidden, twice unless tie_word_embeddings

Per family (transformers' modeling_<type>.py): Llama, Mistral, Gemma (head_dim given, the
head tied by default) have no biases; Qwen2 adds q, k, v biases; Qwen3 and Qwen3-MoE a q and a
k RMSNorm of head_dim; DeepSeek-V3 (topk_method noaux_tc) a router bias of experts; GPT-2
learned positions n_positions·hidden and LayerNorms; GPT-NeoX a fused qkv with biases and an
untied head; Falcon a fused qkv of (heads + 2·kv_heads)·head_dim (multi_query: one KV head),
one LayerNorm per layer with parallel_attn. DeepSeek's num_nextn_predict_layers (the
multi-token-prediction module, 14B in V3's checkpoint) is left out, as the published 671B is.

The active count replaces the routed experts by top-k of them. A ``model.safetensors.index.json``
beside the config cross-checks the total: metadata.total_size over the bytes per parameter of
torch_dtype; over 1% apart is a warning note naming both counts (`crosscheck`).
Checked against the published counts in tests/test_config_json.py (Llama 3 8B 8,030,261,248;
70B 70,553,706,496; Mixtral 46.7B/12.9B; DeepSeek-V3 671B/37B; GPT-2 124,439,808; ...).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from napkinmath.errors import InputError

if TYPE_CHECKING:
    from napkinmath.hardware.records import Record

#: the largest config.json read (a published one is 1-10 kB)
MAX_CONFIG_BYTES = 1_000_000
#: the largest model.safetensors.index.json read (DeepSeek-V3's weight map is some 9 MB)
MAX_INDEX_BYTES = 32_000_000
#: bytes per parameter of each torch_dtype
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}

LLAMA_LIKE = ("llama", "mistral", "qwen2", "qwen3", "gemma")
MOE = ("mixtral", "qwen3_moe", "deepseek_v2", "deepseek_v3")
GPT = ("gpt2", "gpt_neox", "falcon")
KNOWN = (*LLAMA_LIKE, *MOE, *GPT)
#: architectures (config "architectures") of the types above, for a config without model_type
_BY_ARCHITECTURE = {
    "LlamaForCausalLM": "llama",
    "MistralForCausalLM": "mistral",
    "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3",
    "GemmaForCausalLM": "gemma",
    "MixtralForCausalLM": "mixtral",
    "Qwen3MoeForCausalLM": "qwen3_moe",
    "DeepseekV2ForCausalLM": "deepseek_v2",
    "DeepseekV3ForCausalLM": "deepseek_v3",
    "GPT2LMHeadModel": "gpt2",
    "GPTNeoXForCausalLM": "gpt_neox",
    "FalconForCausalLM": "falcon",
    "RWForCausalLM": "falcon",
}
NEEDED = (
    "model_type (one of " + ", ".join(KNOWN) + "), num_hidden_layers, hidden_size, "
    "num_attention_heads, num_key_value_heads (GQA), head_dim (when not hidden/heads), "
    "intermediate_size, vocab_size, tie_word_embeddings; for MoE num_local_experts or "
    "num_experts or n_routed_experts, num_experts_per_tok, moe_intermediate_size"
)


@dataclass
class Shapes:
    """What a record holds, with the config field each value came from."""

    model_type: str
    values: dict[str, tuple[int, str]] = field(default_factory=dict)  # key: (value, field)
    total: int = 0
    active: int = 0
    notes: list[str] = field(default_factory=list)


class _Config:
    """The config's fields, read with a clear error for a missing or mistyped one."""

    def __init__(self, data: dict, shown: str) -> None:
        self.data, self.shown = data, shown

    def int(self, *names: str, default: int | None = None, low: int | None = None) -> int:
        """The first of `names` the config holds, a whole number of at least `low` (1 for
        a size the shapes divide by, where no default is given; else 0)."""
        low = (1 if default is None else 0) if low is None else low
        for name in names:
            value = self.data.get(name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InputError(
                    f"config {self.shown}: {name} = {value!r}: expected a whole number >= {low}",
                    "model",
                )
            return value
        if default is not None:
            return default
        raise InputError(
            f"config {self.shown}: no {' or '.join(names)}; a {self.data.get('model_type')} "
            f"config needs {NEEDED}",
            "model",
        )

    def flag(self, name: str, default: bool) -> bool:
        value = self.data.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise InputError(
                f"config {self.shown}: {name} = {value!r}: expected true or false", "model"
            )
        return value


def model_type(data: dict, shown: str) -> str:
    """The config's model_type (or its architectures' one), or an InputError if unknown."""
    kind = data.get("model_type")
    if kind == "RefinedWebModel" or kind == "RefinedWeb":
        kind = "falcon"
    if kind is None:
        arches = data.get("architectures")
        if isinstance(arches, list) and arches and isinstance(arches[0], str):
            kind = _BY_ARCHITECTURE.get(arches[0])
    if kind not in KNOWN:
        said = f"model_type {kind!r}" if "model_type" in data else "no model_type"
        raise InputError(
            f"config {shown}: {said} (architectures {data.get('architectures')!r}) is not an "
            f"architecture napkinmath counts; it knows {', '.join(KNOWN)}. For another one, "
            f"write a model record (the format of hardware/models.toml) with n_layers, "
            f"hidden_size, n_heads, n_kv_heads, head_dim, ffn_size, vocab_size, params_total "
            f"and params, and give it with --records; a config needs {NEEDED}",
            "model",
        )
    return str(kind)


def shapes(data: dict, shown: str) -> Shapes:
    """The record values and the total and active parameter counts of the config `data`."""
    kind = model_type(data, shown)
    c = _Config(data, shown)
    if kind in GPT:
        return _gpt(c, kind)
    return _decoder(c, kind)


def _attention(h: int, heads: int, kv: int, d: int) -> int:
    """q, k, v, o with grouped-query heads: h·(heads·d) + 2·h·(kv·d) + (heads·d)·h."""
    return h * heads * d + 2 * h * kv * d + heads * d * h


def _decoder(c: _Config, kind: str) -> Shapes:
    """Llama-style decoders (Llama, Mistral, Qwen2/3, Gemma) and their MoE kin (Mixtral,
    Qwen3-MoE, DeepSeek-V2/V3): RMSNorm before attention and MLP, a final norm, SwiGLU."""
    s = Shapes(kind)
    v = s.values
    layers = c.int("num_hidden_layers")
    h = c.int("hidden_size")
    heads = c.int("num_attention_heads")
    vocab = c.int("vocab_size")
    tied = c.flag("tie_word_embeddings", kind == "gemma")
    v["n_layers"] = (layers, "num_hidden_layers")
    v["hidden_size"] = (h, "hidden_size")
    v["n_heads"] = (heads, "num_attention_heads")
    v["vocab_size"] = (vocab, "vocab_size")
    attention = _decoder_attention(c, kind, s, h, heads)
    per_layer = attention + 2 * h  # two RMSNorm weights
    embeddings = vocab * h * (1 if tied else 2)
    v["embedding_matrices"] = (1 if tied else 2, "tie_word_embeddings")
    v["mlp_matrices"] = (3, "hidden_act (a gated SwiGLU/GeGLU MLP: gate, up, down)")
    total = active = embeddings + h + layers * per_layer  # + final norm
    if kind not in MOE:
        ffn = c.int("intermediate_size")
        v["ffn_size"] = (ffn, "intermediate_size")
        total = active = total + layers * 3 * h * ffn
    else:
        moe_total, moe_active = _moe_parameters(c, kind, s, h, layers)
        total, active = total + moe_total, active + moe_active
    s.total, s.active = total, active
    return s


def _decoder_attention(c: _Config, kind: str, s: Shapes, h: int, heads: int) -> int:
    """A decoder layer's attention parameters: multi-head latent attention (DeepSeek-V2/V3)
    or grouped-query attention with the biases and norms of each family; the shapes read go
    into `s`."""
    v = s.values
    if kind in ("deepseek_v2", "deepseek_v3"):
        q_lora = c.int("q_lora_rank", default=0)
        kv_lora, rope = c.int("kv_lora_rank"), c.int("qk_rope_head_dim")
        nope, vd = c.int("qk_nope_head_dim"), c.int("v_head_dim")
        qk = nope + rope
        q = h * q_lora + q_lora + q_lora * heads * qk if q_lora else h * heads * qk
        attention = q + h * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + vd)
        attention += heads * vd * h
        v["kv_lora_rank"] = (kv_lora, "kv_lora_rank")
        v["qk_rope_head_dim"] = (rope, "qk_rope_head_dim")
        v["qk_nope_head_dim"] = (nope, "qk_nope_head_dim")
        v["v_head_dim"] = (vd, "v_head_dim")
        s.notes.append(
            "multi-head latent attention: the KV cache holds kv_lora_rank + qk_rope_head_dim "
            "per token per layer, so n_kv_heads and head_dim are left out"
        )
    else:
        kv = c.int("num_key_value_heads", default=heads, low=1)
        given = c.data.get("head_dim")
        d = c.int("head_dim") if given is not None else h // heads
        v["n_kv_heads"] = (
            kv,
            "num_key_value_heads"
            if "num_key_value_heads" in c.data
            else "num_attention_heads (no num_key_value_heads: one KV head per head)",
        )
        v["head_dim"] = (
            d,
            "head_dim" if given is not None else "hidden_size / num_attention_heads",
        )
        attention = _attention(h, heads, kv, d)
        if kind == "qwen2" or c.flag("attention_bias", False):
            attention += heads * d + 2 * kv * d  # q, k, v biases (Qwen2 always has them)
            if kind != "qwen2":
                attention += h  # o_proj bias (Llama's attention_bias)
        if kind in ("qwen3", "qwen3_moe"):
            attention += 2 * d  # q_norm, k_norm over head_dim
    return attention


def _moe_parameters(c: _Config, kind: str, s: Shapes, h: int, layers: int) -> tuple[int, int]:
    """The MLP parameters of an MoE decoder's layers, in all and active per token (routed
    experts, shared ones, the router, any dense layers); the shapes read go into `s`."""
    v = s.values
    total = active = 0
    experts = c.int("num_local_experts", "num_experts", "n_routed_experts")
    top = c.int("num_experts_per_tok")
    moe_ffn = c.int("moe_intermediate_size") if kind != "mixtral" else c.int("intermediate_size")
    shared = c.int("n_shared_experts", default=0)
    dense_layers = _dense_layers(c, kind, layers)
    moe_layers = layers - dense_layers
    expert = 3 * h * moe_ffn
    router = h * experts + (experts if c.data.get("topk_method") == "noaux_tc" else 0)
    moe_common = router + shared * expert
    total += moe_layers * (moe_common + experts * expert)
    active += moe_layers * (moe_common + top * expert)
    if dense_layers:
        ffn = c.int("intermediate_size")
        v["ffn_size"] = (ffn, "intermediate_size (the dense layers' MLP)")
        total += dense_layers * 3 * h * ffn
        active += dense_layers * 3 * h * ffn
    v["n_experts"] = (
        experts,
        _which(c, "num_local_experts", "num_experts", "n_routed_experts"),
    )
    v["experts_per_token"] = (top, "num_experts_per_tok")
    v["moe_ffn_size"] = (
        moe_ffn,
        "moe_intermediate_size" if kind != "mixtral" else "intermediate_size (each expert's width)",
    )
    v["n_moe_layers"] = (
        moe_layers,
        "num_hidden_layers - first_k_dense_replace"
        if dense_layers
        else "num_hidden_layers (every layer is MoE)",
    )
    if shared:
        s.notes.append(f"{shared} shared expert(s) per MoE layer, counted as active")
    mtp = c.int("num_nextn_predict_layers", default=0)
    if mtp:
        s.notes.append(
            f"num_nextn_predict_layers = {mtp}: the multi-token-prediction module(s) "
            "are excluded (used for speculative decoding only), as in the published "
            "671B; the checkpoint holds them too"
        )
    return total, active


def _which(c: _Config, *names: str) -> str:
    return next(n for n in names if c.data.get(n) is not None)


def _dense_layers(c: _Config, kind: str, layers: int) -> int:
    """Layers with a dense MLP in an MoE model: DeepSeek's first_k_dense_replace, Qwen3-MoE's
    mlp_only_layers (only decoder_sparse_step 1 is supported)."""
    if kind in ("deepseek_v2", "deepseek_v3"):
        if c.int("moe_layer_freq", default=1) != 1:
            raise InputError(
                f"config {c.shown}: moe_layer_freq other than 1 is not supported", "model"
            )
        return c.int("first_k_dense_replace", default=0)
    if kind == "qwen3_moe":
        only = c.data.get("mlp_only_layers") or []
        if c.int("decoder_sparse_step", default=1) != 1 or not isinstance(only, list):
            raise InputError(
                f"config {c.shown}: decoder_sparse_step other than 1 is not supported", "model"
            )
        return len(only)
    return 0


def _gpt(c: _Config, kind: str) -> Shapes:
    """GPT-2 (learned positions, LayerNorms, biased 2-matrix MLP, tied head), GPT-NeoX
    (rotary, untied head) and Falcon (multi-query or grouped heads, parallel attention)."""
    s = Shapes(kind)
    v = s.values
    layers = c.int("num_hidden_layers", "n_layer")
    h = c.int("hidden_size", "n_embd")
    heads = c.int("num_attention_heads", "n_head")
    vocab = c.int("vocab_size")
    d = h // heads
    v["n_layers"] = (layers, _which(c, "num_hidden_layers", "n_layer"))
    v["hidden_size"] = (h, _which(c, "hidden_size", "n_embd"))
    v["n_heads"] = (heads, _which(c, "num_attention_heads", "n_head"))
    v["vocab_size"] = (vocab, "vocab_size")
    v["head_dim"] = (d, "hidden_size / num_attention_heads")
    v["mlp_matrices"] = (2, "a plain (GELU) MLP: up and down projections")
    if kind == "gpt2":
        ffn = c.int("n_inner", default=4 * h)
        kv = heads
        tied = c.flag("tie_word_embeddings", True)
        attention = h * 3 * h + 3 * h + h * h + h  # c_attn, c_proj with biases
        mlp = 2 * h * ffn + ffn + h  # c_fc, c_proj with biases
        per_layer = attention + mlp + 2 * 2 * h  # ln_1, ln_2
        extra = c.int("n_positions") * h + 2 * h  # wpe, ln_f
        ffn_field = "n_inner" if c.data.get("n_inner") is not None else "4 x n_embd (n_inner null)"
    elif kind == "gpt_neox":
        ffn = c.int("intermediate_size")
        kv = heads
        tied = c.flag("tie_word_embeddings", False)
        attention = h * 3 * h + 3 * h + h * h + h  # query_key_value, dense
        mlp = 2 * h * ffn + ffn + h
        per_layer = attention + mlp + 2 * 2 * h
        extra = 2 * h  # final_layer_norm
        ffn_field = "intermediate_size"
    else:  # falcon
        ffn = c.int("ffn_hidden_size", default=4 * h)
        new = c.flag("new_decoder_architecture", False)
        if new:
            kv = c.int("num_kv_heads", default=heads, low=1)
        else:
            kv = 1 if c.flag("multi_query", True) else heads
        bias = c.flag("bias", False)
        tied = c.flag("tie_word_embeddings", True)
        attention = h * (heads + 2 * kv) * d + h * h
        mlp = 2 * h * ffn
        if bias:
            attention += (heads + 2 * kv) * d + h
            mlp += ffn + h
        norms = 2 if new or not c.flag("parallel_attn", True) else 1
        per_layer = attention + mlp + norms * 2 * h
        extra = 2 * h  # ln_f
        ffn_field = "ffn_hidden_size" if c.data.get("ffn_hidden_size") else "4 x hidden_size"
    v["n_kv_heads"] = (
        kv,
        "multi_query / num_kv_heads"
        if kind == "falcon"
        else "num_attention_heads (multi-head attention)",
    )
    v["ffn_size"] = (ffn, ffn_field)
    v["embedding_matrices"] = (1 if tied else 2, "tie_word_embeddings")
    s.total = s.active = vocab * h * (1 if tied else 2) + layers * per_layer + extra
    return s


# --- reading the file and its index -------------------------------------------------------
def is_config_path(name: object) -> bool:
    """Whether a model name is the path of a JSON config (it ends in .json)."""
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    return isinstance(name, str) and name.strip().lower().endswith(".json")


def read_json(path: str, shown: str, noun: str, limit: int) -> dict:
    """The JSON object in `path`: bounded, duplicate keys, NaN and Infinity refused."""
    from napkinmath.files import read_document

    document = read_document(
        path,
        noun=noun,
        limit=limit,
        shown=shown,
        kind="json",
        rule=f"a {noun} is read only from a regular file",
    )
    _finite(document.data, shown)
    return document.data


def _finite(value: object, shown: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{shown}: not valid JSON: NaN or Infinity is no JSON number", "model")
    if isinstance(value, dict):
        for item in value.values():
            _finite(item, shown)
    elif isinstance(value, list):
        for item in value:
            _finite(item, shown)


def crosscheck(path: str, data: dict, total: int, shown: str) -> str | None:
    """A warning when model.safetensors.index.json beside `path` holds a parameter count
    (metadata.total_size / bytes of torch_dtype) more than 1% from `total`; None otherwise
    (no index, no total_size, a quantized checkpoint or an unknown dtype: nothing to check)."""
    index = os.path.join(os.path.dirname(path), "model.safetensors.index.json")
    if not os.path.isfile(index):
        return None
    index_shown = os.path.join(os.path.dirname(shown), "model.safetensors.index.json")
    meta = read_json(index, index_shown, "safetensors index", MAX_INDEX_BYTES).get("metadata")
    size = meta.get("total_size") if isinstance(meta, dict) else None
    dtype = data.get("torch_dtype") or data.get("dtype")
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        return None
    if "quantization_config" in data or not isinstance(dtype, str) or dtype not in DTYPE_BYTES:
        return None
    if total <= 0:
        return None
    found = size // DTYPE_BYTES[dtype]
    if abs(found - total) <= 0.01 * total:
        return None
    return (
        f"{index_shown} holds {size:,} bytes of {dtype}, {found:,} parameters, but the "
        f"config's shapes give {total:,} ({(found - total) / total:+.1%}): the checkpoint "
        "may hold extra weights (an untied copy of a tied head, a multi-token-prediction "
        "module) or a different dtype; the shapes' count is used"
    )


def load(path: str, shown: str) -> tuple[Record, str | None]:
    """The model record of the config at `path` (its id `shown`), and the cross-check's
    warning (`crosscheck`), if any."""
    from napkinmath.hardware.records import Record, Value

    try:
        data = read_json(path, shown, "config file", MAX_CONFIG_BYTES)
    except InputError as exc:
        raise InputError(
            f"{exc}; model= (--model) takes a model record's name or the path of a Hugging "
            "Face config.json",
            "model",
        ) from None
    found = shapes(data, shown)
    source = f"your config {shown}"
    values = {
        key: Value(key, str(value), source, "", qualifier=where)
        for key, (value, where) in found.values.items()
    }
    notes = list(found.notes)
    warning = crosscheck(path, data, found.total, shown)
    if warning:
        notes.append("WARNING: " + warning)
    counted = "summed from the config's matrix shapes"
    values["params_total"] = Value(
        "params_total",
        f"{found.total} param",
        source,
        "",
        qualifier=f"{found.total:,}, {counted}",
    )
    active = (
        "every parameter is active (dense)"
        if found.total == found.active
        else ("the routed experts replaced by top-k of them")
    )
    values["params"] = Value(
        "params",
        f"{found.active} param",
        source,
        "",
        qualifier=f"{found.active:,} active per token: {active}",
    )
    arches = data.get("architectures")
    arch = arches[0] if isinstance(arches, list) and arches and isinstance(arches[0], str) else ""
    return Record(
        id=shown,
        name=f"{arch or found.model_type} from {shown}",
        kind="model",
        values=values,
        note="; ".join(notes),
        origin=shown,
    ), warning
