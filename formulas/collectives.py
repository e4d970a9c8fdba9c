"""Collectives as engineers size them: latency and bandwidth (α-β), ring and tree, hierarchical
all-reduce, bidirectional rings on a torus, tensor-parallel all-reduces, MoE all-to-all.

    allreduce_time_ring   = 2(n − 1) · link_latency + allreduce_time           (α-β model)
    allreduce_time_tree   = 2 · log₂(n) · link_latency + 2 · S / link_bandwidth   (two trees)
    n_ranks               = local_ranks · node_ranks
    hierarchical_allreduce_time = 2(g − 1)/g · S / B_intra       (reduce-scatter + all-gather in
                                + 2(N − 1)/N · (S/g) / B_inter   the node, all-reduce across)
    torus_allgather_time  = S / (ici_axis_bandwidth · torus_axes)            (bidirectional rings)
    torus_allreduce_time  = 2 · S / (ici_axis_bandwidth · torus_axes)
    tp_message_bytes      = batch_size · seq_len · hidden_size · activation_bytes_per_element
    tp_comm_bytes_per_layer = tp_allreduces_per_layer · 2(t − 1)/t · tp_message_bytes
    tp_comm_time_per_layer  = tp_comm_bytes_per_layer / link_bandwidth
    moe_dispatch_bytes_per_token = experts_per_token · hidden_size · dispatch_bytes_per_element
    moe_combine_bytes_per_token  = experts_per_token · hidden_size · combine_bytes_per_element
    moe_alltoall_bytes_per_rank  = batch_size · seq_len · (dispatch + combine) · (ep − 1)/ep
    moe_internode_dispatch_bytes_per_token = moe_nodes_per_token · hidden_size · dispatch bytes

The α-β model adds a fixed cost per step (α, ``link_latency``: launch, synchronisation, one
hop) to the bytes over the bandwidth (β = 1/B). A ring takes 2(n − 1) steps, so its latency
grows with n; NCCL's double binary tree takes 2·log₂(n) steps at full bandwidth, which is why
it wins for small messages on many ranks. A hierarchical all-reduce keeps the bulk on NVLink:
only S/g of each GPU's buffer crosses its NIC (16 nodes × 8 H100, 14 GB of gradients, 400 Gb/s
NICs: 0.12 s against a flat ring's 0.56 s). On a TPU torus a ring with wraparound links sends
half the shards each way at once, so the time no longer depends on the ring's length: V/W with
W the axis's bidirectional bandwidth (the scaling book's W_ICI; TPU v5e 9e10 B/s per axis,
v5p and v6e 1.8e11: both links of the axis, one way each, NOT Google's per-chip figure, which
adds all four or six links and both directions). The TPU records hold it with torus_dims, the
torus's axes (2 on v5e and v6e, 3 on v5p): a collective runs over at most that many at once.
Megatron's tensor parallelism all-reduces the b·s·h activations twice per layer in the
forward pass and twice in the backward; expert parallelism sends each token to its k experts
(dispatch) and back (combine), DeepSeek-V3 in FP8 out and BF16 back, to at most 4 nodes.
"""

from sympy import Mul, log

from napkinmath.library.declare import NON_NEGATIVE, Eq, formula, var

from .accelerator import nvlink_bandwidth
from .communication import allreduce_time, link_bandwidth, message_bytes, n_ranks
from .model import batch_size, hidden_size, seq_len
from .moe import experts_per_token
from .parallelism import ep, gpus_per_rank, tp

SUBJECT = "communication"

THAKUR_2005 = (
    "Thakur, Rabenseifner and Gropp 2005, Optimization of Collective Communication Operations "
    "in MPICH, Int. J. High Perform. Comput. Appl. 19(1), §4 (ring all-reduce "
    "2(p−1)α + 2(p−1)/p·nβ)"
)
NCCL_TREES = (
    "Jeaugey 2019, Massively Scale Your Deep Learning Training with NCCL 2.4, NVIDIA Technical "
    "Blog (double binary trees: logarithmic latency, full bandwidth); Sanders, Speck and Träff "
    "2009, Two-tree algorithms for full bandwidth broadcast, reduction and scan, Parallel "
    "Computing 35(12)"
)
MIKAMI_2018 = (
    "Mikami et al. 2018, Massively Distributed SGD: ImageNet/ResNet-50 Training in a Flash, "
    "arXiv:1811.05233, §3 (2D-torus all-reduce: reduce-scatter, all-reduce, all-gather)"
)
SCALING_BOOK = (
    "Austin et al. 2025, How to Scale Your Model (the JAX scaling book), 'Sharded Matrices', "
    "AllGather and AllReduce on bidirectional rings: T = V/W_ICI and 2·V/W_ICI, W_ICI the "
    "bidirectional bandwidth, times the axes used"
)
MEGATRON_TP = (
    "Shoeybi et al. 2019, Megatron-LM, arXiv:1909.08053, §3 and Fig. 4 (two all-reduces per "
    "layer in the forward pass, two in the backward); Narayanan et al. 2021, arXiv:2104.04473, "
    "§3.2 (8·b·s·h·(t−1)/t per layer per device)"
)
DEEPSEEK_V3_EP = (
    "DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437, §2.1.2 (8 routed experts "
    "per token, node-limited routing to at most 4 nodes) and §3.2.2-3.3 (dispatch in FP8, "
    "combine in BF16)"
)

