"""A scenario file (TOML, or JSON) read and checked into a `Scenario`.

    title = "Startup: 7B on 1T tokens in 3 weeks"
    notes = "..."
    tolerance = 0.01          # over-determined givens must agree this closely
    strict = false            # true: a violated constraint or disagreeing givens fail the run
    formulas = ["ours.toml"]  # your formulas files (from the plan's folder), or the same
                              # [variables.NAME] and [[formulas]] tables in the plan itself

    [records]                 # gpu, model, precision (as solve's gpu=, model=, precision=)
    gpu = "H100-SXM"
    files = ["ours.toml"]     # your records files (paths from the plan file's folder)
    achievable = false        # true: measured peaks in place of datasheet ones (--achievable)

    [givens]                  # name = value, as on the command line: "7B", "3 weeks", 0.4,
    params = "7B"             # a range "0.3..0.5", a distribution "0.3 to 0.5", [low, high]

    [[sections]]
    title = "Compute"
    ask = ["train_compute", "n_gpus", "n_gpus_whole_nodes"]
    feeds = { n_gpus = "n_gpus_whole_nodes" }   # later sections may use n_gpus = this answer

    [[sections]]
    title = "Schedule and cost"
    ask = ["train_time", "train_cost"]
    uses = ["n_gpus"]         # earlier answers this section takes, by name
    sensitivity = ["n_gpus"]  # or true: the first question
    # also: notes, givens, units, gpu, model, precision

    [[sweeps]]                # target, over, and optional title, givens, gpu, model
    [[comparisons]]           # target, gpu or model (a list), and optional title, givens, best

    [[optimizations]]         # the best candidate that meets every constraint (nm.optimize)
    minimize = "n_gpus"       # or maximize = "mfu_predicted"; a list of two: a Pareto front
    over = { n_gpus = "whole nodes" }      # name = domain text or a list; or a list of names
    require = ["train_time <= 3 weeks"]    # or a table { train_time = "<= 3 weeks" }
    # also: title, givens (a value "<= 3 weeks" is a requirement), gpu, model, top

Every unknown key and bad value is an InputError naming the file, the line and the key.
`napkin plan FILE --check` exits 1 when a constraint is violated or givens disagree (in a
section, a sweep's rows or a comparison's rows) and when an optimization finds no candidate
that meets every constraint.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

from napkinmath.errors import InputError, NapkinError
from napkinmath.scenario import budget
from napkinmath.text.locate import json_lines, line_of, toml_lines

if TYPE_CHECKING:
    from napkinmath.files import Document

Where = tuple[str | int, ...]

TOP_KEYS = (
    "title",
    "notes",
    "tolerance",
    "strict",
    "records",
    "givens",
    "sections",
    "sweeps",
    "comparisons",
    "optimizations",
    "formulas",  # your formulas files (a list of paths), or [[formulas]] tables inline
    "variables",  # [variables.NAME] tables inline (`napkinmath.catalog.user`)
)
_OPTION_FOR = {  # where a file outside a plan's folder may be named instead
    "records files": "--records (records= in Python)",
    "config files": "--model (model= in Python)",
    "formulas files": "--formulas (formulas= in Python)",
}
RecordKey = Literal["gpu", "model", "precision"]
RECORD_KEYS: tuple[RecordKey, ...] = ("gpu", "model", "precision")
#: the records a sweep or a comparison takes (a name, or a list of names to run across)
WhatIfRecordKey = Literal["gpu", "model"]
WHAT_IF_RECORD_KEYS: tuple[WhatIfRecordKey, ...] = ("gpu", "model")
#: the top-level [records] table also takes the user's records files and --achievable
TOP_RECORD_KEYS = (*RECORD_KEYS, "files", "achievable")
SECTION_KEYS = (
    "title",
    "notes",
    "ask",
    "uses",
    "givens",
    "feeds",
    "units",
    "sensitivity",
    "gap",
    *RECORD_KEYS,
)
#: a section's gap = { step_time = "12.4 s", measured = { ... } } (`napkinmath.whatif.gap`)
GAP_STEP_KEYS = ("step_time", "mfu", "tokens_per_second")
SWEEP_KEYS = ("title", "target", "over", "givens", "gpu", "model", "points")
COMPARISON_KEYS = ("title", "target", "givens", "gpu", "model", "best")
OPTIMIZATION_KEYS = (
    "title",
    "minimize",
    "maximize",
    "over",
    "require",
    "givens",
    "gpu",
    "model",
    "top",
)
PRECISIONS = ("bf16", "fp16", "fp8", "int8", "fp4")
#: the largest plan file read (the largest example is a few kilobytes)
MAX_PLAN_BYTES = 1_000_000


class RecordNames(TypedDict, total=False):
    """The file's [records] or a section's: solve's gpu=, model= and precision=, a name each."""

    gpu: str
    model: str
    precision: str


