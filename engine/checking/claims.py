"""Tables of claims: CSV, TSV, JSON or TOML rows checked in one run, with a summary.

    >>> report = check_claims("examples/claims.csv")
    >>> report.summary                     # {'read': 11, 'agree': 4, 'disagree': 7, ...}
    >>> report.exit_status                 # 1 when a claim disagrees: a CI gate

Each row is a quantity or an expression, a claimed value with its unit, and optional context
(gpu=, model=, tolerance). Every row is checked with `napkinmath.checking.check`; a row that
cannot be checked says why, and the table goes on.

A table is a CI gate, so hostile input is bounded and never passes by losing rows:

- claims are read only from regular files (or standard input), at most MAX_FILE_BYTES, never
  blocking on a FIFO; a device, directory or /proc file is refused before it is read, and no
  error quotes what a refused file holds;
- a CSV file is parsed as CSV first; then a row whose first cell starts with '#' is a
  comment and an empty row is blank; both are skipped and listed with their lines, and every
  row read is counted in the summary; a quoted cell that holds a line break (a row spanning
  lines, which could hold other rows) is an error naming the lines; a table without claims
  is an error;
- a key given twice (a JSON key, which would keep its last value; a second 'claims' list,
  which would drop the first; a CSV header column, an alias too) is an error of the table;
  a setting given twice in a row (two columns for the claimed value, a context cell that
  names a column) is an error of that row, never a silent override;
- a column that is not a claims column (`napkinmath.checking.columns`) is an error when it
  looks like a misspelt one ('claimd') or when the claim does not use it as a value; a cell
  that is not text or a finite number (a list, true/false, NaN) is an error of its row; any
  top-level key but 'claims' and 'defaults' is an error of the table;
- the whole table's work is bounded by deterministic counters (`napkinmath.checking.budget`):
  the claims left when it is spent are reported as not checked (exit status 2).
"""

from __future__ import annotations

import csv
import difflib
import io
import itertools
import math
import numbers
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from napkinmath.checking import budget, columns, strict_json
from napkinmath.checking.expression import check
from napkinmath.checking.outcome import CLAIM_TOLERANCE, CheckResult, Rendered
from napkinmath.errors import (
    InconsistentError,
    InputError,
    NapkinError,
    NoRootError,
    ParseError,
    UnderDeterminedError,
    UnknownNameError,
)
from napkinmath.text.escape import (
    clip,
    error_text,
    md_code,
    md_prose,
    md_text,
    shown_value,
    unprintable,
    visible,
    visible_lines,
)

#: Limits on a table of claims, so that a hostile file is refused quickly. Work is bounded
#: too: see `napkinmath.checking.budget` (MAX_TABLE_WORK, MAX_CONFIRM_NODES).
MAX_FILE_BYTES = 5_000_000
MAX_ROWS = 10_000
_COLUMNS = columns.COLUMNS
_CONTEXT_COLUMNS = columns.CONTEXT_COLUMNS
#: The comment convention of CSV tables: a row whose first cell starts with '#'.
COMMENT_MARK = "#"
#: Integers longer than this (a float holds about 309 digits) are refused as values.
_MAX_INTEGER_DIGITS = 400
#: Skipped-row ranges listed in a report before "... and N more".
_SHOWN_SKIPPED = 20
#: The widest id or claimed value a report's table shows (the full text is in JSON).
_CELL_WIDTH = 40
#: The longest reason a text or Markdown report shows for a claim it could not check.
_REASON_WIDTH = 3000
#: The header of each claim of a TOML table ([[claims]]), for the line where it starts.
_TOML_CLAIM = re.compile(r'^[ \t]*\[\[[ \t]*(?:claims?|"claims?")[ \t]*\]\]', re.MULTILINE)
_CONTEXT_SPLIT = re.compile(r"\s*;\s*|\s*,\s*(?=[A-Za-z_]\w*\s*=)|\s+(?=[A-Za-z_]\w*\s*=)")
_REASONS = (
    (budget.BudgetSpentError, budget.TABLE_BUDGET_SPENT),
    (columns.UnknownColumnError, "unknown column"),
    (ParseError, "could not read an expression or value"),
    (UnknownNameError, "unknown name"),
    (UnderDeterminedError, "not enough values to compute it"),
    (InconsistentError, "the given values disagree with each other"),
    (NoRootError, "no admissible solution"),
    (InputError, "bad value"),
    (NapkinError, "error"),
)
INTERNAL_ERROR = "internal error"
_SAFE_COLUMN_NAME = columns.SAFE_NAME


class _HugeInteger:
    """A JSON integer too long to be any number napkinmath computes with (a float holds
    about 309 digits); kept as its length so that the row, not the table, is refused."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __str__(self) -> str:
        return f"<an integer of {self.digits:,} digits>"

    __repr__ = __str__


def _json_int(text: str) -> object:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= _MAX_INTEGER_DIGITS else _HugeInteger(digits)


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
    line: int | None = None  # the line where the row starts in its file, when known

    @property
    def where(self) -> str:
        """' (line 12)' for a report's list of rows, or '' when the line is not known."""
        return f" (line {self.line})" if self.line is not None else ""

    @property
    def why(self) -> str:
        """The reason, without the 'claim 3 (line 12): ' that a report's list shows anyway."""
        return self.reason.removeprefix(f"claim {self.number}{self.where}: ")

    def to_dict(self) -> dict[str, object]:
        return {
            "number": self.number,
            "line": self.line,
            "id": self.id,
            "claim": self.claim,
            "claimed": self.claimed,
            "status": self.status,
            "reason": self.reason or None,
            "category": self.category or None,
            "source": self.source or None,
            "context": {k: _cell_text(v) for k, v in self.context.items()},
            "check": self.result.to_dict() if self.result else None,
        }


