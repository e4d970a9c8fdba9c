"""Storage for training: checkpoint size, write and restore time, cadence overhead, the data stream.

    checkpoint_size          = params_total · checkpoint_bytes_per_param     (16 B/param: 6.48 TB
                                                                               for 405e9 param)
    checkpoint_write_time    = checkpoint_size / storage_write_bandwidth
    checkpoint_restore_time  = storage_retrieval_time + checkpoint_size / storage_bandwidth
    checkpoint_overhead      = checkpoint_write_time / checkpoint_interval   (blocking save)
    train_throughput         = n_gpus · peak_flops · mfu / (flop_per_param_token · params)
    dataset_read_rate        = train_throughput · dataset_bytes_per_token
    burst_to_stream_ratio    = storage_write_bandwidth / dataset_read_rate
    transfer_time            = transfer_size / transfer_bandwidth     (download, copy, restore)
    checkpoint_storage_cost  = checkpoint_storage · storage_price      (K checkpoints, per month)
    tiered_checkpoint_storage_cost = checkpoint_size · (K_r · storage_price
                                                        + (K − K_r) · archive_storage_price)
    tiering_saving           = checkpoint_storage_cost − tiered_checkpoint_storage_cost
    storage_bandwidth        = node_storage_bandwidth · storage_nodes          (node-local tier)
    storage_write_bandwidth  = node_storage_write_bandwidth · storage_nodes
    storage_nodes            = n_nodes           (assumed: every node writes its own share)

A training run reads its data as a thin steady stream (megabytes per second) and writes its
checkpoints as rare bursts (hundreds of GB/s): the two size a storage system differently.
``storage_bandwidth`` is a tier's (read) rate as the hardware records quote it; writes use
``storage_write_bandwidth``, which is the same figure unless a record or the user gives another.
An asynchronous checkpoint blocks training only while the state is copied to host memory
(CheckFreq's snapshot); the write to storage overlaps the next steps.

Moving data: a dataset download, a checkpoint copied between regions, a restore from an object
store all take transfer_size / transfer_bandwidth, at the end-to-end rate of the slowest of
source, network and destination (a 6.48 TB checkpoint over a 100 Gb/s link: 8.6 min; over
10 Gb/s: 1.44 h). Keeping K checkpoints costs K · checkpoint_size · storage_price per month.
Tiering keeps the newest K_r (``recent_checkpoints``: the ones a restart reads) on the fast
tier and archives the older K − K_r at ``archive_storage_price``; what it saves against keeping
all K on the fast tier is (K − K_r) · checkpoint_size · (storage_price − archive_storage_price).
An archive tier serves its first byte only after a retrieval (``storage_retrieval_time``: up
to 12 hours for S3 Glacier Deep Archive's standard retrieval), so a restore from it is that
wait plus the read; an online tier's retrieval is 0.

A node-local tier (the NVMe drives inside each GPU server) has its bandwidth per node, and
the nodes write in parallel, each its own shard of a sharded checkpoint (FSDP, ZeRO-3, a
distributed checkpoint): the tier's aggregate is the per-node figure times the nodes that
write, so checkpoint_write_time follows. 2,048 nodes writing at 56 GB/s each (eight 7 GB/s
Gen4 drives, the NVMe-8-drive-node record's per-node estimate) put a 6.48 TB checkpoint down
in 57 ms, where one 100 GB/s filesystem takes 65 s; but a local copy is lost with its node,
so it is a fast first tier, never the last copy (replicate it to a node that survives, or to
the shared filesystem).
"""

from napkinmath.library.declare import FRACTION, NON_NEGATIVE, Eq, floor, formula, var

from .accelerator import peak_flops
from .model import params_total
from .sources import DEFINITION, KAPLAN_2020, NARAYANAN_2021
from .training import flop_per_param_token, mfu, n_gpus, n_nodes, params, tokens, train_time

SUBJECT = "storage"

