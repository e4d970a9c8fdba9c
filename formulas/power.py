"""Power, energy, electricity cost and emissions of a cluster and a run.

    gpu_power     = tdp                                            (assumption: GPUs at TDP)
    it_power      = n_gpus · gpu_power · node_overhead             (servers: CPUs, memory, NICs)
    cluster_power = it_power · pue                                 (facility: cooling, conversion)
    energy        = gpu_hours · gpu_power · node_overhead · pue    (over the run)
    energy_cost   = energy · electricity_price
    emissions     = energy · grid_intensity                        (location-based)

Model cards count the accelerators alone: Meta's Llama 3.1 card multiplies GPU-hours by the
700 W TDP of an H100 "adjusted for power usage efficiency" and reports location-based
emissions. Its figures imply 0.414 kg CO₂e per kWh of GPU TDP (11,390 t over 39.3e6 GPU-hours
× 700 W); that one factor reproduces each row to 0.8% (405B: 30.84e6 GPU-hours, 8,937 t
against 8,930 t). To reproduce a card, set node_overhead = 1 and pue = 1 and give the implied
factor as grid_intensity. PUE, grid intensity and the electricity price are stated default
assumptions, to be replaced with the site's own; the node overhead default comes from NVIDIA's
DGX system powers.
"""

from napkinmath.library.declare import Bounds, Eq, formula, var

from .accelerator import tdp
from .sources import DEFINITION
from .training import gpu_hours, n_gpus, train_time

SUBJECT = "power"

GREEN_GRID = (
    "The Green Grid 2007, White Paper #6, Green Grid Metrics: Describing Datacenter Power "
    "Efficiency (PUE = total facility power / IT equipment power)"
)
PATTERSON_2021 = (
    "Patterson et al. 2021, Carbon Emissions and Large Neural Network Training, "
    "arXiv:2104.10350, §2 (energy = hours × processors × average power × PUE; tCO₂e = MWh × "
    "grid intensity)"
)
LLAMA_CARD = (
    "Meta, Llama 3.1 model card, 'Training Energy Use' and 'Training Greenhouse Gas Emissions' "
    "(GPU-hours × 700 W TDP adjusted for PUE; location-based tCO₂eq), methodology: "
    "Wu et al. 2022, arXiv:2204.05149"
)

# --- Variables -----------------------------------------------------------------------------
# Electrical power one accelerator draws, on average over the run.
gpu_power = var("gpu_power", "W/GPU", "average electrical power per accelerator", symbol="P_{gpu}")
# Server power over its accelerators' power: CPUs, memory, NICs, fans, power supplies.
node_overhead = var(
    "node_overhead",
    "",
    "server power over its accelerators' power (1 counts the GPUs alone)",
    symbol="o_{node}",
    bounds=Bounds(1.0, float("inf"), lo_inclusive=True),
    default=1.8,
    default_note=(
        "servers draw 1.8× their GPUs' power at full load: NVIDIA DGX H100 10.2 kW for 8 × "
        "700 W GPUs (1.82), DGX A100 6.5 kW for 8 × 400 W (2.03), DGX B200 14.3 kW for 8 × "
        "1,000 W (1.79), maximum system powers from NVIDIA's DGX datasheets, as remembered; "
        "model cards count the GPUs alone (1)"
    ),
)
# Power usage effectiveness: facility power over IT power.
pue = var(
    "pue",
    "",
    "power usage effectiveness: facility power over IT power",
    symbol="\\mathrm{PUE}",
    bounds=Bounds(1.0, float("inf"), lo_inclusive=True),
    default=1.2,
    default_note=(
        "PUE 1.2: between hyperscale fleets (Google reports about 1.10 fleet-wide) and "
        "the industry average (about 1.56 in the Uptime Institute's 2024 survey), as "
        "remembered; use your site's"
    ),
)
# Power of the servers (IT load).
it_power = var(
    "it_power",
    "MW",
    "IT power of the job's servers (before cooling and conversion)",
    symbol="P_{IT}",
)
# Power drawn from the grid by the facility for the job.
cluster_power = var(
    "cluster_power", "MW", "facility power of the job, PUE included", symbol="P_{fac}"
)
# Electrical energy of the run, facility included.
energy = var("energy", "MWh", "electrical energy of the run, facility included", symbol="E")
# Price of electricity.
electricity_price = var(
    "electricity_price",
    "USD/kWh",
    "price of electricity",
    symbol="p_{el}",
    default=0.08,
    default_note=(
        "0.08 USD/kWh: about the US average industrial price in 2023-2024 (EIA Electric Power "
        "Monthly, as remembered); colocation contracts and other grids differ widely"
    ),
)
# Electricity bill of the run.
energy_cost = var("energy_cost", "USD", "electricity cost of the run", symbol="\\$_{el}")
# Grid carbon intensity.
grid_intensity = var(
    "grid_intensity",
    "kg/kWh",
    "grid carbon intensity, kg CO₂e per kWh (location-based)",
    symbol="I_{CO_2}",
    default=0.4,
    default_note=(
        "0.4 kg CO₂e/kWh: a round figure between the US grid average (about 0.37, EPA eGRID "
        "2022) and the world average (about 0.48, IEA), as remembered; hydro and nuclear grids "
        "are below 0.05, coal-heavy grids above 0.7"
    ),
)
# Location-based emissions of the run.
emissions = var(
    "emissions", "kg", "location-based emissions of the run, kg CO₂e", symbol="m_{CO_2}"
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "gpu_power_is_tdp",
    "Accelerators draw their TDP",
    Eq(gpu_power, tdp),
    source=f"{LLAMA_CARD} (peak power capacity per GPU)",
    subject=SUBJECT,
    assumption=True,
    note=(
        "an upper bound: measured averages over a training run are often 60-80% of TDP; "
        "give gpu_power where it was measured"
    ),
)

formula(
    "it_power",
    "IT power of a cluster",
    Eq(it_power, n_gpus * gpu_power * node_overhead),
    source=PATTERSON_2021,
    subject=SUBJECT,
    note="network switches and storage come on top",
)

formula(
    "cluster_power",
    "Facility power of a cluster",
    Eq(cluster_power, it_power * pue),
    source=GREEN_GRID,
    subject=SUBJECT,
    note="what the grid connection and the power contract must supply",
)

formula(
    "energy",
    "Energy of a run",
    Eq(energy, gpu_hours * gpu_power * node_overhead * pue),
    source=PATTERSON_2021,
    subject=SUBJECT,
    note="accelerator-hours at the average power, servers and facility included",
)

formula(
    "energy_from_power",
    "Energy of a run from the facility power",
    Eq(energy, cluster_power * train_time),
    source=DEFINITION,
    subject=SUBJECT,
    derived_from=("energy", "gpu_hours", "it_power", "cluster_power"),
    note="facility power held for the wall-clock time",
)

formula(
    "energy_cost",
    "Electricity cost of a run",
    Eq(energy_cost, energy * electricity_price),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "emissions",
    "Location-based emissions of a run",
    Eq(emissions, energy * grid_intensity),
    source=f"{PATTERSON_2021}; {LLAMA_CARD}",
    subject=SUBJECT,
    note=(
        "market-based accounting (renewable purchases) can report 0 for the same "
        "energy, as Meta's cards do"
    ),
)
