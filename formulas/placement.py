"""Placement: which ranks of each parallel group share a node, and the links their collectives use.

R = gpus_per_nvlink_domain / gpus_per_rank (the ranks one NVLink domain, a node, holds);
t, c, d, p, e the degrees (tp, cp, dp, pp, ep); f = pp_fills_node_first (0 or 1).

    gpus_per_nvlink_domain = gpus_per_node · nvlink_domain_nodes
    tp_local_ranks = min(t, R)                             (tp fills a node first)
    cp_local_ranks = min(c, max(R/t, 1))                   (then cp)
    dp_local_ranks = min(d, max(R/(t·c·(1 + f·(p − 1))), 1))   (then dp, or after pp when f = 1)
    pp_local_ranks = min(p, max(R/(t·c·(d − f·(d − 1))), 1))   (then pp, or before dp when f = 1)
    ep_local_ranks = min(e, max(R/(t·c·(1 + f·(p − 1))), 1))   (ep lies within dp·cp, as dp does)

    B_group = 1 / (1/B_intra + u · (1/B_inter − 1/B_intra)),   B_intra NVLink, B_inter the NIC
      ring all-reduce (tp, dp·cp; link_bandwidth of a collective over node_ranks nodes):
          u = (N − 1)/max(n − 1, 1),  n ranks, g of them per node, N = n/g nodes
      point to point (pp sends, cp's ring of key/value blocks): u = min(N − 1, 1)
      all-to-all (ep):                                     u = (n − g)/max(n − 1, 1)

A group's ranks sit in a node as Megatron-LM lays them out: its rank order is tp, cp, ep,
dp, pp, innermost first (Megatron-Core's ``initialize_model_parallel(order="tp-cp-ep-dp-pp")``),
so with 8 GPUs a node, tp = 2 and dp = 4 the data-parallel group is one node on NVLink, and
tp = 8 leaves every other group across nodes. ``pp_fills_node_first`` = 1 names the other
order (pipeline stages inside the node, replicas across); any other placement is named by
giving the ``*_local_ranks`` themselves.

A ring all-reduce over N nodes of g ranks is priced as the hierarchical all-reduce (Mikami et
al. 2018; ``hierarchical_allreduce_time``): a reduce-scatter and an all-gather on NVLink, the
shards all-reduced across the nodes, each over its own GPU's NIC. Written as a ring's
2(n − 1)/n · S over a bandwidth, that bandwidth is the harmonic blend above: u = 0 in one node
(NVLink), u = 1 with one rank per node (the NIC), and a tensor-parallel group larger than a
node never gets NVLink speed. A point-to-point exchange that crosses a node boundary waits
for its slowest hop, the NIC; an all-to-all sends (g − 1)/n of its buffer on NVLink and
(n − g)/n across, one after the other (an upper bound: NCCL overlaps them).

The same blend prices any collective given its nodes (``link_spans_nodes``: link_bandwidth
from local_ranks and node_ranks), so a ring of 1,024 ranks on 128 nodes runs as the
hierarchical all-reduce, not at NVLink speed; NVLink alone (``link_is_nvlink``) is left for a
collective whose nodes are not given. Where no NIC figure is known (a record without
scale_out_bandwidth), the tensor-parallel group is assumed inside one node
(``tp_link_is_nvlink``, labelled an assumption).

Assumptions, each stated where used: the NVLink domain is one node (GB200 NVL72 states its 72
GPUs); R a multiple of each group's share of it (powers of two); one scale-out NIC per GPU.

TPUs have no NVLink domain: ICI joins every chip of a slice (a v6e pod: 256 chips, 16 × 16;
v5p and TPU7x: whole 4 × 4 × 4 cubes) and the data-centre network (DCN, the record's
scale_out_bandwidth) joins slices. Where the record gives ICI per torus axis
(``ici_axis_bandwidth``, W), each group's collectives run on ICI inside the slice, as the
scaling book lays a training job out (Austin et al. 2025, 'How to Parallelize a Transformer
for Training', §Scaling Between Pods: FSDP and model parallelism inside a pod, pure data
parallelism across pods over DCN):

    slice_chips       = min(n_gpus, gpus_per_pod)            (assumption: whole pods, or one
                                                              slice of the job's chips)
    tp_link_bandwidth = W                    (a ring along one torus axis: 2(t − 1)/t · S / W)
    pp_link_bandwidth = cp_link_bandwidth = W / 2         (one hop to the next chip, one way)
    dp_link_bandwidth = 1 / (1/B_ICI + u · (1/B_DCN − 1/B_ICI)),  B_ICI = W · torus_axes,
        u = (N − 1)/max(n − 1, 1),  n = d·c ranks,  N = min(max(n_gpus/slice_chips, 1), n)
        slices: the hierarchical all-reduce, the slice's ranks on ICI, the shards across
        slices each over its own chip's share of the DCN

The bidirectional ring's 2(n − 1)/n · V/W on an axis with wraparound is the scaling book's
AllReduce (2·V/W_ICI per axis, 'Sharded Matrices'); an axis without wraparound (a v6e axis of
under 16 chips, a v5p axis not a multiple of 4) takes up to twice as long, and ICI is taken at
W (the book's figure, a little under Google's per-link rate), no NCCL-style efficiency.
"""