@dataclass
class SkippedRows:
    """Consecutive rows of a CSV table that are not claims: comments and blank rows."""

    first_line: int
    last_line: int
    comments: int = 0
    blank: int = 0

    @property
    def count(self) -> int:
        return self.comments + self.blank

    @property
    def why(self) -> str:
        parts = []
        if self.comments:
            parts.append(
                f"a comment (its first cell starts with '{COMMENT_MARK}')"
                if self.comments == 1
                else f"{self.comments} comments (first cells start with '{COMMENT_MARK}')"
            )
        if self.blank:
            parts.append("a blank row" if self.blank == 1 else f"{self.blank} blank rows")
        return " and ".join(parts)

    def text(self) -> str:
        where = (
            f"line {self.first_line}"
            if self.first_line == self.last_line
            else f"lines {self.first_line}–{self.last_line}"
        )
        return f"{where}: {self.why}"

    def to_dict(self) -> dict[str, object]:
        return {
            "first_line": self.first_line,
            "last_line": self.last_line,
            "comments": self.comments,
            "blank": self.blank,
            "why": self.why,
        }


class Summary(TypedDict):
    """A claims table's counts (`ClaimsReport.summary`), in the order its JSON gives them."""

    total: int
    agree: int
    disagree: int
    unchecked: int
    reasons: dict[str, int]  # why claims could not be checked: {category: count}
    comments: int
    blank: int
    skipped: int
    checked: int
    read: int


