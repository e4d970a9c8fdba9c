"""`napkin check`: catch unit mistakes in an expression, a claim, or a table of claims.

    napkin check "2*(8-1)/8 * 141 GB / (900 GB/s)"
    napkin check "70e9 param * 16 byte/param" --expect "1.1 TB"
    napkin check "140 GB / (400 Gb/s)" --expect "0.35 s"          # exit 1: bits vs bytes
    napkin check kv_bytes_per_token --expect "2.62 MB/token" --model llama-3-70b
    napkin check examples/claims.csv                             # exit 1 if a claim disagrees

Exit status: 0 when the claims agree (or there is nothing to compare), 1 when a claim
disagrees, 2 on bad input or when a row of a table could not be checked (unless
--allow-unchecked).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from napkinmath.cli.ci_formats import FORMATS, add_format_option, render
from napkinmath.cli.jsonout import document
from napkinmath.errors import InputError, NapkinError

EXAMPLES = """\
examples:
  napkin check "2*(8-1)/8 * 141 GB / (900 GB/s)"
  napkin check "70e9 param * 16 byte/param" --expect "1.1 TB"
  napkin check "140 GB / (400 Gb/s)" --expect "0.35 s"
  napkin check "140 GB / (400 Gb/s) = 0.35 s"            # the same claim, written inline
  napkin check "70e9 param * 2 B/param" --to GiB          # the value in a unit you choose
  napkin check "140 GB / (400 Gb/s) -> ms"                # the same, as Numbat and rink write it
  napkin check "params * 2 B/param" params=70B --expect "140 GB"
  napkin check "train_compute / (n_gpus * peak_flops * mfu)" params=70B tokens=15T \\
      n_gpus=16384 mfu=0.4 --gpu H100-SXM --expect "11.3 days"
  napkin check kv_bytes_per_token --model llama-3-70b --expect "2.62 MB/token"
  napkin check examples/claims.csv --format markdown      # a table of claims (CSV/JSON/TOML)