from sympy import Expr, Max, Min, Symbol

from napkinmath.library.declare import NON_NEGATIVE, Bounds, Eq, constraint, formula, var

from .accelerator import gpus_per_node
from .aggregates import gpus_per_pod
from .collectives import (
    MIKAMI_2018,
    SCALING_BOOK,
    ici_axis_bandwidth,
    inter_node_bandwidth,
    intra_node_bandwidth,
    local_ranks,
    node_ranks,
    torus_axes,
)
from .communication import link_bandwidth
from .parallelism import cp, dp, ep, gpus_per_rank, pp, tp
from .training import n_gpus

SUBJECT = "placement"

MEGATRON_ORDER = (
    "NVIDIA Megatron-LM, megatron/core/parallel_state.py, initialize_model_parallel "
    "(order='tp-cp-ep-dp-pp': consecutive ranks form the tensor-parallel group, then context, "
    "expert, data and pipeline); Narayanan et al. 2021, arXiv:2104.04473, §3 (Takeaway #1: "
    "tensor model parallelism up to the GPUs of a server, pipeline parallelism across servers)"
)
NIC = (
    "assumption: one scale-out NIC per GPU (the DGX/HGX reference designs); a collective "
    "across nodes runs at its per-direction rate"
)
NVL72 = "NVIDIA GB200 NVL72 datasheet (72 GPUs in one NVLink domain, 18 compute trays)"
SCALING_BOOK_PODS = (
    "Austin et al. 2025, How to Scale Your Model (the JAX scaling book), 'How to Parallelize a "
    "Transformer for Training', §Scaling Between Pods (FSDP and model parallelism inside a pod "
    "over ICI, pure data parallelism across pods over the DCN); 'How to Think About TPUs' "
    "(a slice: the chips ICI joins; slices are joined by the DCN)"
)

# --- Variables -----------------------------------------------------------------------------
# Nodes one NVLink domain spans: 1 on HGX/DGX servers, 18 compute trays on a GB200 NVL72 rack.
nvlink_domain_nodes = var(
    "nvlink_domain_nodes",
    "node",
    "nodes (servers, trays) one NVLink domain spans",
    symbol="n_{\\mathrm{NVD}}",
    default="1 node",
    default_note="the NVLink domain is one node (HGX/DGX baseboards); GB200 NVL72 spans 18 trays",
    whole=True,
)
# Accelerators one NVLink domain joins.
gpus_per_nvlink_domain = var(
    "gpus_per_nvlink_domain",
    "GPU",
    "accelerators sharing one NVLink domain (a node; a GB200 NVL72 rack: 72)",
    symbol="g_{\\mathrm{NVD}}",
    whole=True,
)
# Per-direction scale-out (NIC) bandwidth of one accelerator.
scale_out_bandwidth = var(
    "scale_out_bandwidth",
    "GB/(s*GPU)",
    "scale-out (inter-node NIC) bandwidth per accelerator, one direction",
    symbol="B_{\\mathrm{NIC}}",
)
pp_fills_node_first = var(
    "pp_fills_node_first",
    "",
    "placement order, 0 or 1: 1 puts pipeline stages in a node before data-parallel replicas",
    symbol="f_{pp}",
    bounds=NON_NEGATIVE,
    default=0,
    default_note=(
        "Megatron-LM's order (tp, cp, dp, pp): replicas fill a node before pipeline stages; "
        "give 1 for stages inside the node and replicas across, or the *_local_ranks"
    ),
)
nvlink_collective_efficiency = var(
    "nvlink_collective_efficiency",
    "",
    "bus bandwidth NCCL collectives reach on NVLink over its per-direction rate (a step's links)",
    symbol="\\eta_{NVL}",
    bounds=Bounds(0.0, 1.0, lo_inclusive=False),
    default=0.67,
    default_note=(
        "2/3 of the NVLink rate: nccl-tests all_reduce_perf on 8 A100-SXM4-80GB over NVLink "
        "reaches a bus bandwidth of about 200 of 300 GB/s (NVIDIA/nccl-tests issue #149, "
        "NCCL 2.18, 2023); a record's own achievable_nvlink_bandwidth is used where it has one"
    ),
)
_LOCAL: dict[str, Symbol] = {}
for _dim, _what in (
    ("tp", "tensor-parallel"),
    ("cp", "context-parallel"),
    ("dp", "data-parallel"),
    ("pp", "pipeline-parallel"),
    ("ep", "expert-parallel"),
):
    _LOCAL[_dim] = var(
        f"{_dim}_local_ranks",
        "",
        f"ranks of one {_what} group inside one node (NVLink domain)",
        symbol=f"g_{{{_dim}}}",
    )
