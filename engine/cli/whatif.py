"""`napkin sweep` and `napkin compare`: one question over swept inputs or across records.

    napkin sweep train_time n_gpus=1k..16k:log:9 train_compute=6.35e24FLOP mfu=0.4 --gpu H100 \\
        --csv out.csv --plot out.png
    napkin compare cost_per_million_tokens --gpu H100-SXM,MI300X,Trainium2 \\
        --model llama-3-70b n_gpus=4 batch_size=32 seq_len=8192
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from napkinmath.cli.jsonout import document
from napkinmath.writing import check_distinct, check_output, write_output

if TYPE_CHECKING:
    from napkinmath.whatif.table import Table

SWEEP_EXAMPLES = """\
examples:
  napkin sweep train_time n_gpus=1k..16k:log:9 train_compute=6.35e24FLOP mfu=0.4 --gpu H100
  napkin sweep train_time n_gpus=1024,2048,4096 mfu=0.3..0.5:5 train_compute=6.35e24FLOP \\
      --gpu H100 --csv grid.csv --plot grid.png
  napkin sweep cost_per_million_tokens batch_size=1,8,32,128 --gpu H100-SXM,MI300X \\
      --model llama-3-70b n_gpus=4 seq_len=8192

a swept value is low..high (11 points), low..high:log:N or low..high:lin:N, or a list a,b,c;
one or two swept inputs, or one and a list of records (--gpu a,b); at most 1,000,000 points
and 8,000,000 table cells (points × columns), and 200 records.
"""

COMPARE_EXAMPLES = """\
examples:
  napkin compare cost_per_million_tokens --gpu H100-SXM,MI300X,Trainium2 \\
      --model llama-3-70b n_gpus=4 batch_size=32 seq_len=8192
  napkin compare train_time --gpu H100-SXM,H200,B200 train_compute=6.35e24FLOP n_gpus=8192 \\
      mfu=0.4 --format markdown --derivations
"""


def sweep_options(parser: argparse.ArgumentParser) -> None:
    """`napkin sweep`'s usage, description and options (its line in `napkin --help` is in
    `napkinmath.cli.main`)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = SWEEP_EXAMPLES
    parser.usage = "napkin sweep TARGET name=low..high[:log:N] name=value ... [options]"
    parser.description = (
        "Plan the question once, then evaluate every point of the swept "
        "inputs in one vectorised pass."
    )
    _common(parser, "TARGET name=value|name=low..high[:log:N]|name=a,b,c")
    parser.add_argument(
        "--points", type=int, default=11, help="points for a range given without :N (default 11)"
    )
    parser.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    parser.add_argument("--json", metavar="FILE", help="also write the table as JSON")
    parser.add_argument("--plot", metavar="FILE", help="also plot it to FILE.png or FILE.svg")
    parser.set_defaults(handler=_sweep)