# --- Variables -----------------------------------------------------------------------------
# Fixed cost of one step of a collective: launch, synchronisation, one hop (α).
link_latency = var(
    "link_latency",
    "us",
    "fixed cost per step of a collective (α: launch, synchronisation, one hop)",
    symbol="\\alpha",
    bounds=NON_NEGATIVE,
)
# Ring all-reduce time with the latency term.
allreduce_time_ring = var(
    "allreduce_time_ring",
    "s",
    "ring all-reduce time, latency and bandwidth (α-β model)",
    symbol="t_{AR,ring}",
    bounds=NON_NEGATIVE,
)
# Tree all-reduce time with the latency term.
allreduce_time_tree = var(
    "allreduce_time_tree",
    "s",
    "double-binary-tree all-reduce time, latency and bandwidth (α-β)",
    symbol="t_{AR,tree}",
    bounds=NON_NEGATIVE,
)
# Ranks of the all-reduce inside one node (or NVLink domain).
local_ranks = var(
    "local_ranks",
    "",
    "ranks of a collective inside one node (8 on an HGX node)",
    symbol="g",
    whole=True,
)
# Nodes (or NVLink domains) the all-reduce spans.
node_ranks = var(
    "node_ranks", "", "nodes (NVLink domains) a collective spans", symbol="N", whole=True
)
# Per-direction bandwidth each GPU has inside the node.
intra_node_bandwidth = var(
    "intra_node_bandwidth",
    "GB/s",
    "per-direction bandwidth of each GPU inside the node (NVLink)",
    symbol="B_{intra}",
)
# Per-direction bandwidth each GPU has to other nodes (its NIC, rail-optimised).
inter_node_bandwidth = var(
    "inter_node_bandwidth",
    "GB/s",
    "per-direction bandwidth of each GPU to other nodes (its NIC)",
    symbol="B_{inter}",
)
# Time of a hierarchical all-reduce.
hierarchical_allreduce_time = var(
    "hierarchical_allreduce_time",
    "s",
    "all-reduce time: reduce-scatter in the node, all-reduce across, all-gather in the node",
    symbol="t_{AR,hier}",
    bounds=NON_NEGATIVE,
)
# Bidirectional bandwidth along one torus axis (both neighbours): the scaling book's W_ICI.
ici_axis_bandwidth = var(
    "ici_axis_bandwidth",
    "GB/s",
    "bidirectional bandwidth of one chip along one torus axis (scaling book's W_ICI; TPU v5e "
    "90 GB/s)",
    symbol="W_{ICI}",
)
# Torus axes a collective runs over at once.
torus_axes = var(
    "torus_axes",
    "",
    "torus axes a collective runs over at once",
    symbol="n_{ax}",
    default=1,
    default_note="a collective over one torus axis (one mesh dimension)",
    whole=True,
)
# Axes of the chips' torus: 2 (TPU v5e, v6e), 3 (TPU v4, v5p).
torus_dims = var(
    "torus_dims",
    "",
    "axes of the chips' ICI torus (TPU v5e and v6e 2, v5p 3): the most a collective can use",
    symbol="d_{torus}",
    whole=True,
)
# All-gather on bidirectional rings.
torus_allgather_time = var(
    "torus_allgather_time",
    "s",
    "all-gather (or reduce-scatter) time on bidirectional torus rings",
    symbol="t_{AG,torus}",
    bounds=NON_NEGATIVE,
)
# All-reduce on bidirectional rings.
torus_allreduce_time = var(
    "torus_allreduce_time",
    "s",
    "all-reduce time on bidirectional torus rings",
    symbol="t_{AR,torus}",
    bounds=NON_NEGATIVE,
)
# Bytes of one activation element on the wire: 2 for bf16.
activation_bytes_per_element = var(
    "activation_bytes_per_element",
    "B/(token*element)",
    "bytes of one activation element, for each token (bf16 2, fp8 1)",
    symbol="b_{act}",
    default=2,
    default_note="activations in bf16, 2 bytes per element",
)
# One tensor-parallel all-reduce: the layer's activations.
tp_message_bytes = var(
    "tp_message_bytes",
    "GB",
    "buffer of one tensor-parallel all-reduce: b·s·h activations",
    symbol="S_{TP}",
)
# Tensor-parallel all-reduces per layer per micro-batch.
tp_allreduces_per_layer = var(
    "tp_allreduces_per_layer",
    "",
    "tensor-parallel all-reduces per layer (training 4, forward 2)",
    symbol="n_{AR}",
    default=4,
    default_note=(
        "4 all-reduces per layer per micro-batch in training: after attention and after the "
        "MLP, forward and backward (Megatron-LM); 2 for inference, forward only"
    ),
    whole=True,
)
# Bytes each rank sends for tensor parallelism per layer.
tp_comm_bytes_per_layer = var(
    "tp_comm_bytes_per_layer",
    "GB",
    "bytes each tensor-parallel rank sends per layer per micro-batch",
    symbol="V_{TP}",
    bounds=NON_NEGATIVE,
)
# Time of those all-reduces.
tp_comm_time_per_layer = var(
    "tp_comm_time_per_layer",
    "ms",
    "tensor-parallel all-reduce time per layer per micro-batch",
    symbol="t_{TP}",
    bounds=NON_NEGATIVE,
)
# Bytes of one dispatched activation element.
dispatch_bytes_per_element = var(
    "dispatch_bytes_per_element",
    "B/(token*element)",
    "bytes per element a token is dispatched to its experts in (bf16 2, fp8 1)",
    symbol="b_{disp}",
    default=2,
    default_note=(
        "dispatch in bf16, 2 bytes per element; DeepSeek-V3 dispatches in FP8 (1 byte plus a "
        "scale per 128 elements)"
    ),
)
# Bytes of one combined activation element.
combine_bytes_per_element = var(
    "combine_bytes_per_element",
    "B/(token*element)",
    "bytes per element the experts' outputs come back in (bf16 2)",
    symbol="b_{comb}",
    default=2,
    default_note="combine in bf16, 2 bytes per element (DeepSeek-V3 too)",
)
# Bytes one token sends to its experts in one MoE layer.
moe_dispatch_bytes_per_token = var(
    "moe_dispatch_bytes_per_token",
    "B/token",
    "bytes one token sends to its routed experts per MoE layer (dispatch)",
    symbol="m_{disp}",
)
# Bytes the experts send back for one token in one MoE layer.
moe_combine_bytes_per_token = var(
    "moe_combine_bytes_per_token",
    "B/token",
    "bytes the routed experts send back per token per MoE layer (combine)",
    symbol="m_{comb}",
)
# Bytes each expert-parallel rank sends per MoE layer, dispatch and combine.
moe_alltoall_bytes_per_rank = var(
    "moe_alltoall_bytes_per_rank",
    "GB",
    "bytes each expert-parallel rank sends per MoE layer, dispatch and combine",
    symbol="V_{EP}",
    bounds=NON_NEGATIVE,
)
# Nodes a token's experts are spread over (DeepSeek-V3: at most 4).
moe_nodes_per_token = var(
    "moe_nodes_per_token",
    "",
    "nodes one token's routed experts are on (DeepSeek-V3: at most 4)",
    symbol="M",
)
# Bytes one token's dispatch puts on the inter-node network per MoE layer.
moe_internode_dispatch_bytes_per_token = var(
    "moe_internode_dispatch_bytes_per_token",
    "B/token",
    "bytes one token's dispatch sends across nodes per MoE layer (one copy per node)",
    symbol="m_{disp,IB}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "allreduce_time_ring",
    "Ring all-reduce, latency and bandwidth",
    Eq(allreduce_time_ring, 2 * (n_ranks - 1) * link_latency + allreduce_time),
    source=THAKUR_2005,
    subject=SUBJECT,
    note=(
        "2(n−1) steps of α each, and allreduce_time for the bytes; latency dominates "
        "below about n·α·B bytes"
    ),
)

