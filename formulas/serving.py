"""Serving: requests in flight, queueing delay, replicas and the price of a generated token.

    requests_in_flight = arrival_rate · time_in_system                        (Little's law)
    utilization        = arrival_rate · service_time / (n_servers · requests_per_server)
    time_in_queue      = service_time · ρ^(√(2(c+1)) − 1) / (c · (1 − ρ))     (M/M/c)
    time_in_queue_quantile = max(0, S / (c·(1 − ρ)) · ln(ρ^(√(2(c+1)) − 1) / (1 − q)))
    time_in_system     = time_in_queue + service_time
    cost_per_million_tokens = price_per_gpu_hour · n_gpus / decode_throughput

Words: time_in_queue (W_q) is the wait before service starts; time_in_system (W) adds the
service itself. For one server (M/M/1) the queue formula is exact: W_q = ρ/(1−ρ) · S and
W = S/(1−ρ), so at ρ = 0.9 a request waits 9 service times and spends 10 in the system. For c
servers it is Sakasegawa's (1977) approximation of the Erlang C result: within a few percent
where waits matter (ρ ≥ 0.8 for a few servers, ρ ≥ 0.9 for a hundred); at light load it
overstates waits that are tiny anyway. It only works forward (ρ and c sit in an exponent).

An LLM replica that decodes a batch of B requests at once counts as B servers
(slots_per_replica = B): n_servers = n_replicas · slots_per_replica. Sources: Little 1961;
Kleinrock 1975; Sakasegawa 1977.
"""

from sympy import Max, log, sqrt

from napkinmath.library.declare import NON_NEGATIVE, Bounds, Eq, ceiling, formula, var

from .accelerator import price_per_gpu_hour
from .inference import decode_throughput, generation_time, prefill_time
from .sources import DEFINITION
from .training import n_gpus

SUBJECT = "serving"

LITTLE_1961 = (
    "Little 1961, A Proof for the Queuing Formula: L = λW, Operations Research 9(3):383-387"
)
KLEINROCK_1975 = (
    "Kleinrock 1975, Queueing Systems, Volume 1: Theory, Wiley, §3.2 (M/M/1) and §3.5 (M/M/m)"
)
SAKASEGAWA_1977 = (
    "Sakasegawa 1977, An approximation formula L_q ≃ α·ρ^β/(1−ρ), Annals of the Institute of "
    "Statistical Mathematics 29:67-75, doi:10.1007/BF02532775"
)

# --- Variables -----------------------------------------------------------------------------
# Mean rate at which requests arrive.
arrival_rate = var("arrival_rate", "request/s", "mean request arrival rate", symbol="\\lambda")
# Mean time a request spends in the system: queueing plus service (the latency).
time_in_system = var(
    "time_in_system",
    "s",
    "mean time a request spends in the system, queue + service (W)",
    symbol="W",
)
# Mean requests in the system at any moment.
requests_in_flight = var(
    "requests_in_flight", "request", "mean requests in the system (queued + in service)", symbol="L"
)
# Mean time a server works on one request.
service_time = var("service_time", "s", "mean time a server works on one request (S)", symbol="S")
# Mean time a request waits before its service starts.
time_in_queue = var(
    "time_in_queue",
    "s",
    "mean time a request waits before service (W_q)",
    symbol="W_q",
    bounds=NON_NEGATIVE,
)
# Parallel servers of the queue (c); a batching replica counts as one per batch slot.
n_servers = var(
    "n_servers",
    "",
    "parallel servers c (1 for M/M/1; replicas × batch slots)",
    symbol="c",
    whole=True,
)
# Requests a server works on at once: 1 in the M/M/c model.
requests_per_server = var(
    "requests_per_server",
    "request",
    "requests one server works on at a time (1 in M/M/c)",
    symbol="r",
    default=1,
    default_note=(
        "each server of the M/M/c model works on one request at a time; this is the unit that "
        "turns λ·S into busy servers (Kleinrock 1975)"
    ),
)
# Fraction of the servers' time that is busy; below 1 for a stable queue.
utilization = var(
    "utilization",
    "",
    "server utilization ρ, busy fraction (below 1)",
    symbol="\\rho",
    bounds=Bounds(0.0, 1.0, hi_inclusive=False),
)
# Share of requests a latency figure covers (0.99 for p99).
latency_percentile = var(
    "latency_percentile",
    "",
    "share of requests a latency figure covers (0.5 median, 0.9 p90, 0.99 p99)",
    symbol="q",
    bounds=Bounds(0.0, 1.0, hi_inclusive=False),
)
# Wait before service that the latency_percentile of requests stay within.
time_in_queue_quantile = var(
    "time_in_queue_quantile",
    "s",
    "wait before service that latency_percentile of the requests stay within (M/M/c)",
    symbol="W_{q,q}",
    bounds=NON_NEGATIVE,
)
# Model replicas serving the traffic.
n_replicas = var(
    "n_replicas",
    "",
    "model replicas serving the traffic",
    symbol="R",
    rounding=("n_replicas_whole", "serving_gpus"),
    whole=True,
)
# Requests one replica serves at once (its decode batch).
slots_per_replica = var(
    "slots_per_replica",
    "",
    "requests one replica serves at once (its decode batch)",
    symbol="B",
    whole=True,
)
# Replicas rounded up.
n_replicas_whole = var(
    "n_replicas_whole", "", "model replicas, whole", symbol="\\lceil R \\rceil", whole=True
)
# Accelerators of every replica.
serving_gpus = var(
    "serving_gpus",
    "GPU",
    "accelerators of all replicas (whole replicas)",
    symbol="n_{serve}",
    whole=True,
)
# Price of a million generated tokens.
cost_per_million_tokens = var(
    "cost_per_million_tokens",
    "USD/Mtoken",
    "serving cost per million generated tokens, replica fully busy",
    symbol="c_{Mtok}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "littles_law",
    "Little's law",
    Eq(requests_in_flight, arrival_rate * time_in_system),
    source=LITTLE_1961,
    subject=SUBJECT,
    note="holds for any stable system, whatever the arrival and service distributions",
)

