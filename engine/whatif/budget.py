"""The size of one what-if, counted before any of its work starts.

A sweep's cost grows with its points and with its table's columns (each point of each column
is evaluated, held in memory and, on the command line, printed); Monte Carlo with its samples;
a sweep over records or a comparison with its records (each is a full solve). The caps below
keep the worst accepted what-if within about a minute and 2 GB on a 2-core machine, and each
refusal says the count, the cap and what to change:

- a sweep takes at most `MAX_POINTS` points (the product of its axes and record lists) and
  `MAX_CELLS` table cells (points × columns: swept inputs, record lists, targets and the three
  feasibility columns, counted whether or not a constraint shows up);
- Monte Carlo takes at most `MAX_SAMPLES` samples;
- a sweep or a comparison takes at most `MAX_RECORDS` records (gpu × model).
"""

from __future__ import annotations

from collections.abc import Sequence

from napkinmath.errors import InputError

MAX_POINTS = 1_000_000
MAX_CELLS = 8_000_000
MAX_SAMPLES = 1_000_000
MAX_RECORDS = 200
#: the feasibility columns a table gains when a constraint is evaluated (feasible, binding
#: constraint, share of limit)
FEASIBILITY_COLUMNS = 3


def sweep_columns(axes: int, record_axes: int, targets: int) -> int:
    """The columns of a sweep's table, counting the feasibility columns."""
    return axes + record_axes + targets + FEASIBILITY_COLUMNS


def check_sweep(sizes: Sequence[tuple[str, int]], targets: int) -> None:
    """Refuse a sweep over these axes ('n_gpus', 9), ('gpu', 3), ... past the caps."""
    points = 1
    for _, n in sizes:
        points *= n
    shape = " × ".join(f"{name} {n:,}" for name, n in sizes) or "one point"
    if points > MAX_POINTS:
        raise InputError(
            f"a sweep of {points:,} points ({shape}); a sweep takes at most "
            f"{MAX_POINTS:,}: give fewer points per axis (low..high:log:N), or "
            "split it into several sweeps"
        )
    record_axes = sum(1 for name, _ in sizes if name in ("gpu", "model"))
    columns = sweep_columns(len(sizes) - record_axes, record_axes, targets)
    if points * columns > MAX_CELLS:
        raise InputError(
            f"a sweep of {points:,} points ({shape}) × {columns} columns "
            f"({targets} target(s)) is {points * columns:,} table cells; a sweep "
            f"takes at most {MAX_CELLS:,}: ask for fewer targets or give fewer "
            "points"
        )


def check_records(count: int, what: str) -> None:
    """Refuse more than MAX_RECORDS records (gpu × model) in a sweep or a comparison."""
    if count > MAX_RECORDS:
        raise InputError(
            f"a {what} over {count:,} records (gpu × model; each is a full "
            f"solve); a {what} takes at most {MAX_RECORDS:,}: name fewer records, "
            f"or split it",
            "gpu",
        )


def check_samples(samples: object) -> int:
    """`samples` as a whole number from 1 to MAX_SAMPLES, or an InputError saying so."""
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise InputError(
            f"samples={samples!r}: expected a whole number from 1 to "
            f"{MAX_SAMPLES:,}, such as 10000",
            "samples",
        )
    return samples
