"""Compute-optimal sizing (formulas/scaling.py) and power, energy, cost and emissions
(formulas/power.py). Hand arithmetic beside every expectation.

- Hoffmann et al. 2022 (Chinchilla): Gopher's budget 5.76e23 FLOP; Chinchilla itself 70e9
  parameters on 1.4e12 tokens; Approach 3's fit (A 406.4, B 410.7, α 0.3392, β 0.2849 as
  Besiroglu et al. 2024 transcribe it) gives the paper's "40B" for that budget.
- Meta's Llama 3 model card (April 2024): 7.7M H100-hours for 8B + 70B (1.3M, 6.4M), 700 W,
  2,290 tCO2eq (390, 1,900). Llama 3.1 model card (July 2024): 39.3M H100-hours (8B 1.46M,
  70B 7.0M, 405B 30.84M), 700 W, 11,390 tCO2eq location-based (420, 2,040, 8,930).
"""

import math

import pytest
from helpers import mag

import napkinmath as nm

GOPHER_BUDGET = "5.76e23 FLOP"


# --- Chinchilla -------------------------------------------------------------------------------
def test_twenty_tokens_per_parameter_for_a_budget():
    # D = 20 N and C = 6 N D: N = sqrt(C / 120) = sqrt(4.8e21) = 69.28e9; D = 1.386e12
    r = nm.solve(["params_opt", "tokens_opt"], train_compute=GOPHER_BUDGET)
    assert mag(r["params_opt"], "param") == pytest.approx(math.sqrt(5.76e23 / 120))
    assert mag(r["tokens_opt"], "token") == pytest.approx(20 * math.sqrt(5.76e23 / 120))
    # Chinchilla: 70e9 parameters on 1.4e12 tokens (Hoffmann et al. 2022, §4)
    assert mag(r["params_opt"], "param") == pytest.approx(70e9, rel=0.02)
    assert mag(r["tokens_opt"], "token") == pytest.approx(1.4e12, rel=0.02)


def test_the_budget_a_model_size_wants():
    # inverse: 70e9 parameters want 1.4e12 tokens and 6 x 70e9 x 1.4e12 = 5.88e23 FLOP
    r = nm.solve(["tokens_opt", "train_compute"], params_opt="70B")
    assert mag(r["tokens_opt"], "token") == pytest.approx(1.4e12)
    assert mag(r["train_compute"], "FLOP") == pytest.approx(5.88e23)


def test_approach_3_fitted_law_for_gophers_budget():
    # a = β/(α+β) = 0.2849 / 0.6241 = 0.4565, G = (αA/(βB))^(1/(α+β)) = 1.3004
    alpha, beta, big_a, big_b = 0.3392, 0.2849, 406.4, 410.7
    a = beta / (alpha + beta)
    g = (alpha * big_a / (beta * big_b)) ** (1 / (alpha + beta))
    assert a == pytest.approx(0.4565, abs=1e-4) and g == pytest.approx(1.3004, abs=1e-4)
    # N_opt = 1.3004 x (9.6e22)^0.4565 = 40.3e9; D_opt = (9.6e22)^0.5435 / 1.3004 = 2.38e12
    r = nm.solve(["params_opt_fit", "tokens_opt_fit"], train_compute=GOPHER_BUDGET)
    assert mag(r["params_opt_fit"], "param") == pytest.approx(1.3004 * 9.6e22**0.4565)
    assert mag(r["params_opt_fit"], "param") == pytest.approx(40e9, rel=0.02)  # the paper's 40B
    assert mag(r["tokens_opt_fit"], "token") == pytest.approx(9.6e22**0.5435 / 1.3004)
    # a + b = 1: N_opt x D_opt = C / 6
    product = mag(r["params_opt_fit"], "param") * mag(r["tokens_opt_fit"], "token")
    assert product == pytest.approx(9.6e22, rel=1e-3)
    assert "ASSUMPTION" in str(r) and "Approach 3" in str(r)


def test_the_fitted_law_with_approach_1_exponents_reproduces_the_rule():
    # a = b = 0.5, G = 1/sqrt(20): N = sqrt(C/6 / 20) = sqrt(C/120), the 20-tokens rule
    r = nm.solve(
        "params_opt_fit",
        train_compute=GOPHER_BUDGET,
        chinchilla_a=0.5,
        chinchilla_b=0.5,
        chinchilla_g=1 / math.sqrt(20),
    )
    assert mag(r.value, "param") == pytest.approx(math.sqrt(5.76e23 / 120))


def test_tokens_per_parameter_of_a_run():
    # Llama 3.1 405B: 15.6e12 / 405e9 = 38.5 tokens per parameter, about twice Chinchilla's 20
    r = nm.solve("tokens_per_param", model="llama-3.1-405b-pretraining")
    assert mag(r.value, "token/param") == pytest.approx(15.6e12 / 405e9)


