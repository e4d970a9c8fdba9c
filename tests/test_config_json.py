"""Models from a Hugging Face config.json (`napkinmath.hardware.config_json`): model="path".

The fixtures (tests/fixtures/hf/*/config.json) were written for these tests in the published
format, with the published field values. Published counts asserted:
  Llama 3 8B 8,030,261,248 and 70B 70,553,706,496 (Meta's configs; the shipped records);
  Mistral 7B 7,241,732,096 ("7.24B"); Qwen2-7B 7.62B (7,615,616,512 from the shapes, q/k/v
  biases included); Gemma 7B 8.54B (head_dim 256 ≠ 3072/16; tied); GPT-2 124,439,808 (tied,
  learned positions, biases); Pythia-1.4B 1,414,647,808 (GPT-NeoX, untied; Biderman et al.
  2023); Falcon-7B "7B" on its model card (the shapes: 6,921,720,704; multi-query, tied);
  Gemma 7B: the report's 786,432,000 embedding + 7,751,248,896 other; Mixtral 46.7B / 12.9B;
  Qwen3-235B-A22B 235B / 22B; DeepSeek-V3 671B / 37B (the MTP module excluded).
KV bytes per token by hand, bf16: 2 · layers · kv_heads · head_dim · 2 B; Llama 3 8B:
  2·32·8·128·2 = 131,072; 70B: 2·80·8·128·2 = 327,680; Gemma: 2·28·16·256·2 = 458,752;
  Falcon (one KV head): 2·32·1·64·2 = 8,192; GPT-2: 2·12·12·64·2 = 36,864;
  DeepSeek-V3 (MLA): (512 + 64)·61·2 = 70,272.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath.errors import InputError

HF = Path(__file__).parent / "fixtures" / "hf"
REL = "tests/fixtures/hf"

#: model: (total, active, KV bytes per token, published total, published active)
PUBLISHED = {
    "llama-3-8b": (8_030_261_248, 8_030_261_248, 131_072, 8.03e9, 8.03e9),
    "llama-3-70b": (70_553_706_496, 70_553_706_496, 327_680, 70.6e9, 70.6e9),
    "mistral-7b": (7_241_732_096, 7_241_732_096, 2 * 32 * 8 * 128 * 2, 7.24e9, 7.24e9),
    "qwen2-7b": (7_615_616_512, 7_615_616_512, 2 * 28 * 4 * 128 * 2, 7.62e9, 7.62e9),
    "gemma-7b": (8_537_680_896, 8_537_680_896, 458_752, 8.54e9, 8.54e9),
    "gpt2": (124_439_808, 124_439_808, 36_864, 124e6, 124e6),
    "pythia-1.4b": (1_414_647_808, 1_414_647_808, 2 * 24 * 16 * 128 * 2, 1.41e9, 1.41e9),
    "falcon-7b": (6_921_720_704, 6_921_720_704, 8_192, 7e9, 7e9),  # the card's "7B"
    "mixtral-8x7b": (46_702_792_704, 12_879_925_248, 131_072, 46.7e9, 12.9e9),
    "qwen3-235b-a22b": (235_093_634_560, 22_190_763_520, 2 * 94 * 4 * 128 * 2, 235e9, 22e9),
    "deepseek-v3": (671_026_419_200, 37_552_297_472, 70_272, 671e9, 37e9),
}


def config(model: str) -> str:
    return f"{REL}/{model}/config.json"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(Path(__file__).parent.parent)


@pytest.mark.parametrize("model", sorted(PUBLISHED))
def test_counts_equal_the_published_ones(model):
    total, active, kv, published_total, published_active = PUBLISHED[model]
    r = nm.solve("weight_memory", model=config(model), weight_bytes_per_param="2 B/param")
    assert r.givens["params_total"].quantity.to("param").magnitude == total
    assert r.value.to("B").magnitude == pytest.approx(2 * total, rel=1e-12)
    assert "your config " + config(model) in r.givens["params_total"].note
    assert total == pytest.approx(published_total, rel=0.012 if model == "falcon-7b" else 0.005)
    flops = nm.solve("inference_flop_per_token", model=config(model))
    assert flops.givens["params"].quantity.to("param").magnitude == active
    assert flops.value.to("FLOP/token").magnitude == pytest.approx(2 * active)  # 2N per token
    # published actives are rounded: Qwen3's 22B (22.19e9), DeepSeek-V3's 37B (the shapes
    # give 37.55e9, both embedding matrices counted)
    rel = {"qwen3-235b-a22b": 0.01, "deepseek-v3": 0.016, "falcon-7b": 0.012}.get(model, 0.005)
    assert active == pytest.approx(published_active, rel=rel)
    kv_bytes = nm.solve("kv_bytes_per_token", model=config(model), kv_bytes_per_element="2 B/token")
    assert kv_bytes.value.to("B/token").magnitude == kv


def test_deepseek_v3_excludes_the_mtp_module_and_says_so(napkin):
    status, out, _ = napkin("hardware", config("deepseek-v3"))
    assert status == 0
    assert "num_nextn_predict_layers = 1" in out and "excluded" in out
    assert "  n_kv_heads =" not in out and "kv_lora_rank = 512" in out
    assert "first_k_dense_replace" in out  # n_moe_layers = 58 says where it came from
    assert "n_moe_layers = 58" in out and "ffn_size = 18,432" in out


def test_gemma_head_dim_differs_from_hidden_over_heads():
    r = nm.solve("kv_bytes_per_token", model=config("gemma-7b"))
    assert r.givens["head_dim"].quantity.magnitude == 256 != 3072 // 16
    r = nm.solve("embedding_params", model=config("gemma-7b"))
    assert r.givens["embedding_matrices"].quantity.magnitude == 1  # Gemma ties by default
    assert r.value.to("param").magnitude == 256_000 * 3072


def test_the_cli_solves_from_a_config(napkin):
    status, out, err = napkin("solve", "weight_memory", "--model", config("llama-3-8b"))
    assert status == 0, err
    assert "weight_memory = 16.06 GB" in out  # 8,030,261,248 × 2 B
    assert f"your config {config('llama-3-8b')}" in out
    status, out, _ = napkin("solve", "kv_bytes_per_token", f"model={config('mixtral-8x7b')}")
    assert status == 0 and "131,072 B/token" in out
    status, out, _ = napkin("hardware", config("gpt2"))
    assert status == 0 and "124,439,808" in out


def test_same_config_same_bytes(napkin):
    first = napkin("solve", "weight_memory", "--model", config("qwen2-7b"))
    assert napkin("solve", "weight_memory", "--model", config("qwen2-7b")) == first


def test_a_plan_names_a_config_from_its_folder(tmp_path):
    shutil.copy(HF / "llama-3-70b" / "config.json", tmp_path / "config.json")
    (tmp_path / "plan.toml").write_text(
        'title = "70B weights"\n[records]\nmodel = "config.json"\n'
        '[givens]\nweight_bytes_per_param = "2 B/param"\n'
        '[[sections]]\ntitle = "Weights"\nask = ["weight_memory"]\n',
        encoding="utf-8",
    )
    p = nm.plan(tmp_path / "plan.toml")
    assert p.answers["weight_memory"].to("B").magnitude == 2 * 70_553_706_496
    assert "your config" in p.to_text()
    (tmp_path / "out.toml").write_text(
        'title = "x"\n[records]\nmodel = "../config.json"\n'
        '[[sections]]\ntitle = "W"\nask = ["weight_memory"]\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="outside the plan file's folder"):
        nm.plan(tmp_path / "out.toml")


def test_the_shipped_records_agree_with_their_configs():
    """Layers, hidden size, heads, KV heads and parameter counts of the shipped records equal
    what the configs give (counts within 0.5%). Two shipped actives are the publishers'
    rounded figures, as their qualifiers say: Qwen3's 22e9 (the shapes: 22.19e9, 0.9% more)
    and DeepSeek-V3's 37e9 (37.55e9 with both embedding matrices, 1.5% more)."""
    for model in ("llama-3-8b", "llama-3-70b", "mixtral-8x7b", "qwen3-235b-a22b", "deepseek-v3"):
        shipped = nm.hardware.get(model).values
        mine, _ = nm.hardware.config_json.load(str(HF / model / "config.json"), model)
        keys = ("n_layers", "hidden_size", "n_heads", "n_kv_heads", "head_dim", "vocab_size")
        for key in (*keys, "n_experts", "experts_per_token", "moe_ffn_size", "n_moe_layers"):
            assert (key in shipped) == (key in mine.values), (model, key)
            if key in shipped:
                assert mine.values[key].quantity == shipped[key].quantity, (model, key)
        for key in ("params_total", "params"):
            rounded = {("deepseek-v3", "params"): 0.016, ("qwen3-235b-a22b", "params"): 0.01}
            rel = rounded.get((model, key), 0.005)
            assert mine.values[key].quantity.to("param").magnitude == pytest.approx(
                shipped[key].quantity.to("param").magnitude, rel=rel
            ), (model, key)


