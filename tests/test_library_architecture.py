"""Parameters from the architecture (formulas/architecture.py): a decoder's count from its
config, Kaplan's 12·L·h², MoE totals and actives from the expert shapes, and the model records'
config fields. Hand arithmetic beside every expectation.

Published counts: Meta's Llama 3 model cards (8B, 70B; Llama 3.1 405B), 8,030,261,248 /
70,553,706,496 / 405,853,388,800 when summed from config.json; Mistral's Mixtral 8x7B
announcement (46.7B total, 12.9B active); Qwen's Qwen3-235B-A22B model card (235B total, 22B
active); GPT-3 Table 2.1 (175.0B).
"""

import pytest
from helpers import mag

import napkinmath as nm
from napkinmath.hardware import get


def in_params(q):
    return mag(q, "param")


def record(record_id, key):
    return get(record_id).values[key].quantity.magnitude


def shape(record_id):
    """The record's values but its stated counts (params, params_total), as the user's: the
    count the shape formulas give (asked with the record, a target it states is its stated
    value, and the answer's note gives this count beside it)."""
    values = get(record_id).values
    return {k: v.quantity for k, v in values.items() if k not in ("params", "params_total")}


# --- the pieces, by hand ------------------------------------------------------------------
def test_llama_3_8b_pieces_from_its_config():
    # config.json: V = 128,256, h = 4,096, L = 32, 32 heads, 8 KV heads, head_dim 128,
    # intermediate_size 14,336, untied
    r = nm.solve(
        ["embedding_params", "attention_params_per_layer", "mlp_params_per_layer", "norm_params"],
        model="llama-3-8b",
    )
    assert in_params(r["embedding_params"]) == 2 * 128_256 * 4_096  # 1,050,673,152
    assert in_params(r["attention_params_per_layer"]) == 2 * 4_096 * 128 * (32 + 8)  # 41,943,040
    assert in_params(r["mlp_params_per_layer"]) == 3 * 4_096 * 14_336  # 176,160,768
    assert in_params(r["norm_params"]) == (2 * 32 + 1) * 4_096  # 266,240


@pytest.mark.parametrize(
    ("model", "exact", "published"),
    [
        # 1,050,673,152 + 32 x (41,943,040 + 176,160,768) + 266,240
        ("llama-3-8b", 8_030_261_248, 8.03e9),
        # 2,101,346,304 + 80 x (150,994,944 + 704,643,072) + 1,318,912
        ("llama-3-70b", 70_553_706_496, 70.6e9),
        # 4,202,692,608 + 126 x (570,425,344 + 2,617,245,696) + 4,145,152
        ("llama-3-405b", 405_853_388_800, 405.9e9),
    ],
)
def test_dense_llama_counts_from_the_record_alone(model, exact, published):
    r = nm.solve("params_total", **shape(model))
    assert in_params(r.value) == exact
    assert in_params(r.value) == pytest.approx(published, rel=0.01)
    names = [f.name for step in r.steps for f in step.formulas]
    assert "dense_params_from_config" in names and "dense_params_total" not in names
    # with the record, the answer is its stated count, as every memory answer reads it
    stated = nm.solve("params_total", model=model)
    assert in_params(stated.value) == published == record(model, "params_total")
    assert any("Dense decoder parameters from its config" in n for n in stated.notes)


def test_gpt3_from_its_shapes_is_within_a_percent_of_175b():
    # tied V x h = 50,257 x 12,288 = 617,558,016; per layer 4h^2 + 2 x h x 4h = 12h^2 =
    # 1,811,939,328, x 96 = 173,946,175,488; norms 193 x 12,288 = 2,371,584
    # total 174,566,105,088 (biases and the 2,048 x 12,288 position embeddings left out)
    r = nm.solve("params_total", **shape("gpt-3-175b"))
    assert in_params(r.value) == 617_558_016 + 173_946_175_488 + 2_371_584
    assert in_params(r.value) == pytest.approx(175e9, rel=0.01)  # Table 2.1: 175.0B
    # asked with the record: Table 2.1's 175.0B, the shape's count in the note (-0.25%)
    stated = nm.solve("params_total", model="gpt-3-175b")
    assert in_params(stated.value) == 175e9
    assert any("174.6B param (-0.25%)" in n for n in stated.notes)


def test_tied_embeddings_count_the_vocabulary_once():
    # a Llama 3.2 1B-like shape: V 128,256, h 2,048, tied: 128,256 x 2,048 = 262,668,288
    r = nm.solve("embedding_params", vocab_size=128_256, hidden_size=2048, embedding_matrices=1)
    assert in_params(r.value) == 128_256 * 2048


def test_plain_mlp_and_mha_give_kaplans_12_h_squared_per_layer():
    # MHA (n_kv_heads = n_heads, head_dim = h / n_heads) and a plain MLP with d_ff = 4h:
    # 4h^2 + 8h^2 = 12h^2 per layer, h = 1,024: 12,582,912
    r = nm.solve(
        ["attention_params_per_layer", "mlp_params_per_layer"],
        hidden_size=1024,
        n_heads=16,
        n_kv_heads=16,
        head_dim=64,
        ffn_size=4096,
        mlp_matrices=2,
    )
    per_layer = in_params(r["attention_params_per_layer"]) + in_params(r["mlp_params_per_layer"])
    assert per_layer == 12 * 1024**2


