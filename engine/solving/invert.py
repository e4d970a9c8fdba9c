"""Rearranging formulas for an unknown, symbolically, and compiling the result to float code.

Products of powers (most formulas here) are inverted directly, linear formulas by their slope;
anything else goes to `sympy.solve`, bounded in time (`napkinmath.deadline`: past its bound it
raises `OutOfTimeError`, nothing is kept, and the solver solves the step numerically), and
never a polynomial past `DEGREE_CAP`. Each rearrangement is kept as a tree with its print layout
(`napkinmath.library.tree`, `napkinmath.library.print_layout`), in memory and, for the library's
own formulas, on disk beside the library's snapshot (`napkinmath.catalog.snapshot`): a
rearrangement sympy found once, in any process, is read back without importing sympy. A
library formula's single-variable rearrangements also ship with the package, built from its
source (`napkinmath.solving.shipped`): they are read first.

Compiling turns a tree into closures over its nodes: fixed operators and a fixed table of math
functions over numbered arguments (`tree.compile_tree`); no code is generated, so nothing a
user typed or a file holds becomes source text. (An expression with no tree form, rare, is
compiled by sympy's lambdify.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from napkinmath import caches, deadline
from napkinmath.library.declare import (
    FORMULAS,
    NUMERIC_FUNCTIONS,
    Constraint,
    Formula,
    Variable,
    symbol_of,
)
from napkinmath.library.tree import (
    NoTreeError,
    Tree,
    calls,
    compile_tree,
    from_sympy,
    to_sympy,
)
from napkinmath.library.tree import names as tree_names

if TYPE_CHECKING:
    import sympy

    from napkinmath.library.print_layout import Layout


class Compiled:
    """An expression and a float function of its arguments (in base units).

    `tree` is None only for an expression with no tree form (compiled by sympy's lambdify);
    `expr` (sympy) and `layout` (for printing) are made from the tree on first use, the
    layout without sympy (`napkinmath.library.tree_layout`).
    """

    __slots__ = ("_expr", "_layout", "args", "fn", "tree")

    def __init__(
        self,
        tree: Tree | None,
        args: tuple[str, ...],
        fn: Callable[..., float],
        expr: sympy.Expr | None = None,
        layout: Layout | None = None,
    ) -> None:
        self.tree, self.args, self.fn = tree, args, fn
        self._expr, self._layout = expr, layout

    @property
    def expr(self) -> sympy.Expr:
        if self._expr is None:
            # made without an expression only from a tree (`from_tree`)
            assert self.tree is not None
            self._expr = to_sympy(self.tree, symbol_of)
        return self._expr

    @property
    def layout(self) -> Layout:
        if self._layout is None:
            if self.tree is not None:  # the same layout as lower(self.expr), without sympy
                from napkinmath.library.tree_layout import lower_tree

                self._layout = lower_tree(self.tree)
            else:
                from napkinmath.library.print_layout import lower

                self._layout = lower(self.expr)
        return self._layout

    def at(self, values: Mapping[str, float]) -> float:
        """The value at `values` (base-unit floats by name); ValueError where it has none
        (a complex value, or a function sympy's code for it cannot evaluate)."""
        try:
            return float(self.fn(*[values[a] for a in self.args]))
        except (NameError, AttributeError) as problem:  # only code lambdify wrote
            raise ValueError(f"cannot evaluate {self.expr}: {problem}") from None

    def __repr__(self) -> str:
        return f"Compiled({self.tree!r})"


def number_root(x: float) -> Compiled:
    """A step's value found numerically, as the root it shows: a float node of the tree
    (`library.tree`), as sympy.Float(x) makes it (53 bits), without importing sympy."""
    from mpmath import libmp

    sign, mantissa, exponent, bits = libmp.from_float(x, 53)
    return from_tree(("f", x, (int(sign), int(mantissa), int(exponent), int(bits)), 53))


def compile_expr(expr: sympy.Expr) -> Compiled:
    """Compile `expr` to a float function of its free symbols (sorted by name)."""
    try:
        tree = from_sympy(expr)
        args, fn = compile_tree(tree)
    except NoTreeError:
        import sympy

        symbols = sorted(expr.free_symbols, key=lambda s: s.name)
        # mpmath spells the functions sympy's roots may hold beyond math's (LambertW)
        fn = sympy.lambdify(symbols, expr, modules=[NUMERIC_FUNCTIONS, "math", "mpmath"])
        return Compiled(None, tuple(s.name for s in symbols), fn, expr)
    return Compiled(tree, args, fn, expr)


def from_tree(tree: Tree, layout: Layout | None = None) -> Compiled:
    args, fn = compile_tree(tree)
    return Compiled(tree, args, fn, layout=layout)


def _invert_monomial(equation: sympy.Eq, unknown: sympy.Symbol) -> sympy.Expr | None:
    """Solve lhs = rhs for `unknown` when lhs/rhs is a product of powers, else None."""
    import sympy

    ratio = equation.lhs / equation.rhs
    exponent = sympy.Integer(0)
    rest = []
    for factor in sympy.Mul.make_args(ratio):
        base, power = factor.as_base_exp()
        if base == unknown and power.is_number:
            exponent += power
        elif factor.has(unknown):
            return None
        else:
            rest.append(factor)
    if exponent == 0:
        return None
    return sympy.Mul(*rest) ** (-1 / exponent)


def _solutions(f: Formula, unknown: sympy.Symbol) -> tuple[sympy.Expr, ...]:
    import sympy

    if f.forward_only:
        return (f.equation.rhs,)
    if f.equation.lhs == unknown and not f.equation.rhs.has(unknown):
        return (f.equation.rhs,)
    if _piecewise_in(f.residual, (unknown,)):
        pieces = cases(sympy.Tuple(f.equation.lhs, f.equation.rhs))
        return _unique(
            root
            for lhs, rhs in pieces
            for root in _roots_of(sympy.Eq(lhs, rhs, evaluate=False), lhs - rhs, unknown)
        )
    return _roots_of(f.equation, f.residual, unknown)


def _roots_of(
    equation: sympy.Eq, residual: sympy.Expr, unknown: sympy.Symbol
) -> tuple[sympy.Expr, ...]:
    import sympy

    if not residual.has(unknown):
        return ()
    direct = _invert_monomial(equation, unknown)
    if direct is not None:
        return (direct,)
    linear = _invert_linear(residual, unknown)
    if linear is not None:
        return (linear,)
    degree = _degree_in(residual, unknown)
    if degree > DEGREE_CAP:  # sympy would factor a huge polynomial in C, past any bound
        raise deadline.OutOfTimeError(
            f"solving for {unknown.name} in closed form: a polynomial of degree {degree} "
            f"in it, past {DEGREE_CAP}, not tried",
            0.0,
        )
    with deadline.bounded(f"solving for {unknown.name} in closed form"):
        try:
            return tuple(sympy.solve(residual, unknown))
        except NotImplementedError:  # ceil(x), exp(x) beside x^2: none sympy can find
            return ()


#: the highest degree of polynomial handed to sympy to solve in closed form: beyond it
#: there is rarely one (none in radicals past 4), and factoring its integers (a prime test
#: inside one C call) can run for seconds where the time bound cannot stop it
DEGREE_CAP = 24


def _degree_in(residual: sympy.Expr, unknown: sympy.Symbol) -> int:
    """The degree of the polynomial sympy makes of `residual` in `unknown`: the largest
    power times the common denominator of the fractional ones (x^(1/2) + x^(1/3) is a
    polynomial of degree 6 in x^(1/6))."""
    import sympy

    exponents = [
        p.exp
        for p in residual.atoms(sympy.Pow)
        if p.base.has(unknown) and isinstance(p.exp, sympy.Rational)
    ]
    if not exponents:
        return 1
    common = math.lcm(*(int(e.q) for e in exponents))
    return int(max(abs(e) for e in exponents) * common)


def _unique(exprs) -> tuple:
    out: list = []
    for expr in exprs:
        if expr not in out:
            out.append(expr)
    return tuple(out)


def _piecewise_in(expr: sympy.Expr, unknowns: tuple[sympy.Symbol, ...]) -> bool:
    """True when a max() or min() in `expr` has one of `unknowns` among its arguments."""
    import sympy

    return any(m.has(*unknowns) for m in expr.atoms(sympy.Max, sympy.Min))


def cases(expr: sympy.Basic) -> tuple[sympy.Basic, ...]:
    """`expr` with each max() or min() replaced by each of its arguments in turn: the
    expressions it equals on the pieces of its domain (max(a, b) is a where a ≥ b, b where
    b ≥ a). A root of a case is a root of `expr` only on its own piece, so every root found
    this way is kept only where it satisfies the formula (`satisfies`)."""
    import sympy

    found = sorted(expr.atoms(sympy.Max, sympy.Min), key=sympy.default_sort_key)
    inner = [m for m in found if not any(o is not m and o.has(m) for o in found)]
    if not inner:
        return (expr,)
    piece = inner[0]
    return _unique(c for arg in piece.args for c in cases(expr.xreplace({piece: arg})))


def needs_substitution(
    formulas: tuple[Formula, ...], unknowns: tuple[str, ...]
) -> tuple[Formula, ...]:
    """The formulas of a block whose roots came from `cases`: each root must be substituted
    back (`satisfies`) before it is admitted. (Read from the trees: no sympy.) A forward-only
    formula counts too: in a block of several formulas it is solved jointly with the others,
    through its max() or min(), and a root of the wrong piece must be refused there as well
    (forward_tp_allreduces = 2·L·min(1, r − 1) solved with the prefill's all-reduce time for
    r gave r = 4.42 from the piece r − 1, where min(1, 3.42) = 1)."""
    wanted = frozenset(unknowns)

    def piecewise(f: Formula) -> bool:
        try:
            return any(_tree_piecewise_in(side, wanted) for side in f.trees)
        except NoTreeError:
            return _piecewise_in(f.residual, tuple(symbol_of(n) for n in unknowns))

    return tuple(f for f in formulas if piecewise(f))


def _tree_piecewise_in(tree: Tree, names: frozenset[str]) -> bool:
    """True when a max() or min() node of `tree` reads one of `names`."""
    return any(tree_names(node) & names for node in calls(tree, ("Max", "Min")))


def satisfies(
    f: Formula, values: Mapping[str, float], unknown: str | None = None, rel: float = 1e-9
) -> bool:
    """True when both sides of `f` agree at `values` (base units), to `rel`; with `unknown`,
    also only there: moved by a millionth, the sides part. (A root of max(a, x) = a is any
    x ≤ a: such a root does not pin x down, and is refused.)"""
    import math

    left, right = sides(f)
    try:
        lhs, rhs = left.at(values), right.at(values)
        if not math.isclose(lhs, rhs, rel_tol=rel, abs_tol=1e-300):
            return False
        if unknown is None:
            return True
        x = values[unknown]
        moved = {**values, unknown: x * (1 - 1e-6) if x else -1e-300}
        lhs, rhs = left.at(moved), right.at(moved)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return False
    return not math.isclose(lhs, rhs, rel_tol=1e-8, abs_tol=1e-300)


def _invert_linear(residual: sympy.Expr, unknown: sympy.Symbol) -> sympy.Expr | None:
    """Solve a*x + b = 0 for x when the slope a does not involve x, else None."""
    import sympy

    slope = sympy.diff(residual, unknown)
    if slope == 0 or slope.has(unknown):
        return None
    return sympy.together(-residual.subs(unknown, 0) / slope)


@caches.memo(
    1024,
    invalidated_by=caches.LIBRARY,
    reason="a formula's roots for one unknown, read from the shipped set or solved by sympy "
    "(0.9 ms a read, seconds with sympy); 634 hits in tools/cache_value.py's workload, "
    "and every coupled or user-formula step reads it again (2026-12-07, 2 cores)",
)
def rearranged(f: Formula, unknown: str | sympy.Symbol) -> tuple[Compiled, ...]:
    """Every root of `f` solved for `unknown` (a variable name, or its Symbol), compiled;
    empty when sympy finds none."""
    name = unknown if isinstance(unknown, str) else unknown.name
    if f.forward_only:  # computed from its right side only
        return (from_tree(f.trees[1], f.layouts[1]),)
    key = f"{f.name}\t{name}"
    library = FORMULAS.get(f.name) is f
    if library:
        stored = disk_store().get("roots", key)
        if stored is not None:
            found = tuple(from_tree(t) for t in stored)
            if _plausible(f, name, found):
                return found
    roots = solved_for(f, name)
    if library and all(r.tree is not None for r in roots):
        disk_store().put("roots", key, [r.tree for r in roots])
    return roots


def _reads_only(tree: Tree, readable: set[str]) -> bool:
    """Whether a stored root reads (and so prints) only the variables it may."""
    return tree_names(tree) <= readable


#: the point a stored root is checked at: each variable this far into its bounds (base units)
_PROBE = 0.37


def _plausible(f: Formula, name: str, roots: tuple[Compiled, ...]) -> bool:
    """Whether roots read from disk may be trusted: each reads and prints only `f`'s other
    variables and, where `f` holds no max() or min() (whose roots hold on their piece
    only), satisfies `f` at a probe point where it evaluates. A forged or broken entry is
    dropped and solved again."""
    readable = {v.name for v in f.variables} - {name}
    if not all(r.tree is not None and _reads_only(r.tree, readable) for r in roots):
        return False
    if _extremes_in(f):
        return True
    point = {v.name: _probe(v) for v in f.variables}
    left, right = sides(f)
    for root in roots:
        try:
            at = {**point, name: root.at(point)}
            lhs, rhs = left.at(at), right.at(at)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue  # outside the formula's domain here: nothing to compare
        if math.isfinite(lhs) and math.isfinite(rhs) and not math.isclose(lhs, rhs, rel_tol=1e-6):
            return False
    return True


def _extremes_in(f: Formula) -> bool:
    return any(True for side in f.trees for _ in calls(side, ("Max", "Min")))


def _probe(v: Variable) -> float:
    """A value inside `v`'s bounds, away from their ends (base units)."""
    lo, hi = v.bounds.lo, v.bounds.hi
    if math.isfinite(lo) and math.isfinite(hi):
        x = lo + _PROBE * (hi - lo)
    elif math.isfinite(lo):
        x = max(lo, 0.0) + 1 + _PROBE
    elif math.isfinite(hi):
        x = min(hi, 0.0) - 1 - _PROBE
    else:
        x = 1 + _PROBE
    return x * v.base_factor


def solved_for(f: Formula, name: str) -> tuple[Compiled, ...]:
    """Every root of `f` for variable `name`, solved by sympy now (no store read)."""
    return tuple(compile_expr(expr) for expr in _solutions(f, symbol_of(name)))


def joint_roots(
    fs: tuple[Formula, ...], unknowns: tuple[str, ...]
) -> tuple[dict[str, Compiled], ...]:
    """Every solution of a coupled block, each a compiled expression per unknown (by name).
    Solved and kept with its formulas and unknowns in name order: one entry per block,
    however a plan orders it (the solver's step and the planner's test share it)."""
    return _joint_roots(tuple(sorted(fs, key=lambda f: f.name)), tuple(sorted(unknowns)))


@caches.memo(
    256,
    invalidated_by=caches.LIBRARY,
    reason="a coupled block's joint roots (15 ms a shipped read, seconds with sympy); every "
    "solve through the block reads them, so a warm solve of a coupled block would pay "
    "that each time against the 250 µs warm guardrail (2026-12-07, 2 cores)",
)
def _joint_roots(
    fs: tuple[Formula, ...], unknowns: tuple[str, ...]
) -> tuple[dict[str, Compiled], ...]:
    key = f"{','.join(f.name for f in fs)}\t{','.join(unknowns)}"
    library = all(FORMULAS.get(f.name) is f for f in fs)
    if library:
        stored = disk_store().get("joint", key)
        readable = {v.name for f in fs for v in f.variables} - set(unknowns)
        if stored is not None and all(
            len(solution) == len(unknowns) and all(_reads_only(t, readable) for t in solution)
            for solution in stored
        ):
            return tuple(
                {n: from_tree(t) for n, t in zip(unknowns, solution, strict=True)}
                for solution in stored
            )
    symbols = tuple(symbol_of(n) for n in unknowns)
    solutions = tuple(
        {s.name: c for s, c in solution.items()} for solution in solved_jointly(fs, symbols)
    )
    if library and all(c.tree is not None for sol in solutions for c in sol.values()):
        disk_store().put("joint", key, [[sol[n].tree for n in unknowns] for sol in solutions])
    return solutions


def solved_jointly(
    fs: tuple[Formula, ...], unknowns: tuple[sympy.Symbol, ...]
) -> tuple[dict[sympy.Symbol, Compiled], ...]:
    """Every solution of a coupled block, each a compiled expression per unknown."""
    import sympy

    systems = [[f.residual for f in fs]]
    if any(_piecewise_in(f.residual, unknowns) for f in fs):
        systems = [list(system) for system in _case_systems([f.residual for f in fs])]
    found: list[dict] = []
    listed = ", ".join(s.name for s in unknowns)
    with deadline.bounded(f"solving {', '.join(f.name for f in fs)} jointly for {listed}"):
        for system in systems:
            try:
                solutions = sympy.solve(system, list(unknowns), dict=True)
            except NotImplementedError:
                continue
            for sol in solutions:
                if all(s in sol for s in unknowns):
                    simplified = {s: sympy.simplify(sol[s]) for s in unknowns}
                    if simplified not in found:
                        found.append(simplified)
    return tuple({s: compile_expr(sol[s]) for s in unknowns} for sol in found)


#: at most this many max()/min() pieces are combined in one coupled block
_MAX_CASES = 16


def _case_systems(residuals: list[sympy.Expr]) -> list[tuple[sympy.Expr, ...]]:
    """Every combination of the pieces of each residual (`cases`), at most `_MAX_CASES`."""
    import itertools

    combined = list(itertools.product(*(cases(r) for r in residuals)))
    return combined[:_MAX_CASES]


@caches.memo(
    1024,
    invalidated_by=caches.LIBRARY,
    reason="a formula's or constraint's two sides, compiled from its trees (generated code): "
    "the optimiser evaluates every constraint's sides on each call; without it the 405B "
    "layout search of tests/benchmark_optimize.py ran at 1.14-1.20M candidates a second "
    "against 1.30-1.34M with it, near issue 45's guardrail of 1M (2026-12-07, 2 cores)",
)
def sides(f: Formula | Constraint) -> tuple[Compiled, Compiled]:
    """Both sides of a formula (checking an over-determined one) or of a constraint,
    compiled."""
    try:
        (lhs, rhs), (left, right) = f.trees, f.layouts
    except NoTreeError:
        if isinstance(f, Formula):
            return compile_expr(f.equation.lhs), compile_expr(f.equation.rhs)
        return compile_expr(f.lhs), compile_expr(f.rhs)
    return from_tree(lhs, left), from_tree(rhs, right)


def remembered(kind: str, key: str, decide: Callable[[], bool]) -> bool:
    """A yes/no fact about the library's own formulas (`kind`: 'singular'), kept on disk with
    its rearrangements: `decide()` (which may take sympy) runs only the first time."""
    found = disk_store().get(kind, key)
    if found is not None:
        return found
    cutoffs = deadline.cutoffs()
    answer = decide()
    if deadline.cutoffs() == cutoffs:  # decided in full, not by a fallback
        disk_store().put(kind, key, answer)
    return answer


class _Store:
    """Rearrangements and facts kept on disk, one small entry each in a subfolder beside the
    library's snapshot (see `napkinmath.catalog.snapshot`; every entry is checked by
    `napkinmath.cache` before it is parsed): a question reads only the entries it needs, and
    two processes never overwrite each other's entries."""

    def __init__(self) -> None:
        from napkinmath.catalog import snapshot
        from napkinmath.library.declare import user_active

        self.folder: str | None = None
        self.source: str | None = None
        if not user_active():  # your formulas in force: nothing read or written on disk
            self.folder, self.source = snapshot.name("inversions"), snapshot.digest()
        self.limit = snapshot.LIMITS["inversions"]

    def _entry(self, kind: str, key: str) -> str | None:
        import hashlib

        name = hashlib.sha256(f"{kind}\0{key}".encode()).hexdigest()[:24]
        return None if self.folder is None else f"{self.folder}/{kind}-{name}"

    def get(self, kind: str, key: str):
        """The stored rearrangement (its trees; their layouts are made from them) or fact, or
        None when absent or malformed: the set shipped with the package first, then the
        cache on disk."""
        import json

        from napkinmath import cache
        from napkinmath.solving import shipped

        found = shipped.value(kind, key)  # built with the package, for this source
        if found is not None:
            return self._parsed(kind, found)
        entry = self._entry(kind, key)
        if entry is None or self.source is None:
            return None
        payload = cache.read(entry, source=self.source, limit=self.limit)
        if payload is None:
            return None
        try:
            data = json.loads(payload)
            if not isinstance(data, dict) or data.get("key") != key:
                return None
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None
        return self._parsed(kind, data.get("value"))

    @staticmethod
    def _parsed(kind: str, found: Any):
        """A stored value (JSON data) as the rearrangement or fact it holds, or None when it
        is malformed."""
        from napkinmath.library import print_layout, tree

        try:
            if kind == "singular":
                return found if isinstance(found, bool) else None
            if kind == "roots":
                return [tree.from_json(t) for t in found]
            if kind == "cancel":  # see napkinmath.solving.cancel
                return (
                    found
                    if found == "none"
                    else tuple(
                        None
                        if step is None
                        else (
                            tree.from_json(step[0]),
                            print_layout.from_json(step[1]),
                            None
                            if step[2] is None
                            else tuple(map(print_layout.from_json, step[2])),
                        )
                        for step in found
                    )
                )
            return [[tree.from_json(t) for t in solution] for solution in found]
        except (UnicodeDecodeError, KeyError, TypeError, ValueError, RecursionError):
            return None

    def put(self, kind: str, key: str, value: object) -> None:
        import json

        from napkinmath import cache

        entry = self._entry(kind, key)
        if entry is not None and self.source is not None:
            text = json.dumps(
                {"key": key, "value": value}, ensure_ascii=False, separators=(",", ":")
            )
            cache.write(entry, source=self.source, payload=text.encode("utf-8"))


@caches.memo(
    1,
    invalidated_by=caches.LIBRARY,
    reason="the store of rearrangements and facts of the formulas in force: read 864 times in "
    "tools/cache_value.py's workload (0.45 s to make afresh each time) (2026-12-07, 2 "
    "cores)",
)
def disk_store() -> _Store:
    return _Store()
