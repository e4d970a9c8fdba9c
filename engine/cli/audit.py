"""`napkin audit`: check another tool's file as it is, never running anything it holds.

    napkin audit gpu_configs/a100-sxm-80gb.json           # a calculator's GPU config
    napkin audit hardware_params.py                       # a Python module, read with ast
    napkin audit estimate.md                              # each arithmetic line of a document
    napkin audit sheet.csv --columns value=Value,unit=Unit,expression=Formula
    napkin audit system_configs.py --mapping map.toml     # teach it new key names

Exit status: 0 every claim agrees, 1 a claim disagrees, 2 bad input or a claim that could
not be checked (unless --allow-unchecked). `napkin check FILE` hands Python, Markdown and
text files, and JSON or TOML files without a 'claims' list, to this command.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from napkinmath.cli.ci_formats import FORMATS, add_format_option, render
from napkinmath.cli.jsonout import document
from napkinmath.errors import InputError, NapkinError

if TYPE_CHECKING:
    from napkinmath.checking.audit import AuditReport

EXAMPLES = """\
examples:
  napkin audit gpu_configs/a100-sxm-80gb.json
  napkin audit hardware_params.py --format markdown
  napkin audit estimate.md
  napkin audit sheet.csv --columns id=Item,value=Value,unit=Unit,expression=Formula
  napkin audit system_configs.py --mapping map.toml      # map.toml: Flops = "peak_flops [TFLOP/s]"
  napkin audit cards.json --gpu H100-SXM                 # compare every value with one record

kinds (by suffix, or --kind): json, toml (a calculator's config: keys mapped to variables by
name and the unit they state, the device to a record by its name), python (module-level
dicts and numbers, read with ast, never run), text (.md, .txt, .rst: lines such as
'6.3e24 / (8960 * 4.59e14 * 0.4) = 3.8e6 s'), csv (with --columns). YAML is not read.
exit status: 0 agree, 1 a claim disagrees, 2 bad input or a claim that could not be checked.
"""


def options(parser: argparse.ArgumentParser) -> None:
    """The `audit` command's usage and options."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.usage = "napkin audit FILE [FILE ...] [options]"
    parser.description = (
        "Check another tool's file as it is: a calculator's JSON or TOML config, a Python "
        "module of parameters (read with ast, never run), a Markdown or text document's "
        "arithmetic, or a CSV with its own columns. Each value is compared with napkinmath's "
        "record or arithmetic, and a disagreement names the slip (bits vs bytes, GB vs GiB, "
        "sparse vs dense, both directions vs one)."
    )
    parser.epilog = EXAMPLES
    parser.add_argument(
        "file", metavar="FILE", nargs="+", help="the files to audit (one with --format json)"
    )
    add_audit_options(parser)
    parser.set_defaults(handler=run)


def add_audit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kind",
        choices=("json", "toml", "python", "text", "csv"),
        help="what the file is, when its suffix does not say",
    )
    parser.add_argument(
        "--mapping",
        metavar="FILE",
        help='a TOML file of key = "variable [unit]" teaching new key names '
        '(a name, or a dotted path such as "networks.1.bandwidth")',
    )
    parser.add_argument(
        "--columns",
        metavar="ROLE=HEADER,...",
        help="a CSV's columns: value=Value,unit=Unit,expression=Formula (also id=, quantity=, "
        "gpu=, model=, source=)",
    )
    parser.add_argument(
        "--gpu", help="the hardware record every value is compared with, whatever names say"
    )
    parser.add_argument(
        "--tolerance",
        "-t",
        default="0.02",
        metavar="FRACTION",
        help="relative tolerance for agreement: 0.02 or 2%% (default 2%%)",
    )
    add_format_option(parser)
    parser.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="exit 0 when no claim disagrees even if some could not be checked",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="a file with no claims in it exits 0 (a pre-commit hook over every Markdown file)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 2 when a value whose key names a variable could not be read (a number "
        "written as text, a call, a later change)",
    )


def run(args: argparse.Namespace) -> int:
    """The `audit` command; returns the exit status."""
    from napkinmath.text.escape import error_text

    try:
        return audited(
            args.file,
            kind=args.kind,
            mapping=args.mapping,
            columns=args.columns,
            gpu=args.gpu,
            tolerance=args.tolerance,
            output=args.format,
            allow_unchecked=args.allow_unchecked,
            strict=getattr(args, "strict", False),
            allow_empty=getattr(args, "allow_empty", False),
        )
    except NapkinError as exc:
        if exc.args and isinstance(exc.args[0], str):
            exc.args = (error_text(exc), *exc.args[1:])
        raise


def audited(
    paths: str | list[str],
    *,
    kind: str | None = None,
    mapping: str | None = None,
    columns: str | None = None,
    gpu: str | None = None,
    tolerance: object = "0.02",
    output: str = "text",
    allow_unchecked: bool = False,
    strict: bool = False,
    allow_empty: bool = False,
) -> int:
    """Audit each of `paths`, print the reports in `output`, and return the exit status, the
    worst of the files' (also for `napkin check FILE`)."""
    from napkinmath.checking.audit import audit

    files = [paths] if isinstance(paths, str) else list(paths)
    if output == "json" and len(files) > 1:
        raise InputError(
            f"--format json prints one file's document: audit the {len(files)} files one at "
            "a time, or use --format junit or sarif for all of them in one"
        )
    reports = [
        (
            path,
            audit(
                path,
                kind=kind,
                mapping=mapping,
                columns=columns,
                gpu=gpu,
                tolerance=tolerance,  # type: ignore[arg-type]
            ),
        )
        for path in files
    ]
    if output == "json":
        print(document("claims", reports[0][1].to_dict()))
    elif output in FORMATS:
        documents = [(json.loads(document("claims", r.to_dict())), path) for path, r in reports]
        print(render(output, documents))
    else:
        print("\n\n".join(r.markdown if output == "markdown" else r.text for _, r in reports))
    return max(_status(r, allow_unchecked, strict, allow_empty) for _, r in reports)


def _status(report: AuditReport, allow_unchecked: bool, strict: bool, allow_empty: bool) -> int:
    """One file's exit status, with the reason for a 2 said on stderr."""
    from napkinmath.cli.main import say

    summary = report.claims.summary
    if allow_empty and not summary["total"] and not (strict and report.unread):
        return 0
    status = report.exit_status(allow_unchecked=allow_unchecked, strict=strict)
    if status == 2 and report.claims.exit_status(allow_unchecked) == 0:  # --strict's
        say(
            f"napkin: {report.path}: {len(report.unread)} values whose keys name variables "
            "could not be read (see 'Unread' above); write them as numbers, or drop --strict"
        )
    elif status == 2:
        message = (
            f"{summary['unchecked']} of {summary['total']} claims could not be checked "
            "(see 'Could not check' above); fix them, or pass --allow-unchecked"
            if summary["total"]
            else f"{report.path}: no claims found to check"
            + (f" ({len(report.unmapped)} values not mapped: see above)" if report.unmapped else "")
        )
        say(f"napkin: {message}")
    return status