formula(
    "allreduce_time_tree",
    "Tree all-reduce, latency and bandwidth",
    Eq(
        allreduce_time_tree,
        2 * log(n_ranks) / log(2) * link_latency + 2 * message_bytes / link_bandwidth,
    ),
    source=NCCL_TREES,
    subject=SUBJECT,
    note=(
        "a reduce up and a broadcast down two complementary binary trees: 2·log₂(n) steps, "
        "each GPU sending about 2·S in all; pipelining chunks is assumed"
    ),
)

formula(
    "ranks_in_nodes",
    "Ranks of a multi-node collective",
    Eq(n_ranks, local_ranks * node_ranks),
    source="definition",
    subject=SUBJECT,
    note="every node contributes the same number of ranks",
)

formula(
    "hierarchical_allreduce_time",
    "Hierarchical all-reduce",
    Eq(
        hierarchical_allreduce_time,
        Mul(2, local_ranks - 1, evaluate=False) / local_ranks * message_bytes / intra_node_bandwidth
        + Mul(2, node_ranks - 1, evaluate=False)
        / node_ranks
        * message_bytes
        / (local_ranks * inter_node_bandwidth),
    ),
    source=MIKAMI_2018,
    subject=SUBJECT,
    note=(
        "reduce-scatter and all-gather on NVLink, (g−1)/g of S each; between them the "
        "g shards of S/g are all-reduced across the nodes in parallel, each over its "
        "own GPU's NIC"
    ),
)

