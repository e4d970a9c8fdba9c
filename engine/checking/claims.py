"""Tables of claims: CSV, TSV, JSON or TOML rows checked in one run, with a summary.

    >>> report = check_claims("examples/claims.csv")
    >>> report.summary                     # {'agree': 4, 'disagree': 7, 'unchecked': 0}
    >>> report.exit_status                 # 1 when a claim disagrees: a CI gate

Each row is a quantity or an expression, a claimed value with its unit, and optional context
(gpu=, model=, tolerance). Every row is checked with `napkinmath.checking.check`; a row that
cannot be checked says why.
"""

from __future__ import annotations

import csv
import io
import json
import numbers
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from napkinmath.checking.expression import check
from napkinmath.checking.outcome import DEFAULT_TOLERANCE, CheckResult, Rendered
from napkinmath.errors import (
    InconsistentError,
    InputError,
    NapkinError,
    NoRootError,
    ParseError,
    UnderDeterminedError,
    UnknownNameError,
)
from napkinmath.units import format_quantity

#: Limits on a table of claims, so that a hostile file is refused quickly.
MAX_FILE_BYTES = 5_000_000
MAX_ROWS = 10_000
_COLUMNS = {
    "id": "id", "name": "id", "label": "id", "claim_id": "id",
    "quantity": "quantity", "variable": "quantity",
    "expression": "expression", "expr": "expression",
    "claimed": "claimed", "claim": "claimed", "value": "claimed", "expected": "claimed",
    "expect": "claimed",
    "unit": "unit", "tolerance": "tolerance", "tol": "tolerance",
    "gpu": "gpu", "model": "model", "context": "context",
    "source": "source", "note": "note", "notes": "note", "comment": "note",
}
_CONTEXT_SPLIT = re.compile(r"\s*;\s*|\s*,\s*(?=[A-Za-z_]\w*\s*=)|\s+(?=[A-Za-z_]\w*\s*=)")
_REASONS = (
    (ParseError, "could not read an expression or value"),
    (UnknownNameError, "unknown name"),
    (UnderDeterminedError, "not enough values to compute it"),
    (InconsistentError, "the given values disagree with each other"),
    (NoRootError, "no admissible solution"),
    (InputError, "bad value"),
    (NapkinError, "error"),
)


@dataclass
class ClaimRow:
    """One claim of a table and its verdict: "agree", "disagree" or "unchecked"."""

    number: int  # 1-based position in the table
    id: str
    claim: str  # the expression or quantity
    claimed: str
    status: str
    result: CheckResult | None = None
    reason: str = ""  # why a row could not be checked
    category: str = ""
    source: str = ""
    context: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"number": self.number, "id": self.id, "claim": self.claim,
                "claimed": self.claimed, "status": self.status, "reason": self.reason or None,
                "category": self.category or None, "source": self.source or None,
                "context": {k: str(v) for k, v in self.context.items()},
                "check": self.result.to_dict() if self.result else None}