class RecordLists(TypedDict, total=False):
    """A sweep's or a comparison's records: a name, or a list of names to run across."""

    gpu: str | list[str]
    model: str | list[str]


@dataclass(frozen=True)
class Section:
    """One group of questions, answered together."""

    title: str
    ask: tuple[str, ...]
    notes: str = ""
    uses: tuple[str, ...] = ()  # earlier answers (or names fed by `feeds`) taken as givens
    givens: dict[str, object] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)  # later name -> this section's answer
    units: dict[str, str] = field(default_factory=dict)
    sensitivity: tuple[str, ...] = ()
    records: RecordNames = field(default_factory=RecordNames)
    where: Where = ()
    #: the measured step (one of GAP_STEP_KEYS) and `measured` parts, for a gap budget
    gap: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Sweep:
    title: str
    target: tuple[str, ...]
    over: dict[str, object]
    givens: dict[str, object] = field(default_factory=dict)
    records: RecordLists = field(default_factory=RecordLists)
    points: int = 11
    where: Where = ()


@dataclass(frozen=True)
class ComparisonSpec:
    title: str
    target: tuple[str, ...]
    records: RecordLists
    givens: dict[str, object] = field(default_factory=dict)
    best: str | None = None
    where: Where = ()


@dataclass(frozen=True)
class OptimizationSpec:
    """One [[optimizations]] table: `nm.optimize`'s objectives, domains and requirements."""

    title: str
    objectives: tuple[str, ...]  # one, or two for a Pareto front
    maximize: tuple[str, ...]  # the objectives maximised (the others are minimised)
    over: dict[str, object] | None  # name -> domain text or list (None: the default)
    require: tuple[str, ...] = ()  # 'train_time <= 3 weeks', as written
    givens: dict[str, object] = field(default_factory=dict)  # plain values only
    records: RecordLists = field(default_factory=RecordLists)
    top: int = 5
    where: Where = ()


@dataclass
class Scenario:
    """A checked scenario, with the means to name a key's line in errors."""

    title: str
    notes: str
    tolerance: float
    strict: bool
    records: RecordNames
    givens: dict[str, object]
    sections: list[Section]
    sweeps: list[Sweep]
    comparisons: list[ComparisonSpec]
    optimizations: list[OptimizationSpec] = field(default_factory=list)
    source: str = "<dict>"  # the file name, or <dict>
    lines: dict = field(default_factory=dict, repr=False)
    is_json: bool = False
    record_files: tuple[str, ...] = ()  # the user's records files, laid over the shipped
    achievable: bool = False  # measured peaks in place of datasheet ones
    #: your formulas: files (paths) and the file's own tables (`napkinmath.catalog.user`)
    formula_sources: tuple[object, ...] = ()

    def where(self, path: Where) -> str:
        """'plan.toml, line 12, key sections[0].ask' (or without a line for a dict)."""
        return describe(self.source, self.lines, path, self.is_json)


def describe(source: str, lines: dict, path: Where, is_json: bool = False) -> str:
    key = "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if i else f"{p}") for i, p in enumerate(path)
    )
    line = line_of(lines, path) if lines else None
    at = f", line {line}" if line else ""
    return f"{source}{at}, key {key}" if key else f"{source}{at}"


def load(source: str | Path | Mapping, records: object = None) -> Scenario:
    """Read a scenario from a .toml or .json file, or take it from a dict; `records` (a path
    or a list of paths) adds the user's records files to those the file names."""
    extra = _record_paths(records)
    if isinstance(source, Mapping):
        return _Checker(dict(source), "<dict>", {}, False, extra).scenario()
    document = read_plan_file(source)
    lines = json_lines(document.text) if document.kind == "json" else toml_lines(document.text)
    return _Checker(
        document.data, str(Path(source)), lines, document.kind == "json", extra
    ).scenario()