tp_local_ranks = _LOCAL["tp"]
cp_local_ranks = _LOCAL["cp"]
dp_local_ranks = _LOCAL["dp"]
pp_local_ranks = _LOCAL["pp"]
ep_local_ranks = _LOCAL["ep"]

# Chips one TPU slice joins by ICI.
slice_chips = var(
    "slice_chips",
    "GPU",
    "chips one TPU slice joins by ICI (at most a pod: v6e 256 in a 16 x 16 torus); slices are "
    "joined by the data-centre network",
    symbol="n_{slice}",
    whole=True,
)

tp_link_bandwidth = var(
    "tp_link_bandwidth",
    "GB/s",
    "per-direction bandwidth of a tensor-parallel rank (NVLink in a node, hierarchical across)",
    symbol="B_{tp}",
)
dp_link_bandwidth = var(
    "dp_link_bandwidth",
    "GB/s",
    "per-direction bandwidth of a data-parallel rank's gradient ring (over dp·cp ranks)",
    symbol="B_{dp}",
)
pp_link_bandwidth = var(
    "pp_link_bandwidth",
    "GB/s",
    "per-direction bandwidth between pipeline stages (NVLink in a node, else the NIC)",
    symbol="B_{pp}",
)
cp_link_bandwidth = var(
    "cp_link_bandwidth",
    "GB/s",
    "per-direction bandwidth of a context-parallel ring (NVLink in a node, else the NIC)",
    symbol="B_{cp}",
)
ep_link_bandwidth = var(
    "ep_link_bandwidth",
    "GB/s",
    "per-direction bandwidth of an expert-parallel all-to-all (NVLink and NIC blended)",
    symbol="B_{ep}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "nvlink_domain_is_nodes",
    "GPUs of one NVLink domain",
    Eq(gpus_per_nvlink_domain, gpus_per_node * nvlink_domain_nodes),
    source=NVL72,
    subject=SUBJECT,
    derived=True,
    forward_only=True,
    note="used only where no record states gpus_per_nvlink_domain: the domain is whole nodes",
)

formula(
    "inter_node_is_nic",
    "Across nodes, the NIC",
    Eq(inter_node_bandwidth, scale_out_bandwidth * gpus_per_rank),
    source=NIC,
    subject=SUBJECT,
    derived=True,
    note="used only when no inter_node_bandwidth is given: each GPU's own NIC, one direction",
)

#: ranks of one NVLink domain
_R = gpus_per_nvlink_domain / gpus_per_rank
#: the stages ahead of the replicas in a node: pp when they fill it first, else 1 (f is 0 or 1;
#: a product, not pp^f, which costs a power per candidate in the optimiser)
_PP_FIRST = 1 + pp_fills_node_first * (pp - 1)
#: the replicas ahead of the stages: dp in Megatron's order, else 1
_DP_FIRST = dp - pp_fills_node_first * (dp - 1)
_ORDER_NOTE = (
    "Megatron's rank order (tp, cp, dp, pp, innermost first; pp_fills_node_first = 1 swaps dp "
    "and pp): give the *_local_ranks to name another placement"
)
for _name, _title, _lhs, _rhs in (
    ("tp_ranks_in_node", "Tensor-parallel ranks in a node", tp_local_ranks, Min(tp, _R)),
    (
        "cp_ranks_in_node",
        "Context-parallel ranks in a node",
        cp_local_ranks,
        Min(cp, Max(_R / tp, 1)),
    ),
    (
        "dp_ranks_in_node",
        "Data-parallel ranks in a node",
        dp_local_ranks,
        Min(dp, Max(_R / (tp * cp * _PP_FIRST), 1)),
    ),
    (
        "pp_ranks_in_node",
        "Pipeline stages in a node",
        pp_local_ranks,
        Min(pp, Max(_R / (tp * cp * _DP_FIRST), 1)),
    ),
    (
        "ep_ranks_in_node",
        "Expert-parallel ranks in a node",
        ep_local_ranks,
        Min(ep, Max(_R / (tp * cp * _PP_FIRST), 1)),
    ),
):
    formula(
        _name,
        _title,
        Eq(_lhs, _rhs),
        source=MEGATRON_ORDER,
        subject=SUBJECT,
        derived=True,
        forward_only=True,
        note=_ORDER_NOTE,
    )