ZERO_2020 = (
    "Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054, §3.1 (16 bytes per parameter of "
    "mixed-precision Adam state)"
)
CHECKFREQ_2021 = (
    "Mohan, Phanishayee and Chidambaram 2021, CheckFreq: Frequent, Fine-Grained DNN "
    "Checkpointing, USENIX FAST '21 (snapshot to host memory, then persist in the background)"
)
GLACIER_RETRIEVAL = (
    "AWS, Amazon S3 User Guide, Restoring an archived object (S3 Glacier Deep Archive: "
    "standard retrieval within 12 hours, bulk within 48)"
)
LLAMA3_2024 = (
    "Llama Team 2024, The Llama 3 Herd of Models, arXiv:2407.21783, §3.3.1 (storage: "
    "checkpoint bursts against a steady data stream)"
)

# --- Variables -----------------------------------------------------------------------------
# Bytes a checkpoint stores per parameter.
checkpoint_bytes_per_param = var(
    "checkpoint_bytes_per_param",
    "B/param",
    "checkpoint bytes per parameter",
    symbol="b_{ckpt}",
    default=16,
    default_note=(
        "16 B/param: the whole mixed-precision Adam training state (ZeRO §3.1); a checkpoint "
        "without gradients holds 14 (bf16 weights + fp32 master, m and v)"
    ),
)
# Size of one checkpoint.
checkpoint_size = var("checkpoint_size", "GB", "size of one checkpoint", symbol="M_{ckpt}")
# Sustained (read) bandwidth of a storage tier, as records quote it.
storage_bandwidth = var(
    "storage_bandwidth",
    "GB/s",
    "sustained bandwidth of a storage tier (read, unless stated)",
    symbol="B_{st}",
)
# Write bandwidth of the tier, where it differs from the read rate.
storage_write_bandwidth = var(
    "storage_write_bandwidth",
    "GB/s",
    "sustained write bandwidth of a storage tier",
    symbol="B_{st,w}",
)
# Usable capacity of the tier.
storage_capacity = var(
    "storage_capacity", "TB", "usable capacity of a storage tier", symbol="M_{st}"
)
# Wait before an archive tier serves the first byte of a read.
storage_retrieval_time = var(
    "storage_retrieval_time",
    "h",
    "time before a tier serves the first byte of a read (an archive's retrieval)",
    symbol="t_{ret}",
    bounds=NON_NEGATIVE,
    default=0,
    default_note="0 h: an online tier serves a read at once (an archive tier states its wait)",
)
# Time to write one checkpoint to the tier.
checkpoint_write_time = var(
    "checkpoint_write_time", "s", "time to write one checkpoint", symbol="t_{w}"
)
# Time to read one checkpoint back (restore after a failure).
checkpoint_restore_time = var(
    "checkpoint_restore_time", "s", "time to read one checkpoint back from the tier", symbol="t_{r}"
)
# Wall time between checkpoints.
checkpoint_interval = var(
    "checkpoint_interval", "min", "wall time between checkpoints", symbol="\\tau"
)
# Share of wall time a blocking checkpoint takes.
checkpoint_overhead = var(
    "checkpoint_overhead",
    "",
    "share of wall time spent writing checkpoints (blocking save)",
    symbol="f_{ckpt}",
    bounds=FRACTION,
)
# Device-to-host copy bandwidth of each accelerator (PCIe), for asynchronous checkpoints.
snapshot_bandwidth = var(
    "snapshot_bandwidth",
    "GB/(s*GPU)",
    "device-to-host copy bandwidth per accelerator (async snapshot)",
    symbol="B_{d2h}",
)
# Time training pauses while the state is copied to host memory.
checkpoint_snapshot_time = var(
    "checkpoint_snapshot_time",
    "s",
    "pause while every GPU copies its shard of the state to host memory",
    symbol="t_{snap}",
)
# Share of wall time an asynchronous checkpoint blocks.
checkpoint_overhead_async = var(
    "checkpoint_overhead_async",
    "",
    "share of wall time an asynchronous checkpoint blocks (the snapshot only)",
    symbol="f_{ckpt,async}",
    bounds=FRACTION,
)
# Bytes one training token takes on disk.
dataset_bytes_per_token = var(
    "dataset_bytes_per_token",
    "B/token",
    "bytes per training token on disk",
    symbol="b_{tok}",
    default=4,
    default_note=(
        "4 B per token: pre-tokenized uint32 ids (vocabularies above 65,536, e.g. Llama 3's "
        "128K); uint16 ids take 2, raw English text about 4"
    ),
)
# Size of the training tokens on disk.
dataset_size = var("dataset_size", "GB", "training tokens on disk", symbol="M_{data}")
# Tokens per second a training fleet consumes.
train_throughput = var(
    "train_throughput", "token/s", "training tokens per second of the fleet", symbol="X_{train}"
)
# Steady read rate of the training data.
dataset_read_rate = var(
    "dataset_read_rate", "MB/s", "steady read rate of the training data", symbol="R_{data}"
)
# Checkpoint write burst over the steady data stream.
burst_to_stream_ratio = var(
    "burst_to_stream_ratio",
    "",
    "checkpoint write bandwidth over the data read rate",
    symbol="R_{burst}",
)
# Checkpoints kept on the tier.
checkpoints_kept = var(
    "checkpoints_kept",
    "",
    "checkpoints kept on the tier",
    symbol="K",
    bounds=NON_NEGATIVE,
    whole=True,
)
# Space the kept checkpoints take.
checkpoint_storage = var(
    "checkpoint_storage",
    "TB",
    "space the kept checkpoints take",
    symbol="M_{ckpts}",
    bounds=NON_NEGATIVE,
)
# Space the run needs: dataset plus kept checkpoints.
storage_needed = var(
    "storage_needed", "TB", "storage the run needs: dataset + kept checkpoints", symbol="M_{need}"
)
# Whole checkpoints that fit in the tier's capacity.
checkpoints_fit = var(
    "checkpoints_fit",
    "",
    "whole checkpoints that fit in the tier",
    symbol="K_{max}",
    bounds=NON_NEGATIVE,
)