names in an expression: RECORD.key reads a hardware or model record (H100-SXM.peak_flops);
a name given as name=value is that value; otherwise a unit (plurals too: params, GPUs, days)
wins over a napkinmath variable of the same name; other variables come from --gpu/--model
or are computed by napkinmath from the given values.
exit status: 0 agree, 1 a claim disagrees, 2 bad input or a claim that could not be checked.
"""

_TABLE_SUFFIXES = (".csv", ".tsv", ".json", ".toml")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def options(parser: argparse.ArgumentParser) -> None:
    """The `check` command's usage, description and options (its line in `napkin --help` is
    in `napkinmath.cli.main`)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.usage = "napkin check EXPRESSION|FILE [name=value ...] [options]"
    parser.description = (
        "Evaluate an expression with units, compare it with a claimed value, and name the "
        "unit confusion behind a disagreement (bits vs bytes, GB vs GiB, one-way vs two-way, "
        "6N vs 2N, hours vs days ...). A .csv, .json or .toml file (or '-' for standard "
        "input) is a table of claims."
    )
    parser.epilog = EXAMPLES
    parser.add_argument(
        "terms",
        nargs="+",
        metavar="EXPRESSION|FILE name=value",
        help="an expression (quote it) or a claims file, then values for "
        "names such as params=70B n_gpus=64, before the options",
    )
    parser.add_argument(
        "--expect",
        "-e",
        metavar="CLAIM",
        help="the claimed value to check, with its unit: '1.1 TB'",
    )
    parser.add_argument(
        "--to",
        metavar="UNIT",
        help="show the value in this unit: --to GiB (also written 'EXPRESSION -> GiB')",
    )
    parser.add_argument(
        "--tolerance",
        "-t",
        default="0.02",
        metavar="FRACTION",
        help="relative tolerance for agreement: 0.02 or 2%% (default 2%%)",
    )
    parser.add_argument(
        "--gpu",
        action="append",
        help="hardware record for variables such as peak_flops (also gpu=NAME); "
        "repeat it to bind records of different kinds together",
    )
    parser.add_argument(
        "--model",
        action="append",
        help="model record for variables such as n_kv_heads (also model=NAME)",
    )
    add_format_option(parser)
    parser.add_argument(
        "--input-format",
        choices=("csv", "tsv", "json", "toml"),
        help="format of a claims table read from '-' or a file without a known extension",
    )
    parser.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="exit 0 when no claim disagrees even if some could not be checked",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also show how napkinmath computed the variables it needed",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="with a disagreement no known slip explains: also show how each input that "
        "would make the claim true was found",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The `check` command; returns the exit status. An error quotes the user's text with
    its control characters shown as escapes (an ESC or a right-to-left override in an
    expression or a file name must not act on the terminal)."""
    from napkinmath.text.escape import error_text

    try:
        return _run(args)
    except NapkinError as exc:
        if exc.args and isinstance(exc.args[0], str):
            exc.args = (error_text(exc), *exc.args[1:])
        raise


def _run(args: argparse.Namespace) -> int:
    from napkinmath.cli.main import record_terms

    expression, givens, inline_claim = _split_terms(args.terms)
    records = record_terms(args, givens, "check")
    args.gpu, args.model = records.get("gpu"), records.get("model")
    if _audited(expression, args.input_format):
        return _run_audit(expression, givens, args)
    if _is_table(expression, args.input_format):
        if args.to is not None:
            raise InputError(
                "--to applies to one expression; a claims table shows each value in its own unit"
            )
        return _run_table(expression, givens, args)
    from napkinmath.checking.expression import check

    if args.format in FORMATS:
        raise InputError(
            f"--format {args.format} reports a file's findings by line: check a file "
            "(napkin check FILE), or use --format json for one expression"
        )
    expect = args.expect
    if inline_claim is not None:
        if expect is not None:
            raise InputError("give the claim once: either 'EXPRESSION = CLAIM' or --expect")
        expect = inline_claim
    options = {"gpu": args.gpu, "model": args.model, "to": args.to}
    result = check(expression, expect, tolerance=args.tolerance, **options, **givens)
    if args.format == "json":
        print(document("check", result.to_dict()))
    elif args.format == "markdown":
        print(result.markdown)
    else:
        print(result.explained() if args.explain else result.text)
    if args.explain and args.format == "markdown":
        for r in result.requirements:
            if r.derivation:
                print(f"\n#### {r.name} from the claim\n\n```\n{r.derivation}\n```")
    if args.verbose and args.format != "json":
        for name, derivation in result.derivations.items():
            print(f"\nHow napkinmath computed {name}:")
            print(derivation.to_markdown() if args.format == "markdown" else derivation)
    return 1 if result.status == "disagree" else 0


def _split_terms(terms: list[str]) -> tuple[str, dict[str, str], str | None]:
    """The expression (leading terms), name=value givens, and an inline '= CLAIM'."""
    parts: list[str] = []
    givens: dict[str, str] = {}
    inline_claim = None
    for term in terms:
        name, sep, value = term.partition("=")
        if sep and _NAME.fullmatch(name.strip()):
            name = name.strip()
            if name in givens:
                raise InputError(f"{name} is given twice")
            givens[name] = value.strip()
        elif sep and not givens and inline_claim is None:
            if "=" in value:
                raise InputError(f"{term!r}: write 'EXPRESSION = CLAIM' with one '='")
            parts.append(name)
            inline_claim = value.strip()
            if not inline_claim:
                raise InputError(f"{term!r}: nothing after '=': write 'EXPRESSION = CLAIM'")
        elif givens or inline_claim is not None:
            raise InputError(
                f"{term!r}: put the expression first, then name=value givens "
                "(napkin check EXPRESSION name=value ...)"
            )
        else:
            parts.append(term)
    expression = " ".join(p.strip() for p in parts).strip()
    if not expression:
        raise InputError(
            "give an expression or a claims file to check, e.g. napkin check "
            '"140 GB / (400 Gb/s)" --expect "0.35 s"; to check a napkinmath '
            "variable: napkin check kv_bytes_per_token --model llama-3-70b "
            '--expect "2.62 MB/token"'
        )
    return expression, givens, inline_claim


def _audited(target: str, input_format: str | None) -> bool:
    """Whether `target` is another tool's file for `napkin audit`: a Python, Markdown, text or
    YAML file, or a JSON or TOML document with no 'claims' list (a calculator's config)."""
    from napkinmath.checking.audit import AUDIT_SUFFIXES

    lowered = target.lower()
    if input_format or target == "-" or " " in target:
        return False
    if lowered.endswith(AUDIT_SUFFIXES):
        return True
    if not lowered.endswith((".json", ".toml")) or not Path(target).is_file():
        return False
    from napkinmath.checking.claims import MAX_FILE_BYTES
    from napkinmath.checking.strict_json import CLAIMS_KEYS
    from napkinmath.files import read_document

    try:
        data = read_document(target, noun="claims file", limit=MAX_FILE_BYTES).data
    except InputError:
        return False  # reading it as a claims table says what is wrong with it
    return not any(key in data for key in CLAIMS_KEYS)


def _run_audit(target: str, givens: dict[str, str], args: argparse.Namespace) -> int:
    from napkinmath.cli.audit import audited

    if givens or args.expect is not None or args.to is not None or args.model:
        raise InputError(
            f"{target}: another tool's file is audited as it is: name=value givens, --expect, "
            "--to and --model do not apply (see `napkin audit --help`)"
        )
    gpu = args.gpu[0] if args.gpu else None
    if args.gpu and len(args.gpu) > 1:
        raise InputError("an audited file is compared with one --gpu record")
    return audited(
        target,
        gpu=gpu,
        tolerance=args.tolerance,
        output=args.format,
        allow_unchecked=args.allow_unchecked,
    )


def _is_table(target: str, input_format: str | None) -> bool:
    if target == "-":
        return True
    lowered = target.lower()
    if lowered.endswith(_TABLE_SUFFIXES) and " " not in target:
        return True
    # with --input-format, any existing path is a table: reading it says why a FIFO or a
    # device is refused, rather than reading its name as an expression
    return bool(input_format) and Path(target).exists()


def _run_table(target: str, givens: dict[str, str], args: argparse.Namespace) -> int:
    from napkinmath.checking.claims import check_claims

    if args.expect is not None:
        raise InputError(
            "--expect checks one expression; a claims table has its own 'claimed' column"
        )
    source: object = sys.stdin if target == "-" else target
    report = check_claims(
        source,
        tolerance=args.tolerance,
        gpu=args.gpu,
        model=args.model,
        input_format=args.input_format,
        **givens,
    )
    if args.format == "json":
        print(document("claims", report.to_dict()))
    elif args.format in FORMATS:
        shown = "stdin" if target == "-" else target
        print(render(args.format, [(json.loads(document("claims", report.to_dict())), shown)]))
    elif args.format == "markdown":
        print(report.markdown)
    else:
        print(report.text)
    status = report.exit_status(allow_unchecked=args.allow_unchecked)
    if status == 2:
        unchecked = report.summary["unchecked"]
        where = "see 'Could not check' above"
        if report.stopped_after is not None:
            where += (
                "; the table's work budget was spent after claim "
                f"{report.stopped_after}: split the table"
            )
        message = (
            f"{unchecked} of {report.summary['total']} claims could not be checked "
            f"({where}); fix them, or pass --allow-unchecked"
        )
        if args.format == "json":  # the report is the one JSON document: the reason on stderr
            from napkinmath.cli.main import say

            say(f"napkin: {message}")
            return 2
        raise NapkinError(message)
    return status
