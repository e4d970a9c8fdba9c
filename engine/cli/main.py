"""The `napkin` command: solve, sweep, compare, formulas, vars, hardware, check.

Exit status, never with a traceback:

* 0 on success, and when the reader goes away early (``napkin ... | head``: a closed pipe
  ends the command quietly);
* 1 when a check finds a disagreement (or, with `solve --strict`, an answer violates a
  constraint);
* 2 on bad input, with a one-paragraph message on stderr; also when the output cannot be
  written (a full disk, ``>/dev/full``: one line "napkin: cannot write the output: ..."
  on stderr, where stderr itself can still be written) and when a file named on the command
  line cannot be read or written ("napkin: PATH: No such file or directory");
* 3 on an internal error (a bug in napkinmath);
* 130 when interrupted (Ctrl-C): one line "napkin: interrupted" on stderr.

Output goes through `_Output`. Where the stream's encoding cannot show a symbol
(``PYTHONIOENCODING=ascii``, a latin-1 terminal), its ASCII spelling is written instead:
× x, · *, ÷ /, − -, ≤ <=, ≥ >=, ± +/-, → ->, … ..., ✓ OK, ✗ X, µ u, superscripts as
^ exponents (s⁻¹ s^-1, 10⁹ 10^9); other characters become <U+XXXX>. On stderr, and on a
stdout that is a terminal, control characters and bidi overrides from user text or a claims
file are shown as escapes (\\x1b, \\r, <U+202E>), so that no input can rewrite the terminal.
"""

from __future__ import annotations

import argparse
import codecs
import errno
import gc
import importlib
import io
import itertools
import os
import re
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from napkinmath.errors import InconsistentError, NapkinError
from napkinmath.text.visible import visible

EXAMPLES = """\
examples:
  napkin solve n_gpus params=7B tokens=1T train_time="3 weeks" mfu=0.4 --gpu H100-SXM
  napkin solve train_time train_cost params=7B tokens=1T n_gpus=64 mfu=0.4 --gpu H100-SXM
  napkin solve train_time:h params=7B tokens=1T n_gpus=64 mfu=0.4 --gpu H100-SXM  # in hours
  napkin solve mfu params=405B tokens=15.6T gpu_hours="30.84e6 GPU*h" --gpu H100 --format markdown
  napkin formulas fleet          # formulas whose name, title or variables mention "fleet"
  napkin vars mfu                # a variable's unit, bounds and meaning
  napkin hardware H100-SXM       # a record's values with their sources
  napkin check "140 GB / (400 Gb/s)" --expect "0.35 s"   # names the slip: bits vs bytes
  napkin check "140 GB / (400 Gb/s) -> ms"               # a value in the unit you choose
  napkin graph mfu --format dot | dot -Tsvg > mfu.svg    # the formulas around a variable
  napkin solve train_time train_compute=6.35e24FLOP n_gpus=16384 mfu=0.3..0.5 --gpu H100
  napkin solve n_gpus train_compute=6.35e24FLOP train_time="30 days" mfu=35%..45% --gpu H100
  napkin solve train_time train_compute=6.35e24FLOP n_gpus=16384 mfu="0.3 to 0.5" \\
      --gpu H100 --samples 10000 --sensitivity
  napkin sweep train_time n_gpus=1k..16k:log:9 train_compute=6.35e24FLOP mfu=0.4 --gpu H100
  napkin optimize --minimize n_gpus params=7B tokens=1T train_time="<= 3 weeks" mfu=0.4 \\
      --gpu H100-SXM --over n_gpus="whole nodes"
  napkin compare cost_per_million_tokens --gpu H100-SXM,MI300X,Trainium2 \\
      --model llama-3-70b n_gpus=4 batch_size=32 seq_len=8192
"""


def version() -> str:
    """The installed package's version (its metadata), or the source tree's."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("napkinmath")
    except PackageNotFoundError:  # run from a source tree that is not installed
        from napkinmath import __version__

        return __version__


class _Version(argparse.Action):
    """--version: the package's version, looked up only when asked for (reading the package
    metadata costs more than the rest of a command's start)."""

    def __init__(
        self,
        option_strings: list[str],
        dest: str = argparse.SUPPRESS,
        default: str = argparse.SUPPRESS,
        help: str = "show napkin's version and exit",
    ) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"napkin {version()}")
        parser.exit()


class _ShowConfig(argparse.Action):
    """--show-config: the project file that applies here (`napkinmath.project`) and what it
    sets."""

    def __init__(
        self,
        option_strings: list[str],
        dest: str = argparse.SUPPRESS,
        default: str = argparse.SUPPRESS,
        help: str = "show the project file that applies here (napkin.toml, or [tool.napkin] "
        "in pyproject.toml) and exit",
    ) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from napkinmath.project import find

        try:
            project = find()
        except NapkinError as exc:
            say(f"napkin: {exc}")
            parser.exit(2)
        if project is None:
            print(
                f"no project file applies in {os.getcwd()} (napkin.toml, or [tool.napkin] in "
                "pyproject.toml, in this folder or one above it)"
            )
        else:
            print(project.describe())
        parser.exit()


