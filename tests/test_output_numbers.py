"""Numbers a person reads at a glance (issue 11): percent for fractions, practitioners'
suffixes for large counts and money, thousands separators, `digits`, exact values kept.

Every expected number is worked out by hand in the comment above it.
"""

from __future__ import annotations

import json

import pytest

import napkinmath as nm

# H100-SXM dense BF16 peak, as the record states it
PEAK = 989.5e12
W6 = dict(params="405B", tokens="15.6T", gpu_hours="30.84e6 GPU*h", gpu="H100")
# 6 · 405e9 · 15.6e12 = 3.7908e25 FLOP; 30.84e6 h · 3600 s/h · 989.5e12 FLOP/s = 1.09858e26
MFU_W6 = 6 * 405e9 * 15.6e12 / (30.84e6 * 3600 * PEAK)  # 0.345063
COST = dict(
    params="70B",
    tokens="15T",
    mfu=0.4,
    gpu="H100",
    n_gpus=16384,
    price_per_gpu_hour="2.5 USD/(GPU*h)",
)
# 6 · 70e9 · 15e12 = 6.3e24 FLOP; / (0.4 · 989.5e12) = 1.59171e10 GPU·s = 4.42142e6 GPU·h;
# · 2.5 USD = 1.105356e7 USD
COST_USD = 6 * 70e9 * 15e12 / (0.4 * PEAK) / 3600 * 2.5


def test_fractions_show_as_percent_everywhere():
    r = nm.solve("mfu", **W6)
    assert pytest.approx(0.345063, rel=1e-6) == MFU_W6
    assert r.headline() == ["mfu = 34.51%"]
    assert r.to_markdown().startswith("**mfu = 34.51%**")
    assert "<strong>mfu = 34.51%</strong>" in r._repr_html_()
    assert "$\\mathrm{MFU} = 34.51\\%$" in r.to_latex()
    given = nm.solve("train_time", params="7B", tokens="1T", n_gpus=64, mfu=0.4, gpu="H100")
    assert "  mfu                  = 40%   (you)" in str(given)
    assert "(40% × 64 GPU × 989.5 TFLOP/(s·GPU))" in str(given)


def test_goodput_reads_as_a_percent_and_its_sum_starts_with_the_whole():
    r = nm.solve(
        "goodput", checkpoint_overhead=0.036, lost_time_per_failure="20 min", mtbf="3.09 h"
    )
    # 1 − 0.036 − 20 min / 185.4 min = 1 − 0.036 − 0.107875 = 0.856125
    assert r.value.magnitude == pytest.approx(1 - 0.036 - 20 / 185.4)
    text = str(r)
    assert text.startswith("goodput = 85.61%")
    assert "goodput = 1 − checkpoint_overhead − lost_time_per_failure / mtbf" in text
    assert "= 1 − 3.6% − 20 min / (3.09 h)" in text


def test_exponents_and_ratios_stay_plain_numbers():
    """A fraction-bounded exponent (Chinchilla's a) or a ratio is not a share: no percent."""
    from napkinmath.text.numbers import is_fraction

    vs = nm.variables()
    assert is_fraction(vs["mfu"]) and is_fraction(vs["utilization"])
    assert is_fraction(vs["goodput"]) and is_fraction(vs["margin"])
    assert not is_fraction(vs["chinchilla_a"]) and not is_fraction(vs["pue"])
    assert not is_fraction(vs["tp"]) and not is_fraction(vs["checkpoint_write_mtbf_ratio"])


def test_money_and_counts_use_the_words_practitioners_write():
    r = nm.solve("train_cost", **COST)
    assert pytest.approx(1.105356e7, rel=1e-6) == COST_USD
    text = str(r)
    assert text.startswith("train_cost = 11.05M USD")
    assert "= 6 FLOP/(param·token) × 70B param × 15T token" in text
    assert "  n_gpus               = 16,384 GPU   (you)" in text
    assert "= 4.421M GPU·h × 2.5 USD/(GPU·h)" in text
    # the readable forms are what napkinmath reads back
    for shown, exact in (("11.05M USD", 11.05e6), ("15T token", 15e12), ("70B param", 70e9)):
        assert nm.check(shown).value.to_base_units().magnitude == pytest.approx(exact)


def test_thousands_keep_separators_below_a_million():
    # W12: 4.2e22 FLOP / (0.4 × 989.5e12 FLOP/s) / 3600 = 29,476.2 GPU·h; × 2.5 USD = 73,690.4
    r = nm.solve(
        "train_cost",
        params="7B",
        tokens="1T",
        n_gpus=64,
        mfu=0.4,
        gpu="H100",
        price_per_gpu_hour="2.5 USD/(GPU*h)",
    )
    hours = 6 * 7e9 * 1e12 / (0.4 * PEAK) / 3600
    assert r.value.magnitude == pytest.approx(hours * 2.5)
    assert r.headline() == [f"train_cost = {hours * 2.5:,.0f} USD"] == ["train_cost = 73,690 USD"]