formula(
    "utilization",
    "Server utilization",
    Eq(utilization, arrival_rate * service_time / (n_servers * requests_per_server)),
    source=KLEINROCK_1975,
    subject=SUBJECT,
    note="offered load λ·S shared by c servers; the queue is stable only below 1",
)

formula(
    "queue_wait_mmc",
    "Queueing delay, M/M/c",
    Eq(
        time_in_queue,
        service_time
        * utilization ** (sqrt(2 * (n_servers + 1)) - 1)
        / (n_servers * (1 - utilization)),
    ),
    source=f"{KLEINROCK_1975}; {SAKASEGAWA_1977}",
    subject=SUBJECT,
    forward_only=True,
    note=(
        "exact for one server (M/M/1: W_q = ρ/(1−ρ)·S) and Sakasegawa's approximation "
        "of Erlang C for c servers; ρ and c sit in an exponent, so it is evaluated "
        "forward only (try values)"
    ),
)

formula(
    "queue_wait_quantile_mmc",
    "Queueing delay at a percentile, M/M/c",
    Eq(
        time_in_queue_quantile,
        service_time
        / (n_servers * (1 - utilization))
        * Max(
            0,
            log(utilization ** (sqrt(2 * (n_servers + 1)) - 1) / (1 - latency_percentile)),
            evaluate=False,
        ),
    ),
    source=f"{KLEINROCK_1975} (M/M/c: P(W_q > t) = C·e^(−(cμ−λ)t)); {SAKASEGAWA_1977}",
    subject=SUBJECT,
    forward_only=True,
    note=(
        "in M/M/c a request waits with probability C (Erlang C, here Sakasegawa's "
        "ρ^(√(2(c+1)) − 1), which gives the mean wait above), and a waiting request's wait "
        "is exponential with rate c(1 − ρ)/S; the q-quantile is 0 where C ≤ 1 − q, else "
        "S/(c(1 − ρ))·ln(C/(1 − q))"
    ),
)

formula(
    "time_in_system",
    "Time in system",
    Eq(time_in_system, time_in_queue + service_time),
    source=DEFINITION,
    subject=SUBJECT,
    note="waiting plus being served",
)

formula(
    "llm_service_time",
    "Service time of an LLM request",
    Eq(service_time, prefill_time + generation_time),
    source=DEFINITION,
    subject=SUBJECT,
    note="the request holds its batch slot through its prefill and its decode",
)

formula(
    "replica_servers",
    "Servers of a replicated service",
    Eq(n_servers, n_replicas * slots_per_replica),
    source=DEFINITION,
    subject=SUBJECT,
    note="each batch slot of each replica serves one request",
)

formula(
    "whole_replicas",
    "Whole replicas",
    Eq(n_replicas_whole, ceiling(n_replicas)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="rounds up to whole replicas",
)

formula(
    "serving_gpus",
    "Accelerators of the replicas",
    Eq(serving_gpus, n_gpus * ceiling(n_replicas)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="whole replicas of n_gpus accelerators each",
)

formula(
    "cost_per_million_tokens",
    "Serving cost per generated token",
    Eq(cost_per_million_tokens, price_per_gpu_hour * n_gpus / decode_throughput),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "a replica's hourly price over its token output at full load; divide by the "
        "utilization for a fleet that idles part of the time"
    ),
)