@dataclass
class ClaimsReport(Rendered):
    """The verdicts on a table of claims, with a summary, the rows skipped as comments or
    blank, and the work spent against the table's budget."""

    name: str
    rows: list[ClaimRow]
    skipped: list[SkippedRows] = field(default_factory=list)
    work_spent: int = 0
    work_budget: int | None = None
    stopped_after: int | None = None  # the last claim checked before the budget was spent

    @property
    def summary(self) -> Summary:
        """Every row read, counted once: `read` = `total` claims + `skipped` rows (`comments`
        and `blank`); of the claims, `checked` (`agree` + `disagree`) and `unchecked` (with
        why, in `reasons`)."""
        counts = {"agree": 0, "disagree": 0, "unchecked": 0}
        reasons: dict[str, int] = {}
        for row in self.rows:
            counts[row.status] += 1
            if row.status == "unchecked":
                reasons[row.category] = reasons.get(row.category, 0) + 1
        comments = sum(s.comments for s in self.skipped)
        blank = sum(s.blank for s in self.skipped)
        return Summary(
            total=len(self.rows),
            agree=counts["agree"],
            disagree=counts["disagree"],
            unchecked=counts["unchecked"],
            reasons=reasons,
            comments=comments,
            blank=blank,
            skipped=comments + blank,
            checked=counts["agree"] + counts["disagree"],
            read=len(self.rows) + comments + blank,
        )

    @property
    def ok(self) -> bool:
        """No claim disagrees."""
        return not any(row.status == "disagree" for row in self.rows)

    def exit_status(self, allow_unchecked: bool = False) -> int:
        """0 when every claim agrees, 1 when one disagrees, 2 when one could not be checked
        (or the table has no claims). Every row read is a claim or a listed comment or blank
        row, so no row can leave the status at 0 without being checked."""
        summary = self.summary
        if summary["disagree"]:
            return 1
        if not summary["total"]:
            return 2
        if summary["unchecked"] and not allow_unchecked:
            return 2
        return 0

    def summary_line(self) -> str:
        """'14 rows read: 10 checked (4 agree, 6 disagree), 2 skipped as comments, 1 blank,
        1 could not be checked (1 unknown column)': every row read, counted once."""
        s = self.summary
        line = (
            f"{s['read']} row{'s' if s['read'] != 1 else ''} read: {s['checked']} checked "
            f"({s['agree']} agree, {s['disagree']} disagree)"
        )
        if s["comments"]:
            line += f", {s['comments']} skipped as comment{'s' if s['comments'] != 1 else ''}"
        if s["blank"]:
            line += f", {s['blank']} blank"
        line += f", {s['unchecked']} could not be checked"
        if s["reasons"]:
            line += " (" + "; ".join(f"{n} {why}" for why, n in s["reasons"].items()) + ")"
        return line

    def budget_line(self) -> str:
        """What the table's work budget stopped, if it did."""
        if self.stopped_after is None:
            return ""
        first, last = self.stopped_after + 1, len(self.rows)
        left = f"claim {first}" if first == last else f"claims {first}–{last}"
        lines = (self.rows[first - 1].line, self.rows[last - 1].line)
        if lines[0] is not None and lines[1] is not None:
            left += f" (line {lines[0]})" if first == last else f" (lines {lines[0]}–{lines[1]})"
        return (
            f"Stopped early: the table's work budget ({self.work_budget or 0:,} work units, "
            f"about one evaluated expression node each) was spent after claim "
            f"{self.stopped_after} of {len(self.rows)}; {left} were not checked. Split "
            "the table, or shorten its expressions."
        )

    def _skipped_lines(self) -> list[str]:
        shown = [s.text() for s in self.skipped[:_SHOWN_SKIPPED]]
        if len(self.skipped) > _SHOWN_SKIPPED:
            rest = sum(s.count for s in self.skipped[_SHOWN_SKIPPED:])
            shown.append(f"... and {rest:,} more skipped rows")
        return shown

    def _cells(self) -> list[tuple[str, ...]]:
        rows: list[tuple[str, ...]] = []
        for row in self.rows:
            value = row.result.value_text if row.result else "—"
            verdict = {"agree": "agree", "disagree": "DISAGREE", "unchecked": "could not check"}[
                row.status
            ]
            if row.category == budget.TABLE_BUDGET_SPENT:
                verdict = "not checked (work budget spent)"
            if row.status == "disagree" and row.result and row.result.candidates:
                verdict += f": {row.result.candidates[0].label}?"
            rows.append(
                (
                    str(row.number),
                    clip(row.id, _CELL_WIDTH),
                    clip(row.claim, 48),
                    value,
                    clip(row.claimed, _CELL_WIDTH),
                    verdict,
                )
            )
        return rows

    def _table(self, markdown: bool) -> list[str]:
        header = ("#", "id", "claim", "napkinmath", "claimed", "verdict")
        if markdown:
            lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            for cells in self._cells():
                shown = [
                    md_code(c, in_table=True) if i == 2 and c else md_text(c)
                    for i, c in enumerate(cells)
                ]
                lines.append("| " + " | ".join(shown) + " |")
            return lines
        rows = [
            tuple(clip(visible(c), 48 if i == 2 else _CELL_WIDTH) for i, c in enumerate(cells))
            for cells in self._cells()
        ]
        widths = [
            max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
            for i, h in enumerate(header)
        ]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
        for cells in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
        return lines

    @property
    def text(self) -> str:
        """The report as plain text; text from the table is shown with its control
        characters escaped."""
        lines = [f"{visible(self.name)}: {self.summary_line()}"]
        if self.stopped_after is not None:
            lines.append(self.budget_line())
        if self.skipped:
            lines += ["Skipped (not claims):", *("  " + s for s in self._skipped_lines())]
        lines += ["", *self._table(markdown=False)]
        disagreeing = [r for r in self.rows if r.status == "disagree"]
        if disagreeing:
            lines += ["", "Disagreements:"]
            for row in disagreeing:
                assert row.result is not None
                lines.append("")
                lines.append(
                    f"[{row.number}] {visible(clip(row.id, 200))}"
                    + (f" ({visible(clip(row.source, 200))})" if row.source else "")
                )
                lines.extend("  " + line for line in row.result.text.splitlines())
        unchecked = [
            r
            for r in self.rows
            if r.status == "unchecked" and r.category != budget.TABLE_BUDGET_SPENT
        ]
        if unchecked:
            lines += ["", "Could not check:"]
            for row in unchecked:
                reason = visible_lines(clip(row.why, _REASON_WIDTH)).replace("\n", "\n      ")
                lines.append(
                    f"  [{row.number}] {visible(clip(row.id, 200))}{row.where}: "
                    f"{row.category}: {reason}"
                )
        return "\n".join(lines)

    html_kind = "claims"

    def html_parts(self) -> list[str]:
        """The summary, a table of the claims, each disagreement's check (its derivations'
        math as MathML) and the claims that could not be checked."""
        from napkinmath.text.markup import esc, table

        out = [
            f'<p class="answer"><strong>{esc(self.name)}</strong>: {esc(self.summary_line())}</p>'
        ]
        if self.stopped_after is not None:
            out.append(f"<p>{esc(self.budget_line())}</p>")
        if self.skipped:
            out.append("<p>Skipped (not claims):</p><ul>")
            out += [f"<li>{esc(s)}</li>" for s in self._skipped_lines()]
            out.append("</ul>")
        header = ["#", "id", "claim", "napkinmath", "claimed", "verdict"]
        out.append(table(header, ([str(c) for c in cells] for cells in self._cells())))
        for row in self.rows:
            if row.status == "disagree" and row.result is not None:
                out.append(f"<h4>{row.number}. {esc(clip(row.id, 200))}</h4>")
                out += row.result.html_parts()
        unchecked = [
            r
            for r in self.rows
            if r.status == "unchecked" and r.category != budget.TABLE_BUDGET_SPENT
        ]
        if unchecked:
            out.append("<p>Could not check:</p><ul>")
            out += [
                f"<li>{r.number}. {esc(clip(r.id, 200))}{esc(r.where)}: {esc(r.category)}: "
                f"<code>{esc(clip((r.why.splitlines() or [''])[0], _REASON_WIDTH))}</code></li>"
                for r in unchecked
            ]
            out.append("</ul>")
        return out

    @property
    def markdown(self) -> str:
        """The report as Markdown; text from the table cannot add headings, HTML or links."""
        lines = [f"**{md_text(self.name)}**: {md_prose(self.summary_line())}"]
        if self.stopped_after is not None:
            lines += ["", md_prose(self.budget_line())]
        if self.skipped:
            lines += ["", "Skipped (not claims):", ""]
            lines += [f"- {md_prose(s)}" for s in self._skipped_lines()]
        lines += ["", *self._table(markdown=True)]
        for row in self.rows:
            if row.status == "disagree" and row.result is not None:
                lines += [
                    "",
                    f"#### {row.number}. {md_text(clip(row.id, 200))}",
                    "",
                    row.result.markdown,
                ]
        unchecked = [
            r
            for r in self.rows
            if r.status == "unchecked" and r.category != budget.TABLE_BUDGET_SPENT
        ]
        if unchecked:
            lines += ["", "Could not check:", ""]
            lines += [
                f"- {r.number}. {md_text(clip(r.id, 200))}{r.where}: "
                f"{md_prose(r.category)}: "
                f"{md_code(clip((r.why.splitlines() or [''])[0], _REASON_WIDTH))}"
                for r in unchecked
            ]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "summary": self.summary,
            "skipped": [s.to_dict() for s in self.skipped],
            "work": {
                "spent": self.work_spent,
                "budget": self.work_budget,
                "stopped_after": self.stopped_after,
            },
            "rows": [row.to_dict() for row in self.rows],
        }