def test_digits_sets_significant_figures_of_the_display_only():
    r = nm.solve("train_cost", **COST)
    assert r.to_text(digits=2).startswith("train_cost = 11M USD")
    assert r.to_text(digits=6).startswith("train_cost = 11.0536M USD")
    assert r.format(digits=3, style="markdown").startswith("**train_cost = 11.1M USD**")
    assert str(r).startswith("train_cost = 11.05M USD")  # the answer itself is unchanged
    data = json.loads(r.to_json())
    assert data["targets"]["train_cost"]["value"] == pytest.approx(COST_USD, rel=1e-12)
    assert data["targets"]["train_cost"]["text"] == "11.05M USD"
    assert r.value.magnitude == pytest.approx(COST_USD, rel=1e-12)
    for bad in (0, 16, 2.5, True, "3"):
        with pytest.raises(nm.InputError, match="significant figures"):
            r.to_text(digits=bad)


def test_solve_takes_digits_and_the_memo_keeps_the_default():
    # 11,053,560 USD (COST_USD): 3 figures 11.1M, then the same question at the default 4
    assert str(nm.solve("train_cost", digits=3, **COST)).startswith("train_cost = 11.1M USD")
    assert str(nm.solve("train_cost", **COST)).startswith("train_cost = 11.05M USD")
    assert nm.solve("train_cost", digits=3, **COST).value.magnitude == pytest.approx(
        COST_USD, rel=1e-12
    )
    with pytest.raises(nm.InputError, match="significant figures"):
        nm.solve("train_cost", digits=0, **COST)
    with pytest.raises(nm.InputError, match="single answers"):
        nm.solve("train_cost", digits=3, ranges=True, **{**COST, "mfu": "0.3..0.5"})


def test_value_stays_an_exact_pint_quantity():
    r = nm.solve("mfu", **W6)
    assert isinstance(r.value, nm.Quantity)
    assert r.value.magnitude == pytest.approx(MFU_W6, rel=1e-12)
    assert r.to_dict()["targets"]["mfu"] == {
        "value": pytest.approx(MFU_W6, rel=1e-12),
        "unit": "",
        "text": "34.51%",
    }


def test_cli_digits(napkin):
    status, out, _ = napkin(
        "solve",
        "mfu",
        "params=405B",
        "tokens=15.6T",
        "gpu_hours=30.84e6 GPU*h",
        "--gpu",
        "H100",
        "--digits",
        "3",
    )
    assert status == 0 and out.startswith("mfu = 34.5%\n")
    assert "  gpu_hours            = 30.8M GPU·h   (you)" in out
    status, out, _ = napkin(
        "solve",
        "mfu",
        "params=405B",
        "tokens=15.6T",
        "gpu_hours=30.84e6 GPU*h",
        "--gpu",
        "H100",
        "--digits",
        "3",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert data["targets"]["mfu"]["value"] == pytest.approx(MFU_W6, rel=1e-12)
    assert data["targets"]["mfu"]["text"] == "34.5%"
    status, _, err = napkin(
        "solve",
        "mfu",
        "params=405B",
        "tokens=15.6T",
        "gpu_hours=30.84e6 GPU*h",
        "--gpu",
        "H100",
        "--digits",
        "0",
    )
    assert status == 2 and "significant figures" in err


def test_checks_write_money_counts_and_a_bare_fraction_as_a_person_would(napkin):
    # 2.5 USD/(GPU·h) · 16,384 GPU · 720 h = 29,491,200 USD
    status, out, _ = napkin("check", "2.5 USD/GPU/h * 16384 GPU * 30 day", "--expect", "29.5M USD")
    assert status == 0
    assert out.splitlines()[:2] == [
        "2.5 USD/GPU/h * 16384 GPU * 30 day = 29.49M USD   (an amount of money)",
        "claimed: 29.5M USD",
    ]
    # a library fraction named bare is a percent; the same number in an expression is not
    status, out, _ = napkin(
        "check", "mfu", "params=405B", "tokens=15.6T", "gpu_hours=30.84e6 GPU*h", "--gpu", "H100"
    )
    assert status == 0 and out.startswith(f"mfu = {100 * MFU_W6:.2f}%")  # 34.51%
    assert nm.check("0.5 * 0.69").value_text == "0.345"
    assert json.loads(nm.check("mfu", **W6).to_json())["value"]["value"] == pytest.approx(
        MFU_W6
    )  # exact in JSON


def test_ranges_and_samples_show_fractions_in_percent_and_sources_at_the_end(napkin):
    # n_gpus = 4.2e22 FLOP / (mfu · 989.5e12 FLOP/s · 1,814,400 s): 46.79 at 0.5, 77.98 at 0.3
    status, out, _ = napkin(
        "solve",
        "n_gpus",
        "params=7B",
        "tokens=1T",
        "train_time=3 weeks",
        "mfu=0.3..0.5",
        "--gpu",
        "H100-SXM",
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "n_gpus = 46.79 … 77.98 GPU   (low at mfu = 50%; high at mfu = 30%)"
    assert any(line.startswith("  mfu ") and "= 30% … 50% (range)" in line for line in lines)
    sources = lines.index("Sources:")
    assert lines[sources + 1] == "  [1] NVIDIA H100 Tensor Core GPU datasheet (2023-06)"
    assert (
        "(H100-SXM: dense BF16 Tensor Core: half of the datasheet's 1,979 TFLOP/s, which "
        "assumes 2:4 sparsity [1])" in out
    )