def compare_options(parser: argparse.ArgumentParser) -> None:
    """`napkin compare`'s usage, description and options."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = COMPARE_EXAMPLES
    parser.usage = "napkin compare TARGET --gpu A,B[,C] [--model M] name=value ... [options]"
    parser.description = (
        "Solve the question with each record (comma-separated --gpu or "
        "--model lists) and rank the answers, with each record's values and "
        "sources."
    )
    _common(parser, "TARGET name=value")
    parser.add_argument(
        "--best",
        choices=("lower", "higher"),
        help="which way is better (default: the target's natural direction)",
    )
    parser.add_argument(
        "--derivations", action="store_true", help="also print each record's full derivation"
    )
    parser.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    parser.add_argument("--plot", metavar="FILE", help="also plot it to FILE.png or FILE.svg")
    parser.set_defaults(handler=_compare)


def _common(parser: argparse.ArgumentParser, metavar: str) -> None:
    from napkinmath.cli.main import PRECISIONS

    parser.add_argument(
        "terms", nargs="+", metavar=metavar, help="the variable to solve for, then givens"
    )
    parser.add_argument(
        "--gpu",
        action="append",
        help="accelerator record, or a comma-separated list (also gpu=...)",
    )
    parser.add_argument(
        "--model", action="append", help="model record, or a comma-separated list (also model=...)"
    )
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        help="each record's peak at this precision, and its bytes per value "
        "for weights and KV cache (also precision=NAME)",
    )
    parser.add_argument("--format", choices=("text", "markdown", "csv", "json"), default="text")
    parser.add_argument(
        "--tolerance",
        type=float,
        default=0.01,
        help="relative tolerance for over-determined givens (default 0.01)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 when a row violates a constraint (memory "
        "over HBM, a saturated queue, ...)",
    )


def _strict(args: argparse.Namespace, warnings: list[str]) -> int:
    """1 (after saying why on stderr) when --strict and a row violates a constraint."""
    if args.strict and warnings:
        print(
            f"napkin: --strict: {len(warnings)} warning(s): " + " | ".join(warnings),
            file=sys.stderr,
        )
        return 1
    return 0


def record_options(text: object) -> list[str] | str | None:
    if not isinstance(text, str):
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    return names if len(names) > 1 else (names[0] if names else None)


def _sweep(args: argparse.Namespace) -> int:
    from napkinmath.cli.main import RECORD_TERMS, keywords, plain_terms, record_terms
    from napkinmath.whatif.sweep import sweep

    check_outputs(args)
    targets, givens = plain_terms(args.terms, "sweep")
    chosen = record_terms(args, givens, "sweep", RECORD_TERMS)
    options = {
        "gpu": record_options(chosen.get("gpu")),
        "model": record_options(chosen.get("model")),
        "precision": chosen.get("precision"),
        "tolerance": args.tolerance,
        "points": args.points,
        **({"achievable": True} if args.achievable else {}),
    }
    table = sweep(targets, **keywords(options, givens, "sweep"))
    _emit(table, args)
    if args.json:
        with writing_options(args.json):
            write_output(args.json, table.to_json() + "\n", inputs=input_options(args))
    return _strict(args, table.warnings)


def _compare(args: argparse.Namespace) -> int:
    from napkinmath.cli.main import RECORD_TERMS, keywords, plain_terms, record_terms
    from napkinmath.whatif.compare import (
        DERIVATION_ON_CLI,
        DERIVATIONS_BELOW,
        compare,
    )

    check_outputs(args)
    targets, givens = plain_terms(args.terms, "compare")
    chosen = record_terms(args, givens, "compare", RECORD_TERMS)
    options = {
        "gpu": record_options(chosen.get("gpu")),
        "model": record_options(chosen.get("model")),
        "precision": chosen.get("precision"),
        "tolerance": args.tolerance,
        "best": args.best,
        "achievable": args.achievable,
    }
    result = compare(targets, **keywords(options, givens, "compare"))
    if args.format == "text":
        _check_plot(result.to_table(), args)
        print(result.text(DERIVATIONS_BELOW if args.derivations else DERIVATION_ON_CLI))
        file_options(result.to_table(), args)
    else:
        _emit(result.to_table(), args)
    if args.derivations:
        markdown = args.format == "markdown"
        for label in result.ranking:
            answer = result.results[label]
            print(f"\n## {label}\n" if markdown else f"\n=== {label}")
            print(answer.to_markdown() if markdown else answer)
    return _strict(args, result.warnings)


def _emit(table: Table, args: argparse.Namespace) -> None:
    render: dict[str, Callable[[Table], str]] = {
        "text": str,
        "markdown": lambda t: t.to_markdown(),
        "csv": lambda t: t.to_csv().rstrip("\n"),
        "json": lambda t: document("table", t.to_dict()),
    }
    _check_plot(table, args)
    print(render[args.format](table))
    file_options(table, args)


def _check_plot(table, args: argparse.Namespace) -> None:
    """A plot that cannot be drawn (too many lines) is refused before the table prints."""
    if getattr(args, "plot", None):
        table.check_plot()


@contextlib.contextmanager
def writing_options(path: str):
    """An OSError while writing `path` names it (a full disk fails at close, nameless), so
    that `napkin` says "napkin: PATH: No space left on device" and exits 2."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or isinstance(exc, BrokenPipeError):
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), path) from None


def input_options(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The files this command reads, which no output may overwrite."""
    return [("records file", path) for path in getattr(args, "records", None) or []]


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output file that is an input, a link, or another output
    (`napkinmath.writing`)."""
    outputs = [getattr(args, name, None) for name in ("csv", "json", "plot")]
    check_distinct(outputs)
    for path in outputs:
        if path:
            check_output(path, input_options(args))


def file_options(table, args: argparse.Namespace) -> None:
    if getattr(args, "csv", None):
        with writing_options(args.csv):
            write_output(args.csv, table.to_csv(), inputs=input_options(args))
        print(f"wrote {args.csv}", file=sys.stderr)
    if getattr(args, "plot", None):
        try:
            import matplotlib
        except ImportError:
            pass  # plot() says how to install it
        else:
            matplotlib.use("Agg")
        with writing_options(args.plot):
            table.plot(args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