def _cell_text(value: object) -> str:
    """Any cell as text, even an integer too long for str()."""
    try:
        return str(value)
    except ValueError:
        return unprintable(value)


@dataclass
class _Table:
    rows: list[tuple[int | None, Mapping]]  # (the line where a CSV row starts, its cells)
    defaults: Mapping
    name: str
    skipped: list[SkippedRows] = field(default_factory=list)


def check_claims(
    path_or_rows: object,
    tolerance: float = CLAIM_TOLERANCE,
    *,
    gpu: str | None = None,
    model: str | None = None,
    input_format: str | None = None,
    records: object = None,
    **values: object,
) -> ClaimsReport:
    """Check every claim of a table: a CSV, JSON or TOML file, or a list of dicts.

    Each row has a `quantity` (a napkinmath variable) or an `expression`, a `claimed` value
    with its unit, and optional `id`, `tolerance`, `gpu`, `model`, `source`, `context`
    ("gpu=H100-SXM; n=8") and further columns named like variables (their values), which
    the claim must use: a column that looks like a misspelt claims column, or one the claim
    does not use, is an error. Values nearer the row win: a row's own over the file's
    `defaults`, over this call's arguments. A CSV row whose first cell starts with '#' is a
    comment; comments and blank rows are skipped, counted and listed with their lines. A
    table without claims is an error, and so is a key given twice. The work of the
    whole table is bounded (`napkinmath.checking.budget`): claims left when it is spent are
    reported as not checked.

    >>> report = check_claims([{"expression": "70e9 param * 2 B/param", "claimed": "140 GB"}])
    >>> report.summary["agree"]
    1

    `records` (a path or a list of paths) loads the user's own records files over the shipped
    ones for the whole table (`napkinmath.hardware.user`).
    """
    if input_format is not None:
        from napkinmath.arguments import choice

        input_format = choice(input_format, "input_format", ("csv", "tsv", "json", "toml"))
    if records is not None:
        from napkinmath.solving.records import user_records

        with user_records(records):
            return check_claims(
                path_or_rows, tolerance, gpu=gpu, model=model, input_format=input_format, **values
            )
    table = _load(path_or_rows, input_format)
    reserved = sorted(k for k in values if str(k).lower() in _COLUMNS)
    if reserved:
        raise InputError(
            f"{', '.join(reserved)}: these name columns of a claims table, not "
            "values; put them in the table"
        )
    if not table.rows:
        skipped = sum(s.count for s in table.skipped)
        also = (
            f" ({skipped} row{'s' if skipped != 1 else ''} skipped as comments or blank)"
            if skipped
            else ""
        )
        raise InputError(
            f"{visible(table.name)}: no claims to check{also}: a table of claims "
            "needs at least one row, so that a check cannot pass by losing them"
        )
    base: dict[str, object] = {"tolerance": tolerance, "gpu": gpu, "model": model, **values}
    base.update(_defaults(table.defaults, visible(table.name)))
    report = ClaimsReport(table.name, [], table.skipped)
    meter = budget.Meter(budget.MAX_TABLE_WORK)
    with budget.metered(meter):
        for number, (line, raw) in enumerate(table.rows, 1):
            if meter.exhausted:
                row = _left_unchecked(number, raw, line)
            else:
                row = _check_row(number, raw, base, line)
            if row.category == budget.TABLE_BUDGET_SPENT and report.stopped_after is None:
                report.stopped_after = number - 1
            report.rows.append(row)
    report.work_spent, report.work_budget = meter.spent, meter.limit
    return report


def _load(source: object, input_format: str | None) -> _Table:
    if isinstance(source, (str, Path)):
        from napkinmath.arguments import path as checked_path

        path = checked_path(source, "path_or_rows", what="a claims file or a list of rows")
        fmt = input_format or path.suffix.lower().lstrip(".")
        if fmt not in ("csv", "tsv", "json", "toml"):
            raise InputError(
                f"{visible(clip(str(source), 200))!r}: a claims file is .csv, "
                ".json or .toml (or name the format with input_format=)"
            )
        text = _decode(read_claims_file(path), visible(str(path)))
        return _parse(text, fmt, str(path), path.name)
    if hasattr(source, "read"):  # standard input or another stream: bounded the same way
        stream = getattr(source, "buffer", source)
        data = stream.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise InputError(
                f"the claims input is larger than {MAX_FILE_BYTES:,} bytes; a "
                f"claims table is limited to {MAX_FILE_BYTES:,}"
            )
        text = _decode(data, "the claims input") if isinstance(data, bytes) else data
        if not isinstance(text, str):
            raise InputError("the claims input must be text")
        return _parse(text, input_format or sniffed_format(text), "input", "input")
    if isinstance(source, Mapping):
        rows, defaults = _from_document(dict(source), "claims")
        return _Table([(None, row) for row in rows], defaults, "claims")
    if (
        isinstance(source, Iterable)
        and not isinstance(source, (bytes, bytearray))
        and _iterable(source)
    ):
        rows = list(itertools.islice(source, MAX_ROWS + 1))
        _check_rows(rows, "claims")
        return _Table([(None, row) for row in rows], {}, "claims")
    raise InputError(
        f"check_claims takes a file path or a list of rows, not {type(source).__name__}"
    )