#: NVLink as a step's collectives reach it: the bus bandwidth NCCL measures, not the datasheet
_NVLINK_ACHIEVED = intra_node_bandwidth * nvlink_collective_efficiency


def _blend(nic_share: Expr, intra: Expr = _NVLINK_ACHIEVED) -> Expr:
    """The per-direction bandwidth of a collective whose share `nic_share` of the steps (or
    bytes) crosses the NIC and the rest NVLink (at `intra`), one after the other."""
    # 1/B = (1 − u)/B_intra + u/B_inter, written as the NVLink time per byte plus the NIC
    # share's extra: the same number in fewer operations per optimiser candidate
    return 1 / (1 / intra + nic_share * (1 / inter_node_bandwidth - 1 / intra))


def _ring_share(n: Expr, g: Expr) -> Expr:
    """Share of a hierarchical ring all-reduce on the NIC: n ranks, g of them in a node."""
    return (n / g - 1) / Max(n - 1, 1)


for _name, _title, _bandwidth, _share, _note in (
    (
        "tp_link",
        "Tensor-parallel all-reduce links",
        tp_link_bandwidth,
        _ring_share(tp, tp_local_ranks),
        "hierarchical (NVLink in the node, the NIC across) once tp outgrows a node; "
        "NVLink alone while it fits",
    ),
    (
        "dp_link",
        "Data-parallel gradient ring links",
        dp_link_bandwidth,
        _ring_share(dp * cp, dp_local_ranks * cp_local_ranks),
        "the dp·cp ranks' ring, hierarchical: NVLink for the ranks sharing a node, the NIC "
        "across; NVLink alone when the group fits one node",
    ),
    (
        "pp_link",
        "Pipeline stage-to-stage links",
        pp_link_bandwidth,
        Min(pp / pp_local_ranks - 1, 1),
        "NVLink when every stage sits in one node, else the NIC: a cross-node hop is the "
        "slowest and the schedule waits for it",
    ),
    (
        "cp_link",
        "Context-parallel ring links",
        cp_link_bandwidth,
        Min(cp / cp_local_ranks - 1, 1),
        "NVLink when the ring fits one node, else the NIC: its hops run at once and the "
        "cross-node one is the slowest",
    ),
    (
        "ep_link",
        "Expert-parallel all-to-all links",
        ep_link_bandwidth,
        (ep - ep_local_ranks) / Max(ep - 1, 1),
        "(g − 1) of the (e − 1) shares a rank sends stay on NVLink, the rest cross the NIC, "
        "one after the other (an upper bound: NCCL overlaps them)",
    ),
):
    formula(
        _name,
        _title,
        Eq(_bandwidth, _blend(_share)),
        source=f"{MIKAMI_2018}; {NIC}",
        subject=SUBJECT,
        derived=True,
        forward_only=True,
        note=_note,
    )

formula(
    "tp_link_is_nvlink",
    "Tensor parallelism inside a node",
    Eq(tp_link_bandwidth, _NVLINK_ACHIEVED),
    source=MEGATRON_ORDER,
    subject=SUBJECT,
    assumption=True,
    note=(
        "used only where no NIC figure (scale_out_bandwidth, inter_node_bandwidth) places "
        "the group: the tensor-parallel group fits one NVLink domain (tp ≤ "
        "gpus_per_nvlink_domain); give the NIC to price a larger one"
    ),
)