# Read bandwidth of one node's local storage (its drives together).
node_storage_bandwidth = var(
    "node_storage_bandwidth",
    "GB/(s*node)",
    "sustained read bandwidth of one node's local storage, its drives together",
    symbol="B_{st,node}",
)
# Write bandwidth of one node's local storage.
node_storage_write_bandwidth = var(
    "node_storage_write_bandwidth",
    "GB/(s*node)",
    "sustained write bandwidth of one node's local storage, its drives together",
    symbol="B_{st,w,node}",
)
# Nodes that write (or read) their share of a checkpoint at once.
storage_nodes = var(
    "storage_nodes",
    "node",
    "nodes whose local storage takes part at once, each writing or reading its own share",
    symbol="n_{st}",
    whole=True,
)

# Bytes to move: a dataset, a checkpoint, a model.
transfer_size = var(
    "transfer_size",
    "GB",
    "bytes to move (dataset download, checkpoint copy)",
    symbol="M_{xfer}",
    bounds=NON_NEGATIVE,
)
# End-to-end rate of the copy: the slowest of source, network and destination.
transfer_bandwidth = var(
    "transfer_bandwidth",
    "GB/s",
    "end-to-end rate of a copy: the slowest of source, link, destination",
    symbol="B_{xfer}",
)
# Time the copy takes.
transfer_time = var(
    "transfer_time",
    "s",
    "time to move transfer_size at transfer_bandwidth",
    symbol="t_{xfer}",
    bounds=NON_NEGATIVE,
)
# Price of keeping a terabyte on a tier for a month.
storage_price = var(
    "storage_price",
    "USD/(TB*month)",
    "price of keeping one TB on a storage tier for a month",
    symbol="p_{st}",
    bounds=NON_NEGATIVE,
)
# Checkpoints kept on the fast tier when older ones are archived.
recent_checkpoints = var(
    "recent_checkpoints",
    "",
    "newest checkpoints kept on the fast tier (the ones a restart reads); the older ones "
    "of checkpoints_kept are archived",
    symbol="K_r",
    bounds=NON_NEGATIVE,
    whole=True,
)
# Price of the archive tier the older checkpoints move to.
archive_storage_price = var(
    "archive_storage_price",
    "USD/(TB*month)",
    "price of keeping one TB a month on the archive tier older checkpoints move to",
    symbol="p_{arch}",
    bounds=NON_NEGATIVE,
    default=0.99,
    default_note=(
        "0.99 USD per TB-month: S3 Glacier Deep Archive's storage price in us-east-1 (the "
        "S3-Glacier-Deep-Archive record; retrieval, request and egress fees on top)"
    ),
)
# Monthly cost of the kept checkpoints, the older ones archived.
tiered_checkpoint_storage_cost = var(
    "tiered_checkpoint_storage_cost",
    "USD/month",
    "monthly cost of the kept checkpoints with the newest on the fast tier and the rest archived",
    symbol="\\$_{tiered}",
    bounds=NON_NEGATIVE,
)
# What archiving the older checkpoints saves a month.
tiering_saving = var(
    "tiering_saving",
    "USD/month",
    "monthly saving of archiving the older checkpoints against keeping all on the fast tier",
    symbol="\\Delta\\$_{tier}",
)
# Monthly cost of the kept checkpoints.
checkpoint_storage_cost = var(
    "checkpoint_storage_cost",
    "USD/month",
    "monthly cost of keeping the checkpoints on a tier",
    symbol="\\$_{ckpts}",
    bounds=NON_NEGATIVE,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "checkpoint_size",
    "Checkpoint size",
    Eq(checkpoint_size, params_total * checkpoint_bytes_per_param),
    source=ZERO_2020,
    subject=SUBJECT,
    note="every parameter, experts included",
)