#: a TOML claims table's tell: a [defaults] or [[claims]] header, or a `claims = [` array
_TOML_TELL = re.compile(r"^\s*(\[\[\s*claims\s*\]\]|\[\s*defaults\s*\]|claims\s*=\s*\[)", re.M)


def sniffed_format(text: str) -> str:
    """The format of a claims table read from a stream without --input-format: JSON when
    it opens with `{` or `[` (a TOML table header such as `[defaults]` aside), TOML when it
    has a [[claims]] or [defaults] header, otherwise CSV (a tab in the header: TSV)."""
    head = text.lstrip("\ufeff \t\r\n")
    if _TOML_TELL.search(text[:MAX_FILE_BYTES]):
        return "toml"
    if head[:1] in "{[" and head:
        return "json"
    first = head.split("\n", 1)[0]
    return "tsv" if "\t" in first and "," not in first else "csv"


def _iterable(source: object) -> bool:
    """Whether `source` can be iterated: a pint Quantity or a 0-d numpy array declares
    __iter__ but refuses it."""
    try:
        iter(source)  # type: ignore[call-overload]
    except TypeError:
        return False
    return True


def read_claims_file(path: str | Path) -> bytes:
    """The bytes of a claims file, read safely: only a regular file, at most
    MAX_FILE_BYTES, never blocking. A FIFO, a device (/dev/zero), a directory or a pseudo-file
    of /proc or /sys (which would print the process environment) is refused before anything
    is read, and no error quotes what a refused file holds (`napkinmath.files`)."""
    from napkinmath.files import read_regular_file

    return read_regular_file(
        path,
        noun="claims file",
        limit=MAX_FILE_BYTES,
        rule="claims are read only from regular files or '-' (standard input)",
    )


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{shown}: not UTF-8 text (a byte that is not UTF-8 at position "
            f"{exc.start:,}); save the table as UTF-8"
        ) from None


def _parse(text: str, fmt: str, where: str, name: str) -> _Table:
    where = visible(where)
    defaults: Mapping  # the file's defaults for every row
    if fmt in ("csv", "tsv"):
        rows, skipped = _from_csv(text, where, "\t" if fmt == "tsv" else ",")
        return _Table(rows, {}, name, skipped)
    if fmt == "json":
        document, layout = strict_json.loads(text, where, _json_int)
        if isinstance(document, list):
            _check_rows(document, where)
            rows, defaults = document, {}
        elif isinstance(document, dict):
            rows, defaults = _from_document(document, where)
        else:
            raise InputError(
                f"{where}: a JSON claims file is a list of claims or "
                '{"claims": [...], "defaults": {...}}'
            )
        return _Table(_numbered(rows, layout.claim_lines), defaults, name)
    if fmt == "toml":
        from napkinmath.files import MAX_DEPTH, shallow

        if not shallow(text, "toml", MAX_DEPTH):  # before tomllib, which recurses on nesting
            raise InputError(
                f"{where}: nested more than {MAX_DEPTH} deep (tables and arrays "
                "inside each other, or a dotted key of that many parts); a claims "
                f"file is limited to {MAX_DEPTH} levels"
            )  # and squares a key's memory
        try:
            document = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            twice = (
                " (a key given twice, or a table declared twice)"
                if "overwrite" in str(exc) or "declare" in str(exc)
                else ""
            )
            raise InputError(f"{where}: not valid TOML{twice}: {exc}") from None
        except ValueError:  # an integer beyond Python's digit limit
            raise InputError(f"{where}: not valid TOML (a number too long to read)") from None
        rows, defaults = _from_document(document, where)
        return _Table(_numbered(rows, _toml_claim_lines(text)), defaults, name)
    raise InputError(
        f"unknown claims format {visible(clip(str(fmt), 20))!r}: use csv, json or toml"
    )


def _numbered(rows: list, lines: list[int]) -> list[tuple[int | None, Mapping]]:
    """Rows with the line where each starts, when the lines found are one per row."""
    if len(lines) != len(rows):
        return [(None, row) for row in rows]
    return list(zip(lines, rows, strict=True))


def _toml_claim_lines(text: str) -> list[int]:
    """The line of each [[claims]] header of a TOML table (none for an inline array)."""
    lines, line, at = [], 1, 0
    for match in _TOML_CLAIM.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        lines.append(line)
    return lines


def _from_document(document: dict, name: str) -> tuple[list, Mapping]:
    """The claims and defaults of a JSON or TOML document; any other top-level key, or
    claims under both 'claims' and 'claim', is an error, so that no row is dropped."""
    keys = [key for key in strict_json.CLAIMS_KEYS if key in document]
    if len(keys) > 1:
        raise InputError(
            f"{name}: claims are given both as 'claims' and as 'claim': put "
            "them in one list named 'claims', so that neither list is dropped"
        )
    if not keys:
        raise InputError(
            f"{name}: no claims found: put them in a list named 'claims' "
            "([[claims]] tables in TOML)"
        )
    rows = document[keys[0]]
    if not isinstance(rows, list):
        raise InputError(f"{name}: 'claims' must be a list of tables")
    unknown = sorted(set(document) - {"claims", "claim", "defaults"}, key=str)
    if unknown:
        guess = difflib.get_close_matches(
            str(unknown[0]).lower(), ["claims", "defaults"], 1, columns.SUGGEST
        )
        hint = f" (did you mean {guess[0]!r}?)" if guess else ""
        raise InputError(
            f"{name}: unknown top-level keys ({_column_names(unknown)}){hint}: "
            "a claims file has 'claims' and optional 'defaults', and nothing "
            "else is read"
        )
    defaults = document.get("defaults", {})
    if not isinstance(defaults, dict):
        raise InputError(f"{name}: 'defaults' must be a table")
    _check_rows(rows, name)
    return rows, defaults


