"""Your own formulas and variables, from a TOML file (or a dict, or a plan file's tables).

    # ours.toml
    [variables.stall_share]
    unit = ""                      # a plain number ("" or "1"); else a unit: "s", "GB/s"
    bounds = [0, 1]                # optional, both ends included (default: above 0)
    description = "share of the step spent waiting for data"
    # optional: default = 0.05 (or "0.05"), default_note = "why" (required with a default),
    #           symbol = "s_{stall}" (LaTeX; `latex` is the same key)

    [[formulas]]
    name = "dataloader_wait_share"
    title = "Data-loader wait from its share"
    equation = "dataloader_wait = stall_share * step_time"
    source = "our profiler, 2026-11"
    # optional: replaces = "a_library_formula", note = "..."

    with user_formulas("ours.toml"):        # nm.solve(..., formulas="ours.toml") does this
        nm.solve("stall_share", step_time="5 s", dataloader_wait="0.4 s")

An equation is two expressions of napkinmath's own grammar (`napkinmath.text.expr`) joined by
one '='. Its names are variables (yours or the library's), its numbers plain numbers (count
suffixes and % allowed), its functions sqrt, log, log2, log10, exp, ceil, floor, abs, min and
max, its exponents plain numbers of at most `MAX_EXPONENT`. The sympy expression is built from
the parsed tree node by node: the text is never evaluated nor sympified, and a file can only
fail to load (an InputError naming file, line and key), never run anything.

Rules. A variable the library already has may be declared again only in the same unit (the
library's declaration is then used as it stands: its description, bounds and default); in
another unit it is an error. A formula whose name is a library formula's is an error unless it
says `replaces = "that name"`; `replaces` may also name a library formula yours stands in for
under another name. Both sides are checked dimensionally when the file is read. Each formula
is labelled "your formula FILE:LINE" (and "replaces library formula X") as its source.

While the block runs, your variables and formulas are in force in its thread or context
alone (`declare.IN_FORCE`: the library's registries read through it), every cache of what the
library determines is keyed by them (`napkinmath.caches.scope_by`), and the disk cache of
rearrangements is neither read nor written (`declare.user_active`): nothing of yours is stored, no
other thread sees them, and the library answers exactly as before once the block ends.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from napkinmath import caches
from napkinmath.errors import InputError, NapkinError, ParseError
from napkinmath.library import declare

if TYPE_CHECKING:
    import pint
    import sympy

    from napkinmath.text.expr import Node

#: a formulas file is read only up to this size
MAX_BYTES = 1_000_000
MAX_VARIABLES = 1000
MAX_FORMULAS = 1000
#: the largest exponent (and product of nested exponents) an equation may hold
MAX_EXPONENT = 64
MAX_NAME = 80
TOP_KEYS = ("variables", "formulas")
VARIABLE_KEYS = ("unit", "bounds", "description", "default", "default_note", "symbol", "latex")
FORMULA_KEYS = ("name", "title", "equation", "source", "replaces", "note")

Where = tuple[str | int, ...]


def _labels() -> Mapping[tuple[str, str], str]:
    """Where each of your variables and formulas in force came from, by ("var" | "formula",
    name): empty outside every `user_formulas` block."""
    layered = declare.IN_FORCE.get()
    return {} if layered is None else layered.labels


@dataclass(frozen=True)
class Inline:
    """The tables of a plan file (or of any parsed document): `data` holds `variables` and
    `formulas`; `lines` maps key paths to their line (`napkinmath.text.locate`)."""

    data: Mapping
    source: str
    lines: Mapping = field(default_factory=dict)
    prefix: Where = ()


@dataclass
class Loaded:
    """One file's declarations, checked: the new variables, the formulas, and which library
    formulas they replace (formula name: replaced name)."""

    source: str
    variables: dict[str, declare.Variable] = field(default_factory=dict)
    formulas: dict[str, declare.Formula] = field(default_factory=dict)
    replaces: dict[str, str] = field(default_factory=dict)


@contextmanager
def user_formulas(sources: object) -> Iterator[list[Loaded]]:
    """Put the formulas files `sources` in force while the block runs: a path, a dict of the
    same tables, an `Inline`, or a list of these (read in order; a later file may use an
    earlier one's variables). None: nothing. Yields what was loaded.

    In force for this thread (or asyncio task, or copied context) alone: another thread
    asking at the same time sees the library as it stands, and a file that fails to load
    changes nothing anywhere. The same files as they stand (path, size and time; a dict or
    inline tables by their content) give the same `InForce`, so the caches keyed by it
    keep their work from one question to the next."""
    items = _items(sources)
    if not items:
        yield []
        return
    from napkinmath.catalog.lookup import formulas, variables

    variables(), formulas()  # the library itself, loaded (and stored) before anything of ours
    layered, loaded = _layered(items)
    for one in loaded:
        declare.RETIRED.update(one.variables)
    token = declare.IN_FORCE.set(layered)
    try:
        yield list(loaded)
    finally:
        declare.IN_FORCE.reset(token)


#: `InForce` by the files' stamps (and what was in force around them), latest last
_LAYERED: OrderedDict[Hashable, tuple[declare.InForce, tuple[Loaded, ...]]] = OrderedDict()
_LAYERED_SIZE = 32


def _forget_layered() -> None:
    _LAYERED.clear()


caches.state(
    f"{__name__}._LAYERED",
    key="the files' paths, sizes and times (dicts and inline tables: their content), "
    "and the formulas in force around them",
    invalidated_by="a change of a formulas file: keyed by its stamp",
    clear=_forget_layered,
    size=_LAYERED.__len__,
    reason="the caches of what the library determines key by the `InForce` in force; read "
    "afresh, the same file gives a new one and every one of them misses: a warm solve with "
    "a formulas file and new values took 11.5 ms without it, 0.11 ms with it (2026-12-06, "
    "2 cores), against issue 45's guardrail of 250 µs for a warm solve",
)


def _layered(items: list[object]) -> tuple[declare.InForce, tuple[Loaded, ...]]:
    """`items` read, checked and laid over what is in force now, in order (each file sees
    the ones before it); from `_LAYERED` when the same files, unchanged, were read before."""
    outer = declare.IN_FORCE.get()
    key = (outer, tuple(_stamp(item) for item in items))
    found = _LAYERED.get(key)
    if found is not None:
        return found
    variables = dict(declare.VARIABLES)
    formulas = dict(declare.FORMULAS)
    labels = dict(_labels())
    loaded: list[Loaded] = []
    for item in items:
        token = declare.IN_FORCE.set(_in_force(variables, formulas, labels))
        try:
            one = _load(item)
        finally:
            declare.IN_FORCE.reset(token)
        variables, formulas, labels = dict(variables), dict(formulas), dict(labels)
        _install(one, variables, formulas, labels)
        loaded.append(one)
    found = (_in_force(variables, formulas, labels), tuple(loaded))
    if caches.ENABLED and None not in key[1]:
        _LAYERED[key] = found
        if len(_LAYERED) > _LAYERED_SIZE:
            _LAYERED.popitem(last=False)
    return found


def _in_force(
    variables: dict[str, declare.Variable],
    formulas: dict[str, declare.Formula],
    labels: dict[tuple[str, str], str],
) -> declare.InForce:
    return declare.InForce(
        declare.Entries("variables", variables), declare.Entries("formulas", formulas), labels
    )


def _stamp(item: object) -> Hashable | None:
    """What identifies `item` as it stands: a file's path, size and time, a dict's or
    inline tables' content; None when it cannot be told (then it is read every time)."""
    import json

    try:
        if isinstance(item, (str, os.PathLike)):
            path = os.path.abspath(os.fspath(item))
            info = os.stat(path)
            return ("file", path, info.st_mtime_ns, info.st_size, info.st_ino)
        if isinstance(item, Inline):
            lines = sorted((repr(k), repr(v)) for k, v in item.lines.items())
            data = json.dumps(item.data, sort_keys=True)
            return ("inline", item.source, data, tuple(lines), item.prefix)
        if isinstance(item, Mapping):
            return ("dict", json.dumps(item, sort_keys=True))
    except (OSError, TypeError, ValueError):
        return None
    return None


def _items(sources: object) -> list[object]:
    if sources is None:
        return []
    if isinstance(sources, (list, tuple)):
        if len(sources) > 100:
            raise InputError(f"formulas=: {len(sources)} files; at most 100", "formulas")
        return list(sources)
    return [sources]


def _load(item: object) -> Loaded:
    if isinstance(item, Inline):
        return _Reader(item.source, dict(item.lines), item.prefix).read(item.data)
    if isinstance(item, Mapping):
        return _Reader("<dict>", {}, ()).read(item, top=True)
    if isinstance(item, (str, os.PathLike)):
        return read_file(item)
    raise InputError(
        f"formulas=: expected the path of a formulas file (TOML), a dict of its tables or a "
        f"list of them, not {type(item).__name__}",
        "formulas",
    )


def read_file(path: str | os.PathLike) -> Loaded:
    """A formulas file read (at most MAX_BYTES, a regular file) and checked."""
    from napkinmath.files import read_document
    from napkinmath.text.locate import json_lines, toml_lines
    from napkinmath.text.visible import visible

    text = os.fspath(path)
    if not text.strip():
        raise InputError("formulas=: expected the path of a formulas file, got ''", "formulas")
    shown = visible(text)
    document = read_document(
        text,
        noun="formulas file",
        limit=MAX_BYTES,
        shown=shown,
        rule="formulas are read only from a regular file",
    )
    lines = json_lines(document.text) if document.kind == "json" else toml_lines(document.text)
    return _Reader(shown, lines, ()).read(document.data, top=True)


def _install(
    one: Loaded,
    variables: dict[str, declare.Variable],
    formulas: dict[str, declare.Formula],
    labels: dict[tuple[str, str], str],
) -> None:
    """Lay `one` over the registries `variables` and `formulas` being built."""
    for name, variable in one.variables.items():
        variables[name] = variable
        labels[("var", name)] = one.source
    for name in one.replaces.values():
        formulas.pop(name, None)
    for name, f in one.formulas.items():
        formulas[name] = f
        labels[("formula", name)] = f.source


class _Reader:
    """The checks of one file, each failure an InputError naming file, line and key."""

    def __init__(self, source: str, lines: dict, prefix: Where) -> None:
        self.source, self.lines, self.prefix = source, lines, prefix

    def line(self, path: Where) -> int | None:
        from napkinmath.text.locate import line_of

        return line_of(self.lines, (*self.prefix, *path)) if self.lines else None

    def label(self, path: Where) -> str:
        """FILE:LINE (or FILE, key formulas[0] without lines)."""
        line = self.line(path)
        return f"{self.source}:{line}" if line else f"{self.source}, {_key_text(path)}"

    def fail(self, path: Where, message: str) -> InputError:
        line = self.line(path)
        at = f", line {line}" if line else ""
        key = _key_text((*self.prefix, *path))
        return InputError(f"{self.source}{at}, key {key}: {message}", str(path[-1]))

    def read(self, data: Mapping, top: bool = False) -> Loaded:
        if top:
            for key in data:
                if key not in TOP_KEYS:
                    raise self.fail(
                        (key,),
                        f"unknown key {key!r}; a formulas file has [variables.NAME] "
                        "tables and [[formulas]]",
                    )
        out = Loaded(self.source)
        tables = data.get("variables", {})
        if not isinstance(tables, Mapping):
            raise self.fail(("variables",), "expected [variables.NAME] tables")
        if len(tables) > MAX_VARIABLES:
            raise self.fail(("variables",), f"{len(tables):,} variables; at most {MAX_VARIABLES}")
        for name, table in tables.items():
            variable = self.variable(name, table, ("variables", name))
            if variable is not None:
                out.variables[name] = variable
        rows = data.get("formulas", [])
        if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
            raise self.fail(("formulas",), "expected [[formulas]] tables")
        if len(rows) > MAX_FORMULAS:
            raise self.fail(("formulas",), f"{len(rows):,} formulas; at most {MAX_FORMULAS}")
        for i, row in enumerate(rows):
            self.formula(row, ("formulas", i), out)
        return out

    # --- variables -----------------------------------------------------------------------

    def variable(self, name: str, table: object, path: Where) -> declare.Variable | None:
        """A new variable, or None for the library's (declared again in its own unit)."""
        self.check_name(name, path, "variable")
        if not isinstance(table, Mapping):
            raise self.fail(path, "expected a table of " + ", ".join(VARIABLE_KEYS))
        for key in table:
            if key not in VARIABLE_KEYS:
                raise self.fail(
                    (*path, key), f"unknown key {key!r}; expected one of {', '.join(VARIABLE_KEYS)}"
                )
        unit_text = table.get("unit")
        if not isinstance(unit_text, str):
            raise self.fail(
                (*path, "unit"), 'expected a unit such as "s" or "GB/s" ("" for a number)'
            )
        unit = self.unit(unit_text, (*path, "unit"))
        existing = declare.VARIABLES.get(name)
        if existing is not None:
            from napkinmath.units import format_unit

            if existing.unit != unit:
                mine = format_unit(unit) or "a plain number"
                theirs = format_unit(existing.unit) or "a plain number"
                owner = _labels().get(("var", name), "the library")
                raise self.fail(
                    (*path, "unit"),
                    f"{name} is already a variable of {owner} in {theirs}, not {mine}: give "
                    f"yours another name, or drop this table to use it as it is",
                )
            return None  # the same variable: the existing declaration stands
        description = table.get("description")
        if not isinstance(description, str) or not description.strip():
            raise self.fail((*path, "description"), "expected text saying what the variable is")
        bounds = self.bounds(table.get("bounds"), (*path, "bounds"))
        symbol = self.symbol(table, path) or declare._latex_name(name)
        variable = declare.Variable(name, unit, description, None, symbol, bounds)
        variable.unit_text = unit_text
        variable.__dict__["default"] = self.default(table, path, unit, bounds)
        return variable

    def check_name(self, name: object, path: Where, kind: str) -> str:
        from napkinmath.text.expr import FUNCTIONS
        from napkinmath.text.visible import visible

        if (
            not isinstance(name, str)
            or not name.isascii()
            or not name.isidentifier()
            or name != name.lower()
            or name.startswith("_")
            or len(name) > MAX_NAME
        ):
            shown = visible(str(name)[:MAX_NAME])
            raise self.fail(
                path,
                f"{kind} name {shown!r}: expected a snake_case name (lowercase letters, digits "
                f"and _, starting with a letter, at most {MAX_NAME} characters)",
            )
        if name in FUNCTIONS or name == "x":
            raise self.fail(path, f"{kind} name {name!r} is a function or operator of equations")
        return name

    def unit(self, text: str, path: Where) -> pint.Unit:
        from napkinmath.text.values import parse_unit
        from napkinmath.units import ureg

        if text.strip() in ("", "1"):
            return ureg.dimensionless
        try:
            return parse_unit(text, "unit")
        except NapkinError as exc:
            raise self.fail(path, str(exc)) from None

    def bounds(self, value: object, path: Where) -> declare.Bounds:
        if value is None:
            return declare.POSITIVE
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)
            or any(x != x for x in value)
            or not value[0] < value[1]
        ):
            raise self.fail(
                path, f"expected [low, high] with low < high (inf allowed), got {value!r}"
            )
        lo, hi = float(value[0]), float(value[1])
        return declare.Bounds(lo, hi, lo_inclusive=True, hi_inclusive=True)

    def symbol(self, table: Mapping, path: Where) -> str:
        if "symbol" in table and "latex" in table:
            raise self.fail((*path, "latex"), "give symbol or latex (the same thing), not both")
        key = "symbol" if "symbol" in table else "latex"
        value = table.get(key, "")
        if not isinstance(value, str) or len(value) > 200:
            raise self.fail((*path, key), "expected LaTeX text of at most 200 characters")
        from napkinmath.text.latex import checked_symbol

        problem = checked_symbol(value)
        if problem is not None:
            raise self.fail(
                (*path, key),
                f"{problem}: a symbol is LaTeX math of letters, digits, _ ^ {{ }} and commands "
                "such as \\alpha, \\mathrm{...}, \\hat{...} (it goes into .tex files)",
            )
        return value

    def default(
        self, table: Mapping, path: Where, unit: pint.Unit, bounds: declare.Bounds
    ) -> declare.Default | None:
        from napkinmath.text.values import parse_quantity
        from napkinmath.units import Quantity

        value, note = table.get("default"), table.get("default_note", "")
        if value is None:
            if note:
                raise self.fail((*path, "default_note"), "a note without a default")
            return None
        if not isinstance(note, str) or not note.strip():
            raise self.fail(
                (*path, "default_note"), "a default needs a note saying where it comes from"
            )
        where = (*path, "default")
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.fail(
                where, f'expected a number or a quantity such as "0.4 s", got {value!r}'
            )
        try:
            quantity = parse_quantity(value) if isinstance(value, str) else Quantity(value, unit)
            if isinstance(value, str) and quantity.dimensionless and not unit.dimensionless:
                quantity = Quantity(float(quantity.magnitude), unit)
            quantity = quantity.to(unit)
        except NapkinError as exc:
            raise self.fail(where, str(exc)) from None
        except Exception:  # pint: another dimension
            raise self.fail(where, f"{value!r} is not in {unit:~} (the variable's unit)") from None
        magnitude = float(quantity.magnitude)
        if not bounds.contains(magnitude):
            raise self.fail(where, f"{magnitude:g} is outside the bounds {bounds}")
        return declare.Default(Quantity(magnitude, unit), note)

    # --- formulas --------------------------------------------------------------------------

    def formula(self, row: Mapping, path: Where, out: Loaded) -> None:
        for key in row:
            if key not in FORMULA_KEYS:
                raise self.fail(
                    (*path, key), f"unknown key {key!r}; expected one of {', '.join(FORMULA_KEYS)}"
                )
        name = self.check_name(row.get("name"), (*path, "name"), "formula")
        texts = {}
        for key in ("title", "equation", "source"):
            value = row.get(key)
            if not isinstance(value, str) or not value.strip():
                raise self.fail((*path, key), f"expected text ({key} is required)")
            texts[key] = value
        note = row.get("note", "")
        if not isinstance(note, str):
            raise self.fail((*path, "note"), "expected text")
        replaces = row.get("replaces")
        if replaces is not None:
            replaces = self.replaced(replaces, (*path, "replaces"))
        if name in out.formulas or ("formula", name) in _labels():
            raise self.fail((*path, "name"), f"a formula {name!r} is declared twice in your files")
        if name in declare.FORMULAS and replaces != name:
            raise self.fail(
                (*path, "name"),
                f"the library has a formula {name!r} already (`napkin formulas {name}`): give "
                f'yours another name, or say replaces = "{name}" to use yours in its place',
            )
        label = f"your formula {self.label(path)}"
        if replaces is not None:
            label += f", replaces library formula {replaces}"
            out.replaces[name] = replaces
        equation, variables = self.equation(texts["equation"], (*path, "equation"), out)
        out.formulas[name] = declare.Formula(
            name,
            texts["title"],
            equation,
            f"{label} ({texts['source']})",
            "yours",
            note,
            variables=variables,
        )

    def replaced(self, value: object, path: Where) -> str:
        from napkinmath.catalog.lookup import unknown_message

        if not isinstance(value, str):
            raise self.fail(path, "expected the name of a library formula")
        mine = _labels()
        library = {n: f for n, f in declare.FORMULAS.items() if ("formula", n) not in mine}
        if value not in library:
            raise self.fail(path, unknown_message("library formula", value, library))
        return value

    def equation(
        self, text: str, path: Where, out: Loaded
    ) -> tuple[sympy.Eq, tuple[declare.Variable, ...]]:
        import sympy

        from napkinmath.text.expr import parse

        if text.count("=") != 1:
            raise self.fail(path, 'an equation is "left = right", with one "="')
        sides: list[Node] = []
        for part in text.split("="):
            if not part.strip():
                raise self.fail(path, 'an equation is "left = right": a side is empty')
            try:
                sides.append(parse(part))
            except ParseError as exc:
                raise self.fail(path, str(exc)) from None
        known = {**declare.VARIABLES, **out.variables}
        names = sorted({n for side in sides for n in _names(side)})
        self.check_names(names, known, path)
        build = _Builder(known, lambda message: self.fail(path, message))
        lhs, rhs = (build.expr(side) for side in sides)
        left, right = (build.dimension(side) for side in sides)
        if left != right and not (lhs.is_zero or rhs.is_zero):
            a, b = (part.strip() for part in text.split("="))
            raise self.fail(
                path,
                f"the sides differ in dimension: {a} is [{_dim(left)}] but {b} is [{_dim(right)}]",
            )
        if not names:
            raise self.fail(path, "an equation needs at least one variable")
        return sympy.Eq(lhs, rhs, evaluate=False), tuple(known[n] for n in names)

    def check_names(self, names: list[str], known: Mapping[str, Any], path: Where) -> None:
        from napkinmath.catalog.lookup import unknown_message

        for name in names:
            if "." in name:
                raise self.fail(
                    path, f"{name!r}: an equation names variables only (no records, no attributes)"
                )
        unknown = [n for n in names if n not in known]
        if unknown:
            said = ", ".join(
                unknown_message("variable", n, dict(known))
                .removeprefix("unknown variable ")
                .replace("; did you mean ", " (did you mean ")
                .replace("?", "?)")
                for n in unknown
            )
            raise self.fail(
                path,
                f"unknown variable{'s' if len(unknown) > 1 else ''} {said} (declare "
                "yours in a [variables.NAME] table; `napkin vars` lists the library's)",
            )


