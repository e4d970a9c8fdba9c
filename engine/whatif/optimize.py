"""Optimisation under constraints: the smallest, cheapest or fastest plan that fits.

    optimize("n_gpus", over={"n_gpus": "whole nodes"}, params="7B", tokens="1T",
             train_time="<= 3 weeks", mfu=0.4, gpu="H100-SXM")

The question is planned once per record and setting (the objective, the requirements, and
every library constraint whose left side the givens determine and the decision variables
move), the plan is compiled to numpy (`VectorChain`, as sweeps are), and every candidate of
the decision variables' domains is evaluated in one vectorised pass: an exact, complete
search of the discrete domains. A continuous domain is searched on a grid, then the
boundary of the constraint that binds there is found by bisection. The number of candidates
is counted before any work and refused past `MAX_CANDIDATES`.

The answer (`Optimum`): the winner as a full `Result` (derivation, givens, constraints); the
runners-up; for each neighbour of the winner (one step in one decision variable, or another
choice of a setting or record) the constraint it violates with its margin, or how much worse
it is; the binding constraints and their exact boundaries; with two objectives, the Pareto
front; when nothing fits, the constraint that rules out the most candidates and the closest
candidate.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import numpy as np

from napkinmath import arguments, deadline
from napkinmath.answer.data import from_base
from napkinmath.catalog.lookup import constraints as library_constraints
from napkinmath.catalog.lookup import variable, variables
from napkinmath.errors import InputError, NapkinError
from napkinmath.hardware.config_json import is_config_path
from napkinmath.library.settings import SETTINGS
from napkinmath.solving.records import config_model, user_records
from napkinmath.solving.solver import (
    CONSISTENCY_TOLERANCE,
    bind,
    check_tolerance,
    config_in_force,
    solve_bound,
    target_names,
)
from napkinmath.whatif import requirements as req
from napkinmath.whatif.candidates import RULE_DP, RULES, Arrays, Group
from napkinmath.whatif.domains import COUNTS, Context, Domain, domain
from napkinmath.whatif.optimum import ADVISORY, Optimum
from napkinmath.whatif.ranged import base_inputs
from napkinmath.whatif.sweep import record_list
from napkinmath.whatif.vectorize import VectorChain

#: candidates one optimisation may evaluate (counted before any work): about 10 s and 1 GB
#: on one core for a 40-step chain
MAX_CANDIDATES = 2_000_000
#: candidates evaluated at once (bounds the memory of the intermediate arrays)
CHUNK = 1 << 16
BISECTIONS = 60
#: memory constraints that the per-GPU total of a training layout supersedes: each is one
#: part of it, or the total under one ZeRO stage
SUPERSEDED = {
    "training_memory_fits_hbm": (
        "zero0_fits_hbm",
        "zero1_fits_hbm",
        "zero2_fits_hbm",
        "zero3_fits_hbm",
        "activation_memory_fits_hbm",
        "activation_memory_flash_fits_hbm",
        "activation_memory_recompute_fits_hbm",
        "training_state_fits_hbm",
    ),
    # the training state under the layout's own ZeRO stage: each stage's figure is one case
    "training_state_fits_hbm": (
        "zero0_fits_hbm",
        "zero1_fits_hbm",
        "zero2_fits_hbm",
        "zero3_fits_hbm",
    ),
}
#: variables that make a question a training one (its serving constraints are not applied)
TRAINING = frozenset(
    {
        "tokens",
        "global_batch_tokens",
        "train_compute",
        "train_time",
        "step_time",
        "step_time_predicted",
        "mfu",
        "mfu_predicted",
        "n_microbatches",
    }
)
#: the layout variables: a constraint that reads only their defaults is left unchecked (a
#: serving question is not held to a training layout nobody stated)
LAYOUT = frozenset(
    {
        "tp",
        "pp",
        "cp",
        "ep",
        "dp",
        "sp",
        "zero_stage",
        "recomputed_layer_fraction",
        "selective_recompute",
        "virtual_pipeline_stages",
        "pp_fills_node_first",
    }
)


@deadline.per_question
def optimize(
    objective: str | Iterable[str],
    /,
    *,
    maximize: bool | Iterable[str] = False,
    minimize: bool | Iterable[str] = True,
    over: Mapping[str, object] | Iterable[str] | str | None = None,
    require: Mapping[str, object] | Iterable[str] | str | None = None,
    gpu: object = None,
    model: object = None,
    precision: str | None = None,
    achievable: bool = False,
    tolerance: float = CONSISTENCY_TOLERANCE,
    top: int = 5,
    records: object = None,
    max_candidates: int = MAX_CANDIDATES,
    **givens: object,
) -> Optimum:
    """The best plan over the decision variables `over` that meets every constraint.

    `objective` is one target, or two for a Pareto front; each is minimised unless named in
    `maximize` (or `maximize=True`: all). `over` maps decision variables to domains ('whole
    nodes', 'powers of two:1..64', 'divisors', '1..8', a list; None for the default) or
    lists their names; settings (recompute) and record lists (gpu="H100,MI300X") are choices
    too. `require` adds the user's constraints ({'train_time': '<= 3 weeks'} or
    ['time_per_output_token <= 50 ms']); a given written '<= 3 weeks' is one as well. Every
    library constraint the question determines (HBM per GPU, KV budget, queue, bubble, ...)
    applies. Returns an `Optimum`. `model` may be the path of a Hugging Face config.json, read
    as a model record as `nm.solve` reads it."""
    if is_config_path(model) and not config_in_force(model):
        model, records = config_model(model, records)
    with user_records(records):  # your records files over the shipped ones, if any
        check_tolerance(tolerance)
        objectives = target_names(objective)
        if len(objectives) > 2:
            raise InputError(
                f"{len(objectives)} objectives: optimise one, or two for a Pareto front",
                "objective",
            )
        senses = _senses(objectives, maximize, minimize)
        top = arguments.whole(top, "top", what="a count of candidates to list", low=1, high=1000)
        max_candidates = arguments.whole(
            max_candidates,
            "max_candidates",
            what="a cap on the candidates",
            low=1,
            high=MAX_CANDIDATES,
        )
        givens = dict(givens)
        requirements = req.collect(require, givens)
        over, gpu, model = _record_axes(over, gpu, model)
        chosen = len(record_list(gpu, "gpu")) > 1 or len(record_list(model, "model")) > 1
        specs = {} if chosen and over == {} else _decisions(over, objectives, givens)
        if "precision" in specs and precision is not None:
            raise InputError("precision is both decided and given: drop one", "precision")
        for name in specs:
            if name in givens:
                raise InputError(f"{name} is both a decision variable and a given: drop one", name)
        gpus, models = record_list(gpu, "gpu"), record_list(model, "model")
        search = _Search(
            objectives,
            senses,
            requirements,
            specs,
            givens,
            gpus,
            models,
            precision,
            achievable,
            tolerance,
            top,
            max_candidates,
        )
        return search.run()


def _senses(
    objectives: tuple[str, ...], maximize: bool | Iterable[str], minimize: bool | Iterable[str]
) -> dict[str, int]:
    """+1 to minimise, −1 to maximise, per objective."""
    for word, sense in (("maximize", maximize), ("minimize", minimize)):
        if not isinstance(sense, (bool, str)) and not (
            isinstance(sense, (list, tuple, set, frozenset))
            and all(isinstance(n, str) for n in sense)
        ):
            raise InputError(
                f"{word}={arguments.shown(sense)}: expected True, False, or the name (or a "
                f"list of names) of an objective ({', '.join(objectives)})",
                word,
            )
    if isinstance(maximize, bool):
        up = set(objectives) if maximize or minimize is False else set()
    else:
        up = {maximize} if isinstance(maximize, str) else set(maximize)
    for name in sorted(up - set(objectives)):
        raise InputError(f"maximize={name!r}: not an objective ({', '.join(objectives)})", name)
    if not isinstance(minimize, bool):
        down = {minimize} if isinstance(minimize, str) else set(minimize)
        for name in sorted(down & up):
            raise InputError(f"{name}: both minimised and maximised", name)
    return {name: (-1 if name in up else 1) for name in objectives}


_Over = Mapping[str, object] | Iterable[str] | str | None


def _record_axes(over: _Over, gpu: object, model: object) -> tuple[_Over, object, object]:
    """`over` without its record axes (over={"gpu": ["H100-SXM", "H200"]}, --over
    gpu=H100-SXM,H200), and the records they list as the gpu and model to choose from, as
    gpu="H100-SXM,H200" would give them."""
    if not isinstance(over, Mapping) or not {"gpu", "model"} & set(over):
        if isinstance(over, (list, tuple)) and {"gpu", "model"} & set(map(str, over)):
            raise InputError(
                "over: a record kind needs its records: over={'gpu': ['H100-SXM', 'H200']} "
                "(in the shell --over gpu=H100-SXM,H200)",
                "over",
            )
        return over, gpu, model
    rest = {k: v for k, v in over.items() if k not in ("gpu", "model")}
    records = {"gpu": gpu, "model": model}
    for kind in ("gpu", "model"):
        if kind not in over:
            continue
        if records[kind] is not None:
            raise InputError(
                f"{kind} is both decided (over) and given: list the records in one place",
                kind,
            )
        listed = over[kind]
        if not isinstance(listed, (str, list, tuple)):
            raise InputError(
                f"over: {kind}={arguments.shown(listed)}: expected the records, such as "
                "['H100-SXM', 'H200']",
                kind,
            )
        records[kind] = listed if isinstance(listed, str) else ",".join(map(str, listed))
    return rest, records["gpu"], records["model"]


def _decisions(
    over: Mapping[str, object] | Iterable[str] | str | None,
    objectives: tuple[str, ...],
    givens: dict[str, object],
) -> dict[str, object]:
    """{decision variable or setting: its domain spec (None: the default)}, in order."""
    if over is None:
        first = objectives[0]
        if first in COUNTS:
            return {first: None}
        raise InputError(
            f"what may change? give the decision variables: over={{'batch_size': "
            f"'powers of two:1..256'}} (in the shell --over batch_size,n_gpus); {first} is "
            "computed, not chosen",
            "over",
        )
    if isinstance(over, str):
        over = [part.strip() for part in over.split(",") if part.strip()]
    if isinstance(over, Mapping):
        specs = {str(k): v for k, v in over.items()}
    elif not isinstance(over, (list, tuple)):
        raise InputError(
            f"over={arguments.shown(over)}: expected the decision variables: a dict of name "
            "to domain ({'n_gpus': 'whole nodes'}), a list of names, or names with commas",
            "over",
        )
    else:
        specs = {}
        for item in over:
            if not isinstance(item, str):
                raise InputError(f"over: {arguments.shown(item)} is not a variable name", "over")
            specs[item] = None
    if not specs:
        raise InputError("over: name at least one decision variable", "over")
    for name in specs:
        if name not in SETTINGS and name != "precision":
            variable(name)  # unknown names get suggestions
    return specs


class _Search:
    def __init__(
        self,
        objectives,
        senses,
        requirements,
        specs,
        givens,
        gpus,
        models,
        precision,
        achievable,
        tolerance,
        top,
        cap,
    ) -> None:
        self.objectives: tuple[str, ...] = objectives
        self.senses: dict[str, int] = senses
        self.requirements: list[req.Requirement] = requirements
        self.specs: dict[str, object] = specs
        self.givens: dict[str, object] = givens
        self.gpus, self.models = gpus, models
        self.precision, self.achievable, self.tolerance = precision, achievable, tolerance
        self.top, self.cap = top, cap
        self.notes: list[str] = []
        #: the one GPU record's node size (None with several records), for '64 GPU (8 nodes)'
        self.context_gpus_per_node: float | None = None
        self.stage_skipped = False
        #: the question reads training variables (tokens, global batch, MFU, ...)
        self.training = False
        #: constraints left unchecked because they read only the layout's defaults
        self.unstated_layout: dict[str, frozenset[str]] = {}

    # --- domains and groups ----------------------------------------------------------------
    def _context(self, gpu, model) -> Context:
        try:
            bound = bind((), self.givens, gpu=gpu, model=model, precision=self.precision)
        except NapkinError as exc:
            raise InputError(f"{_where(gpu, model)}{exc}") from None

        def value(name: str) -> float | None:
            g = bound.get(name)
            return None if g is None else float(g.base)

        context = Context(
            value("gpus_per_node"), value("n_heads"), value("n_kv_heads"), value("n_layers")
        )
        if self.context_gpus_per_node is None and len(self.gpus) == 1:
            self.context_gpus_per_node = context.gpus_per_node
        return context

    def _domains(self, gpu, model) -> list[Domain]:
        context = self._context(gpu, model)
        specs = dict(self.specs)
        decided_or_given = "n_gpus" in specs or "n_gpus" in self.givens
        layout = any(n in specs for n in ("tp", "pp", "cp"))
        if "dp" not in specs and "dp" not in self.givens and layout and decided_or_given:
            specs["dp"] = "follows"
            self.notes.append(
                "dp follows the layout: dp = n_gpus / (tp · pp · cp · gpus_per_rank), kept "
                "where it is whole"
            )
        elif specs.get("dp", "") is None and decided_or_given:
            specs["dp"] = "follows"
        return [domain(name, spec, context) for name, spec in specs.items()]

    def _groups(self) -> tuple[list[Group], dict[tuple, list[Domain]]]:
        groups: list[Group] = []
        per_pair: dict[tuple, list[Domain]] = {}
        for g, m in itertools.product(self.gpus, self.models):
            domains = self._domains(g, m)
            per_pair[(g, m)] = domains
            numeric = [d for d in domains if d.numeric]
            choices = [d for d in domains if d.kind == "setting"]
            for combo in itertools.product(*(d.values for d in choices)):
                groups.append(
                    Group(g, m, {d.name: c for d, c in zip(choices, combo, strict=True)}, numeric)
                )
        total = 0
        for group in groups:
            group.offset = total
            total += group.count
        if total > self.cap:
            sizes = " × ".join(
                f"{d.name} {len(d.values):,}"
                for d in next(iter(per_pair.values()))
                if d.numeric or d.kind == "setting"
            )
            pairs = len(per_pair)
            raise InputError(
                f"{total:,} candidates ({sizes}{f' × {pairs} records' if pairs > 1 else ''}); "
                f"an optimisation evaluates at most {self.cap:,}: narrow a domain "
                "('powers of two:1..64', 'whole nodes:1..512') or fix a variable as a given",
                "over",
            )
        self.total = total
        return groups, per_pair

    # --- planning --------------------------------------------------------------------------
    def _targets(self, decisions: set[str]) -> tuple[str, ...]:
        wanted = [o for o in self.objectives if o not in decisions]
        wanted += [
            r.name for r in self.requirements if r.name not in decisions and r.name not in wanted
        ]
        return tuple(wanted)

    def precision_of(self, group: Group) -> str | None:
        """The group's precision: its choice when precision is decided, else the question's."""
        return group.settings.get("precision", self.precision)

    def point_givens(self, group: Group, at: Mapping[str, float]) -> dict[str, object]:
        out: dict[str, object] = dict(self.givens)
        out.update({k: v for k, v in group.settings.items() if k != "precision"})
        for name, base in at.items():
            out[name] = from_base(base, variables()[name])
        return out

    def _first_point(self, group: Group) -> dict[str, float]:
        at = {d.name: float(d.values[0]) for d in group.numeric}
        if group.follows:
            at["dp"] = float(
                np.ravel(self.dp({k: np.asarray([v]) for k, v in at.items()}, group))[0]
            )
        return at

    def dp(self, grid: Mapping[str, np.ndarray], group: Group) -> np.ndarray:
        def get(name: str) -> np.ndarray | float:
            if name in grid:
                return grid[name]
            return group.fixed.get(name, self._given_base(name, group))

        with np.errstate(all="ignore"):
            return np.asarray(
                get("n_gpus") / (get("tp") * get("pp") * get("cp") * get("gpus_per_rank")),
                dtype=float,
            )

    def _given_base(self, name: str, group: Group) -> float:
        var = variables()[name]
        bound = bind((), self.point_givens(group, {}), gpu=group.gpu, model=group.model)
        g = bound.get(name)
        if g is None:
            return (
                1.0
                if var.default is None
                else float(var.default.value.m_as(var.unit)) * var.base_factor
            )
        return float(g.base)

    def _plan(self, group: Group, targets: tuple[str, ...] | None) -> tuple[str, ...]:
        """Plan the group's question at its first point; returns the targets used (found by
        constraint discovery when `targets` is None)."""
        decisions = {d.name for d in group.numeric} | ({"dp"} if group.follows else set())
        at = self._first_point(group)
        givens = self.point_givens(group, at)
        if targets is None:
            targets = self._discover(group, givens, decisions)
        bound = bind(
            targets,
            givens,
            gpu=group.gpu,
            model=group.model,
            precision=self.precision_of(group),
            achievable=self.achievable,
        )
        center = solve_bound(targets, bound, self.tolerance)
        group.center = center
        group.chain = VectorChain.from_result(center)
        group.fixed = base_inputs(center, frozenset(decisions))
        return targets

    def _discover(
        self, group: Group, givens: dict[str, object], decisions: set[str]
    ) -> tuple[str, ...]:
        """The objective and requirement targets, and for each library constraint that the
        givens determine and the decisions move, one variable it is touched by."""
        targets = list(self._targets(decisions))
        options = {
            "gpu": group.gpu,
            "model": group.model,
            "precision": self.precision_of(group),
            "achievable": self.achievable,
        }
        touched: set[str] = set()
        training = False
        if targets:
            try:
                first = solve_bound(
                    tuple(targets), bind(tuple(targets), givens, **options), self.tolerance
                )
            except NapkinError as exc:
                raise InputError(f"{_where(group.gpu, group.model)}{exc}") from None
            touched = {c.constraint.name for c in first.constraints}
            read = set(first.givens) | {v.name for st in first.steps for v in st.unknowns}
            training = bool(read & TRAINING)
            self.training = self.training or training
        stage = givens.get("zero_stage")
        found: dict[str, str] = {}  # constraint: the target that touches it
        for name, c in library_constraints().items():
            if name in touched:
                continue
            if training and c.subject in ("inference", "serving"):
                continue  # a training question is not held to a serving replica's limits
            staged = name.startswith("zero") and name.endswith("_fits_hbm")
            if staged and "zero_stage" not in decisions and name != f"zero{stage}_fits_hbm":
                self.stage_skipped = True
                continue
            for t in c.touch:
                if t in decisions or t in givens or t in targets:
                    continue
                try:
                    r = solve_bound(
                        (t,),
                        bind((t,), givens, **options),
                        self.tolerance,
                        suggest=False,
                        cancel=False,
                    )
                except NapkinError:
                    continue
                if decisions & set(r.givens) and any(
                    x.constraint.name == name for x in r.constraints
                ):
                    layout = LAYOUT & set(r.givens)
                    if layout and all(r.givens[n].origin == "assumption" for n in layout):
                        self.unstated_layout[name] = layout
                        break
                    found[name] = t
                    touched |= {x.constraint.name for x in r.constraints}
                    break
        for keeper, dropped in SUPERSEDED.items():
            if keeper in found:
                found = {n: t for n, t in found.items() if n not in dropped}
        targets += [t for t in dict.fromkeys(found.values()) if t not in targets]
        if not targets:
            raise InputError(
                f"nothing constrains {', '.join(self.objectives)} here: no requirement and no "
                "library constraint that the decision variables move; add one (--require "
                "'train_time <= 3 weeks') or givens that determine a constraint",
                "require",
            )
        return tuple(targets)

    # --- evaluation ------------------------------------------------------------------------
    def run(self) -> Optimum:
        groups, per_pair = self._groups()
        follows = {p: any(d.kind == "follows" for d in ds) for p, ds in per_pair.items()}
        targets_by_pair: dict[tuple, tuple[str, ...]] = {}
        for group in groups:
            group.follows = follows[(group.gpu, group.model)]
            pair = (group.gpu, group.model)
            try:
                targets_by_pair[pair] = self._plan(group, targets_by_pair.get(pair))
            except NapkinError as exc:
                if len(groups) == 1:
                    raise
                group.error = str(exc)
        planned = [g for g in groups if g.chain is not None]
        if not planned:
            raise InputError(f"no record or setting could be planned: {groups[0].error}")
        names = self._constraint_names(planned)
        arrays = Arrays(self.total, self.objectives, self.requirements, names)
        for group in groups:
            if group.chain is None:
                continue
            for start in range(0, group.count, CHUNK):
                stop = min(group.count, start + CHUNK)
                self._evaluate(group, start, stop, arrays, names)
        return Optimum(self, groups, per_pair, arrays, names)

    def _constraint_names(self, groups: list[Group]) -> tuple[str, ...]:
        order = list(library_constraints())
        found = {c.name for g in groups for c in g.chain.constraints}  # type: ignore[union-attr]
        found -= ADVISORY
        for keeper, dropped in SUPERSEDED.items():
            if keeper in found:
                found -= set(dropped)
        stage = self.givens.get("zero_stage")
        staged = {n for n in found if n.startswith("zero") and n.endswith("_fits_hbm")}
        found -= staged - {f"zero{stage}_fits_hbm"}  # each holds under its own stage only
        memory = any(n.endswith("_fits_hbm") for n in found)
        unstated = dict(self.unstated_layout)
        if self.stage_skipped and not memory:  # said once, in the note on memory below
            unstated.pop("training_state_fits_hbm", None)
        if unstated and self.training:
            layout = sorted(set().union(*unstated.values()))
            self.notes.append(
                f"not checked, as no layout is given or decided ({', '.join(layout)} at their "
                f"defaults): {', '.join(unstated)}"
            )
        if self.stage_skipped and not memory and self.training:
            self.notes.append(
                "memory per GPU is not constrained: no ZeRO stage or layout is given "
                "(zero_stage=1, or tp and pp, checks the training state per GPU against HBM; "
                "a layout with seq_len and batch_size the per-GPU total with activations)"
            )
        return tuple(n for n in order if n in found)

    def evaluate_at(self, group: Group, grid: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Every computed variable and constraint side at the decision values `grid`."""
        size = len(next(iter(grid.values()))) if grid else 1
        inputs: dict[str, np.ndarray | float] = dict(group.fixed)
        inputs.update(grid)
        if group.follows:
            inputs["dp"] = self.dp(grid, group)
        chain = group.chain
        assert chain is not None
        values, ok = chain.evaluate(inputs, (size,), None)
        out = {n: np.asarray(v, dtype=float) for n, v in values.items()}
        out["__ok__"] = ok
        feasibility = chain.feasibility(values, ok)
        for c in feasibility.constraints:
            out[f"__lhs__{c.name}"] = feasibility.lhs[c.name]
            out[f"__rhs__{c.name}"] = feasibility.rhs[c.name]
            out[f"__known__{c.name}"] = feasibility.known[c.name]
            out[f"__holds__{c.name}"] = feasibility.holds[c.name]
        return out

    def _evaluate(
        self, group: Group, start: int, stop: int, arrays: Arrays, names: tuple[str, ...]
    ) -> None:
        grid = group.grid(start, stop)
        values = self.evaluate_at(group, grid)
        where = slice(group.offset + start, group.offset + stop)
        size = stop - start
        valid = values["__ok__"].copy()
        broken: dict[str, np.ndarray] = {}
        if group.follows:
            dp = np.broadcast_to(values["dp"], (size,))
            broken[RULE_DP] = ~(np.isfinite(dp) & (dp >= 1 - 1e-9) & _whole(dp))
        if "n_microbatches" in values and self._moves("n_microbatches", group):
            m = np.broadcast_to(values["n_microbatches"], (size,))
            broken["micro-batches"] = ~(m >= 1 - 1e-9)
            if self._whole_batch(group):
                broken["micro-batches whole"] = ~_whole(m) & ~broken["micro-batches"]
        for name, mask in broken.items():
            arrays.rules[name][where] = mask
            arrays.rule_values[name][where] = np.broadcast_to(values[RULES[name][0]], (size,))
            valid &= ~mask
        arrays.valid[where] = valid
        for o in self.objectives:
            arrays.objective[o][where] = np.broadcast_to(values.get(o, np.nan), (size,))
        for i, r in enumerate(self.requirements):
            v = np.broadcast_to(values.get(r.name, np.nan), (size,))
            arrays.requirement[i][where] = v
        for n in names:
            if f"__known__{n}" in values:
                arrays.lhs[n][where] = values[f"__lhs__{n}"]
                arrays.rhs[n][where] = values[f"__rhs__{n}"]
                arrays.known[n][where] = values[f"__known__{n}"]
                arrays.holds[n][where] = values[f"__holds__{n}"]

    def _moves(self, name: str, group: Group) -> bool:
        """True where the chain computes `name` (so the decisions may move it)."""
        return group.chain is not None and name in group.chain.computed

    def _whole_batch(self, group: Group) -> bool:
        """True when the global batch is a whole number of sequences (then the micro-batch
        count must be whole too); otherwise says once that it is not required."""
        tokens, length = group.fixed.get("global_batch_tokens"), group.fixed.get("seq_len")
        if tokens is None or length is None:
            return False
        sequences = tokens / length
        if abs(sequences - round(sequences)) < 1e-9 * max(1.0, sequences):
            return True
        note = (
            f"the global batch is {sequences:,.4g} sequences, not a whole number: micro-batch "
            "counts are not required to be whole (global_batch_tokens=16Mi is 2,048 sequences "
            "of 8,192 tokens)"
        )
        if note not in self.notes:
            self.notes.append(note)
        return False


def _whole(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.isfinite(x) & (np.abs(x - np.round(x)) <= 1e-9 * np.maximum(1.0, np.abs(x)))


def _where(gpu, model) -> str:
    parts = [f"{k}={v}" for k, v in (("gpu", gpu), ("model", model)) if v]
    return f"with {', '.join(parts)}: " if parts else ""