@dataclass
class ClaimsReport(Rendered):
    """The verdicts on a table of claims, with a summary."""

    name: str
    rows: list[ClaimRow]

    @property
    def summary(self) -> dict:
        """Counts of agree / disagree / unchecked, and why rows could not be checked."""
        counts = {"total": len(self.rows), "agree": 0, "disagree": 0, "unchecked": 0}
        reasons: dict[str, int] = {}
        for row in self.rows:
            counts[row.status] += 1
            if row.status == "unchecked":
                reasons[row.category] = reasons.get(row.category, 0) + 1
        counts["reasons"] = reasons
        return counts

    @property
    def ok(self) -> bool:
        """No claim disagrees."""
        return not any(row.status == "disagree" for row in self.rows)

    def exit_status(self, allow_unchecked: bool = False) -> int:
        """0 when every claim agrees, 1 when one disagrees, 2 when one could not be checked."""
        summary = self.summary
        if summary["disagree"]:
            return 1
        if summary["unchecked"] and not allow_unchecked:
            return 2
        return 0

    def summary_line(self) -> str:
        s = self.summary
        line = (f"{s['total']} claim{'s' if s['total'] != 1 else ''}: {s['agree']} agree, "
                f"{s['disagree']} disagree, {s['unchecked']} could not be checked")
        if s["reasons"]:
            line += " (" + "; ".join(f"{n} {why}" for why, n in s["reasons"].items()) + ")"
        return line

    def _table(self, markdown: bool) -> list[str]:
        header = ("#", "id", "claim", "napkinmath", "claimed", "verdict")
        rows = []
        for row in self.rows:
            value = format_quantity(row.result.value) if row.result else "—"
            verdict = {"agree": "agree", "disagree": "DISAGREE",
                       "unchecked": "could not check"}[row.status]
            if row.status == "disagree" and row.result and row.result.candidates:
                verdict += f": {row.result.candidates[0].label}?"
            rows.append((str(row.number), row.id, _clip(row.claim, 48), value, row.claimed,
                         verdict))
        if markdown:
            lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            for cells in rows:
                lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
            return lines
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
                  for i, h in enumerate(header)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
        for cells in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))
                         .rstrip())
        return lines

    @property
    def text(self) -> str:
        lines = [f"{self.name}: {self.summary_line()}", "", *self._table(markdown=False)]
        disagreeing = [r for r in self.rows if r.status == "disagree"]
        if disagreeing:
            lines += ["", "Disagreements:"]
            for row in disagreeing:
                assert row.result is not None
                lines.append("")
                lines.append(f"[{row.number}] {row.id}" + (f" ({row.source})" if row.source
                                                           else ""))
                lines.extend("  " + line for line in row.result.text.splitlines())
        unchecked = [r for r in self.rows if r.status == "unchecked"]
        if unchecked:
            lines += ["", "Could not check:"]
            for row in unchecked:
                reason = row.reason.replace("\n", "\n      ")
                lines.append(f"  [{row.number}] {row.id}: {row.category}: {reason}")
        return "\n".join(lines)

    @property
    def markdown(self) -> str:
        lines = [f"**{self.name}**: {self.summary_line()}", "", *self._table(markdown=True)]
        for row in self.rows:
            if row.status == "disagree" and row.result is not None:
                lines += ["", f"#### {row.number}. {row.id}", "", row.result.markdown]
        unchecked = [r for r in self.rows if r.status == "unchecked"]
        if unchecked:
            lines += ["", "Could not check:", ""]
            lines += [f"- {r.number}. {r.id}: {r.category}: `{r.reason.splitlines()[0]}`"
                      for r in unchecked]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"name": self.name, "summary": self.summary,
                "rows": [row.to_dict() for row in self.rows]}



def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def check_claims(path_or_rows: object, tolerance: float = DEFAULT_TOLERANCE, *,
                 gpu: str | None = None, model: str | None = None,
                 input_format: str | None = None, **values: object) -> ClaimsReport:
    """Check every claim of a table: a CSV, JSON or TOML file, or a list of dicts.

    Each row has a `quantity` (a napkinmath variable) or an `expression`, a `claimed` value
    with its unit, and optional `id`, `tolerance`, `gpu`, `model`, `source`, `context`
    ("gpu=H100-SXM; n=8") and further columns named like variables (their values). Values
    nearer the row win: a row's own over the file's `defaults`, over this call's arguments.

    >>> report = check_claims([{"expression": "70e9 param * 2 B/param", "claimed": "140 GB"}])
    >>> report.summary["agree"]
    1
    """
    rows, defaults, name = load_claims(path_or_rows, input_format)
    base: dict[str, object] = {"tolerance": tolerance, "gpu": gpu, "model": model, **values}
    base.update(_row_settings(defaults, "defaults"))
    report = ClaimsReport(name, [])
    for number, raw in enumerate(rows, 1):
        report.rows.append(_check_row(number, raw, base))
    return report