# --- power, energy, cost ------------------------------------------------------------------
def test_cluster_power_energy_and_bill_by_hand():
    # 16,384 H100 x 700 W x 1.8 (servers) = 20.64 MW IT; x 1.2 PUE = 24.77 MW;
    # 54 days x 24 h = 1,296 h: 32,105 MWh; x 0.08 USD/kWh = 2.57 million USD
    r = nm.solve(
        ["it_power", "cluster_power", "energy", "energy_cost"],
        n_gpus=16384,
        train_time="54 days",
        gpu="H100",
    )
    assert mag(r["it_power"], "MW") == pytest.approx(16384 * 700 * 1.8 / 1e6)
    assert mag(r["cluster_power"], "MW") == pytest.approx(16384 * 700 * 1.8 * 1.2 / 1e6)
    assert mag(r["energy"], "MWh") == pytest.approx(16384 * 700 * 1.8 * 1.2 * 1296 / 1e6)
    assert mag(r["energy_cost"], "USD") == pytest.approx(
        16384 * 700 * 1.8 * 1.2 * 1296 / 1e3 * 0.08
    )
    text = str(r)
    for assumption in ("PUE 1.2", "1.8×", "0.08 USD/kWh", "an upper bound"):
        assert assumption in text  # every default is stated where it was used


def test_the_site_values_replace_the_defaults():
    # 1,024 GPUs at a measured 550 W, servers 1.5x, PUE 1.1: 1,024 x 550 x 1.5 x 1.1 = 929 kW
    r = nm.solve("cluster_power", n_gpus=1024, gpu_power="550 W/GPU", node_overhead=1.5, pue=1.1)
    assert mag(r.value, "kW") == pytest.approx(1024 * 550 * 1.5 * 1.1 / 1e3)


LLAMA31 = {"8B": (1.46e6, 420), "70B": (7.0e6, 2040), "405B": (30.84e6, 8930)}
LLAMA31_FACTOR = 11_390e3 / (39.3e6 * 0.7)  # kg CO2e per kWh of GPU TDP: 0.4140
LLAMA3_FACTOR = 2_290e3 / (7.7e6 * 0.7)  # 0.4249


@pytest.mark.parametrize("model", sorted(LLAMA31))
def test_llama_31_card_emissions_from_gpu_hours(model):
    # the card's method: GPU-hours x 700 W (TDP, PUE folded in) x a grid factor. The total
    # fixes the factor (11,390 t / 27,510 MWh = 0.414 kg/kWh); each row then comes back
    # within 0.8% (405B: 30.84e6 x 0.7 kW x 0.4140 = 8,938 t against 8,930)
    hours, tonnes = LLAMA31[model]
    r = nm.solve(
        "emissions",
        gpu_hours=f"{hours} GPU*h",
        gpu="H100",
        node_overhead=1,
        pue=1,
        grid_intensity=f"{LLAMA31_FACTOR} kg/kWh",
    )
    assert mag(r.value, "kg") == pytest.approx(hours * 0.7 * LLAMA31_FACTOR)
    assert mag(r.value, "kg") / 1e3 == pytest.approx(tonnes, rel=0.008)


def test_llama_405b_run_record_gives_its_card_emissions():
    r = nm.solve(
        "emissions",
        model="llama-3.1-405b-pretraining",
        gpu="H100",
        node_overhead=1,
        pue=1,
        grid_intensity=f"{LLAMA31_FACTOR} kg/kWh",
    )
    assert mag(r.value, "kg") / 1e3 == pytest.approx(8930, rel=0.001)


def test_llama_3_card_8b_and_70b_rows():
    # Llama 3 (April 2024): 7.7M GPU-hours, 2,290 t: 0.4249 kg/kWh; 8B 1.3M h -> 386.7 t (390),
    # 70B 6.4M h -> 1,903.5 t (1,900)
    for hours, tonnes in ((1.3e6, 390), (6.4e6, 1900)):
        r = nm.solve(
            "emissions",
            gpu_hours=f"{hours} GPU*h",
            gpu_power="700 W/GPU",
            node_overhead=1,
            pue=1,
            grid_intensity=f"{LLAMA3_FACTOR} kg/kWh",
        )
        assert mag(r.value, "kg") / 1e3 == pytest.approx(tonnes, rel=0.01)


def test_the_card_factor_is_near_the_us_grid_with_a_modern_pue():
    # 0.414 kg/kWh of GPU TDP = about 0.37 kg/kWh of grid (the US average, EPA eGRID) x PUE 1.1
    us_grid_with_pue = 0.37 * 1.1  # as recalled: EPA eGRID US average, a hyperscale PUE
    assert us_grid_with_pue == pytest.approx(LLAMA31_FACTOR, rel=0.03)


def test_energy_from_the_facility_power_and_the_wall_clock():
    # 25 MW for 30 days = 18,000 MWh
    r = nm.solve("energy", cluster_power="25 MW", train_time="30 days")
    assert mag(r.value, "MWh") == pytest.approx(25 * 30 * 24)