#: how a plan read from standard input is named in messages
STDIN = "<stdin>"


def load_stream(stream: object, records: object = None, kind: str | None = None) -> Scenario:
    """A scenario read from a stream (`napkin plan -`: standard input), at most
    MAX_PLAN_BYTES, named `<stdin>` in messages with its lines; TOML or JSON as `kind` says,
    else by its content (JSON opens with `{`). Files it names are found from the current
    folder, as a plan file's are from its own."""
    from napkinmath.files import decode, parse_document

    raw = getattr(stream, "buffer", stream)
    data = raw.read(MAX_PLAN_BYTES + 1)  # type: ignore[attr-defined]
    if len(data) > MAX_PLAN_BYTES:
        raise InputError(
            f"{STDIN}: larger than {MAX_PLAN_BYTES:,} bytes; a plan is limited to "
            f"{MAX_PLAN_BYTES:,}"
        )
    text = decode(data, STDIN) if isinstance(data, bytes) else str(data)
    if kind is None:
        kind = "json" if text.lstrip("\ufeff \t\r\n").startswith("{") else "toml"
    document = parse_document(text, kind=kind, noun="plan", shown=STDIN)
    lines = json_lines(document.text) if kind == "json" else toml_lines(document.text)
    return _Checker(document.data, STDIN, lines, kind == "json", _record_paths(records)).scenario()


def read_plan_file(source: str | Path) -> Document:
    """A plan file's parsed document (`napkinmath.files.read_document`): a regular file of at
    most MAX_PLAN_BYTES, UTF-8, TOML (or JSON for .json), nested at most MAX_DEPTH deep, a
    table at the top; an InputError naming the file otherwise."""
    from napkinmath.files import read_document

    if not isinstance(source, (str, os.PathLike)):
        raise InputError(
            f"a plan is the path of a .toml or .json file, or a dict, not {type(source).__name__}"
        )
    return read_document(
        source,
        noun="plan file",
        limit=MAX_PLAN_BYTES,
        rule="a plan is read only from a regular file",
    )


def _record_paths(records: object) -> tuple[str, ...]:
    """The user's records files given beside the plan (records=, --records), checked as
    solve checks them."""
    if records is None:
        return ()
    from napkinmath.hardware.user import record_paths

    return record_paths(records)