formula(
    "link_spans_nodes",
    "Collective across nodes: hierarchical links",
    Eq(
        link_bandwidth,
        _blend(_ring_share(local_ranks * node_ranks, local_ranks), intra_node_bandwidth),
    ),
    source=f"{MIKAMI_2018}; {NIC}",
    subject=SUBJECT,
    derived=True,
    note=(
        "a collective over node_ranks nodes of local_ranks ranks: NVLink in the node, the NIC "
        "across, as the hierarchical all-reduce (the same time); one node: NVLink alone"
    ),
)

constraint(
    "placement_order_is_one_of_two",
    "The placement order is 0 or 1",
    # zero exactly at 0 and 1, positive anywhere else
    (pp_fills_node_first * (1 - pp_fills_node_first)) ** 2,
    0,
    source=MEGATRON_ORDER,
    subject=SUBJECT,
    touch=(pp_fills_node_first,),
    refuse=True,
    message="pp_fills_node_first names an order, not a blend: 0 puts data-parallel replicas "
    "in a node first (Megatron's order), 1 pipeline stages; give 0 or 1, or the "
    "*_local_ranks for another placement",
)

constraint(
    "placement_fits_node",
    "The placement fits a node",
    tp_local_ranks * cp_local_ranks * dp_local_ranks * pp_local_ranks,
    _R,
    source=MEGATRON_ORDER,
    subject=SUBJECT,
    message="the groups' ranks named inside one node are more than its NVLink domain holds: "
    "lower dp_local_ranks or pp_local_ranks (tp_local_ranks · cp_local_ranks · dp_local_ranks "
    "· pp_local_ranks ≤ gpus_per_nvlink_domain / gpus_per_rank)",
)


# --- TPU slices: ICI inside a slice, the data-centre network across --------------------------
formula(
    "slice_is_whole_pods",
    "A TPU slice: the job's chips, up to a pod (assumed)",
    Eq(slice_chips, Min(n_gpus, gpus_per_pod)),
    source=SCALING_BOOK_PODS,
    subject=SUBJECT,
    derived=True,
    forward_only=True,
    note=(
        "the job runs as one slice while its chips fit a pod (TPU v6e: 256 chips, 16 x 16), "
        "else as whole pods joined over the DCN; give slice_chips for smaller slices"
    ),
)

#: data-parallel ranks and the slices they span (at least one; at most one rank a slice)
_DP_RANKS = dp * cp
_SLICES = Min(Max(n_gpus / slice_chips, 1), _DP_RANKS)

formula(
    "dp_ici_link",
    "Data-parallel ring on TPU slices: ICI in a slice, the DCN across",
    Eq(
        dp_link_bandwidth,
        _blend(
            (_SLICES - 1) / Max(_DP_RANKS - 1, 1),
            ici_axis_bandwidth * torus_axes,
        ),
    ),
    source=f"{SCALING_BOOK_PODS}; {SCALING_BOOK}; {MIKAMI_2018}",
    subject=SUBJECT,
    derived=True,
    forward_only=True,
    note=(
        "the data axis is outermost: inside a slice its ranks all-reduce on bidirectional "
        "ICI rings over torus_axes axes (2(n − 1)/n · V/(W·axes)); across slices each chip "
        "all-reduces its shard over its own share of the DCN (scale_out_bandwidth), as the "
        "hierarchical all-reduce; one slice: ICI alone"
    ),
)

formula(
    "tp_ici_link",
    "Tensor parallelism on a TPU slice: one ICI torus axis",
    Eq(tp_link_bandwidth, ici_axis_bandwidth),
    source=f"{SCALING_BOOK}; {SCALING_BOOK_PODS}",
    subject=SUBJECT,
    derived=True,
    forward_only=True,
    note=(
        "the model axis along one torus axis of the slice, a ring with wraparound: "
        "2(t − 1)/t · S / W_ICI; a group of fewer chips than the axis has no wraparound of "
        "its own and takes up to twice as long"
    ),
)

for _name, _title, _bandwidth in (
    ("pp_ici_link", "Pipeline sends on a TPU slice: one ICI hop", pp_link_bandwidth),
    ("cp_ici_link", "Context-parallel ring on a TPU slice: one ICI hop", cp_link_bandwidth),
):
    formula(
        _name,
        _title,
        Eq(_bandwidth, ici_axis_bandwidth / 2),
        source=f"{SCALING_BOOK}; {SCALING_BOOK_PODS}",
        subject=SUBJECT,
        derived=True,
        forward_only=True,
        note=(
            "to the neighbouring chip along a torus axis: one link, one way (half the "
            "axis's bidirectional W_ICI); inside the slice"
        ),
    )
