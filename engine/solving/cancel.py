"""Variables that cancel: targets the givens determine although structure says they do not.

    napkin solve train_time params=70B tokens=15T n_gpus=8192 achieved_flops="400 TFLOP/s"

Structurally the fleet equation needs mfu and peak_flops, and one formula (mfu =
achieved_flops / peak_flops) is not enough to fix two unknowns; yet only their product enters
the fleet equation, and that product is the given achieved_flops. Matching cannot see this;
elimination can.

When a plan fails, each input the planner would suggest (`suggest.suggest_inputs`, a single
name or a pair, at most `MAX_CANDIDATES`) is taken as a *free* input: the plan with it is
made as usual, and the steps that read it (directly or through each other) are composed
symbolically, each rearranged expression substituted into the next (sympy). A step whose
composed expression no longer holds the free input is determined by the givens alone: its
value does not depend on the free input, whatever value it takes. When every target is
either such a step or a step that reads none of the free input, the question is answered,
each cancelling step shown as its formulas combined, with a note naming what cancelled.
Where the composition keeps the free input (or a step has several roots, or is a coupled
block), the candidate is dropped; with none left the refusal is exactly as before.

Bounded: sympy's work by `napkinmath.deadline` (past it `OutOfTimeError` reaches the planner, which
refuses as without cancellation and says the search was cut off; nothing is kept), at most
`MAX_CANDIDATES` candidates, `MAX_CHAIN` composed steps each; a candidate
whose steps, run twice on floats, move a target when only the free input changes is dropped
before sympy is asked (most refusals end there); sympy's `simplify` only for expressions of
at most `MAX_OPS` operations that do not vary with the free input at two points (products
of powers, most of the library, cancel by sympy's own arithmetic). Deterministic: candidates
in the order of the suggestions (the one with the fewest combined formulas kept), steps in
plan order, random points from fixed seeds. Cached: per question shape in memory, and the
composition of each chain on disk with the library's rearrangements (`invert._Store`, kind
``cancel``, trees and layouts as JSON), so that a cancelling answer asked again in a new
process imports no sympy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeAlias

from napkinmath import deadline
from napkinmath.catalog.lookup import variables
from napkinmath.library.declare import FORMULAS
from napkinmath.solving import plan
from napkinmath.solving.plan import Block, Cancel, SolvePlan

if TYPE_CHECKING:
    import sympy

    from napkinmath.library.print_layout import Layout
    from napkinmath.library.tree import Tree

#: the most candidate free inputs tried for one question
MAX_CANDIDATES = 8
#: the most steps composed for one candidate
MAX_CHAIN = 8
#: the largest expression (sympy's count_ops) that `sympy.simplify` is asked to reduce
MAX_OPS = 60


def cancelled_plan(
    targets: tuple[str, ...], knowns: frozenset[str], suggestions: tuple[str, ...]
) -> SolvePlan | None:
    """A plan of `targets` from `knowns` through variables that cancel, or None (see the
    module's docstring); for a question whose structural plan failed, with the inputs its
    refusal suggests (`suggest.suggestions_for`). Of the candidates that cancel, the one
    whose combined steps take the fewest formulas (the first of those)."""
    best, size = None, 0
    for text in suggestions[:MAX_CANDIDATES]:
        found = attempt(targets, knowns, tuple(sorted(text.split(" and "))))
        if found is not None:
            combined = sum(len(b.formulas) for b in found.blocks if b.cancel is not None)
            if best is None or combined < size:
                best, size = found, combined
    return best


def attempt(
    targets: tuple[str, ...], knowns: frozenset[str], free: tuple[str, ...]
) -> SolvePlan | None:
    """The plan of `targets` from `knowns` with the inputs `free` planned as known and
    composed away, or None when some target still depends on them."""

    if set(free) & knowns or set(free) & set(targets):
        return None
    if _screened_out(targets, knowns | frozenset(free), free):
        return None
    with_free = plan.structural_plan(targets, knowns | frozenset(free))
    if not isinstance(with_free, plan.SolvePlan):
        return None
    dependent = _dependent(with_free.blocks, free)
    if dependent is None:
        return None
    blocks = tuple(with_free.blocks[i] for i in dependent)
    if not all(_composable(b) for b in blocks) or _moves(targets, free, blocks):
        return None
    composed = _composition(free, blocks)
    if composed is None:
        return None
    return _cancelled(targets, knowns, free, with_free, dependent, composed)


def _screened_out(targets: tuple[str, ...], knowns: frozenset[str], free: tuple[str, ...]) -> bool:
    """True unless the quick plan with the free inputs (the one the suggestion search
    confirmed them with, its analyses cached) passes: its steps that read them are few and
    `_composable`, and they move no target (`_moves`; a true relation that moves it there
    moves it in every plan). Only a candidate that passes gets the full plan, whose
    singularity tests may ask sympy to solve coupled blocks: a bound on sympy's time."""

    found = plan.analysis_for(targets, knowns, quick=True)
    if found is None:
        return True
    analysis, _, needed = found
    blocks = plan.blocks_of(analysis, needed)
    dependent = _dependent(blocks, free)
    if dependent is None:
        return True
    chosen = tuple(blocks[i] for i in dependent)
    return not all(_composable(b) for b in chosen) or _moves(targets, free, chosen)


def _dependent(blocks: tuple[Block, ...], free: tuple[str, ...]) -> tuple[int, ...] | None:
    """The positions of the blocks that read a free input, directly or through each other;
    None when there are too many to compose."""
    tainted = set(free)
    found = []
    for i, block in enumerate(blocks):
        if any(
            v.name in tainted
            for f in block.formulas
            for v in f.variables
            if v not in block.unknowns
        ):
            found.append(i)
            tainted.update(v.name for v in block.unknowns)
    return tuple(found) if len(found) <= MAX_CHAIN else None


def _composable(block: Block) -> bool:
    """A block of one formula with one root for its one unknown, not a root of one piece of
    a max() or min() (which holds only on its piece: the solver substitutes it back), and
    no stated assumption: 'attention left out' makes the FLOPs with attention those without,
    and composed as a law it would make the attention FLOPs cancel to 0."""
    from napkinmath.solving.invert import needs_substitution, rearranged

    if len(block.unknowns) != 1 or len(block.formulas) != 1 or block.formulas[0].assumption:
        return False
    name = block.unknowns[0].name
    return (
        not needs_substitution(block.formulas, (name,))
        and len(rearranged(block.formulas[0], name)) == 1
    )


def _moves(targets: tuple[str, ...], free: tuple[str, ...], blocks: tuple[Block, ...]) -> bool:
    """Whether a target that `blocks` compute takes two values when only the free inputs
    change: the blocks run twice on floats (their other inputs fixed, all from a fixed seed).
    Then it depends on them and no composition can shed them; a cheap test before sympy.
    False when it cannot tell (a value outside a formula's domain). Blocks `_composable`."""
    import random

    from napkinmath.solving.invert import rearranged

    rng = random.Random(20261201)
    made = {v.name for b in blocks for v in b.unknowns}
    read = {v.name for b in blocks for f in b.formulas for v in f.variables}
    fixed = {n: rng.uniform(0.5, 2.0) for n in sorted(read - made - set(free))}
    runs = []
    for _ in range(2):
        values = {**fixed, **{n: rng.uniform(0.5, 2.0) for n in free}}
        for block in blocks:
            (root,) = rearranged(block.formulas[0], block.unknowns[0].name)
            try:
                values[block.unknowns[0].name] = root.at(values)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                return False
        runs.append(values)
    return any(
        abs(runs[0][t] - runs[1][t]) > 1e-9 * max(abs(runs[0][t]), abs(runs[1][t]))
        for t in targets
        if t in made
    )


#: a composed step: its expression's tree and layout, and how the free variables cancel in
#: it (the layouts of both sides of a relation, or None); None for a step that still depends
Step: TypeAlias = "tuple[Tree, Layout, tuple[Layout, Layout] | None] | None"


def _key(free: tuple[str, ...], blocks: tuple[Block, ...]) -> str:
    return (
        ",".join(free)
        + "\t"
        + ";".join(
            f"{'+'.join(f.name for f in b.formulas)}:{','.join(v.name for v in b.unknowns)}"
            for b in blocks
        )
    )


def _composition(free: tuple[str, ...], blocks: tuple[Block, ...]) -> tuple[Step, ...] | None:
    """Each block composed with the free inputs as symbols (see `_compose`), kept on disk for
    the library's own formulas."""
    from napkinmath.solving.invert import disk_store

    library = all(FORMULAS.get(f.name) is f for b in blocks for f in b.formulas)
    key = _key(free, blocks)
    if library:
        stored = disk_store().get("cancel", key)
        if stored == "none":
            return None
        if stored is not None and _reads_only_the_blocks(stored, blocks):
            return stored
    composed = _compose(free, blocks)
    if library:
        from napkinmath.library.print_layout import to_json

        disk_store().put(
            "cancel",
            key,
            "none"
            if composed is None
            else [
                None
                if s is None
                else [
                    s[0],
                    to_json(s[1]),
                    None if s[2] is None else [to_json(side) for side in s[2]],
                ]
                for s in composed
            ],
        )
    return composed


def _reads_only_the_blocks(stored: tuple[Step, ...], blocks: tuple[Block, ...]) -> bool:
    """Whether a composition read from disk names only its blocks' variables (a forged or
    broken entry is composed again)."""
    from napkinmath.library.print_layout import names_in
    from napkinmath.library.tree import names

    known = {v.name for b in blocks for f in b.formulas for v in f.variables}
    return all(
        step is None
        or (
            names(step[0]) <= known
            and names_in(step[1]) <= known
            and all(names_in(side) <= known for side in step[2] or ())
        )
        for step in stored
    )


def _compose(free: tuple[str, ...], blocks: tuple[Block, ...]) -> tuple[Step, ...] | None:
    """Substitute each block's rearranged expression into the blocks after it, the free
    inputs left as symbols; a step whose expression no longer holds them is released (its
    tree, layout and relation), None otherwise. None for the whole when a block is not
    `_composable` or an expression has no tree form."""
    from napkinmath.library.print_layout import lower
    from napkinmath.library.tree import NoTreeError, from_sympy
    from napkinmath.solving.invert import rearranged

    all_vars = variables()
    symbols = {all_vars[n].symbol for n in free}
    held: dict[sympy.Symbol, sympy.Expr] = {s: s for s in symbols}  # still depends
    out: list[Step] = []
    for block in blocks:
        if not _composable(block):
            return None
        (f,), (var,) = block.formulas, block.unknowns
        expr = rearranged(f, var.name)[0].expr
        composed = _reduced(expr.xreplace(held), symbols)
        if composed.free_symbols & symbols:
            held[var.symbol] = composed
            out.append(None)
            continue
        try:
            tree = from_sympy(composed)
        except NoTreeError:
            return None
        out.append((tree, lower(composed), _relation(expr, held, symbols)))
    return tuple(out)


def _reduced(expr: sympy.Expr, symbols: set[sympy.Symbol]) -> sympy.Expr:
    """`expr` simplified when it still holds `symbols`, does not vary with them at two points
    and is small enough to try."""
    import sympy

    if not expr.free_symbols & symbols or sympy.count_ops(expr) > MAX_OPS or _varies(expr, symbols):
        return expr
    with deadline.bounded("simplifying the composed formulas (variables that cancel)"):
        return sympy.simplify(expr)


def _varies(expr: sympy.Expr, symbols: set[sympy.Symbol]) -> bool:
    """Whether `expr` takes two different values at two points that differ only in
    `symbols` (floats from a fixed seed): no simplification can then shed them. False when
    it cannot tell (a value that is not a number)."""
    import random

    import sympy

    rng = random.Random(20261201)
    names = sorted(expr.free_symbols, key=lambda s: s.name)
    fixed = {s: sympy.Float(rng.uniform(0.5, 2.0)) for s in names if s not in symbols}
    found = []
    for _ in range(2):
        point = {**fixed, **{s: sympy.Float(rng.uniform(0.5, 2.0)) for s in names if s in symbols}}
        try:
            found.append(complex(expr.xreplace(point).evalf()))
        except (TypeError, ValueError):
            return False
    scale = max(abs(found[0]), abs(found[1]))
    return scale > 0 and abs(found[0] - found[1]) > 1e-9 * scale


def _relation(
    expr: sympy.Expr, held: dict[sympy.Symbol, sympy.Expr], symbols: set[sympy.Symbol]
) -> tuple[Layout, Layout] | None:
    """How the variables that cancel meet in `expr`, a product: the factors that hold them,
    and what they come to ('mfu · peak_flops' and 'achieved_flops'); None when `expr` is
    not a product or those factors alone do not shed them."""
    import sympy

    from napkinmath.library.print_layout import lower

    factors = [x for x in sympy.Mul.make_args(expr) if x.free_symbols & held.keys()]
    if not factors:
        return None
    part = sympy.Mul(*factors)
    if all(x.as_base_exp()[1].is_negative for x in factors):
        part = 1 / part
    if (expr / part).is_number or (expr * part).is_number:  # all of it: the result says it
        return None
    value = _reduced(part.xreplace(held), symbols)
    if value.free_symbols & symbols or value == part:
        return None
    return lower(part), lower(value)


def _cancelled(
    targets: tuple[str, ...],
    knowns: frozenset[str],
    free: tuple[str, ...],
    with_free: SolvePlan,
    dependent: tuple[int, ...],
    composed: tuple[Step, ...],
) -> SolvePlan | None:
    """The plan with the dependent blocks replaced by the released ones, each combining the
    formulas it was composed of; None when a target still depends on the free inputs."""
    from napkinmath.solving.invert import from_tree

    step_of = dict(zip(dependent, composed, strict=True))
    held: dict[str, tuple[int, ...]] = {n: () for n in free}  # name -> the blocks behind it
    blocks: list[Block] = []
    for i, block in enumerate(with_free.blocks):
        if i not in step_of:
            blocks.append(block)
            continue
        (var,) = block.unknowns
        reads = {v.name for f in block.formulas for v in f.variables} - {var.name}
        if not reads & held.keys():  # it reads only what cancelled before it: a plain step
            blocks.append(block)
            continue
        behind = tuple(sorted({j for n in reads if n in held for j in held[n]} | {i}))
        step = step_of[i]
        if step is None:
            held[var.name] = behind
            continue
        tree, layout, relation = step
        chain = tuple(
            (with_free.blocks[j].formulas[0], with_free.blocks[j].unknowns[0].name) for j in behind
        )
        used = {v.name for f, _ in chain for v in f.variables}
        gone = tuple(sorted(n for n in used if n in held))
        formulas = (chain[-1][0], *(f for f, _ in chain[:-1]))
        cancel = Cancel(
            chain,
            tuple(n for n in free if n in used),
            gone,
            _note(gone, var.name, relation),
            from_tree(tree, layout),
        )
        blocks.append(Block(formulas, block.unknowns, cancel))
    if any(t in held for t in targets):
        return None
    checks = tuple(f for f in with_free.checks if not any(v.name in held for v in f.variables))
    block_inputs = {v.name for b in blocks for f in b.formulas for v in f.variables}
    block_inputs |= {t for t in targets if t in knowns}
    used = block_inputs | {v.name for f in checks for v in f.variables}
    return SolvePlan(
        targets,
        tuple(blocks),
        checks,
        frozenset(used & knowns),
        frozenset(block_inputs & knowns),
        free,
    )


def _note(names: tuple[str, ...], target: str, relation: tuple[tuple, tuple] | None) -> str:
    from napkinmath.library.print_layout import Printer

    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    verb = "cancels" if len(names) == 1 else "cancel"
    if relation is None:
        return f"{listed} {verb}: {target} does not depend on {'it' if len(names) == 1 else 'them'}"
    printer = Printer(lambda s: s.name)
    return f"{listed} {verb}: {printer(relation[0])} = {printer(relation[1])}"


def witness(
    cancel: Cancel, values: Mapping[str, float], free: Mapping[str, float]
) -> dict[str, float]:
    """A cancelled step's `values` (base units) completed with what cancels: the free inputs
    at `free` (base units, by name) and the chain's other unknowns computed from them by its
    formulas. Whatever `free` holds, every formula of the step holds at the result, the
    step's unknown as computed (what tests substitute back)."""
    from napkinmath.solving.invert import rearranged

    point = dict(values)
    point.update({n: free[n] for n in cancel.free})
    for f, name in cancel.chain[:-1]:
        (root,) = rearranged(f, name)
        point[name] = root.at(point)
    return point
