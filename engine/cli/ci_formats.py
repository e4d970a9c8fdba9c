"""A checked file's findings in the formats CI systems read (`--format github|junit|sarif`).

    napkin audit design.md --format github    # ::error file=design.md,line=3,title=...::...
    napkin check claims.csv --format junit    # one <testcase> per claim
    napkin audit config.json --format sarif   # SARIF 2.1.0, for code-scanning views

Each renders the claims report's JSON document (`napkinmath-claims/1`, `to_dict()`), so the
three agree with `--format json` row for row: a claim that disagrees is an error, one that
could not be checked a warning (an error in JUnit, as the exit status counts it), and, for a
config, each value whose key names a variable but could not be read a warning on its line.

GitHub Actions' workflow commands: https://docs.github.com/actions/reference/workflow-commands
(`::error file=F,line=L,title=T::MESSAGE`; `%`, CR and LF escaped in the message, and `:`
and `,` too in a property). JUnit XML as CI dashboards read it (the Ant/Jenkins
`testsuites` > `testsuite` > `testcase` with `failure`, `error`). SARIF 2.1.0 (OASIS, 2020).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

#: characters XML 1.0 does not allow, even escaped (a control character in a claim)
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

#: the formats, for --format
FORMATS = ("github", "junit", "sarif")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """`--format` of the commands that check a file: text, markdown, json and `FORMATS`."""
    parser.add_argument(
        "--format",
        choices=("text", "markdown", "json", *FORMATS),
        default="text",
        help="github: Actions annotations on each line; junit: a test case per claim; sarif: "
        "SARIF 2.1.0 for code scanning",
    )


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

_RULES = {
    "disagree": (
        "napkinmath/disagree",
        "A claimed value disagrees with napkinmath's, beyond the tolerance",
        "error",
    ),
    "unchecked": (
        "napkinmath/unchecked",
        "A claim napkinmath could not check",
        "warning",
    ),
    "unread": (
        "napkinmath/unread",
        "A value whose key names a variable could not be read",
        "warning",
    ),
}


@dataclass(frozen=True)
class Finding:
    """One line a CI system shows: its kind (a key of `_RULES`), where, what."""

    kind: str
    line: int | None
    title: str
    message: str


def findings(report: dict) -> Iterator[Finding]:
    """The report's disagreements, claims not checked and unread values, in file order."""
    for row in report.get("rows", []):
        if row["status"] == "agree":
            continue
        kind = "disagree" if row["status"] == "disagree" else "unchecked"
        yield Finding(kind, _line(row), f"napkinmath: {row['id']}", _message(row))
    for value in report.get("audit", {}).get("unmapped", []):
        if value.get("unread"):
            yield Finding(
                "unread",
                value.get("line"),
                f"napkinmath: {value['key']}",
                f"{value['key']}: {value['why']}",
            )


def github(reports: list[tuple[dict, str]]) -> str:
    """GitHub Actions annotations, one a line, then a summary notice per file."""
    lines = []
    for report, path in reports:
        for f in findings(report):
            level = "error" if f.kind == "disagree" else "warning"
            where = f"file={_property(path)}" + (f",line={f.line}" if f.line else "")
            lines.append(f"::{level} {where},title={_property(f.title)}::{_data(f.message)}")
        s = report["summary"]
        lines.append(
            f"::notice file={_property(path)},title=napkinmath::"
            + _data(
                f"{s['total']} claims: {s['agree']} agree, {s['disagree']} disagree, "
                f"{s['unchecked']} could not be checked"
            )
        )
    return "\n".join(lines)


def junit(reports: list[tuple[dict, str]]) -> str:
    """JUnit XML: a test suite per file, a test case per claim."""
    suites, totals = [], {"tests": 0, "failures": 0, "errors": 0}
    for report, path in reports:
        s = report["summary"]
        cases = [_case(row, path) for row in report.get("rows", [])]
        totals["tests"] += len(cases)
        totals["failures"] += s["disagree"]
        totals["errors"] += s["unchecked"]
        suites.append(
            f'  <testsuite name={_attribute("napkinmath " + path)} tests="{len(cases)}" '
            f'failures="{s["disagree"]}" errors="{s["unchecked"]}" skipped="0">'
        )
        suites.extend(cases)
        suites.append("  </testsuite>")
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<testsuites name="napkinmath" tests="{totals["tests"]}" '
            f'failures="{totals["failures"]}" errors="{totals["errors"]}">',
            *suites,
            "</testsuites>",
        ]
    )