def load_claims(source: object, input_format: str | None = None
                ) -> tuple[list[dict], dict, str]:
    """Rows, file-level defaults and a display name from a path, text stream or rows."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        fmt = input_format or path.suffix.lower().lstrip(".")
        if fmt not in ("csv", "tsv", "json", "toml"):
            raise InputError(f"{str(source)!r}: a claims file is .csv, .json or .toml "
                             "(or name the format with input_format=)")
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise InputError(f"{path}: {size:,} bytes; a claims file is limited to "
                                 f"{MAX_FILE_BYTES:,}")
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise InputError(f"no such claims file: {path}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read {path}: {exc}") from None
        rows, defaults = parse_claims_text(text, fmt, str(path))
        return rows, defaults, path.name
    if isinstance(source, io.TextIOBase):
        text = source.read(MAX_FILE_BYTES + 1)
        if len(text) > MAX_FILE_BYTES:
            raise InputError(f"claims input is longer than {MAX_FILE_BYTES:,} characters")
        rows, defaults = parse_claims_text(text, input_format or "csv", "input")
        return rows, defaults, "input"
    if isinstance(source, Mapping):
        rows, defaults = _from_document(dict(source), "claims")
        return rows, defaults, "claims"
    if isinstance(source, Iterable) and not isinstance(source, (bytes, bytearray)):
        rows = list(source)
        _check_rows(rows, "claims")
        return rows, {}, "claims"
    raise InputError(f"check_claims takes a file path or a list of rows, not "
                     f"{type(source).__name__}")


def parse_claims_text(text: str, fmt: str, name: str = "input") -> tuple[list[dict], dict]:
    """Rows and defaults from the text of a CSV, JSON or TOML claims table."""
    if fmt in ("csv", "tsv"):
        return _from_csv(text, name, "\t" if fmt == "tsv" else ","), {}
    if fmt == "json":
        try:
            document = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InputError(f"{name}: not valid JSON: {exc}") from None
        if isinstance(document, list):
            _check_rows(document, name)
            return document, {}
        if isinstance(document, dict):
            return _from_document(document, name)
        raise InputError(f"{name}: a JSON claims file is a list of claims or "
                         '{"claims": [...], "defaults": {...}}')
    if fmt == "toml":
        try:
            document = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            raise InputError(f"{name}: not valid TOML: {exc}") from None
        return _from_document(document, name)
    raise InputError(f"unknown claims format {fmt!r}: use csv, json or toml")


def _from_document(document: dict, name: str) -> tuple[list[dict], dict]:
    rows = document.get("claims", document.get("claim"))
    if rows is None:
        raise InputError(f"{name}: no claims found: put them in a list named 'claims' "
                         "([[claims]] tables in TOML)")
    if not isinstance(rows, list):
        raise InputError(f"{name}: 'claims' must be a list of tables")
    unknown = set(document) - {"claims", "claim", "defaults"}
    if unknown:
        raise InputError(f"{name}: unknown top-level keys {sorted(unknown)}: a claims file has "
                         "'claims' and optional 'defaults'")
    defaults = document.get("defaults", {})
    if not isinstance(defaults, dict):
        raise InputError(f"{name}: 'defaults' must be a table")
    _check_rows(rows, name)
    return rows, defaults


def _check_rows(rows: list, name: str) -> None:
    if len(rows) > MAX_ROWS:
        raise InputError(f"{name}: {len(rows):,} claims; the limit is {MAX_ROWS:,}")
    for number, row in enumerate(rows, 1):
        if not isinstance(row, Mapping):
            raise InputError(f"{name}: claim {number} is a {type(row).__name__}, not a table "
                             "of columns")


def _from_csv(text: str, name: str, delimiter: str) -> list[dict]:
    lines = [line for line in text.splitlines() if line.strip()
             and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{name}: no claims (the file is empty or only comments)")
    reader = csv.DictReader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    try:
        header = reader.fieldnames or []
        rows = []
        for number, row in enumerate(reader, 1):
            if None in row:
                raise InputError(f"{name}: claim {number} has more cells than the header "
                                 f"({', '.join(header)}): quote values that contain a "
                                 "comma, or drop the thousands separators")
            rows.append(row)
            if len(rows) > MAX_ROWS:
                raise InputError(f"{name}: more than {MAX_ROWS:,} claims")
    except csv.Error as exc:
        raise InputError(f"{name}: not valid CSV: {exc}") from None
    columns = {_COLUMNS.get(h.strip().lower(), "") for h in header if h}
    if "claimed" not in columns or not columns & {"quantity", "expression"}:
        raise InputError(f"{name}: the header ({', '.join(header)}) needs a 'claimed' column "
                         "and a 'quantity' or 'expression' column")
    return rows


def _row_settings(raw: Mapping, where: str) -> dict[str, object]:
    """A row's (or the defaults') columns as check() settings and given values."""
    settings: dict[str, object] = {}
    for key, value in raw.items():
        if key is None:
            continue
        column = _COLUMNS.get(str(key).strip().lower())
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        if isinstance(value, str):
            value = value.strip()
        if column == "context":
            settings.update(_parse_context(value, where))
        elif column is not None:
            settings[column] = value
        else:
            name = str(key).strip()
            if not name.isidentifier() or name.startswith("_"):
                raise InputError(f"{where}: column {name!r} is neither a claims column nor a "
                                 "variable name")
            settings[name] = value
    return settings


def _parse_context(value: object, where: str) -> dict[str, object]:
    if isinstance(value, Mapping):
        items = dict(value)
    elif isinstance(value, str):
        items = {}
        for part in _CONTEXT_SPLIT.split(value.strip()):
            if not part:
                continue
            name, sep, text = part.partition("=")
            if not sep or not name.strip():
                raise InputError(f"{where}: context {value!r}: write name=value pairs separated "
                                 "by ';', like 'gpu=H100-SXM; n=8'")
            items[name.strip()] = text.strip()
    else:
        raise InputError(f"{where}: context must be text like 'gpu=H100-SXM; n=8' or a table")
    settings: dict[str, object] = {}
    for name, text in items.items():
        column = _COLUMNS.get(str(name).lower())
        settings[column if column in ("gpu", "model", "tolerance") else str(name)] = text
    return settings


def _check_row(number: int, raw: Mapping, base: Mapping[str, object]) -> ClaimRow:
    where = f"claim {number}"
    row = ClaimRow(number, str(number), "", "", "unchecked")
    try:
        settings = dict(base)
        own = _row_settings(raw, where)
        settings.update(own)
        row.id = str(settings.pop("id", number))
        row.source = str(settings.pop("source", "") or "")
        settings.pop("note", None)
        quantity = settings.pop("quantity", None)
        expression = settings.pop("expression", None)
        claimed = settings.pop("claimed", None)
        unit = settings.pop("unit", None)
        row.claim = str(quantity or expression or "")
        row.context = {k: v for k, v in own.items()
                       if k not in ("id", "source", "note", "quantity", "expression",
                                    "claimed", "unit") and v is not None}
        if quantity and expression:
            raise InputError(f"{where}: give a quantity or an expression, not both")
        if not quantity and not expression:
            raise InputError(f"{where}: no quantity or expression to check")
        if claimed is None:
            raise InputError(f"{where}: no claimed value")
        claimed_text = _claimed_text(claimed, unit, where)
        row.claimed = claimed_text
        if quantity is not None:
            from napkinmath.library.lookup import variable

            quantity = str(quantity).strip()
            variable(quantity)  # an unknown name is an error that suggests the closest
            expression = quantity
        options = {k: settings.pop(k) for k in ("gpu", "model") if settings.get(k)}
        settings.pop("gpu", None)
        settings.pop("model", None)
        tol = settings.pop("tolerance", DEFAULT_TOLERANCE)
        result = check(str(expression), claimed_text, tolerance=tol, **options, **settings)
        result.label = row.id
        row.result = result
        row.status = result.status if result.status != "ok" else "agree"
    except NapkinError as exc:
        row.status = "unchecked"
        row.reason = str(exc)
        row.category = next(label for kind, label in _REASONS if isinstance(exc, kind))
    return row


def _claimed_text(claimed: object, unit: object, where: str) -> str:
    if isinstance(claimed, bool):
        raise InputError(f"{where}: the claimed value {claimed!r} is not a number")
    if isinstance(claimed, numbers.Real):
        text = repr(float(claimed)) if isinstance(claimed, float) else str(claimed)
    elif isinstance(claimed, str):
        text = claimed
    else:
        raise InputError(f"{where}: the claimed value must be text like '1.1 TB' or a number")
    if unit:
        text = f"{text} {unit}"
    return text