formula(
    "intra_node_is_nvlink",
    "Inside the node, NVLink",
    Eq(intra_node_bandwidth, nvlink_bandwidth * gpus_per_rank),
    source="definition",
    subject=SUBJECT,
    derived=True,
    note="used only when no intra_node_bandwidth is given: the accelerator's NVLink, one direction",
)

formula(
    "torus_allgather_time",
    "All-gather on bidirectional torus rings",
    Eq(torus_allgather_time, message_bytes / (ici_axis_bandwidth * torus_axes)),
    source=SCALING_BOOK,
    subject=SUBJECT,
    note=(
        "half the shards go each way round a ring with wraparound, so the ring's length "
        "cancels: V/W; without wraparound (a TPU v5e axis under 16 chips) up to twice "
        "as long; latency-bound below about 1 µs per hop"
    ),
)

formula(
    "torus_allreduce_time",
    "All-reduce on bidirectional torus rings",
    Eq(torus_allreduce_time, 2 * message_bytes / (ici_axis_bandwidth * torus_axes)),
    source=SCALING_BOOK,
    subject=SUBJECT,
    note="a reduce-scatter and an all-gather: twice the all-gather",
)

formula(
    "tp_message_bytes",
    "Tensor-parallel all-reduce buffer",
    Eq(tp_message_bytes, batch_size * seq_len * hidden_size * activation_bytes_per_element),
    source=MEGATRON_TP,
    subject=SUBJECT,
    note="the b·s·h output of attention or of the MLP, whole on every tensor-parallel rank",
)

formula(
    "tp_comm_bytes_per_layer",
    "Tensor-parallel bytes per layer",
    Eq(
        tp_comm_bytes_per_layer,
        tp_allreduces_per_layer * Mul(2, tp - 1, evaluate=False) / tp * tp_message_bytes,
    ),
    source=MEGATRON_TP,
    subject=SUBJECT,
    note="ring all-reduces over the tp ranks; 0 without tensor parallelism",
)

formula(
    "tp_comm_time_per_layer",
    "Tensor-parallel all-reduce time per layer",
    Eq(tp_comm_time_per_layer, tp_comm_bytes_per_layer / link_bandwidth),
    source=MEGATRON_TP,
    subject=SUBJECT,
    note="on the critical path unless overlapped; NVLink by default (link_bandwidth)",
)

formula(
    "moe_dispatch_bytes_per_token",
    "MoE dispatch bytes per token",
    Eq(moe_dispatch_bytes_per_token, experts_per_token * hidden_size * dispatch_bytes_per_element),
    source=DEEPSEEK_V3_EP,
    subject=SUBJECT,
    note="one copy of the token's hidden state per routed expert",
)

formula(
    "moe_combine_bytes_per_token",
    "MoE combine bytes per token",
    Eq(moe_combine_bytes_per_token, experts_per_token * hidden_size * combine_bytes_per_element),
    source=DEEPSEEK_V3_EP,
    subject=SUBJECT,
    note="each routed expert's output comes back to be summed",
)

formula(
    "moe_alltoall_bytes_per_rank",
    "MoE all-to-all bytes per rank per layer",
    Eq(
        moe_alltoall_bytes_per_rank,
        batch_size
        * seq_len
        * (moe_dispatch_bytes_per_token + moe_combine_bytes_per_token)
        * (ep - 1)
        / ep,
    ),
    source=f"{DEEPSEEK_V3_EP}; Lepikhin et al. 2020, GShard, arXiv:2006.16668, §2.2",
    subject=SUBJECT,
    note=(
        "the rank's b·s tokens, uniform routing: (ep−1)/ep of the expert copies live "
        "elsewhere; forward pass (the backward sends as much again)"
    ),
)

formula(
    "moe_internode_dispatch_bytes_per_token",
    "MoE dispatch bytes across nodes per token",
    Eq(
        moe_internode_dispatch_bytes_per_token,
        moe_nodes_per_token * hidden_size * dispatch_bytes_per_element,
    ),
    source=DEEPSEEK_V3_EP,
    subject=SUBJECT,
    note=(
        "node-limited routing: one copy per destination node over InfiniBand, forwarded "
        "to the experts inside over NVLink (DeepSeek-V3: at most 4 of 8 experts' nodes)"
    ),
)