def _case(row: dict, path: str) -> str:
    """One claim as a JUnit test case: a failure where it disagrees, an error where it could
    not be checked."""
    line = _line(row)
    name = f"{row['id']}: {row['claim']}"
    attributes = f"classname={_attribute(path)} name={_attribute(name)} file={_attribute(path)}" + (
        f' line="{line}"' if line else ""
    )
    if row["status"] == "agree":
        return f"    <testcase {attributes}/>"
    tag, kind = ("failure", "disagree") if row["status"] == "disagree" else ("error", "unchecked")
    message = _message(row)
    return (
        f"    <testcase {attributes}>\n"
        f"      <{tag} message={_attribute(message.splitlines()[0])} "
        f"type={_attribute(_RULES[kind][0])}>{_text(message)}</{tag}>\n"
        "    </testcase>"
    )


def sarif(reports: list[tuple[dict, str]], version: str) -> str:
    """A SARIF 2.1.0 log: one run of napkinmath, one result per finding, in every file."""
    results = []
    for report, path in reports:
        for f in findings(report):
            rule, _, level = _RULES[f.kind]
            location: dict[str, object] = {"artifactLocation": _artifact(path)}
            if f.line:
                location["region"] = {"startLine": f.line}
            results.append(
                {
                    "ruleId": rule,
                    "ruleIndex": list(_RULES).index(f.kind),
                    "level": level,
                    "message": {"text": f.message},
                    "locations": [{"physicalLocation": location}],
                }
            )
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "napkinmath",
                        "version": version,
                        "rules": [
                            {
                                "id": rule,
                                "shortDescription": {"text": what},
                                "defaultConfiguration": {"level": level},
                            }
                            for rule, what, level in _RULES.values()
                        ],
                    }
                },
                "artifacts": [{"location": _artifact(path)} for _, path in reports],
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


def render(fmt: str, reports: list[tuple[dict, str]]) -> str:
    """The reports (each a claims document and the path it is of) in `fmt`, one of
    `FORMATS`."""
    if fmt == "github":
        return github(reports)
    if fmt == "junit":
        return junit(reports)
    from napkinmath.cli.main import version

    return sarif(reports, version())


def _artifact(path: str) -> dict[str, str]:
    """A SARIF artifact location: a relative path against the checkout's root (%SRCROOT%, as
    code-scanning views resolve it), an absolute one as a file URI."""
    from pathlib import Path, PurePosixPath

    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": str(PurePosixPath(*Path(path).parts)), "uriBaseId": "%SRCROOT%"}


def _line(row: dict) -> int | None:
    line = row.get("line")
    return line if isinstance(line, int) and line > 0 else None


def _message(row: dict) -> str:
    """A claim's finding in a few lines: the value, the claim, the likely slip, the fix."""
    if row["status"] == "unchecked":
        return f"{row['claim']}: could not check: {row.get('reason') or row.get('category')}"
    check = row.get("check") or {}
    value = (check.get("value") or {}).get("text", "?")
    said = f"{row['claim']} = {value} by napkinmath; claimed {row['claimed']}"
    difference = check.get("relative_difference")
    if isinstance(difference, float):
        said += f" ({difference:+.1%})"
    candidates = check.get("candidates") or []
    if candidates:
        best = candidates[0]
        said += f"\nlikely: {best['label']} ({best['hint']})"
        if best.get("correction"):
            said += f"\ncorrected claim: {best['correction']}"
    return said


def _data(text: str) -> str:
    """A workflow command's message, escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value, escaped."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _text(text: str) -> str:
    """XML character data."""
    return _xml(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attribute(text: str) -> str:
    """An XML attribute's value, quoted."""
    return quoteattr(_xml(text))


def _xml(text: str) -> str:
    """`text` without the characters XML cannot hold (each shown as U+FFFD)."""
    return _NOT_XML.sub("\ufffd", text)