def test_a_safetensors_index_cross_checks_the_count(tmp_path):
    shutil.copy(HF / "llama-3-8b" / "config.json", tmp_path / "config.json")
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": 16_060_522_496}, "weight_map": {}}))
    r = nm.solve("weight_memory", model=str(tmp_path / "config.json"))
    assert not any("safetensors" in n for n in r.notes)  # 2 × 8,030,261,248 bytes: agrees
    index.write_text(json.dumps({"metadata": {"total_size": 17_000_000_000}, "weight_map": {}}))
    r = nm.solve("weight_memory", model=str(tmp_path / "config.json"))
    (note,) = [n for n in r.notes if "safetensors" in n]
    assert "8,500,000,000 parameters" in note and "8,030,261,248" in note
    assert r.givens["params_total"].quantity.to("param").magnitude == 8_030_261_248


def _bad(tmp_path: Path, text: str | bytes) -> str:
    path = tmp_path / "config.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


def test_an_unknown_architecture_lists_what_it_needs(tmp_path, napkin):
    path = _bad(
        tmp_path, json.dumps({"model_type": "mamba", "architectures": ["MambaForCausalLM"]})
    )
    with pytest.raises(InputError, match=r"model_type 'mamba'.*num_hidden_layers"):
        nm.solve("weight_memory", model=path)
    status, _, err = napkin("solve", "weight_memory", "--model", path)
    assert status == 2 and "llama" in err and "num_key_value_heads" in err


