"""The candidates of a layout search (`napkinmath.whatif.optimize`) as its optimum
(`napkinmath.whatif.optimum`) reads them: the groups of a record pair and a choice of settings
over a numeric grid (`Group`), every candidate's objectives, requirement values, constraint
sides and layout rules (`Arrays`, `RULES`), and what the optimum asks of the search itself
(`Search`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from napkinmath.answer.result import Result
    from napkinmath.whatif import requirements as req
    from napkinmath.whatif.domains import Domain
    from napkinmath.whatif.vectorize import VectorChain

RULE_DP = "dp whole"
#: what each rule of a layout requires (a candidate that breaks one is not a layout)
RULES = {
    RULE_DP: ("dp", "dp = n_gpus / (tp · pp · cp · gpus_per_rank) is a whole number of replicas"),
    "micro-batches": (
        "n_microbatches",
        "n_microbatches ≥ 1: each data-parallel replica gets a micro-batch of the global batch",
    ),
    "micro-batches whole": (
        "n_microbatches",
        "n_microbatches whole: dp · batch_size divides the global batch",
    ),
}


class Group:
    """One record pair and choice of settings: its plan, compiled, over the numeric grid."""

    def __init__(self, gpu, model, settings: dict[str, str], numeric: list[Domain]) -> None:
        self.gpu, self.model, self.settings = gpu, model, settings
        self.numeric = numeric
        self.sizes = tuple(len(d.values) for d in numeric)
        self.count = math.prod(self.sizes) if numeric else 1
        self.offset = 0
        self.chain: VectorChain | None = None
        self.center: Result | None = None
        self.fixed: dict[str, float] = {}
        self.givens: dict[str, object] = {}
        self.follows: bool = False
        self.error: str = ""

    def label(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.gpu is not None:
            out["gpu"] = self.gpu
        if self.model is not None:
            out["model"] = self.model
        out.update(self.settings)
        return out

    def grid(self, start: int, stop: int) -> dict[str, np.ndarray]:
        """The numeric decision values of local candidates start..stop (C order)."""
        index = np.arange(start, stop)
        coords = np.unravel_index(index, self.sizes) if self.numeric else ()
        return {
            d.name: np.asarray(d.values, dtype=float)[c]
            for d, c in zip(self.numeric, coords, strict=True)
        }


class Arrays:
    """Per candidate (every group in turn): objectives, requirement values, constraint sides."""

    def __init__(self, total: int, objectives, requirements, names) -> None:
        self.objective = {o: np.full(total, np.nan) for o in objectives}
        self.requirement = [np.full(total, np.nan) for _ in requirements]
        self.lhs = {n: np.full(total, np.nan) for n in names}
        self.rhs = {n: np.full(total, np.nan) for n in names}
        self.known = {n: np.zeros(total, dtype=bool) for n in names}
        self.holds = {n: np.zeros(total, dtype=bool) for n in names}
        self.valid = np.zeros(total, dtype=bool)
        self.rules = {name: np.zeros(total, dtype=bool) for name in RULES}
        self.rule_values = {name: np.full(total, np.nan) for name in RULES}


class Search(Protocol):
    """What an optimum reads of the search that found it (`napkinmath.whatif.optimize`)."""

    objectives: tuple[str, ...]
    senses: dict[str, int]
    requirements: list[req.Requirement]
    gpus: list
    models: list
    notes: list[str]
    total: int
    top: int
    tolerance: float
    achievable: bool
    context_gpus_per_node: float | None

    def precision_of(self, group: Group) -> str | None: ...

    def point_givens(self, group: Group, at: Mapping[str, float]) -> dict[str, object]: ...

    def dp(self, grid: Mapping[str, np.ndarray], group: Group) -> np.ndarray: ...

    def evaluate_at(
        self, group: Group, grid: Mapping[str, np.ndarray]
    ) -> dict[str, np.ndarray]: ...