formula(
    "write_is_read_bandwidth",
    "Write bandwidth of a tier",
    Eq(storage_write_bandwidth, storage_bandwidth),
    source=DEFINITION,
    subject=SUBJECT,
    derived=True,
    note=(
        "used only when no write bandwidth is given: the tier writes as fast as it "
        "reads (many SSDs write at half)"
    ),
)

formula(
    "checkpoint_write_time",
    "Checkpoint write time",
    Eq(checkpoint_write_time, checkpoint_size / storage_write_bandwidth),
    source=DEFINITION,
    subject=SUBJECT,
    note="solved for storage_write_bandwidth: the burst a write-time target needs",
)

formula(
    "checkpoint_restore_time",
    "Checkpoint restore time",
    Eq(checkpoint_restore_time, storage_retrieval_time + checkpoint_size / storage_bandwidth),
    source=f"{DEFINITION}; {GLACIER_RETRIEVAL}",
    subject=SUBJECT,
    note="reading the whole checkpoint back, after the tier's retrieval wait (0 online)",
)

formula(
    "checkpoint_overhead",
    "Checkpoint overhead, blocking",
    Eq(checkpoint_overhead, checkpoint_write_time / checkpoint_interval),
    source=CHECKFREQ_2021,
    subject=SUBJECT,
    note="training stops for every write; solved for a bandwidth, the tier a budget needs",
)

formula(
    "checkpoint_snapshot_time",
    "Snapshot to host memory",
    Eq(checkpoint_snapshot_time, checkpoint_size / (n_gpus * snapshot_bandwidth)),
    source=CHECKFREQ_2021,
    subject=SUBJECT,
    note="every GPU copies its shard at once (state sharded evenly over the job)",
)

formula(
    "checkpoint_overhead_async",
    "Checkpoint overhead, asynchronous",
    Eq(checkpoint_overhead_async, checkpoint_snapshot_time / checkpoint_interval),
    source=CHECKFREQ_2021,
    subject=SUBJECT,
    note=(
        "only the snapshot blocks; the write to storage must still finish within the "
        "interval (checkpoint_write_time < checkpoint_interval)"
    ),
)

formula(
    "dataset_size",
    "Dataset size on disk",
    Eq(dataset_size, tokens * dataset_bytes_per_token),
    source=DEFINITION,
    subject=SUBJECT,
    note="one pass over the training tokens",
)

formula(
    "train_throughput",
    "Training tokens per second",
    Eq(train_throughput, n_gpus * peak_flops * mfu / (flop_per_param_token * params)),
    source=f"{KAPLAN_2020}; {NARAYANAN_2021}",
    subject=SUBJECT,
    note="the fleet's FLOP/s over the FLOP each token costs (6N)",
)

