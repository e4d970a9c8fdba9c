"""`napkin plan FILE`: a scenario file answered as one report.

napkin plan examples/startup-7b.toml                # text to the terminal
napkin plan examples/startup-7b.toml -o plan.html   # one self-contained HTML file
napkin plan examples/startup-7b.toml -o plan.md     # Markdown; .pdf via pdflatex
napkin plan examples/startup-7b.toml --check        # exit 1 on a violated constraint,
                                                    # disagreeing givens or an
                                                    # optimization that nothing fits
napkin plan - --format json < plan.toml             # from standard input, JSON out
"""

from __future__ import annotations

import argparse
import sys

PLAN_EXAMPLES = """\
examples:
  napkin plan examples/startup-7b.toml
  napkin plan examples/startup-7b.toml -o plan.html     (also .md, .pdf, .tex, .txt)
  napkin plan examples/llama-70b-serving.toml --check   (exit 1 on a violation)
  napkin plan - --format json < plan.toml               (standard input in, JSON out)
"""

#: what --format writes to standard output, by the suffix `write` knows it by
FORMATS = {"text": ".txt", "markdown": ".md", "json": ".json", "html": ".html", "tex": ".tex"}


def options(parser: argparse.ArgumentParser) -> None:
    """`napkin plan`'s description and options (its line in `napkin --help` is in
    `napkinmath.cli.main`)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = PLAN_EXAMPLES
    parser.description = (
        "Answer every section of a plan file in order (answers feed later "
        "sections by name), check the givens and the constraints once for "
        "the file, and write the report."
    )
    parser.add_argument(
        "file",
        metavar="FILE",
        help="the plan: a .toml or .json scenario; '-' reads it from standard input "
        "(TOML, or JSON when it opens with '{'; files it names are found from here)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the report to OUT; its suffix picks the format: .html, .md, "
        ".pdf (needs pdflatex), .tex, .txt, .json; '-' writes it to standard output "
        "in the --format",
    )
    parser.add_argument(
        "--format",
        choices=[*FORMATS, "pdf"],
        help="the report's format on standard output (default text); a file's "
        "format follows its suffix",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit with status 1 when a constraint is violated, givens "
        "disagree or an optimization finds nothing that fits (for CI); prints "
        "the summary's status lines",
    )
    parser.set_defaults(handler=run)


def _without_plots(answered, output: str) -> str:
    """' (without its plots: ...)' when the report would draw plots matplotlib cannot."""
    from napkinmath.scenario import svg

    if (
        not output.lower().endswith((".html", ".htm", ".pdf", ".md", ".markdown", ".tex"))
        or not svg.wants_plots(answered)
        or svg.can_plot()
    ):
        return ""
    return " (without its plots: matplotlib is not installed; pip install 'napkinmath[plot]')"


def run(args: argparse.Namespace) -> int:
    from napkinmath.errors import InputError
    from napkinmath.scenario import plan
    from napkinmath.scenario.load import load_stream

    if args.output == "-":
        args.output = None  # standard output, in --format
    if args.format == "pdf":
        raise InputError("a PDF is not written to standard output: use -o plan.pdf", "format")
    if args.format and args.output:
        raise InputError(
            f"--format {args.format} with -o {args.output}: the suffix of OUT picks a "
            f"file's format; --format is for standard output (no -o, or -o -)",
            "format",
        )
    if args.output:  # before any work: not over the plan or a records file, not via a link
        from napkinmath.writing import check_output  # (not for standard output)

        check_output(
            args.output,
            [("plan file", args.file), *(("records file", path) for path in args.records or [])],
        )
    source = load_stream(sys.stdin, args.records) if args.file == "-" else args.file
    answered = plan(source, records=args.records, achievable=args.achievable or None)
    shown = "<stdin>" if args.file == "-" else args.file
    if args.output:
        from napkinmath.cli.whatif import writing_options

        with writing_options(args.output):
            answered.write(args.output)
        print(f"wrote {args.output}{_without_plots(answered, args.output)}", file=sys.stderr)
    warnings = answered.warnings
    if args.check:
        checks = len(answered.checks) + len(answered.constraints)
        status = "FAIL" if warnings else "OK"
        searched = len(answered.optimizations)
        print(
            f"{status}: {shown}: {len(warnings)} warning(s) in {checks} checks and constraints"
            + (f" and {searched} optimization(s)" if searched else "")
        )
        for w in warnings:
            print(f"  ✗ {w}")
        return 1 if warnings else 0
    if not args.output:
        render = {
            "text": answered.to_text,
            "markdown": answered.to_markdown,
            "json": answered.to_json,
            "html": answered.to_html,
            "tex": answered.to_latex,
        }[args.format or "text"]
        print(render())
        from napkinmath.scenario import svg

        if args.format in ("markdown", "tex") and svg.wants_plots(answered):
            # the plots are files beside a report written with -o: none on standard output
            print(
                f"napkin: the plots are left out of {args.format} on standard output: "
                f"write -o plan.{'md' if args.format == 'markdown' else 'tex'} for them "
                "(drawn beside it), or -o plan.html",
                file=sys.stderr,
            )
    if answered.scenario.strict and warnings:
        print(
            f"napkin: {shown} is strict: {len(warnings)} warning(s): " + " | ".join(warnings),
            file=sys.stderr,
        )
        return 1
    return 0