class _Checker:
    """Type and name checks, each failure naming file, line and key."""

    def __init__(
        self, data: dict, source: str, lines: dict, is_json: bool, extra_files: tuple[str, ...] = ()
    ) -> None:
        self.data, self.source, self.lines, self.is_json = data, source, lines, is_json
        self.extra_files = extra_files

    def fail(self, path: Where, message: str) -> InputError:
        return InputError(
            f"{describe(self.source, self.lines, path, self.is_json)}: {message}",
            str(path[-1]) if path else None,
        )

    def keys(self, table: object, allowed: tuple[str, ...], path: Where) -> dict:
        if not isinstance(table, dict):
            raise self.fail(path, f"expected a table of {', '.join(allowed)}")
        for key in table:
            if key not in allowed:
                raise self.fail(
                    (*path, key), f"unknown key {key!r}; expected one of {', '.join(allowed)}"
                )
        return table

    def text(self, value: object, path: Where, required: bool = False) -> str:
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.fail(path, f"expected text, got {value!r}")
        return value

    def names(self, value: object, path: Where) -> tuple[str, ...]:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or not all(isinstance(n, str) for n in items):
            raise self.fail(path, f"expected a variable name or a list of them, got {value!r}")
        for i, name in enumerate(items):
            self.variable(name, (*path, i) if isinstance(value, list) else path)
        return tuple(items)

    def variable(self, name: str, path: Where) -> None:
        from napkinmath.catalog.lookup import variable

        try:
            variable(name)
        except NapkinError as exc:
            raise self.fail(path, str(exc)) from None

    def given_values(self, table: object, path: Where) -> dict[str, object]:
        from napkinmath.catalog.lookup import variable
        from napkinmath.text.values import read_given
        from napkinmath.whatif.spread import bind_spread, is_spread, to_spread

        if table is None:
            return {}
        if not isinstance(table, dict):
            raise self.fail(path, "expected a table of name = value")
        from napkinmath.library.settings import SETTINGS

        out: dict[str, object] = {}
        for name, value in table.items():
            where = (*path, name)
            setting = SETTINGS.get(name)
            if setting is not None:  # recompute = "selective": a choice that sets givens
                if not isinstance(value, str) or value not in setting.choices:
                    raise self.fail(where, f"choose one of {', '.join(map(repr, setting.choices))}")
                out[name] = value
                continue
            self.variable(name, where)
            if isinstance(value, list):
                value = tuple(value)  # [low, high]: a range
            if isinstance(value, bool) or not isinstance(value, (str, int, float, tuple)):
                raise self.fail(
                    where,
                    f'expected a value such as "7B", 0.4, "3 weeks" or '
                    f'a range "0.3..0.5", got {value!r}',
                )
            try:
                if is_spread(value):
                    bind_spread(to_spread(value, name), variable(name))
                elif not _names_record_key(value):  # read as solve reads it ("989
                    read_given(value, variable(name))  # TFLOP/s" is per GPU, and says so)
            except NapkinError as exc:
                raise self.fail(where, str(exc)) from None
            out[name] = value
        return out

    def records(self, table: dict, path: Where) -> RecordNames:
        """The gpu, model and precision of the file's [records] or of a section, checked."""
        out = RecordNames()
        for key in RECORD_KEYS:
            if key in table:
                self.check_records(table[key], key, path, lists=False)
                out[key] = table[key]
        return out

    def record_lists(self, table: dict, path: Where) -> RecordLists:
        """The gpu and model of a sweep or a comparison (a name or a list), checked."""
        out = RecordLists()
        for key in WHAT_IF_RECORD_KEYS:
            if key in table:
                self.check_records(table[key], key, path, lists=True)
                out[key] = table[key]
        return out

    def check_records(self, value: object, key: str, path: Where, lists: bool) -> None:
        """`value` of `key` is a record name (or with `lists`, a list of them) that names a
        record, or a precision of PRECISIONS."""
        if isinstance(value, str):
            names = [value]
        elif lists and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            names = value
        else:
            raise self.fail(
                (*path, key), f"expected a record name{' or a list' * lists}, got {value!r}"
            )
        if key == "precision" and value not in PRECISIONS:
            raise self.fail((*path, key), f"{value!r}: expected one of {', '.join(PRECISIONS)}")
        if key != "precision":
            self.record(names, (*path, key))

    def record(self, names: list[str], path: Where) -> None:
        """Each of `names` names a record (the user's records in force)."""
        from napkinmath.hardware import get

        for name in names:
            try:
                get(name)
            except NapkinError as exc:
                raise self.fail(path, str(exc)) from None

    def scenario(self) -> Scenario:
        """The checked scenario; record names are checked with the user's records in force."""
        from napkinmath.catalog.user import user_formulas
        from napkinmath.solving.records import user_records

        d = self.keys(self.data, TOP_KEYS, ())
        budget.check_raw(d, self.source)  # 100,000 sections: refused before any is checked
        table = self.keys(d.get("records", {}), TOP_RECORD_KEYS, ("records",))
        files = (*self.record_files(table.get("files")), *self.extra_files)
        table, files = self.config_model(table, files, ("records",))
        sections = d.get("sections")
        if isinstance(sections, list):  # a section's own model = "config.json"
            mine = list(sections)
            for i, section in enumerate(sections):
                if isinstance(section, dict):
                    mine[i], files = self.config_model(section, files, ("sections", i))
            d = {**d, "sections": mine}
        achievable = table.get("achievable", False)
        if not isinstance(achievable, bool):
            raise self.fail(
                ("records", "achievable"), f"expected true or false, got {achievable!r}"
            )
        formula_sources = self.formula_sources(d)
        try:
            with user_records(files or None), user_formulas(formula_sources or None):
                found = self.checked(d, table)
        except InputError:
            raise
        except NapkinError as exc:  # a records file named by --records / records=
            raise InputError(f"{self.source}: {exc}", "records") from None
        found.record_files, found.achievable = files, achievable
        found.formula_sources = formula_sources
        return found

    def formula_sources(self, d: dict) -> tuple[object, ...]:
        """formulas = ["ours.toml"] (from the plan file's folder), or [[formulas]] and
        [variables.NAME] tables in the plan itself."""
        from napkinmath.catalog.user import Inline

        value, tables = d.get("formulas", []), d.get("variables")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise self.fail(("formulas",), "expected a list of formulas files or [[formulas]]")
        paths = [v for v in value if isinstance(v, str)]
        inline = [v for v in value if isinstance(v, dict)]
        if len(paths) + len(inline) != len(value) or (paths and inline):
            raise self.fail(
                ("formulas",), "expected a list of formulas files, or [[formulas]] tables"
            )
        found: list[object] = [
            self.inside(p, ("formulas", i), "formulas files") for i, p in enumerate(paths)
        ]
        if inline or tables is not None:
            data = {"formulas": inline, "variables": {} if tables is None else tables}
            found.append(Inline(data, self.source, self.lines))
        return tuple(found)

    def config_model(
        self, table: dict, files: tuple[str, ...], where: Where
    ) -> tuple[dict, tuple[str, ...]]:
        """[records] model = "config.json" (or a section's model): a Hugging Face config,
        found from the plan file's folder as its records files are, read as a model record
        (its path becomes the model's name, and the file one of the records files)."""
        from napkinmath.hardware.config_json import is_config_path

        model = table.get("model")
        if not is_config_path(model):
            return table, files
        from napkinmath.hardware.user import shown_path

        assert isinstance(model, str)
        path = os.path.abspath(self.inside(model.strip(), (*where, "model"), "config files"))
        return {**table, "model": shown_path(path)}, (*files, path)

    def inside(self, item: str, where: Where, what: str) -> str:
        """The file `item` of a plan file, found from its folder (a dict: from here); an
        InputError if it is outside that folder."""
        if self.source == "<dict>":
            return item
        from napkinmath.text.visible import visible

        folder = os.path.dirname(self.source)
        path = os.path.join(folder, item)
        base = os.path.realpath(folder or ".")
        if (
            "\x00" in item
            or os.path.isabs(item)
            or os.path.commonpath([base, os.path.realpath(path)]) != base
        ):
            raise self.fail(
                where,
                f"{visible(item)!r} is outside the plan file's folder; a "
                f"plan's {what} are read from its folder or below it (no "
                f"absolute path, no .. out of it, no link out of it): copy the file "
                f"there, or name it with {_OPTION_FOR[what]}",
            )
        return path

    def record_files(self, value: object) -> tuple[str, ...]:
        """The [records] files, each found from the plan file's folder (a dict: from here)."""
        if value is None:
            return ()
        items = [value] if isinstance(value, str) else value
        if (
            not isinstance(items, list)
            or not items
            or not all(isinstance(v, str) and v for v in items)
        ):
            raise self.fail(
                ("records", "files"),
                f"expected the path of a records file or a list of paths, got {value!r}",
            )
        found = []
        for i, item in enumerate(items):
            where = ("records", "files", i) if isinstance(value, list) else ("records", "files")
            found.append(self.record_file(item, where))
        return tuple(found)

    def record_file(self, item: str, where: Where) -> str:
        """One [records] file: from a plan file, found in the plan's folder or below it and
        checked to be a records file by shape, with errors that quote nothing of it (a plan
        from elsewhere may name any file); from a dict, as given (from here)."""
        if self.source == "<dict>":
            return item
        from napkinmath.hardware.user import check_named_file
        from napkinmath.text.visible import visible

        path = self.inside(item, where, "records files")
        shown = visible(path)
        try:
            check_named_file(path, shown)
        except InputError as exc:
            message = str(exc).removeprefix("records file ")
            if message.startswith("no such records file"):
                message += " (paths are read from the plan file's folder)"
            raise self.fail(where, message) from None
        return path

    def checked(self, d: dict, table: dict) -> Scenario:
        plan_keys = ("title", "sections", "sweeps", "comparisons", "optimizations")
        if not any(k in d for k in plan_keys) and ("formulas" in d or "variables" in d):
            name = Path(self.source).name
            raise InputError(
                f"{self.source} holds formulas and variables but no plan (no title or "
                f"[[sections]]): use it with --formulas {name} (napkin solve, sweep, ...), or "
                f'name it in a plan file: formulas = ["{name}"]'
            )
        title = self.text(d.get("title"), ("title",), required=True)
        tolerance = d.get("tolerance", 0.01)
        if (
            isinstance(tolerance, bool)
            or not isinstance(tolerance, (int, float))
            or not 0 < tolerance < 1
        ):
            raise self.fail(("tolerance",), f"expected a fraction such as 0.01, got {tolerance!r}")
        strict = d.get("strict", False)
        if not isinstance(strict, bool):
            raise self.fail(("strict",), f"expected true or false, got {strict!r}")
        records = self.records(table, ("records",))
        sections = [
            self.section(s, ("sections", i))
            for i, s in enumerate(self.array(d, "sections", required=True))
        ]
        titles = [s.title for s in sections]
        for i, t in enumerate(titles):
            if t in titles[:i]:
                raise self.fail(("sections", i, "title"), f"two sections are called {t!r}")
        return Scenario(
            title=title,
            notes=self.text(d.get("notes"), ("notes",)),
            tolerance=float(tolerance),
            strict=strict,
            records=records,
            givens=self.given_values(d.get("givens"), ("givens",)),
            sections=sections,
            sweeps=[self.sweep(s, ("sweeps", i)) for i, s in enumerate(self.array(d, "sweeps"))],
            comparisons=[
                self.comparison(c, ("comparisons", i))
                for i, c in enumerate(self.array(d, "comparisons"))
            ],
            optimizations=[
                self.optimization(o, ("optimizations", i))
                for i, o in enumerate(self.array(d, "optimizations"))
            ],
            source=self.source,
            lines=self.lines,
            is_json=self.is_json,
        )

    def array(self, d: dict, key: str, required: bool = False) -> list:
        value = d.get(key, [])
        if not isinstance(value, list) or (required and not value):
            raise self.fail(
                (key,), f"expected {'one or more' if required else 'a list of'} [[{key}]] tables"
            )
        return value

    def section(self, s: object, path: Where) -> Section:
        s = self.keys(s, SECTION_KEYS, path)
        if "ask" not in s:
            raise self.fail(path, 'a section needs ask = ["variable", ...]: its questions')
        ask = self.names(s["ask"], (*path, "ask"))
        feeds = s.get("feeds", {})
        if not isinstance(feeds, dict):
            raise self.fail((*path, "feeds"), 'expected a table: later_name = "answer"')
        for name, answer in feeds.items():
            self.variable(name, (*path, "feeds", name))
            if answer not in ask:
                raise self.fail(
                    (*path, "feeds", name),
                    f"{answer!r} is not a question of this section (ask = {list(ask)})",
                )
        uses = self.names(s["uses"], (*path, "uses")) if "uses" in s else ()
        for i, name in enumerate(uses):
            if name in ask:
                raise self.fail((*path, "uses", i), f"{name!r} is both used and asked here")
        units = s.get("units", {})
        if not isinstance(units, dict) or not all(isinstance(u, str) for u in units.values()):
            raise self.fail((*path, "units"), 'expected a table: name = "unit"')
        for name in units:
            if name not in ask:
                raise self.fail((*path, "units", name), f"{name!r} is not asked in this section")
        chosen = s.get("sensitivity", False)
        if chosen is True:
            sensitivity = ask[:1]
        elif chosen is False:
            sensitivity = ()
        else:
            sensitivity = self.names(chosen, (*path, "sensitivity"))
            for i, name in enumerate(sensitivity):
                if name not in ask:
                    raise self.fail((*path, "sensitivity", i), f"{name!r} is not asked here")
        return Section(
            title=self.text(s.get("title"), (*path, "title"), required=True),
            ask=ask,
            notes=self.text(s.get("notes"), (*path, "notes")),
            uses=uses,
            givens=self.given_values(s.get("givens"), (*path, "givens")),
            feeds=dict(feeds),
            units=dict(units),
            sensitivity=sensitivity,
            records=self.records(s, path),
            where=path,
            gap=self.gap(s.get("gap"), (*path, "gap"), ask),
        )

    def gap(self, table: object, path: Where, ask: tuple[str, ...]) -> dict[str, object]:
        """gap = { step_time = "12.4 s", measured = { dataloader_wait = "0.3 s" } }: one
        measured step, and the parts a profiler measured (`napkinmath.whatif.gap`)."""
        if table is None:
            return {}
        from napkinmath.whatif.gap import MEASURABLE

        table = self.keys(table, (*GAP_STEP_KEYS, "measured"), path)
        step = [k for k in GAP_STEP_KEYS if k in table]
        if len(step) != 1:
            raise self.fail(
                path, f"a gap budget needs exactly one measured step: {', '.join(GAP_STEP_KEYS)}"
            )
        if "step_time_predicted" not in ask:
            raise self.fail(path, 'a gap budget needs ask = ["step_time_predicted", ...]')
        measured = table.get("measured", {})
        if not isinstance(measured, dict):
            raise self.fail((*path, "measured"), 'expected a table: part = "time"')
        for key, value in measured.items():
            if key not in MEASURABLE:
                raise self.fail(
                    (*path, "measured", key),
                    f"unknown part {key!r}; measure one of {', '.join(MEASURABLE)}",
                )
            if not isinstance(value, str):
                raise self.fail((*path, "measured", key), 'expected a time such as "0.3 s"')
        value = table[step[0]]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail((*path, step[0]), 'expected a value such as "12.4 s" or 0.38')
        return {step[0]: value, "measured": dict(measured)}

    def sweep(self, s: object, path: Where) -> Sweep:
        s = self.keys(s, SWEEP_KEYS, path)
        target = self.names(s.get("target"), (*path, "target"))
        over = s.get("over")
        if not isinstance(over, dict) or not 1 <= len(over) <= 2:
            raise self.fail(
                (*path, "over"),
                'expected a table of one or two swept inputs, such as { n_gpus = "32..256:log:9" }',
            )
        for name, value in over.items():
            self.variable(name, (*path, "over", name))
            if not isinstance(value, (str, list)):
                raise self.fail(
                    (*path, "over", name),
                    f'expected "low..high[:log:N]" or a list of values, got {value!r}',
                )
        points = s.get("points", 11)
        if isinstance(points, bool) or not isinstance(points, int) or not 2 <= points <= 1000:
            raise self.fail((*path, "points"), f"expected a whole number 2..1000, got {points!r}")
        default = f"{', '.join(target)} over {', '.join(over)}"
        return Sweep(
            title=self.text(s.get("title"), (*path, "title")) or default,
            target=target,
            over=dict(over),
            givens=self.given_values(s.get("givens"), (*path, "givens")),
            records=self.record_lists(s, path),
            points=points,
            where=path,
        )

    def comparison(self, c: object, path: Where) -> ComparisonSpec:
        c = self.keys(c, COMPARISON_KEYS, path)
        target = self.names(c.get("target"), (*path, "target"))
        records = self.record_lists(c, path)
        if not any(isinstance(v, list) and len(v) > 1 for v in records.values()):
            raise self.fail(
                path, "a comparison needs gpu = [...] or model = [...] with two or more records"
            )
        best = c.get("best")
        if best not in (None, "lower", "higher"):
            raise self.fail((*path, "best"), f'expected "lower" or "higher", got {best!r}')
        default = f"{', '.join(target)} across records"
        return ComparisonSpec(
            title=self.text(c.get("title"), (*path, "title")) or default,
            target=target,
            records=records,
            givens=self.given_values(c.get("givens"), (*path, "givens")),
            best=best,
            where=path,
        )

    def optimization(self, o: object, path: Where) -> OptimizationSpec:
        from napkinmath.scenario.optimizing import check_optimization

        o = self.keys(o, OPTIMIZATION_KEYS, path)
        return check_optimization(self, o, path)


def _names_record_key(value: object) -> bool:
    """A given that names a record key (peak_flops = "peak_flops_fp8") is checked at solve."""
    return isinstance(value, str) and value.replace("_", "").isalnum() and "_" in value