class _ArgumentParser(argparse.ArgumentParser):
    """argparse's parser (its subcommands' too), whose usage errors are also a JSON document
    on stdout when the command line asks for --format json."""

    json_errors = False  # set by _run for the one command line being parsed

    def error(self, message: str):
        if _ArgumentParser.json_errors:
            from napkinmath.cli.jsonout import UsageError, error

            print(error(UsageError(f"{self.prog}: {message}"), 2))
        super().error(message)


def _wants_json(argv: Sequence[str]) -> bool:
    items = list(argv)
    return "--format=json" in items or any(
        a == "--format" and b == "json" for a, b in itertools.pairwise(items)
    )


#: napkin's commands in the order `napkin --help` lists them: (its line there, the function
#: that adds its options, as "module:function"). A command's module is imported, and its
#: options added, only for the command that runs (`_parser`).
_COMMANDS = {
    "solve": (
        "solve for one or more variables and show the derivation",
        "napkinmath.cli.main:_solve_options",
    ),
    "formulas": (
        "list or search the formulas, with sources",
        "napkinmath.cli.main:_formulas_options",
    ),
    "vars": ("list or search the variables, with units", "napkinmath.cli.main:_vars_options"),
    "hardware": (
        "list hardware and model records, or show one",
        "napkinmath.cli.main:_hardware_options",
    ),
    "check": (
        "check an expression, a claimed value, or a table of claims for unit mistakes",
        "napkinmath.cli.check:options",
    ),
    "audit": (
        "check another tool's file as it is (a config, a Python module, a document, a CSV)",
        "napkinmath.cli.audit:options",
    ),
    "sweep": (
        "solve over swept inputs (a range, a log range, a list) as a table",
        "napkinmath.cli.whatif:sweep_options",
    ),
    "compare": (
        "the same question across records, ranked",
        "napkinmath.cli.whatif:compare_options",
    ),
    "optimize": (
        "the best plan over decision variables that meets every constraint",
        "napkinmath.cli.optimize:options",
    ),
    "plan": ("answer a scenario file (TOML or JSON) as one report", "napkinmath.cli.plan:options"),
    "graph": (
        "the formula-variable graph around a variable (text or Graphviz DOT)",
        "napkinmath.cli.graph:options",
    ),
    "mcp": (
        "serve napkinmath to AI assistants over the Model Context Protocol (needs the mcp extra)",
        "napkinmath.cli.serve:options",
    ),
    "completion": (
        "print a shell completion script (needs shtab)",
        "napkinmath.cli.main:_completion_options",
    ),
}
#: the commands that read records (--records) and those that solve (--achievable)
_READ_RECORDS = ("solve", "check", "sweep", "compare", "optimize", "hardware", "plan")
_SOLVE_WITH_RECORDS = ("solve", "sweep", "compare", "optimize", "plan")


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `napkin` parser. With `command`, only that command's options are added: the other
    commands are there by name and help line (for `napkin --help` and a mistyped command), as
    in the full parser, which `napkin completion` uses."""
    parser = _ArgumentParser(
        prog="napkin",
        description="Napkin math for AI infrastructure, with units and derivations.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EXAMPLES,
    )
    parser.add_argument("--version", action=_Version)
    parser.add_argument("--show-config", action=_ShowConfig)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (line, where) in _COMMANDS.items():
        sub = commands.add_parser(name, help=line)
        if command is None or command == name:
            module, _, function = where.partition(":")
            getattr(importlib.import_module(module), function)(sub)
            _record_options(name, sub)
    return parser


def _command(argv: Sequence[str]) -> str:
    """The command a command line runs: its first word that is not an option ("" if none;
    napkin's own options take no value)."""
    return next((word for word in argv if not word.startswith("-")), "")


def _solve_options(solve: argparse.ArgumentParser) -> None:
    solve.formatter_class = argparse.RawDescriptionHelpFormatter
    solve.description = (
        "Solve for TARGETs from name=value givens, planning through the formula graph."
    )
    solve.epilog = EXAMPLES
    solve.add_argument(
        "terms",
        nargs="+",
        metavar="TARGET[:UNIT]|name=value",
        help="variables to solve for (train_time:h shows it in hours) and "
        "givens such as params=7B mfu=0.4 train_time='3 weeks', in any "
        "order (quote values with spaces)",
    )
    solve.add_argument(
        "--unit",
        action="append",
        metavar="NAME=UNIT",
        help="show a target in this unit (--unit train_time=h); also written "
        "TARGET:UNIT (train_time:h)",
    )
    solve.add_argument(
        "--gpu",
        action="append",
        help="hardware record whose values fill in unstated givens (also "
        "gpu=NAME); repeat it to bind records of different kinds together: "
        "--gpu H100 --gpu Parallel-FS-100GBs",
    )
    solve.add_argument(
        "--model",
        action="append",
        help="model record (layers, heads, parameters) to bind (also model=NAME)",
    )
    solve.add_argument(
        "--precision",
        choices=PRECISIONS,
        help="the record's peak at this precision, and its bytes per value for "
        "weights and KV cache (also precision=NAME)",
    )
    _answer_options(solve)
    solve.set_defaults(handler=_solve)


def _answer_options(solve: argparse.ArgumentParser) -> None:
    """`napkin solve`'s options for how the answer is checked and shown: format, digits,
    tolerance, what-ifs (samples, sensitivity), a brief, a gap budget."""
    solve.add_argument("--format", choices=("text", "markdown", "latex", "json"), default="text")
    solve.add_argument(
        "--digits",
        type=int,
        metavar="N",
        help="significant figures of the numbers shown (default 4; JSON values stay exact)",
    )
    solve.add_argument(
        "--tolerance",
        type=float,
        default=0.01,
        help="relative tolerance for over-determined givens (default 0.01)",
    )
    solve.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 when the plan violates a constraint (memory "
        "over HBM, a saturated queue, ...) or a check disagrees",
    )
    solve.add_argument(
        "--explain",
        action="store_true",
        help="when givens disagree, solve each given of the group from the others and show "
        "the table of alternatives (which input is the odd one out), with derivations",
    )
    solve.add_argument(
        "--warn-inconsistent",
        action="store_true",
        help="show givens that disagree as warnings in the answer instead of failing",
    )
    solve.add_argument(
        "--samples",
        type=int,
        metavar="N",
        help="propagate spreads ('0.3 to 0.5', 0.3..0.5) by N Monte Carlo "
        "samples and report the median and 5th/95th percentiles",
    )
    solve.add_argument("--seed", type=int, help="random seed for --samples (default 0)")
    solve.add_argument(
        "--sensitivity",
        action="store_true",
        help="also show each input's elasticity and swing (which assumption the answer hangs on)",
    )
    solve.add_argument(
        "--brief",
        action="store_true",
        help="three lines for a design doc: the last step with its numbers, the answer, and "
        "the input it hangs on",
    )
    solve.add_argument(
        "--gap",
        action="store_true",
        help="itemise a measured step (step_time=, mfu= or tokens_per_second=) against the "
        "predicted step's parts; measured parts (dataloader_wait=, collective_time=, "
        "optimizer_time=, rank_step_time_std=, ...) replace the modelled ones",
    )
    solve.add_argument(
        "--plot",
        metavar="FILE",
        help="with --gap: save the waterfall from the ideal step to the measured one "
        "(.png or .svg)",
    )


def _formulas_options(listing: argparse.ArgumentParser) -> None:
    listing.add_argument("query", nargs="?", default="", help="text to look for")
    listing.add_argument("--subject", help="only this subject (training, memory, ...)")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    listing.set_defaults(handler=_formulas)


def _vars_options(names: argparse.ArgumentParser) -> None:
    names.add_argument("query", nargs="?", default="", help="text to look for")
    names.add_argument("--format", choices=("text", "json"), default="text")
    names.set_defaults(handler=_vars)


def _hardware_options(hardware: argparse.ArgumentParser) -> None:
    hardware.add_argument("name", nargs="?", help="record to show in full")
    hardware.add_argument("--kind", help="only records of this kind (accelerator, link, ...)")
    hardware.add_argument("--format", choices=("text", "json"), default="text")
    hardware.set_defaults(handler=_hardware)


def _completion_options(completion: argparse.ArgumentParser) -> None:
    completion.description = (
        "Print a completion script for the shell (subcommands, flags, variable and "
        "record names): napkin completion bash > "
        "~/.local/share/bash-completion/completions/napkin; fish: "
        "~/.config/fish/completions/napkin.fish"
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish", "tcsh"))
    completion.set_defaults(handler=_completion)


def _record_options(name: str, parser: argparse.ArgumentParser) -> None:
    """--records FILE (every command that reads records) and --achievable (those that solve)."""
    if name in _READ_RECORDS:
        parser.add_argument(
            "--records",
            action="append",
            metavar="FILE",
            help="your own records (TOML, the format of hardware/*.toml): new accelerators, "
            "models and prices, or values that replace a shipped record's; repeatable",
        )
    if name in _SOLVE_WITH_RECORDS:
        parser.add_argument(
            "--formulas",
            action="append",
            metavar="FILE",
            help="your own variables and formulas (TOML: [variables.NAME] tables and "
            "[[formulas]] with an equation), used with the library's; repeatable",
        )
        parser.add_argument(
            "--achievable",
            action="store_true",
            help="use the record's measured (achievable) matmul FLOP/s and HBM bandwidth in "
            "place of its datasheet peaks, and say so in every step",
        )


def _completion(args: argparse.Namespace) -> int:
    try:
        import shtab
    except ImportError:
        raise NapkinError(
            "shell completion needs the shtab package: pip install "
            "'napkinmath[completion]' (or pip install shtab)"
        ) from None
    from napkinmath.cli.completion import script

    del shtab  # imported above only to say what is missing
    print(script(_parser(), args.shell))
    return 0


#: --precision's choices (napkinmath.solving.precision.PRECISIONS, not imported at start)
PRECISIONS = ("bf16", "fp16", "fp8", "int8", "fp4")
#: the options that a name=value term may also set, as the claims CSV's context writes them
RECORD_TERMS = ("gpu", "model", "precision")


def record_terms(
    args: argparse.Namespace,
    givens: dict[str, str],
    command: str,
    names: Sequence[str] = ("gpu", "model"),
) -> dict[str, object]:
    """The --gpu/--model (/--precision) options of `args` with the gpu=, model=,
    precision= terms of `givens` (taken out of it): each written either way, exactly as the
    option reads it. For solve and check (`command`), records of different kinds bind
    together (--gpu H100 --gpu Parallel-FS-100GBs) and two of one kind are an error naming
    both; sweep and compare take one --gpu and one --model (a record, or a comma-separated
    list to compare). Returns {option: value} for the options given."""
    chosen: dict[str, object] = {}
    for name in names:
        written = [(f"--{name} {visible(v)}", v) for v in (getattr(args, name, None) or ())]
        if not isinstance(getattr(args, name, None), (list, type(None))):  # one value
            written = [(f"--{name} {visible(getattr(args, name))}", getattr(args, name))]
        if name in givens:
            value = givens.pop(name)
            written.append((f"{name}={visible(value)}", value))
        for label, value in written:
            if not value.strip():
                raise NapkinError(
                    f"{label.strip()}: name a record, like {name}="
                    f"{'llama-3-70b' if name == 'model' else 'H100-SXM'} "
                    "(list them with `napkin hardware`)"
                )
        if not written:
            continue
        if name == "precision":
            precisions = {v.strip().lower() for _, v in written}
            if len(precisions) > 1:
                raise NapkinError(
                    f"{' and '.join(label for label, _ in written)}: two precisions; give one"
                )
            value = precisions.pop()
            if value not in PRECISIONS:
                raise NapkinError(f"{written[-1][0]}: expected one of {', '.join(PRECISIONS)}")
            chosen[name] = value
            continue
        values = [v.strip() for _, v in written]
        if command in ("sweep", "compare", "optimize"):
            if len(set(values)) > 1:
                raise NapkinError(
                    f"{' and '.join(label for label, _ in written)}: napkin {command} takes one "
                    f"--{name}: a record, or a comma-separated list to compare (--{name} "
                    f"{','.join(dict.fromkeys(values))}); to bind records of different kinds "
                    f"together, use napkin solve ... --{name} A --{name} B"
                )
            chosen[name] = values[0]
            continue
        for label, value in zip((label for label, _ in written), values, strict=True):
            if "," in value:
                raise NapkinError(
                    f"{label}: {command} takes one record per kind; to rank "
                    f"several use napkin compare TARGET --{name} {visible(value)}"
                )
        from napkinmath.solving.records import bound_records

        chosen[name] = bound_records(values, name, [label for label, _ in written])
    return chosen


def keywords(
    options: Mapping[str, object], givens: Mapping[str, str], command: str
) -> dict[str, Any]:
    """The keyword arguments of `command`'s call into the library: its options, then the
    name=value givens; a given named like an option the command sets is refused (napkin
    solve x tolerance=0.1 with the --tolerance option). Typed Any: the library function
    checks each value, and a given may name any of its keywords."""
    for name in givens:
        if name in options:
            raise NapkinError(
                f"{name}={visible(givens[name])}: {name} is an option of napkin "
                f"{command}, not a variable; see napkin {command} --help"
            )
    return {**options, **givens}


def _split_terms(terms: Sequence[str]) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """Targets, name=value givens and chosen units (TARGET:UNIT), in any order."""
    targets: list[str] = []
    givens: dict[str, str] = {}
    units: dict[str, str] = {}
    for term in terms:
        if "=" in term:
            name, _, value = term.partition("=")
            name = name.strip()
            if not name:
                raise NapkinError(f"{term!r}: a given needs a name before '=', like mfu=0.4")
            if name in givens:
                raise NapkinError(f"{name} is given twice")
            givens[name] = value.strip()
            continue
        pieces = [
            p
            for piece in term.split(",")  # a unit may hold spaces: "x:USD/(GPU h)"
            for p in ([piece] if ":" in piece else piece.split())
        ]
        for target in (p.strip() for p in pieces if p.strip()):
            name, colon, unit = target.partition(":")
            name = name.strip()
            if colon:
                if not name or not unit.strip():
                    raise NapkinError(
                        f"{target!r}: write a target with its unit as NAME:UNIT, like train_time:h"
                    )
                _choose(units, name, unit)
            targets.append(name)
    if not targets:
        raise NapkinError("name a variable to solve for, e.g. napkin solve n_gpus ...")
    return targets, givens, units


def plain_terms(terms: Sequence[str], command: str) -> tuple[list[str], dict[str, str]]:
    """Targets and givens for a command that shows its own units (sweep, compare)."""
    targets, givens, units = _split_terms(terms)
    if units:
        name = next(iter(units))
        raise NapkinError(
            f"{name}:{units[name]}: napkin {command} shows each variable in its "
            f"own unit; choose units with napkin solve {name}:{units[name]} ..."
        )
    return targets, givens


def _choose(units: dict[str, str], name: str, unit: str) -> None:
    if name in units and units[name] != unit.strip():
        raise NapkinError(
            f"{name}: two units chosen ({units[name]} and {unit.strip()}); choose one"
        )
    units[name] = unit.strip()


def _chosen_units(args: argparse.Namespace, units: dict[str, str]) -> dict[str, str]:
    """TARGET:UNIT terms and --unit NAME=UNIT options together."""
    for option in args.unit or ():
        name, sep, unit = option.partition("=")
        if not sep or not name.strip() or not unit.strip():
            raise NapkinError(f"--unit {option!r}: write NAME=UNIT, like --unit train_time=h")
        _choose(units, name.strip(), unit)
    return units


def _solve(args: argparse.Namespace) -> int:
    from napkinmath.questions import solve
    from napkinmath.whatif.spread import is_spread

    targets, givens, units = _split_terms(args.terms)
    options: dict[str, object] = {
        "tolerance": args.tolerance,
        **record_terms(args, givens, "solve", ("gpu", "model", "precision")),
    }
    chosen = _chosen_units(args, units)
    if chosen:
        options["units"] = chosen
    if args.achievable:
        options["achievable"] = True
    if args.samples is not None:
        options["samples"] = args.samples
    if args.seed is not None:
        options["seed"] = args.seed
    if args.warn_inconsistent:
        options["on_inconsistent"] = "warn"
    if args.digits is not None:
        options["digits"] = args.digits
    # text is all the shell gives: a range in it asks for the answer over it
    options["ranges"] = any(is_spread(v) for v in givens.values())
    if args.gap or args.plot:
        return _solve_gap(args, targets, options, givens)
    if args.brief and (args.format != "text" or args.sensitivity):
        raise NapkinError("--brief is three lines of text: leave out --format and --sensitivity")
    try:
        result = solve(targets, **keywords(options, givens, "solve"))
    except InconsistentError as exc:
        if args.explain:
            from napkinmath.cli.reconcile import explain

            explain(targets, keywords(options, givens, "solve"), args.format, exc)
        raise
    if args.brief:
        if not hasattr(result, "brief"):
            raise NapkinError(
                "--brief is for single answers; for a range or samples leave it out "
                "(the answer's first line is its brief)"
            )
        print(result.brief())
        return 0
    if args.format == "latex" and not hasattr(result, "to_latex"):
        raise NapkinError(
            "--format latex is for single answers; use markdown or json for ranges and samples"
        )
    # the sensitivity is part of the document, in its format: a field of the JSON answer,
    # a Markdown table, a LaTeX tabular, the text table
    report = result.sensitivity() if args.sensitivity else None
    if args.format == "json":
        from napkinmath.cli.jsonout import answer

        print(answer(result, report))
    else:
        if args.format == "markdown":
            print(result.to_markdown())
        elif args.format == "latex":
            print(result.to_latex())
        else:
            print(result)
        if report is not None:
            print(
                "\n"
                + {"markdown": report.to_markdown, "latex": report.to_latex}.get(
                    args.format, report.__str__
                )()
            )
    warnings = result.warnings  # a range's and samples': over the whole spread
    if args.strict and warnings:
        print(
            f"napkin: --strict: {len(warnings)} warning(s): " + " | ".join(warnings),
            file=sys.stderr,
        )
        return 1
    return 0


def _solve_gap(
    args: argparse.Namespace,
    targets: list[str],
    options: dict[str, object],
    givens: dict[str, str],
) -> int:
    """`napkin solve ... step_time=... --gap`: the measured step and the measured parts are
    taken out of the givens, the rest predicts the step, and the budget itemises the gap."""
    from napkinmath.questions import solve
    from napkinmath.whatif.gap import MEASURABLE, gap

    if not args.gap:
        raise NapkinError("--plot FILE draws the gap budget's waterfall: add --gap")
    if args.format == "latex" or args.samples is not None or args.sensitivity:
        raise NapkinError(
            "--gap prints as text, markdown or json, for a single answer (no --samples, "
            "--sensitivity or --format latex)"
        )
    step = {k: givens.pop(k) for k in ("step_time", "mfu", "tokens_per_second") if k in givens}
    measured = {k: givens.pop(k) for k in MEASURABLE if k in givens}
    result = solve(targets, **keywords(options, givens, "solve"))
    budget = gap(result, measured=measured, **step)
    if args.plot:
        budget.plot(args.plot)
    if args.format == "json":
        import json

        from napkinmath.cli.jsonout import answer
        from napkinmath.schemas import tagged

        document = {"gap": budget.to_dict(), "answer": json.loads(answer(result, None))}
        print(json.dumps(tagged("gap", document), ensure_ascii=False, allow_nan=False))
    elif args.format == "markdown":
        print(budget.to_markdown() + "\n\n**The step from its parts**\n\n" + result.to_markdown())
    else:
        print(f"{budget}\n\nThe step from its parts:\n\n{result}")
    return 0


def _matches(query: str, *texts: str) -> bool:
    return not query or any(query.lower() in t.lower() for t in texts)


def _formulas(args: argparse.Namespace) -> int:
    from napkinmath.catalog.lookup import formulas
    from napkinmath.rendering.result import equation_text

    shown = 0
    by_subject: dict[str, list] = {}
    for f in formulas().values():
        names = [v.name for v in f.variables]
        if args.subject and f.subject != args.subject:
            continue
        if _matches(args.query, f.name, f.title, f.subject, *names):
            by_subject.setdefault(f.subject, []).append(f)
    if not by_subject:
        raise NapkinError(f"no formula mentions {args.query!r}; `napkin formulas` lists them all")
    if args.format == "json":
        from napkinmath.cli.jsonout import document
        from napkinmath.rendering import listings

        print(document("formulas", listings.formulas(f for fs in by_subject.values() for f in fs)))
        return 0
    for subject in sorted(by_subject):
        print(f"== {subject}")
        for f in by_subject[subject]:
            flags = [
                flag
                for flag, on in (("forward only", f.forward_only), ("derived", f.derived))
                if on
            ]
            extra = f"  ({', '.join(flags)})" if flags else ""
            print(f"{f.name}: {f.title}{extra}")
            print(f"    {equation_text(f)}")
            print(f"    source: {f.source}")
            shown += 1
    return 0


def _vars(args: argparse.Namespace) -> int:
    from napkinmath.catalog.lookup import variables
    from napkinmath.units import format_quantity, format_unit

    known = variables()
    found = [v for v in known.values() if _matches(args.query, v.name, v.description)]
    if not found and args.query:  # "qps": the variables a practitioner's word names
        from napkinmath.library.aliases import meant

        found = [known[n] for n in meant(args.query.strip(), known)[1]]
    if not found:
        raise NapkinError(f"no variable mentions {args.query!r}; `napkin vars` lists them all")
    if args.format == "json":
        from napkinmath.cli.jsonout import document
        from napkinmath.rendering import listings

        print(document("variables", listings.variables(found)))
        return 0
    width = max(len(v.name) for v in found)
    for v in sorted(found, key=lambda v: v.name):
        unit = format_unit(v.unit) or "(number)"
        line = f"{v.name.ljust(width)}  {unit:<18} {v.description}; range {v.bounds}"
        if v.default is not None:
            line += f"; default {format_quantity(v.default.value)} (assumption: {v.default.note})"
        print(line)
    return 0


def _hardware(args: argparse.Namespace) -> int:
    from napkinmath.hardware import get, listed

    if args.name:
        from napkinmath.hardware.config_json import is_config_path

        if is_config_path(args.name):  # a Hugging Face config.json, read as a model record
            from napkinmath.solving.records import config_model, user_records

            record_id, files = config_model(args.name, None)
            with user_records(files):
                return _show_record(get(record_id, checked=False), args.format)
        return _show_record(get(args.name, checked=False), args.format)
    shown = [r for r in listed().values() if not args.kind or r.kind == args.kind]
    if args.format == "json":
        from napkinmath.cli.jsonout import document
        from napkinmath.rendering import listings

        print(document("records", listings.records(shown)))
        return 0
    for record in shown:
        mine = f"   (your record {record.origin})" if record.origin else ""
        print(f"{record.id:<22} {record.kind:<12} {record.name}{mine}")
    return 0


def _show_record(record: Any, fmt: str = "text") -> int:
    """`napkin hardware NAME`: one record, each value with its provenance."""
    from napkinmath.units import format_quantity

    if fmt == "json":
        from napkinmath.cli.jsonout import document
        from napkinmath.rendering import listings

        print(document("record", listings.record(record)))
        return 0

    print(f"{record.id}: {record.name} ({record.kind})")
    if record.aliases:
        print(f"  aliases: {', '.join(record.aliases)}")
    if record.origin and record.note:  # a config.json's notes: MLA, MTP, the cross-check
        print(f"  note: {record.note}")
    for value in record.values.values():
        print(f"  {value.key} = {format_quantity(value.quantity)}")
        print(f"      {value.label()}")
        if value.url:
            print(f"      {value.url}")
        for other, where in value.alternatives.items():
            print(f"      also published: {other} ({where})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    collecting = gc.isenabled()
    # A command is one short process: Python's cyclic garbage collector would traverse the
    # objects that importing pint, networkx and numpy (and sympy, when a step needs it)
    # creates several times over (13% of a cold solve, measured with sympy loaded) to free
    # about 1% of them. Reference counting still frees everything else; memory stays within
    # 1 MB of a run with the collector (a 1,000-row claims table, 10^5 Monte Carlo samples, a
    # plan). It is switched back on when main returns.
    gc.disable()
    if argv is None and "numpy" not in sys.modules:  # the process's own command line
        # pint imports numpy, whose OpenBLAS starts a thread per core at import (a third of
        # numpy's import on a 2-core machine). napkin's numpy work is element by element,
        # which BLAS threads do not speed up; a user's own setting is kept.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        return _main(argv)
    finally:
        if collecting:
            gc.enable()


def _main(argv: Sequence[str] | None) -> int:
    stdout, stderr = sys.stdout, sys.stderr
    output = None if stdout is None else _Output(stdout, escape=_is_terminal(stdout))
    if output is not None:
        sys.stdout = output
    if stderr is not None:
        sys.stderr = _Output(stderr, escape=True)
    try:
        try:
            status = _run(argv)
        except SystemExit:  # argparse: --help, or a usage error
            _flush(stdout, output)
            raise
        _flush(stdout, output)  # a full disk shows here, not as a traceback at exit
        return status
    except KeyboardInterrupt:
        _flush(stdout, quiet=True)
        say("napkin: interrupted")
        return 130
    except BrokenPipeError:
        _discard(stdout)
        return 0
    except OSError as exc:
        _discard(stdout)
        say(f"napkin: cannot write the output: {exc.strerror or exc}")
        return 2
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _run(argv: Sequence[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = _parser(_command(words))
    _ArgumentParser.json_errors = _wants_json(words)
    try:
        return _parsed(parser, argv)
    finally:
        _ArgumentParser.json_errors = False


def _parsed(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    args, extra = parser.parse_known_args(argv)
    if extra:  # givens typed after options: napkin solve x --gpu H100 n_gpus=4
        takes_terms = args.command in ("solve", "check", "sweep", "compare", "optimize")
        if not takes_terms or any(item.startswith("-") for item in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.terms = [*getattr(args, "terms", []), *extra]
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    as_json = getattr(args, "format", None) == "json"
    try:
        _project_settings(parser, args, sys.argv[1:] if argv is None else argv)
        from napkinmath.catalog.user import user_formulas
        from napkinmath.solving.records import user_records

        with (
            user_records(getattr(args, "records", None)),
            user_formulas(getattr(args, "formulas", None)),
        ):
            return args.handler(args)
    except NapkinError as exc:
        say(f"napkin: {exc}")
        return _json_error(exc, 2) if as_json else 2
    except OSError as exc:
        if exc.filename is None or isinstance(exc, BrokenPipeError):
            raise  # the output itself: see main()
        name = exc.filename if isinstance(exc.filename, str) else repr(exc.filename)
        say(f"napkin: {name}: {exc.strerror or exc}")  # like other tools: PATH: No such file
        return _json_error(NapkinError(f"{name}: {exc.strerror or exc}"), 2) if as_json else 2
    except Exception as exc:
        say(
            f"napkin: internal error ({type(exc).__name__}: {exc}). This is a bug in "
            "napkinmath; please report it with the command you ran."
        )
        return _json_error(exc, 3) if as_json else 3


def _project_settings(
    parser: argparse.ArgumentParser, args: argparse.Namespace, words: Sequence[str]
) -> None:
    """The project file's settings (`napkinmath.project`) for the options of this command
    that the command line leaves unset: an option, or a gpu=/model=/precision= term, wins."""
    from napkinmath.project import find

    project = find()
    if project is None or args.command in ("mcp", "completion"):
        return
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    terms = [t for t in getattr(args, "terms", []) if isinstance(t, str)]
    for action in commands.choices[args.command]._actions:
        key = action.dest
        if key not in project.settings or not action.option_strings:
            continue
        if any(w == o or w.startswith(f"{o}=") for o in action.option_strings for w in words):
            continue
        if any(t.startswith(f"{key}=") for t in terms):
            continue
        value: object = project.settings[key]
        if key in ("records", "formulas"):
            value = project.files(key)
        elif key == "tolerance":
            value = action.type(value) if callable(action.type) else str(value)
        elif isinstance(action, argparse._AppendAction):
            value = [value]
        setattr(args, key, value)


def _json_error(exc: BaseException, status: int) -> int:
    """With --format json, an error is also a JSON document on stdout (the message stays on
    stderr for a person); returns `status`."""
    from napkinmath.cli.jsonout import error

    print(error(exc, status))
    return status


# --- output: encodings, control characters, closed and full streams ------------------------
#: ASCII spellings of the symbols napkinmath writes, for streams that cannot encode them.
_ASCII = {
    "×": "x",
    "·": "*",
    "÷": "/",
    "−": "-",
    "–": "-",
    "—": "-",
    "…": "...",
    "±": "+/-",
    "≤": "<=",
    "≥": ">=",
    "≈": "~",
    "≠": "!=",
    "→": "->",
    "←": "<-",
    "⇒": "=>",
    "↔": "<->",
    "✓": "OK",
    "✔": "OK",
    "✅": "OK",
    "✗": "X",
    "✘": "X",
    "❌": "X",
    "⚠": "!",
    "•": "*",
    "µ": "u",
    "μ": "u",
    "°": " deg",
    "√": "sqrt",
    "∞": "inf",
    "⌈": "ceil(",
    "⌉": ")",
    "⌊": "floor(",
    "⌋": ")",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "€": "EUR",
    "£": "GBP",
    "λ": "lambda",
    "Λ": "Lambda",
    "§": "sec. ",
    "≪": "<<",
    "≫": ">>",
    "≃": "~=",
    "ᵀ": "^T",
    "\u2044": "/",
}
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+", strict=True))
_SUPERSCRIPT_RUN = re.compile(f"[{''.join(_SUPERSCRIPTS)}]+")


def _fallback(text: str, encoding: str) -> str:
    """`text` with every character that `encoding` cannot write spelled in ASCII."""

    def encodable(part: str) -> bool:
        try:
            part.encode(encoding)
        except UnicodeError:
            return False
        return True

    def superscripts(match: re.Match) -> str:
        run = match.group()
        return run if encodable(run) else "^" + "".join(_SUPERSCRIPTS[c] for c in run)

    text = _SUPERSCRIPT_RUN.sub(superscripts, text)
    shown = []
    for char in text:
        if char.isascii() or encodable(char):
            shown.append(char)
            continue
        shown.append(_ASCII.get(char) or _spelled(char))
    return "".join(shown)


def _spelled(char: str) -> str:
    """δ delta, Ψ Psi, é e, ½ 1/2, a no-break space a space; else <U+XXXX>."""
    name = unicodedata.name(char, "")
    if name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ")) and " WITH " not in name:
        word = name.rpartition(" ")[2].lower()
        return word.capitalize() if "CAPITAL" in name else word
    plain = unicodedata.normalize("NFKD", char).replace("\u2044", "/")
    plain = plain.encode("ascii", "ignore").decode()
    return plain if plain and plain.isprintable() else f"<U+{ord(char):04X}>"


class _Output:
    """A text stream in front of stdout or stderr: spells what its encoding cannot write in
    ASCII and, with `escape`, shows control characters and bidi overrides as escapes. Not an
    io object of its own: it never closes, or flushes at garbage collection, the stream."""

    def __init__(self, stream, escape: bool) -> None:
        self.stream = stream
        self.escape = escape
        self.error: OSError | None = None  # the first write that failed
        try:
            self.codec = codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name
        except LookupError:
            self.codec = "ascii"

    def write(self, text: str) -> int:
        shown = visible(text, keep="\n\t") if self.escape else text
        try:
            shown.encode(self.codec)
        except UnicodeError:
            shown = _fallback(shown, self.codec)
        try:
            self.stream.write(shown)
        except OSError as exc:
            self.error = self.error or exc
            raise
        except ValueError:  # "I/O operation on closed file": an output that is gone
            self.error = self.error or OSError(errno.EBADF, "the output is closed")
            raise self.error from None
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def writable(self) -> bool:
        return True

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def isatty(self) -> bool:
        return _is_terminal(self.stream)

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    def __getattr__(self, name: str):  # buffer, errors, ...: the stream's own
        if name == "stream":
            raise AttributeError(name)
        return getattr(self.stream, name)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def say(line: str) -> None:
    """One message on stderr, escaped; nothing if stderr is gone too."""
    if sys.stderr is None:
        return
    try:
        print(visible(line, keep="\n"), file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _flush(stream, output: _Output | None = None, quiet: bool = False) -> None:
    """Flush `stream`; raise the error of a write that failed on the way (argparse, for one,
    ignores a failed write of its help), unless `quiet`."""
    if stream is None:
        return
    try:
        if output is not None and output.error is not None:
            raise output.error
        stream.flush()
    except ValueError:  # closed already: nothing is left to write
        return
    except OSError:
        if not quiet:
            raise
        _discard(stream)


def _discard(stream) -> None:
    """Point a stream that can no longer be written (a closed pipe, a full disk) at the null
    device, so that Python's own flush at exit does not fail with a traceback."""
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)


if __name__ == "__main__":
    sys.exit(main())