def _check_rows(rows: list, name: str) -> None:
    if len(rows) > MAX_ROWS:
        raise InputError(f"{name}: more than {MAX_ROWS:,} claims; the limit is {MAX_ROWS:,}")
    for number, row in enumerate(rows, 1):
        if not isinstance(row, Mapping):
            raise InputError(
                f"{name}: claim {number} is {_kind(row)}, not a table of "
                'columns: each claim is a table like {"expression": "1 GB", '
                '"claimed": "1 GB"}'
            )


def _kind(value: object) -> str:
    """What a value of a file is, in words: 'a list', 'null', 'true or false'."""
    if value is None:
        return "null (nothing)"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (str, numbers.Number, _HugeInteger)):
        return "text" if isinstance(value, str) else "a number"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def _column_names(names: list) -> str:
    """Column names for a message, without quoting what a file holds: a cell that does not
    look like a column name (the secret in a file that is not a table) is not shown."""
    shown = [str(n) if _SAFE_COLUMN_NAME.fullmatch(str(n)) else "…" for n in names[:12]]
    if len(names) > 12:
        shown.append(f"… {len(names) - 12} more")
    return ", ".join(shown) if shown else "none"


def _from_csv(
    text: str, name: str, delimiter: str
) -> tuple[list[tuple[int | None, Mapping]], list[SkippedRows]]:
    """Rows of a CSV table, parsed as CSV first (quoted cells may hold newlines and '#').
    Before the header, comment and blank lines are a preamble; after it, a row whose first
    cell starts with '#' is a comment and an empty row is blank: both are skipped and
    listed, never dropped silently."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    rows: list[tuple[int | None, Mapping]] = []
    skipped: list[SkippedRows] = []
    last = 0
    try:
        for cells in reader:
            first, last = last + 1, reader.line_num
            blank = not any(cell.strip() for cell in cells)
            comment = not blank and cells[0].lstrip().startswith(COMMENT_MARK)
            if comment and last > first:
                raise InputError(
                    f"{name}: lines {first}–{last}: a comment row runs over "
                    "several lines (a quote opened in it is not closed), so it "
                    "would swallow the rows after it"
                )
            if last > first:
                raise InputError(
                    f"{name}: lines {first}–{last}: a quoted cell holds a line "
                    "break, so one row spans several lines and the rows inside "
                    "it would be read as one cell; no claim needs a line break: "
                    "close each quote on the line where it opens"
                )
            if header is None:
                if not (blank or comment):
                    header = _csv_header(cells, f"{name}: line {first}")
                continue
            if blank or comment:
                if skipped and skipped[-1].last_line == first - 1:
                    group = skipped[-1]
                    group.last_line = last
                else:
                    group = SkippedRows(first, last)
                    skipped.append(group)
                if comment:
                    group.comments += 1
                else:
                    group.blank += 1
                continue
            if len(cells) > len(header):
                raise InputError(
                    f"{name}: line {first} (claim {len(rows) + 1}) has more cells "
                    f"than the header ({len(cells)} for {len(header)}): quote "
                    "values that contain a comma, or drop the thousands "
                    "separators"
                )
            rows.append(
                (first, {h: (cells[i] if i < len(cells) else None) for i, h in enumerate(header)})
            )
            if len(rows) > MAX_ROWS:
                raise InputError(
                    f"{name}: more than {MAX_ROWS:,} claims; the limit is {MAX_ROWS:,}"
                )
    except csv.Error as exc:
        raise InputError(f"{name}: not valid CSV at line {reader.line_num}: {exc}") from None
    if header is None:
        raise InputError(
            f"{name}: no claims (the file is empty or only comments): a table "
            "starts with a header such as 'id,expression,claimed'"
        )
    return rows, skipped


def _csv_header(cells: list[str], name: str) -> list[str]:
    """The header's column names. A name given twice (even as two aliases, 'claimed' and
    'value') or one that looks like a misspelt claims column ('claimd') is an error."""
    header = [cell.strip() or f"(column {i + 1})" for i, cell in enumerate(cells)]
    seen: dict[str, str] = {}
    for cell in header:
        key = _COLUMNS.get(cell.lower(), cell)
        if key in seen:
            raise InputError(
                f"{name}: the header names {key!r} twice ({seen[key]!r} and "
                f"{cell!r}): which one counts would be a guess"
                if _SAFE_COLUMN_NAME.fullmatch(cell)
                else f"{name}: the header has two columns of the same name"
            )
        seen[key] = cell
        if columns.near_miss(cell):
            raise columns.misspelt(cell, f"{name} (the header)")
    kinds = {_COLUMNS.get(h.lower(), "") for h in header}
    if "claimed" not in kinds or not kinds & {"quantity", "expression"}:
        raise InputError(
            f"{name}: the header ({_column_names(header)}) needs a 'claimed' "
            "column and a 'quantity' or 'expression' column"
        )
    return header


def _defaults(raw: Mapping, name: str) -> dict[str, object]:
    settings = _row_settings(raw, f"{name}: defaults")
    own = sorted(k for k in ("id", "quantity", "expression", "claimed") if k in settings)
    if own:
        raise InputError(
            f"defaults: {', '.join(own)} cannot have a default: each claim gives its own"
        )
    return settings


def _check_value(value: object, name: str, where: str) -> None:
    """Refuse numbers no float holds before they reach arithmetic (OverflowError)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1100:
        value = _HugeInteger(round(value.bit_length() * 0.30103))
    if isinstance(value, _HugeInteger):
        raise InputError(
            f"{where}: {name} is {value}: beyond any number napkinmath computes "
            "with (about 1.8e308)",
            name,
        )


