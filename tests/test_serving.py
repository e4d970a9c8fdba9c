"""Worked examples W17 (Little's law, M/M/1 saturation) and W18 (cost per decode token across
accelerators), replicas for a request rate, and the M/M/c approximation against Erlang C.

Every expectation is hand arithmetic written beside the call; hardware values and prices are
explicit assumptions in this file, not hardware records.
"""

import math

import pytest
from helpers import mag

import napkinmath as nm


# --- W17: Little's law ------------------------------------------------------------------------
def test_w17_littles_law_exact():
    r = nm.solve("requests_in_flight", arrival_rate="50 request/s", time_in_system="2 s")
    assert mag(r.value, "request") == 100  # 50 request/s * 2 s, exact


def test_w17_littles_law_inverse_latency():
    r = nm.solve("time_in_system", arrival_rate="50 request/s", requests_in_flight=100)
    assert mag(r.value, "s") == 2  # 100 / 50


def test_w17_littles_law_inverse_rate():
    r = nm.solve("arrival_rate", requests_in_flight=100, time_in_system="2 s")
    assert mag(r.value, "request/s") == 50


# --- W17: M/M/1 at utilization 0.9, and the curve towards 1 -----------------------------------
def test_w17_mm1_at_point_nine():
    r = nm.solve(
        ["time_in_queue", "time_in_system"], utilization=0.9, service_time="1 s", n_servers=1
    )
    # W_q = rho / (1 - rho) * S = 0.9 / 0.1 = 9 S;  W = W_q + S = S / (1 - rho) = 10 S
    assert mag(r["time_in_queue"], "s") == pytest.approx(9, rel=1e-12)
    assert mag(r["time_in_system"], "s") == pytest.approx(10, rel=1e-12)