def test_bad_configs_are_input_errors(tmp_path, napkin):
    llama = json.loads((HF / "llama-3-8b" / "config.json").read_text())
    cases = {
        "malformed": ('{"model_type": "llama",', "not valid JSON"),
        "NaN": (json.dumps({**llama, "rms_norm_eps": float("nan")}), "NaN or Infinity"),
        "twice": ('{"model_type": "llama", "model_type": "llama"}', "appears twice"),
        "missing": (
            json.dumps({k: v for k, v in llama.items() if k != "hidden_size"}),
            "no hidden_size",
        ),
        "mistyped": (json.dumps({**llama, "num_hidden_layers": "32"}), "expected a whole number"),
        "large": (" " * 1_000_001 + "{}", "limited to 1,000,000"),
    }
    for name, (text, message) in cases.items():
        path = _bad(tmp_path, text)
        with pytest.raises(InputError, match=message):
            nm.solve("weight_memory", model=path)
        status, _, err = napkin("solve", "weight_memory", "--model", path)
        assert status == 2 and "internal error" not in err, name


def test_a_config_that_does_not_exist(napkin):
    with pytest.raises(InputError, match=r"no such config file: nowhere/config\.json"):
        nm.solve("weight_memory", model="nowhere/config.json")
    status, _, err = napkin("solve", "weight_memory", "--model", "nowhere/config.json")
    assert status == 2 and "nowhere/config.json" in err
    status, _, err = napkin("hardware", "nowhere/config.json")
    assert status == 2 and "nowhere/config.json" in err


def test_a_config_with_records_files_in_force(tmp_path, napkin):
    ours = tmp_path / "ours.toml"
    ours.write_text(
        '[our-gpu]\nname = "Ours"\nsource = "test"\ndate = "2026-11"\n'
        '[our-gpu.hbm_capacity]\nvalue = "100 GB/GPU"\n',
        encoding="utf-8",
    )
    r = nm.solve("weight_memory", model=config("gpt2"), records=str(ours), gpu="our-gpu")
    assert r.value.to("B").magnitude == pytest.approx(2 * 124_439_808)
    args = ("solve", "weight_memory", "--records", str(ours), "--gpu", "our-gpu")
    status, out, err = napkin(*args, "--model", config("gpt2"))
    assert status == 0, err
    assert "248.9 MB" in out


def test_a_plan_section_names_its_own_config(tmp_path):
    for model in ("llama-3-8b", "mistral-7b"):
        (tmp_path / model).mkdir()
        shutil.copy(HF / model / "config.json", tmp_path / model / "config.json")
    (tmp_path / "plan.toml").write_text(
        'title = "Two models"\n[records]\nmodel = "llama-3-8b/config.json"\n'
        '[[sections]]\ntitle = "Llama"\nask = ["weight_memory"]\n'
        '[[sections]]\ntitle = "Mistral"\nmodel = "mistral-7b/config.json"\n'
        'ask = ["inference_flop_per_token"]\n',
        encoding="utf-8",
    )
    p = nm.plan(tmp_path / "plan.toml")
    assert p.sections[0].result.value.to("B").magnitude == pytest.approx(2 * 8_030_261_248)
    flops = p.sections[1].result.value.to("FLOP/token").magnitude
    assert flops == pytest.approx(2 * 7_241_732_096)  # 2N, N the Mistral config's


#: values a mutated config.json field may take: each must answer or be an InputError
MUTATIONS = (0, -1, 1, 2**70, 0.5, "8", None, True, [], ["bfloat16", "float16"], {}, "")


def test_mutated_configs_answer_or_refuse_never_crash(tmp_path):
    """Every top-level field of three fixtures (dense, MoE, MLA) set to each of `MUTATIONS`,
    with a safetensors index beside it (issue 44: heads = 0 divided by zero, a list-valued
    torch_dtype beside an index raised TypeError): an answer or napkinmath's own error."""
    index = json.dumps({"metadata": {"total_size": 16_060_522_496}, "weight_map": {}})
    foreign: list[str] = []
    for model in ("llama-3-8b", "mixtral-8x7b", "deepseek-v3"):
        data = json.loads((HF / model / "config.json").read_text())
        for key in sorted(data):
            for i, value in enumerate(MUTATIONS):
                folder = tmp_path / f"{model}-{key}-{i}"
                folder.mkdir()
                (folder / "config.json").write_text(json.dumps({**data, key: value}))
                (folder / "model.safetensors.index.json").write_text(index)
                try:
                    nm.solve("weight_memory", model=str(folder / "config.json"))
                except nm.NapkinError:
                    pass
                except Exception as e:  # collected: the test fails on any
                    foreign.append(f"{model} {key}={value!r}: {type(e).__name__}: {e}")
    assert foreign == []
