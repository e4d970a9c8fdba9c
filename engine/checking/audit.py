"""Auditing another tool's file as it is: `napkin audit FILE`, `nm.audit(path)`.

    report = nm.audit("gpu_configs/a100-sxm-80gb.json")   # llm-analysis's GPU config
    report.exit_status()          # 0 all agree, 1 a disagreement, 2 could not check / bad input

A calculator's config (JSON, TOML), a Python module of parameters (read with `ast`, never
run), a Markdown or text document (its arithmetic lines) or a CSV with its own columns is
turned into claims and checked by `napkinmath.checking.claims`: a config value becomes the
claim `RECORD.variable = VALUE UNIT` (the record matched from the device's name, the
variable and unit from the key's name: `napkinmath.checking.audit_names`), so a
disagreement names the slip (`napkinmath.checking.confusions`: bits vs bytes, GB vs GiB,
sparse vs dense, one direction vs both). Keys it could not map are listed, never guessed;
`mapping=` (a TOML file of `key = "variable [unit]"`) teaches it new names.

Bounded like a claims table: only the file given (and the mapping file) is read, a regular
file of at most MAX_FILE_BYTES; at most MAX_LEAVES values and MAX_ROWS claims; the work of
the checks is metered (`napkinmath.checking.budget`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from napkinmath.checking import audit_names, audit_read
from napkinmath.checking.claims import MAX_FILE_BYTES, MAX_ROWS, ClaimRow, ClaimsReport
from napkinmath.checking.named import named_claim
from napkinmath.checking.outcome import CLAIM_TOLERANCE, Rendered
from napkinmath.errors import InputError
from napkinmath.text.escape import clip, md_prose, md_text, visible

KINDS = ("json", "toml", "python", "text", "csv")
_SUFFIXES = {
    ".json": "json",
    ".toml": "toml",
    ".py": "python",
    ".md": "text",
    ".markdown": "text",
    ".txt": "text",
    ".rst": "text",
    ".csv": "csv",
}
#: Suffixes `napkin check` hands to `napkin audit` (its own tables stay .csv/.json/.toml).
AUDIT_SUFFIXES = (".py", ".md", ".markdown", ".txt", ".rst", ".yaml", ".yml")
#: Unmapped keys a text report lists before "... and N more" (JSON lists all).
_SHOWN_UNMAPPED = 40
#: A claim row of a file and its line: a row for `check_claims`, or (id, why it cannot be).
_Row = tuple[int | None, dict | tuple[str, str]]
#: Below this a bare number (no unit stated) is too small for FLOP/s, B/s or B.
_SMALLEST_BARE = 1e6


@dataclass
class Unmapped:
    """A value of the file that is not a claim: no variable for its key, or not a number."""

    key: str
    line: int | None
    why: str
    count: int = 1  # the values of a list, listed once
    #: its key names a variable, but the value could not be read (text, a call, a later
    #: change): a claim the audit could not check, which `--strict` fails on
    unread: bool = False

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "line": self.line,
            "why": self.why,
            "count": self.count,
            "unread": self.unread,
        }


@dataclass
class AuditReport(Rendered):
    """The claims found in a file and their verdicts (a `ClaimsReport`), the devices matched
    to records, and the values not mapped to any variable."""

    path: str
    kind: str
    claims: ClaimsReport
    unmapped: list[Unmapped] = field(default_factory=list)
    devices: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    #: the peer tool's format the file was read as (`audit_names.PEER_FORMATS`), if any
    format: str = ""
    #: every name tried as a device's, matched or not (`devices` shows only devices)
    resolved: dict[str, tuple[str | None, str]] = field(default_factory=dict, repr=False)

    @property
    def unread(self) -> list[Unmapped]:
        """The values whose key names a variable but which could not be read."""
        return [u for u in self.unmapped if u.unread]

    @property
    def summary(self) -> dict:
        unread = len(self.unread)
        return {**self.claims.summary, "unmapped": len(self.unmapped) - unread, "unread": unread}

    def exit_status(self, allow_unchecked: bool = False, strict: bool = False) -> int:
        """0 every claim agrees, 1 one disagrees, 2 one could not be checked (or none found);
        with `strict`, 2 also when a value that names a variable could not be read."""
        status = self.claims.exit_status(allow_unchecked)
        return 2 if strict and status == 0 and self.unread else status

    def _device_lines(self) -> list[str]:
        out = []
        for name, (record, note) in self.devices.items():
            seen = f"{visible(clip(name, 80))!r} -> {record or 'no record'}"
            out.append(seen + (f" ({visible(note)})" if note else ""))
        return out

    def _unmapped_lines(self, unread: bool = False) -> list[str]:
        listed = [u for u in self.unmapped if u.unread == unread]
        shown = [
            f"{visible(clip(u.key, 80))}"
            + (f" (line {u.line})" if u.line else "")
            + (f", {u.count} values" if u.count > 1 else "")
            + f": {u.why}"
            for u in listed[:_SHOWN_UNMAPPED]
        ]
        if len(listed) > _SHOWN_UNMAPPED:
            shown.append(f"... and {len(listed) - _SHOWN_UNMAPPED:,} more")
        return shown

    def _sections(self) -> list[tuple[str, list[str]]]:
        """(title, lines) of the values that are not claims: unread first, then not mapped."""
        unread = len(self.unread)
        out = []
        if unread:
            title = f"Unread ({unread}: their keys name variables, their values could not be read)"
            out.append((title, self._unmapped_lines(unread=True)))
        if len(self.unmapped) > unread:
            out.append((f"Not mapped ({len(self.unmapped) - unread}):", self._unmapped_lines()))
        return out

    @property
    def text(self) -> str:
        lines = [f"Audit of {visible(self.path)} ({self.kind})"]
        if self.format:
            lines.append(f"Read as {self.format}")
        if self.devices:
            lines += ["Devices:", *("  " + d for d in self._device_lines())]
        lines += [self.claims.text]
        for title, listed in self._sections():
            lines += ["", title if title.endswith(":") else title + ":"]
            lines += ["  " + u for u in listed]
        return "\n".join(lines)

    @property
    def markdown(self) -> str:
        lines = [f"### Audit of {md_text(self.path)} ({self.kind})", ""]
        if self.format:
            lines += [f"Read as {md_prose(self.format)}", ""]
        if self.devices:
            lines += ["Devices:", "", *(f"- {md_prose(d)}" for d in self._device_lines()), ""]
        lines += [self.claims.markdown]
        for title, listed in self._sections():
            lines += ["", title if title.endswith(":") else title + ":", ""]
            lines += [f"- {md_prose(u)}" for u in listed]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            **self.claims.to_dict(),
            "audit": {
                "kind": self.kind,
                "format": self.format or None,
                "devices": [
                    {"name": n, "record": r, "note": note or None}
                    for n, (r, note) in self.devices.items()
                ],
                "unmapped": [u.to_dict() for u in self.unmapped],
            },
        }


def kind_of(path: str, kind: str | None = None) -> str:
    """The kind of file `path` is audited as: its suffix, or `kind`."""
    if kind is not None:
        if kind not in KINDS:
            raise InputError(f"kind must be one of {', '.join(KINDS)}, not {visible(kind)!r}")
        return kind
    suffix = os.path.splitext(str(path))[1].lower()
    if suffix in (".yaml", ".yml"):
        raise InputError(
            f"{visible(str(path))}: YAML is not read (napkinmath does not depend on a YAML "
            "parser, and will not run one it cannot bound); convert the file to JSON or TOML"
        )
    if suffix not in _SUFFIXES:
        raise InputError(
            f"{visible(str(path))}: cannot tell what kind of file this is from its name; pass "
            f"--kind ({', '.join(KINDS)})"
        )
    return _SUFFIXES[suffix]


def audit(
    path: str | Path,
    *,
    kind: str | None = None,
    mapping: str | Path | None = None,
    columns: str | None = None,
    gpu: str | None = None,
    tolerance: float | str = CLAIM_TOLERANCE,
) -> AuditReport:
    """Audit the file `path` as it is: read it (bounded, never executed), find its claims
    and check each; see the module docstring. `kind` overrides the suffix ("json", "toml",
    "python", "text", "csv"); `mapping` is a TOML file of `key = "variable [unit]"`;
    `columns` names a CSV's columns ("value=Value,unit=Unit,expression=Formula"); `gpu`
    is the record every value of a config is compared with, whatever its name says."""
    from napkinmath import arguments
    from napkinmath.files import decode, parse_document, read_regular_file

    path = arguments.path(path, "path", what="the file to audit, such as 'gpu.json'")
    if kind is not None:
        kind = arguments.choice(kind, "kind", KINDS)
    if mapping is not None:
        mapping = arguments.path(mapping, "mapping", what="a mapping file such as 'map.toml'")
    if columns is not None and not isinstance(columns, str):
        raise InputError(
            f"columns={arguments.shown(columns)}: expected text such as "
            "'value=Value,unit=Unit,expression=Formula'",
            "columns",
        )
    if gpu is not None:
        from napkinmath import hardware as hw

        gpu = hw.get(gpu).id
    shown = visible(str(path))
    kind = kind_of(str(path), kind)
    taught = audit_names.read_mapping(str(mapping)) if mapping is not None else {}
    data = read_regular_file(
        path,
        noun="audited file",
        limit=MAX_FILE_BYTES,
        shown=shown,
        rule="a file is audited only from a regular file",
    )
    text = decode(data, shown)
    report = AuditReport(shown, kind, ClaimsReport(shown, []))
    if kind == "text":
        rows: list[_Row] = []
        for line, expression, claimed, label in audit_read.arithmetic_lines(text):
            rows.append((line, _text_row(line, expression, claimed)))
            if len(rows) <= MAX_ROWS and (named := named_claim(label, claimed)) is not None:
                named["id"] = f"line {line} ({named['quantity']})"
                rows.append((line, named))
        _checked(report, rows[: MAX_ROWS + 1], tolerance)
        return report
    if kind == "csv":
        _audit_csv(report, path, text, columns, tolerance)
        return report
    if kind == "python":
        values, comments = audit_read.read_python(text, shown)
        leaves = audit_read.walk(values, lambda _path: None, comments)
        parsed: object = values
    else:
        document = parse_document(text, kind=kind, noun="audited file", shown=shown)
        if any(key in document.data for key in ("claims", "claim")):  # napkinmath's own table
            from napkinmath.checking.claims import check_claims

            report.claims = check_claims(path, tolerance, input_format=kind)  # type: ignore[arg-type]
            return report
        leaves = audit_read.walk(document.data, audit_read.LineFinder(text))
        parsed = document.data
    peer = audit_names.peer_format(parsed)
    if peer is not None:  # its keys read as the tool defines them; a mapping file wins
        report.format = f"{peer.name}: {peer.what}"
        taught = {**peer.mapping, **taught}
    stem = Path(str(path)).stem
    rows = []
    for leaf in leaves:
        row = _config_row(leaf, stem, taught, gpu, report)
        if isinstance(row, str):
            rows.append((leaf.line, (".".join(leaf.path), row)))
        elif isinstance(row, list):
            rows.extend((leaf.line, one) for one in row)
        elif row is not None:
            rows.append((leaf.line, row))
    _checked(report, rows[: MAX_ROWS + 1], tolerance)
    return report


def _audit_csv(
    report: AuditReport, path: Path, text: str, columns: str | None, tolerance: float | str
) -> None:
    """`audit` of a CSV: a claims table in napkinmath's columns, or the file's own columns
    named by `columns`."""
    if columns is None:
        from napkinmath.checking.claims import check_claims

        try:
            report.claims = check_claims(path, tolerance)  # type: ignore[arg-type]
        except InputError as exc:
            raise InputError(
                f"{exc}; or name this file's own columns: --columns "
                "value=Value,unit=Unit,expression=Formula"
            ) from None
        return
    spec = audit_read.parse_columns(columns)
    found = audit_read.csv_rows(text, spec, report.path, MAX_ROWS)
    rows: list[_Row] = [(line, _csv_row(cells)) for line, cells in found]
    _checked(report, rows, tolerance)


def _text_row(line: int, expression: str, claimed: str) -> dict:
    """A document's line as a claim; a result stated with a unit of arithmetic on bare
    numbers is compared as a number (the document's unit is noted)."""
    row = {"id": f"line {line}", "expression": expression, "claimed": claimed}
    number, _, unit = claimed.partition(" ")
    if unit and not any(ch.isalpha() for ch in expression.replace("e", "").replace("E", "")):
        row["claimed"] = number
        row["source"] = f"bare numbers; the stated unit {unit!r} is not compared"
    return row


def _csv_row(cells: dict) -> dict | tuple[str, str]:
    row: dict[str, object] = {"claimed": cells.get("value", "")}
    formula = cells.get("expression", "")
    if formula.startswith("="):
        formula = formula[1:]
        if any(ch.isalpha() and ch.isupper() for ch in formula.split("e")[0]) and any(
            part[:1].isalpha() and part[1:].isdigit() for part in _cells(formula)
        ):
            return (
                cells.get("id", ""),
                "a spreadsheet formula of cell references: write its arithmetic instead",
            )
    for role in ("id", "unit", "gpu", "model", "source", "quantity"):
        if cells.get(role):
            row[role] = cells[role]
    if formula:
        row["expression"] = formula
    return row


def _cells(formula: str) -> list[str]:
    import re

    return re.findall(r"\$?[A-Z]{1,3}\$?\d+", formula.replace("$", ""))


def _config_row(
    leaf: audit_read.Leaf,
    stem: str,
    taught: dict[str, tuple[str, str]],
    gpu: str | None,
    report: AuditReport,
) -> dict | list[dict] | str | None:
    """A config value as a claim row, a reason it cannot be checked (str), or None (listed
    as unmapped). A comment's unit belongs to the value it follows: where the key's name
    states another (`inter_node_bw_GBps = 200  # 200Gbps HDR`), the value is read in the
    comment's unit and a second row checks the name's reading against it, so the slip
    between them is named (bits vs bytes)."""
    key = ".".join(leaf.path)
    meaning = None
    for start in range(len(leaf.path)):
        meaning = taught.get(".".join(leaf.path[start:]))
        if meaning:
            break
    in_list = bool(leaf.path) and leaf.path[-1].isdigit()
    if meaning is None and leaf.path and not in_list:
        meaning = audit_names.key_meaning(leaf.path[-1], leaf.path[:-1])
    if meaning is None:
        why = leaf.why_not or (
            "a value of a list (teach its path with --mapping)"
            if in_list
            else "no napkinmath variable for this name (teach it with --mapping)"
        )
        _unmapped(report, leaf, why)
        return None
    variable, unit = meaning
    if leaf.number is None:
        _unmapped(report, leaf, f"{variable}: {leaf.why_not}", unread=True)
        return None
    found = _record(leaf, stem, gpu, report)
    record, why = (None, found[1]) if isinstance(found, tuple) else (found, "")
    if record is None and variable != "scale_out_bandwidth":
        return why
    hint = audit_names.stated_unit(audit_names._words(leaf.comment)) if leaf.comment else ""
    source = f"comment: {leaf.comment}" if leaf.comment else ""
    named = unit  # the unit the key's name states ('_GBps'), if any
    if not unit:
        # a bare count is in base units (FLOP/s, B/s, B), as such modules write them; a
        # comment's unit ('# 200Gbps HDR') says what the value stands for, and is taken as
        # its unit only for a number too small to be a count of base units
        unit = hint if hint and abs(leaf.number) < _SMALLEST_BARE else ""
        unit = unit or audit_names.base_unit(variable)
        if not hint and abs(leaf.number) < _SMALLEST_BARE:
            return (
                f"{variable}: the key states no unit and {leaf.number:g} is too small to be "
                f'in {unit}: teach it with --mapping ({leaf.path[-1]} = "{variable} [UNIT]")'
            )
    from napkinmath import hardware as hw

    number = _number_text(leaf.number)
    if record is None or variable not in hw.get(record).values:
        port = _port_quoted_as(leaf.number) if variable == "scale_out_bandwidth" else None
        if port is None:
            return why or f"{record} has no value for {variable}"
        missing = f"{record} has no {variable}" if record else "no record for this device"
        return {  # the link records are the reference: a port quoted with this number
            "id": key,
            "expression": f"{port}.link_bandwidth",
            "claimed": f"{number} {hint or named or unit}".strip(),
            "source": f"{missing}: compared with the network port quoted as {number} ({port})",
        }
    if hint and named and _differ(hint, named):
        return [
            {
                "id": key,
                "expression": f"{record}.{variable}",
                "claimed": f"{number} {hint}",
                "source": f"{source}; read in its comment's unit",
            },
            {
                "id": f"{key} (its name vs its comment)",
                "expression": f"{number} {hint}",
                "claimed": f"{number} {named}",
                "source": f"the key's name says {named}, its comment {hint}",
            },
        ]
    claimed = f"{number} {unit}".strip()
    return {"id": key, "expression": f"{record}.{variable}", "claimed": claimed, "source": source}


def _port_quoted_as(number: float) -> str | None:
    """The scale-out network port (an InfiniBand or Ethernet link record) whose vendor figure
    is `number` as written (200 for HDR's 200 Gb/s), or None."""
    from napkinmath import hardware as hw

    for record in hw.records().values():
        value = record.values.get("link_bandwidth")
        if record.kind != "link" or value is None or "bit" not in str(value.quantity.units):
            continue
        if abs(float(value.quantity.magnitude) - number) <= 1e-9 * max(1.0, abs(number)):
            return record.id
    return None


def _differ(one: str, other: str) -> bool:
    """True when units `one` and `other` measure the same dimension by different amounts
    (Gb/s and GB/s); False when equal or of different dimensions (then the comment is not
    the value's unit)."""
    from napkinmath.units import ureg

    try:
        ratio = (ureg.Quantity(1, one) / ureg.Quantity(1, other)).to("")
    except Exception:  # a unit pint cannot read, or two dimensions: not the same quantity
        return False
    return abs(float(ratio.magnitude) - 1) > 1e-9


def _unmapped(report: AuditReport, leaf: audit_read.Leaf, why: str, unread: bool = False) -> None:
    """List a value that is not a claim; a list's values under one entry (`key[]`, N values);
    `unread`: its key names a variable, its value could not be read."""
    key = ".".join(p if not p.isdigit() else "[]" for p in leaf.path).replace(".[]", "[]")
    last = report.unmapped[-1] if report.unmapped else None
    if last is not None and last.key == key and key.endswith("[]") and last.why == why:
        last.count += 1
        return
    report.unmapped.append(Unmapped(key, leaf.line, why, unread=unread))


def _number_text(number: float) -> str:
    """2039 -> '2039', 2.039e12 -> '2.039e12': exact to 12 digits, short."""
    text = f"{number:.12g}"
    if len(text) <= 9 and "e" not in text:
        return text
    mantissa, _, exponent = f"{number:.11e}".partition("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def _record(
    leaf: audit_read.Leaf, stem: str, gpu: str | None, report: AuditReport
) -> str | tuple[None, str]:
    """The record a value is compared with: `gpu`, else the first of the names around it
    (its table's `name`, the keys above it, the file's name) that matches one."""
    from napkinmath import hardware as hw

    if gpu is not None:
        return hw.get(gpu).id
    tried: list[str] = []
    for name in (*leaf.devices, stem):
        if name not in report.resolved:
            report.resolved[name] = audit_names.device_record(name)
        record, note = report.resolved[name]
        if record is not None:
            report.devices[name] = (record, note)
            return record
        if not tried and "names no model" not in note:
            report.devices[name] = (record, note)  # a device's name, matching no record
        tried.append(name)
    first = tried[0]
    why = report.resolved[first][1] or f"{first!r} names no device"
    return None, f"no hardware record for this device ({visible(clip(why, 200))}): pass --gpu"


def _checked(report: AuditReport, rows: list[_Row], tolerance: object) -> None:
    """Check the claim rows (dicts) together, as one claims table, and lay them in file
    order among the rows that could not be checked ((id, why))."""
    from napkinmath.checking.claims import check_claims

    if len(rows) > MAX_ROWS:
        raise InputError(f"{report.path}: more than {MAX_ROWS:,} claims; split the file")
    claims = [(line, row) for line, row in rows if isinstance(row, dict)]
    checked: list[ClaimRow] = []
    if claims:
        table = check_claims([row for _, row in claims], tolerance)  # type: ignore[arg-type]
        checked = table.rows
        report.claims.work_spent, report.claims.work_budget = table.work_spent, table.work_budget
        for (line, _), claim in zip(claims, checked, strict=True):
            claim.reason = claim.why
            claim.line = line
    done = iter(checked)
    out = []
    for line, row in rows:
        if isinstance(row, dict):
            out.append(next(done))
        else:
            name, why = row
            out.append(ClaimRow(0, name, "", "", "unchecked", reason=why, category="cannot check"))
            out[-1].line = line
    for number, claim in enumerate(out, 1):
        claim.number = number
        if not claim.id:
            claim.id = f"line {claim.line}" if claim.line else f"claim {number}"
    report.claims.rows = out
    if report.claims.stopped_after is None:
        stopped = [c.number for c in out if c.category.startswith("not checked")]
        report.claims.stopped_after = stopped[0] - 1 if stopped else None