@pytest.mark.parametrize("rho", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_w17_mm1_curve_grows_without_bound(rho):
    r = nm.solve(
        ["time_in_queue", "time_in_system"], utilization=rho, service_time="2 s", n_servers=1
    )
    assert mag(r["time_in_queue"], "s") == pytest.approx(2 * rho / (1 - rho), rel=1e-9)
    assert mag(r["time_in_system"], "s") == pytest.approx(2 / (1 - rho), rel=1e-9)


def test_w17_utilization_from_rate_and_service_time():
    r = nm.solve(
        ["utilization", "time_in_system"],
        arrival_rate="50 request/s",
        service_time="18 ms",
        n_servers=1,
    )
    assert r["utilization"].magnitude == pytest.approx(50 * 0.018)  # 0.9
    assert mag(r["time_in_system"], "ms") == pytest.approx(18 / (1 - 0.9))  # 180 ms
    assert "requests_per_server" in r.assumptions


def test_w17_service_time_from_a_latency():
    r = nm.solve("service_time", utilization=0.9, time_in_system="10 s", n_servers=1)
    assert mag(r.value, "s") == pytest.approx(10 * (1 - 0.9))  # W = S / (1 - rho): S = 1 s


def test_utilization_of_one_or_more_is_refused():
    with pytest.raises(nm.NoRootError) as err:
        nm.solve("time_in_queue", arrival_rate="60 request/s", service_time="20 ms", n_servers=1)
    assert "utilization" in str(err.value)  # 60 * 0.02 = 1.2: the queue grows forever


def test_utilization_from_queue_time_is_not_invertible():
    with pytest.raises(nm.NotInvertibleError) as err:
        nm.solve("utilization", time_in_queue="9 s", service_time="1 s", n_servers=1)
    assert "utilization" in str(err.value) and "only works forward" in str(err.value)


# --- M/M/c against the exact Erlang C ----------------------------------------------------------
def erlang_c_wait(c, rho, service):
    """Exact M/M/c mean wait in queue: C(c, a) * S / (c * (1 - rho)), a = c * rho."""
    a = c * rho
    below = sum(a**k / math.factorial(k) for k in range(c))
    top = a**c / math.factorial(c) / (1 - rho)
    return top / (below + top) * service / (c * (1 - rho))


@pytest.mark.parametrize(
    ("c", "rho", "tol"),
    [(2, 0.8, 0.02), (2, 0.9, 0.01), (4, 0.9, 0.015), (8, 0.9, 0.015), (32, 0.95, 0.005)],
)
def test_mmc_close_to_erlang_c_where_waits_matter(c, rho, tol):
    r = nm.solve("time_in_queue", utilization=rho, service_time="1 s", n_servers=c)
    hand = 1.0 * rho ** (math.sqrt(2 * (c + 1)) - 1) / (c * (1 - rho))  # Sakasegawa
    assert mag(r.value, "s") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(erlang_c_wait(c, rho, 1.0), rel=tol)


def test_pooling_shortens_waits_at_the_same_utilization():
    one = nm.solve("time_in_queue", utilization=0.9, service_time="1 s", n_servers=1)
    eight = nm.solve("time_in_queue", utilization=0.9, service_time="1 s", n_servers=8)
    assert mag(eight.value, "s") < mag(one.value, "s") / 8  # 0.89 s vs 9 s


# --- Replicas for a request rate and a latency target ------------------------------------------
def test_replicas_for_a_rate_at_a_target_utilization():
    # 50 request/s, each request holds a batch slot 2 s, 32 slots per replica, run at 80%.
    r = nm.solve(
        ["n_replicas", "time_in_queue", "time_in_system"],
        arrival_rate="50 request/s",
        service_time="2 s",
        utilization=0.8,
        slots_per_replica=32,
    )
    servers = 50 * 2 / 0.8  # 125 busy-or-idle slots
    assert mag(r["n_replicas"], "") == pytest.approx(servers / 32)  # 3.906 replicas
    wait = 2 * 0.8 ** (math.sqrt(2 * 126) - 1) / (125 * 0.2)  # 2.9 ms: pooling hides the queue
    assert mag(r["time_in_queue"], "s") == pytest.approx(wait)
    assert mag(r["time_in_system"], "s") == pytest.approx(2 + wait)


def test_replicas_round_up_with_their_gpus():
    r = nm.solve(
        ["n_replicas_whole", "serving_gpus"],
        arrival_rate="50 request/s",
        service_time="2 s",
        utilization=0.8,
        slots_per_replica=32,
        n_gpus=4,
    )
    assert r["n_replicas_whole"].magnitude == 4  # ceil(3.906)
    assert mag(r["serving_gpus"], "GPU") == 16  # 4 replicas * 4 GPU
    headline = nm.solve(
        "n_replicas",
        arrival_rate="50 request/s",
        service_time="2 s",
        utilization=0.8,
        slots_per_replica=32,
        n_gpus=4,
    ).headline()[0]
    assert "n_replicas_whole = 4" in headline and "serving_gpus = 16 GPU" in headline


def test_replicas_from_the_model_and_hardware():
    # Llama-3-70B bf16 (141 GB) on 4 H100 at batch 32, 8192 context; 2,000-token prompts,
    # 500 output tokens; 2 request/s at 80% utilization.
    r = nm.solve(
        ["service_time", "n_replicas"],
        arrival_rate="2 request/s",
        utilization=0.8,
        slots_per_replica=32,
        batch_size=32,
        seq_len=8192,
        n_layers=80,
        n_kv_heads=8,
        head_dim=128,
        weight_memory="141 GB",
        params="70.6B",
        n_gpus=4,
        hbm_bandwidth="3.35 TB/(s*GPU)",
        peak_flops="989 TFLOP/(s*GPU)",
        prompt_tokens="2000 token",
        output_len="500 token/sequence",
    )
    # Each at the roofline, the longer roof binding (no n_heads: attention FLOPs left out;
    # no hidden_size or link: the all-reduces left out, both said in the answer).
    prefill = max(141e9 / (4 * 3.35e12), 2 * 70.6e9 * 2000 / (4 * 989e12))  # 71.4 ms compute
    step = max(
        (141e9 + 32 * 8192 * 327_680) / (4 * 3.35e12),  # 16.93 ms memory
        32 * 2 * 70.6e9 / (4 * 989e12),
    )  # 1.14 ms compute
    service = prefill + 500 * step  # 0.071 + 8.47 = 8.54 s
    assert mag(r["service_time"], "s") == pytest.approx(service)
    assert mag(r["n_replicas"], "") == pytest.approx(2 * service / 0.8 / 32)  # 0.673


# --- W18: cost per million decode tokens across accelerators ----------------------------------
# Llama-3-70B bf16 weights (141 GB), 32 sequences at 8192 context (85.9 GB of KV).
W18_MODEL = dict(
    weight_memory="141 GB", batch_size=32, seq_len=8192, n_layers=80, n_kv_heads=8, head_dim=128
)
KV_BATCH = 32 * 8192 * 327_680  # 85,899,345,920 B
STEP_BYTES = 141e9 + KV_BATCH  # 226.9 GB read per decode step
# Assumed figures (datasheets for capacity and bandwidth; prices are illustrative assumptions):
# H100 SXM 80 GB, 3.35 TB/s, 2.50 USD/h; MI300X 192 GB, 5.3 TB/s, 3.00 USD/h;
# Trainium2 96 GB, 2.9 TB/s, 1.75 USD/h. GPUs per replica: 4, 2, 4 (each holds 226.9 GB).
W18_HARDWARE = {
    "H100": (4, "80 GB/GPU", "3.35 TB/(s*GPU)", "2.50 USD/(GPU*h)", 80e9, 3.35e12, 2.50),
    "MI300X": (2, "192 GB/GPU", "5.3 TB/(s*GPU)", "3.00 USD/(GPU*h)", 192e9, 5.3e12, 3.00),
    "Trainium2": (4, "96 GB/chip", "2.9 TB/(s*chip)", "1.75 USD/(chip*h)", 96e9, 2.9e12, 1.75),
}


def w18_solve(name):
    n, capacity, bandwidth, price, *_ = W18_HARDWARE[name]
    return nm.solve(
        ["max_concurrent_sequences", "decode_throughput", "cost_per_million_tokens"],
        n_gpus=n,
        hbm_capacity=capacity,
        hbm_bandwidth=bandwidth,
        price_per_gpu_hour=price,
        **W18_MODEL,
    )


@pytest.mark.parametrize("name", list(W18_HARDWARE))
def test_w18_each_accelerator_by_hand(name):
    n, *_, capacity, bandwidth, price = W18_HARDWARE[name]
    r = w18_solve(name)
    # sequences the free HBM holds: 90% of it is usable (hbm_usable_fraction, vLLM's default)
    fits = (0.9 * n * capacity - 141e9) / (8192 * 327_680)
    step = STEP_BYTES / (n * bandwidth)  # bandwidth-bound decode step
    throughput = 32 / step  # token/s of the replica
    cost = n * price / 3600 / throughput * 1e6  # USD per million tokens
    assert fits >= 32  # the batch fits: 54.8, 76.2, 76.2 sequences
    assert mag(r["max_concurrent_sequences"], "sequence") == pytest.approx(fits)
    assert mag(r["decode_throughput"], "token/s") == pytest.approx(throughput)
    assert mag(r["cost_per_million_tokens"], "USD/Mtoken") == pytest.approx(cost)
    # Bandwidth-bound decode: the GPU count cancels, cost = (price / bandwidth) * bytes / batch.
    assert cost == pytest.approx(price / 3600 / bandwidth * STEP_BYTES / 32 * 1e6)


def test_w18_ranking_and_numbers():
    costs = {
        name: mag(w18_solve(name)["cost_per_million_tokens"], "USD/Mtoken") for name in W18_HARDWARE
    }
    # Hand: 2.50/3600 * 226.9e9 / (32 * 3.35e12) * 1e6 = 1.470 USD per million tokens
    #       3.00/3600 * 226.9e9 / (32 * 5.3e12)  * 1e6 = 1.115
    #       1.75/3600 * 226.9e9 / (32 * 2.9e12)  * 1e6 = 1.189
    assert costs["H100"] == pytest.approx(1.470, rel=0.001)
    assert costs["MI300X"] == pytest.approx(1.115, rel=0.001)
    assert costs["Trainium2"] == pytest.approx(1.189, rel=0.001)
    assert sorted(costs, key=costs.get) == ["MI300X", "Trainium2", "H100"]


def test_w18_capacity_limits_the_batch_on_fewer_gpus():
    # Two H100 (0.9 x 160 GB = 144 GB usable) cannot hold 141 GB of weights plus 32
    # sequences of 8k context: 3 GB of KV budget holds 1.1 of them.
    r = nm.solve(
        "max_concurrent_sequences",
        n_gpus=2,
        hbm_capacity="80 GB/GPU",
        seq_len=8192,
        weight_memory="141 GB",
        n_layers=80,
        n_kv_heads=8,
        head_dim=128,
    )
    assert mag(r.value, "sequence") == pytest.approx((0.9 * 160e9 - 141e9) / (8192 * 327_680))


def test_w18_inverse_price_for_a_target_cost():
    r = nm.solve(
        "price_per_gpu_hour",
        cost_per_million_tokens="1 USD/Mtoken",
        n_gpus=4,
        decode_throughput="1889.8 token/s",
    )
    assert mag(r.value, "USD/(GPU*h)") == pytest.approx(1e-6 * 1889.8 * 3600 / 4)  # 1.70


# --- CLI --------------------------------------------------------------------------------------
def test_cli_littles_law(napkin):
    status, out, err = napkin(
        "solve", "requests_in_flight", "arrival_rate=50 request/s", "time_in_system=2 s"
    )
    assert status == 0, err
    assert out.startswith("requests_in_flight = 100 request")
    assert "Little's law" in out