def _dim(dim: pint.util.UnitsContainer) -> str:
    from napkinmath.text.dimensions import dimension_text

    return dimension_text(dim) if dim else "a plain number"


def _key_text(path: Where) -> str:
    return "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if i else f"{p}") for i, p in enumerate(path)
    )


def _names(node: Node) -> Iterator[str]:
    if node.kind == "name":
        yield node.text
    for arg in node.args:
        yield from _names(arg)


class _Builder:
    """A parsed side as a sympy expression and its dimension, node by node."""

    def __init__(self, known: Mapping[str, declare.Variable], fail: Any) -> None:
        self.known, self.fail = known, fail

    def expr(self, node: Node, scale: float = 1.0) -> sympy.Expr:
        import sympy

        from napkinmath.text.expr import COUNT_SUFFIXES

        kind = node.kind
        if kind == "name":
            return self.known[node.text].symbol
        if kind == "num":
            digits = node.text.removesuffix("%").removesuffix(node.suffix).replace("_", "")
            value = sympy.Rational(digits)
            if node.suffix:
                value *= sympy.Rational(COUNT_SUFFIXES[node.suffix])
            return value / 100 if node.text.endswith("%") else value
        if kind == "neg":
            return -self.expr(node.args[0], scale)
        if kind == "binop":
            a, b = (self.expr(arg, scale) for arg in node.args)
            if node.op in ("+",):
                return a + b
            if node.op in ("-", "−"):
                return a - b
            if node.op in ("/", "÷"):
                return a / b
            return a * b
        if kind == "pow":
            exponent = self.exponent(node.args[1])
            if abs(exponent) * scale > MAX_EXPONENT:
                raise self.fail(
                    f"exponent {exponent} (or exponents nested to {float(abs(exponent) * scale):g})"
                    f" is too large: at most {MAX_EXPONENT}"
                )
            base = self.expr(node.args[0], scale * max(1.0, float(abs(exponent))))
            return sympy.Pow(base, exponent)
        if kind == "call":
            args = [self.expr(arg, scale) for arg in node.args]
            name = node.text
            if name == "sqrt":
                return sympy.sqrt(args[0])
            if name in ("log2", "log10"):
                return sympy.log(args[0]) / sympy.log(2 if name == "log2" else 10)
            simple = {
                "log": sympy.log,
                "exp": sympy.exp,
                "ceil": sympy.ceiling,
                "floor": sympy.floor,
                "abs": sympy.Abs,
                "min": sympy.Min,
                "max": sympy.Max,
            }
            return simple[name](*args)
        raise self.fail(f"{node.text or kind!r} cannot be part of an equation")

    def exponent(self, node: Node) -> sympy.Rational:
        """A plain-number exponent: 2, -1, 0.5, 1/2, (1/3)."""
        import sympy

        if node.kind == "neg":
            return -self.exponent(node.args[0])
        if node.kind == "num" and not node.suffix and not node.text.endswith("%"):
            return sympy.Rational(node.text.replace("_", ""))
        if node.kind == "binop" and node.op in ("/", "÷"):
            a, b = (self.exponent(arg) for arg in node.args)
            if b == 0 or abs(a) > MAX_EXPONENT or b.q > 1000 or abs(b) > 1000:
                raise self.fail("an exponent must be a plain number such as 2, -1 or 1/2")
            return a / b
        raise self.fail("an exponent must be a plain number such as 2, -1 or 1/2")

    def dimension(self, node: Node) -> pint.util.UnitsContainer:
        from napkinmath.units import ureg

        none = ureg.dimensionless.dimensionality
        kind = node.kind
        if kind == "name":
            return self.known[node.text].dimensionality
        if kind == "num":
            return none
        if kind == "neg":
            return self.dimension(node.args[0])
        if kind == "binop":
            a, b = (self.dimension(arg) for arg in node.args)
            if node.op in ("+", "-", "−"):
                if a != b:
                    raise self.fail(f"cannot add or subtract [{_dim(a)}] and [{_dim(b)}]")
                return a
            return a / b if node.op in ("/", "÷") else a * b
        if kind == "pow":
            return self.dimension(node.args[0]) ** float(self.exponent(node.args[1]))
        dims = [self.dimension(arg) for arg in node.args]
        if node.text == "sqrt":
            return dims[0] ** 0.5
        if node.text in ("ceil", "floor", "abs", "min", "max"):
            if any(d != dims[0] for d in dims):
                raise self.fail(f"{node.text}() of arguments of different dimensions")
            return dims[0]
        if dims[0] != none:
            raise self.fail(f"{node.text}() needs a plain number, not [{_dim(dims[0])}]")
        return none