def test_kaplans_estimate_beside_the_exact_count():
    # Kaplan et al. 2020 §2.1: N = 12 L h^2 = 12 x 80 x 8,192^2 = 64,424,509,440 for Llama 3
    # 70B's shape, 8.7% below the exact 70.55e9: GQA (fewer K, V) and SwiGLU at 3.5h (more MLP)
    # and the 2.1e9 embedding parameters it leaves out
    r = nm.solve("params_12lh2", model="llama-3-70b")
    assert in_params(r.value) == 12 * 80 * 8192**2
    assert in_params(r.value) / 70_553_706_496 == pytest.approx(0.913, abs=0.001)
    # GPT-3: 12 x 96 x 12,288^2 = 173.95e9, within 0.6% of 175e9 (embeddings 0.6e9)
    gpt3 = nm.solve("params_12lh2", model="gpt-3-175b")
    assert in_params(gpt3.value) == pytest.approx(175e9, rel=0.01)


# --- mixtures of experts ------------------------------------------------------------------
def test_mixtral_total_and_active_from_the_expert_shapes():
    # expert: 32 layers x 3 x 4,096 x 14,336 = 5,637,144,576
    # shared: 2 x 32,000 x 4,096 + 32 x 41,943,040 + 65 x 4,096 + router 32 x 8 x 4,096
    #       = 262,144,000 + 1,342,177,280 + 266,240 + 1,048,576 = 1,605,636,096
    # total = shared + 8 E = 46,702,792,704; active = shared + 2 E = 12,879,925,248
    r = nm.solve(["params_total", "params"], **shape("mixtral-8x7b"))
    assert in_params(r["params_total"]) == 46_702_792_704
    assert in_params(r["params"]) == 12_879_925_248
    assert in_params(r["params_total"]) == pytest.approx(46.7e9, rel=0.01)  # Mistral: 46.7B
    assert in_params(r["params"]) == pytest.approx(12.9e9, rel=0.01)  # 12.9B active
    parts = nm.solve(["expert_params_config", "shared_params_config"], model="mixtral-8x7b")
    assert in_params(parts["expert_params_config"]) == 5_637_144_576
    assert in_params(parts["shared_params_config"]) == 1_605_636_096


def test_qwen3_235b_total_and_active_from_the_expert_shapes():
    # expert: 94 x 3 x 4,096 x 1,536 = 1,774,190,592
    # shared: 2 x 151,936 x 4,096 + 94 x 2 x 4,096 x 128 x (64 + 4) + 189 x 4,096
    #         + router 94 x 128 x 4,096 = 1,244,659,712 + 6,702,497,792 + 774,144 + 49,283,072
    #       = 7,997,214,720
    # total = shared + 128 E = 235,093,610,496; active = shared + 8 E = 22,190,739,456
    r = nm.solve(["params_total", "params"], **shape("qwen3-235b-a22b"))
    assert in_params(r["params_total"]) == 235_093_610_496
    assert in_params(r["params"]) == 22_190_739_456
    assert in_params(r["params_total"]) == pytest.approx(235e9, rel=0.01)  # model card: 235B
    assert in_params(r["params"]) == pytest.approx(22e9, rel=0.01)  # 22B activated


def test_one_moe_count_alone_comes_from_the_shapes_too():
    # the sums run forward only, so the rounded published 12.9e9 is never solved back into
    # the shared part: the total asked alone from the shapes is the exact 46,702,792,704
    r = nm.solve("params_total", **shape("mixtral-8x7b"))
    assert in_params(r.value) == 46_702_792_704
    # with the record, alone or in a pair, its stated 46.7e9 and 12.9e9 (what memory reads)
    for targets in (["params_total"], ["params_total", "params"]):
        stated = nm.solve(targets, model="mixtral-8x7b")
        assert in_params(stated["params_total"]) == 46.7e9
    assert in_params(stated["params"]) == 12.9e9


def test_the_deepseek_total_is_not_counted_from_its_shapes():
    # MLA attention, 3 dense layers and a shared expert are outside shared_params_config:
    # the record's published counts stand (read when asked as a pair)
    r = nm.solve(["params_total", "params"], model="deepseek-v3")
    assert in_params(r["params_total"]) == 671e9 and in_params(r["params"]) == 37e9


def test_deepseek_expert_shapes_agree_with_the_published_split():
    # 58 MoE layers x 3 x 7,168 x 2,048 = 2,554,331,136 per routed expert; the published
    # 671e9 total and 37e9 active imply (671e9 - 37e9) / (256 - 8) = 2.556e9: 0.08% apart
    r = nm.solve("expert_params_config", model="deepseek-v3")
    assert in_params(r.value) == 58 * 3 * 7168 * 2048
    assert in_params(r.value) == pytest.approx((671e9 - 37e9) / (256 - 8), rel=0.001)


# --- the records carry the config fields, with sources ----------------------------------
@pytest.mark.parametrize(
    ("model", "ffn"),
    [
        ("llama-3-8b", 14_336),
        ("llama-3-70b", 28_672),
        ("llama-3-405b", 53_248),
        ("gpt-3-175b", 49_152),
    ],
)
def test_dense_records_carry_the_mlp_width(model, ffn):
    assert record(model, "ffn_size") == ffn
    assert get(model).values["ffn_size"].source
    assert get(model).values["ffn_size"].date


@pytest.mark.parametrize(
    ("model", "width", "layers"),
    [("mixtral-8x7b", 14_336, 32), ("qwen3-235b-a22b", 1_536, 94), ("deepseek-v3", 2_048, 58)],
)
def test_moe_records_carry_the_expert_shapes(model, width, layers):
    assert record(model, "moe_ffn_size") == width
    assert record(model, "n_moe_layers") == layers
    assert "ffn_size" not in get(model).values  # the dense count would be wrong for them


def test_gpt3_tied_embeddings_are_labelled_an_assumption():
    value = get("gpt-3-175b").values["embedding_matrices"]
    assert value.quantity.magnitude == 1 and value.assumption