def _put(settings: dict, origin: dict, name: str, value: object, given_as: str, where: str) -> None:
    if name in settings:
        raise InputError(
            f"{where}: {name} is given twice ({origin[name]} and {given_as}): "
            "which one counts would be a guess"
        )
    settings[name] = value
    origin[name] = given_as


def _row_settings(raw: Mapping, where: str) -> dict[str, object]:
    """A row's (or the defaults') columns as check() settings and given values. A setting
    given twice (two columns for the claimed value, a context that repeats a column) is an
    error of the row, never a silent override."""
    settings: dict[str, object] = {}
    origin: dict[str, str] = {}
    for key, value in raw.items():
        key_text = _cell_text(key).strip()
        column = _COLUMNS.get(key_text.lower())
        if column is None and columns.near_miss(key_text):
            raise columns.misspelt(key_text, where)
        if column is None and (not key_text.isidentifier() or key_text.startswith("_")):
            guess = columns.closest(key_text)
            raise columns.UnknownColumnError(
                f"{where}: column {columns.shown(key_text)} is neither a claims column nor a "
                "variable name"
                + (f" (did you mean {guess!r}?)" if guess else "")
                + f": {columns.allowed()}"
            )
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        _check_cell(value, key_text, column, where)
        if isinstance(value, str):
            value = value.strip()
        if column == "context":
            for name, item in _parse_context(value, where).items():
                _put(settings, origin, name, item, f"context {name}=", where)
        else:
            _put(settings, origin, column or key_text, value, f"column {key_text!r}", where)
    return settings