formula(
    "train_time_from_throughput",
    "Training time from throughput",
    Eq(train_time, tokens / train_throughput),
    source=DEFINITION,
    subject=SUBJECT,
    derived=True,
    note="the fleet equation and the 6ND rule combined",
)

formula(
    "dataset_read_rate",
    "Data read rate",
    Eq(dataset_read_rate, train_throughput * dataset_bytes_per_token),
    source=LLAMA3_2024,
    subject=SUBJECT,
    note="tokens per second times their bytes on disk; reading ahead and shuffling aside",
)

formula(
    "burst_to_stream_ratio",
    "Checkpoint burst over data stream",
    Eq(burst_to_stream_ratio, storage_write_bandwidth / dataset_read_rate),
    source=LLAMA3_2024,
    subject=SUBJECT,
    note="about 10⁴ for a large run: size storage for the burst, not the stream",
)

formula(
    "checkpoint_storage",
    "Space for kept checkpoints",
    Eq(checkpoint_storage, checkpoints_kept * checkpoint_size),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "storage_needed",
    "Storage a run needs",
    Eq(storage_needed, dataset_size + checkpoint_storage),
    source=DEFINITION,
    subject=SUBJECT,
    note="logs, evaluation sets and replicas come on top",
)

formula(
    "checkpoints_fit",
    "Checkpoints that fit in a tier",
    Eq(checkpoints_fit, floor(storage_capacity / checkpoint_size)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="rounds down: a checkpoint fits whole or not",
)

formula(
    "transfer_time",
    "Time to move data",
    Eq(transfer_time, transfer_size / transfer_bandwidth),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "bits vs bytes: a 100 Gb/s link moves 12.5 GB/s; protocol overhead and a single "
        "TCP stream over a long path often reach far less: give the rate measured"
    ),
)

formula(
    "checkpoint_storage_cost",
    "Monthly cost of kept checkpoints",
    Eq(checkpoint_storage_cost, checkpoint_storage * storage_price),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "per tier: price a burst tier and an archive tier alike to see what tiering "
        "saves; retrieval and egress fees come on top"
    ),
)

formula(
    "tiered_checkpoint_storage_cost",
    "Monthly cost of tiered checkpoints",
    Eq(
        tiered_checkpoint_storage_cost,
        checkpoint_size
        * (
            recent_checkpoints * storage_price
            + (checkpoints_kept - recent_checkpoints) * archive_storage_price
        ),
    ),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "the newest K_r on the fast tier, the older K − K_r archived; retrieval, request "
        "and egress fees, and an archive's minimum billed time, come on top"
    ),
)

formula(
    "tiering_saving",
    "Monthly saving of archiving old checkpoints",
    Eq(tiering_saving, checkpoint_storage_cost - tiered_checkpoint_storage_cost),
    source=DEFINITION,
    subject=SUBJECT,
    note="all K on the fast tier, against the newest K_r there and the rest archived",
)

formula(
    "node_local_storage_bandwidth",
    "Read bandwidth of a node-local tier",
    Eq(storage_bandwidth, node_storage_bandwidth * storage_nodes),
    source=DEFINITION,
    subject=SUBJECT,
    note="each node reads its own share from its own drives, all at once",
)

formula(
    "node_local_storage_write_bandwidth",
    "Write bandwidth of a node-local tier",
    Eq(storage_write_bandwidth, node_storage_write_bandwidth * storage_nodes),
    source=DEFINITION,
    subject=SUBJECT,
    note="each node writes its own shard to its own drives, all at once",
)

formula(
    "storage_nodes_are_all_nodes",
    "Every node of the job writes its share",
    Eq(storage_nodes, n_nodes),
    source=f"{DEFINITION}; {ZERO_2020}",
    subject=SUBJECT,
    assumption=True,
    note=(
        "the training state sharded over every node (FSDP, ZeRO-3, a distributed "
        "checkpoint); with replicated state only one replica's nodes write: give "
        "storage_nodes"
    ),
)