def _check_cell(value: object, key: str, column: str | None, where: str) -> None:
    """A cell holds text or a finite number (a context may be a table too): a list, a
    table, true/false or NaN is an error of the row, never read as text."""
    shown = visible(clip(key, 40))
    _check_value(value, shown, where)
    if column == "context" and isinstance(value, Mapping):
        return
    if isinstance(value, bool) or not isinstance(value, (str, numbers.Real)):
        raise InputError(
            f"{where}: column {shown!r} holds {_kind(value)}; a cell holds text "
            "or a number" + (" (or, for a context, a table)" if column == "context" else ""),
            key,
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: column {shown!r} is {value!r}, not a finite number", key)


def _parse_context(value: object, where: str) -> dict[str, object]:
    if isinstance(value, Mapping):
        items = {_cell_text(k).strip(): v for k, v in value.items()}
        if len(items) != len(value):
            raise InputError(f"{where}: the context names a value twice")
    elif isinstance(value, str):
        items = {}
        for part in _CONTEXT_SPLIT.split(value.strip()):
            if not part:
                continue
            name, sep, text = part.partition("=")
            if not sep or not name.strip():
                raise InputError(
                    f"{where}: context {visible(clip(value, 60))!r}: write "
                    "name=value pairs separated by ';', like 'gpu=H100-SXM; n=8'"
                )
            if name.strip() in items:
                raise InputError(
                    f"{where}: the context gives {visible(clip(name.strip(), 40))} twice"
                )
            items[name.strip()] = text.strip()
    else:
        raise InputError(f"{where}: context must be text like 'gpu=H100-SXM; n=8' or a table")
    settings: dict[str, object] = {}
    for name, text in items.items():
        shown = visible(clip(name, 40))
        column = _COLUMNS.get(name.lower())
        if column in _CONTEXT_COLUMNS:
            settings[column] = text
        elif column is not None:
            raise InputError(
                f"{where}: the context sets {shown!r}, which names the {column!r} "
                f"column: give it in that column (a context holds gpu=, model=, "
                "tolerance= and values of names, like 'n=8')"
            )
        elif not name.isidentifier() or name.startswith("_"):
            raise InputError(
                f"{where}: context {shown!r} is not a name: write name=value pairs like 'n=8'"
            )
        else:
            _check_value(text, shown, where)
            settings[name] = text
    return settings


def _left_unchecked(number: int, raw: Mapping, line: int | None) -> ClaimRow:
    """A claim after the table's work budget was spent: shown, not checked."""
    row = ClaimRow(
        number,
        str(number),
        "",
        "",
        "unchecked",
        line=line,
        category=budget.TABLE_BUDGET_SPENT,
        reason=f"{budget.TABLE_BUDGET_SPENT} (see the summary)",
    )
    _show(row, raw)
    return row


def _show(row: ClaimRow, raw: Mapping) -> None:
    """Fill in what a report shows of a row (id, claim, claimed, source) without checking
    anything, so that a row refused for a bad cell is still named by its id."""
    for key, value in raw.items():
        column = _COLUMNS.get(_cell_text(key).strip().lower())
        if value is None or isinstance(value, (Mapping, list)) or not _cell_text(value).strip():
            continue
        shown = clip(_cell_text(value).strip(), 1000)
        if column == "id":
            row.id = shown
        elif column in ("quantity", "expression"):
            row.claim = shown
        elif column == "claimed":
            row.claimed = shown
        elif column == "source":
            row.source = shown


def _check_row(
    number: int, raw: Mapping, base: Mapping[str, object], line: int | None = None
) -> ClaimRow:
    where = f"claim {number}" + (f" (line {line})" if line is not None else "")
    row = ClaimRow(number, str(number), "", "", "unchecked", line=line)
    _show(row, raw)
    try:
        # the row's cells over the defaults, of whatever type a file holds: check() reads
        # each (tolerance, gpu, model and the values) and refuses what it cannot
        settings: dict[str, Any] = dict(base)
        own = _row_settings(raw, where)
        settings.update(own)
        row.id = _cell_text(settings.pop("id", number))
        row.source = _cell_text(settings.pop("source", "") or "")
        note = _cell_text(settings.pop("note", "") or "")
        quantity = settings.pop("quantity", None)
        expression = settings.pop("expression", None)
        claimed = settings.pop("claimed", None)
        unit = settings.pop("unit", None)
        row.claim = _cell_text(quantity or expression or "")
        row.context = {
            k: v
            for k, v in own.items()
            if k not in ("id", "source", "note", "quantity", "expression", "claimed", "unit")
            and v is not None
        }
        givens = [k for k in own if k not in columns.CANONICAL]
        if quantity and expression:
            raise InputError(f"{where}: give a quantity or an expression, not both")
        if not quantity and not expression:
            raise _missing(f"{where}: no quantity or expression to check", givens, raw)
        if claimed is None:
            raise _missing(f"{where}: no claimed value", givens, raw)
        claimed_text = _claimed_text(claimed, unit, where)
        row.claimed = claimed_text
        if quantity is not None:
            from napkinmath.catalog.lookup import variable

            quantity = _cell_text(quantity).strip()
            variable(quantity)  # an unknown name is an error that suggests the closest
            expression = quantity
        options = _record_options(settings, where)
        tol = settings.pop("tolerance", CLAIM_TOLERANCE)
        result = check(
            _cell_text(expression),
            claimed_text,
            tolerance=tol,
            beside=f"{row.source} {note}",
            **options,
            **settings,
        )
        unused = [name for name in result.unused_givens if name in givens]
        if unused:  # a misspelt column, or a value for a name the claim does not have
            raise columns.unused(unused, where, raw)
        if result.status not in ("agree", "disagree"):  # nothing compared: never a pass
            raise InputError(
                f"{where}: the claimed value {visible(clip(claimed_text, 60))!r} "
                "was not compared with anything"
            )
        result.label = row.id
        row.result = result
        row.status = result.status
    except NapkinError as exc:
        row.status = "unchecked"
        row.reason = error_text(exc)
        row.category = next(label for kind, label in _REASONS if isinstance(exc, kind))
    except MemoryError:
        raise
    except Exception as exc:  # a bug: this claim says so (exit 2) and the table goes on
        row.status = "unchecked"
        row.category = INTERNAL_ERROR
        row.reason = (
            f"napkinmath failed on this claim ({type(exc).__name__}: "
            f"{clip(_cell_text(exc), 200)}); this is a bug in napkinmath, please "
            "report it"
        )
    return row


def _record_options(settings: dict[str, Any], where: str) -> dict[str, Any]:
    """A row's gpu and model, taken out of `settings`: record names (a tuple of them for
    gpu), or an InputError naming the cell."""
    for option in ("gpu", "model"):
        if (
            settings.get(option) is not None
            and not isinstance(settings[option], str)
            and not (option == "gpu" and isinstance(settings[option], tuple))
        ):
            raise InputError(
                f"{where}: {option} {shown_value(settings[option], 40)} is "
                "not a record name: give one like "
                f"{'H100-SXM' if option == 'gpu' else 'llama-3-70b'}",
                option,
            )
    options = {k: settings.pop(k) for k in ("gpu", "model") if settings.get(k)}
    settings.pop("gpu", None)
    settings.pop("model", None)
    return options


def _missing(message: str, givens: list[str], raw: Mapping) -> InputError:
    """The error for a row without a claim or a claimed value, naming the columns that are
    not claims columns (one of them may be the missing one, misspelt)."""
    if not givens:
        return InputError(message)
    names = []
    for name in givens[:5]:
        guess = columns.closest(name)
        kind = "column" if name in raw else "context value"
        names.append(
            f"{kind} {columns.shown(name)}" + (f" (did you mean {guess!r}?)" if guess else "")
        )
    return columns.UnknownColumnError(
        f"{message}; {', '.join(names)} {'is' if len(names) == 1 else 'are'} not a claims "
        f"column: {columns.allowed()}"
    )


def _claimed_text(claimed: object, unit: object, where: str) -> str:
    if isinstance(claimed, bool):
        raise InputError(f"{where}: the claimed value {claimed!r} is not a number")
    if isinstance(claimed, numbers.Real):
        text = repr(float(claimed)) if isinstance(claimed, float) else _cell_text(claimed)
    elif isinstance(claimed, str):
        text = claimed
    else:
        raise InputError(f"{where}: the claimed value must be text like '1.1 TB' or a number")
    if unit:
        text = f"{text} {_cell_text(unit)}"
    return text
