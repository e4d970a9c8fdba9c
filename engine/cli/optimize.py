"""`napkin optimize`: the smallest, cheapest or fastest plan that fits.

    napkin optimize --minimize n_gpus params=7B tokens=1T train_time="<= 3 weeks" mfu=0.4 \\
        --gpu H100-SXM --over n_gpus="whole nodes"
"""

from __future__ import annotations

import argparse
import re
import sys

from napkinmath.errors import NapkinError

EXAMPLES = """\
examples:
  napkin optimize --minimize n_gpus params=7B tokens=1T train_time="<= 3 weeks" mfu=0.4 \\
      --gpu H100-SXM --over n_gpus="whole nodes"
  napkin optimize --minimize cost_per_million_tokens --over batch_size,n_gpus \\
      --model llama-3-70b --gpu H100-SXM,MI300X,Trainium2 seq_len=8192 \\
      --require "time_per_output_token <= 50 ms"
  napkin optimize --minimize n_gpus --model qwen3-235b-a22b --gpu H100 seq_len=8192 batch_size=32
  napkin optimize --maximize mfu_predicted --over tp,dp,recompute,zero_stage \\
      --over virtual_pipeline_stages --over pp="powers of two:1..32" --over batch_size=1..4 \\
      --model llama-3-405b --gpu H100 n_gpus=16384 seq_len=8192 global_batch_tokens=16Mi

a domain is 'whole nodes[:1..512]', 'powers of two[:1..64]', 'divisors[:N]', a..b (every whole
number for a count, continuous otherwise), a..b:log:N, or a list a,b,c; dp follows n_gpus /
(tp·pp·cp) by default. Every library constraint the question determines applies, with the
requirements you give (--require, or a given written name="<= value"). At most 2,000,000
candidates, counted before any work.
"""

_REQUIREMENT_TERM = re.compile(r"^\s*[A-Za-z_]\w*\s*(<=|>=|<|>|≤|≥)")


def options(parser: argparse.ArgumentParser) -> None:
    """`napkin optimize`'s usage, description and options."""
    from napkinmath.cli.main import PRECISIONS

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.usage = (
        "napkin optimize --minimize|--maximize TARGET [--over NAME[=DOMAIN]] "
        "[--require 'NAME <= VALUE'] name=value ... [options]"
    )
    parser.description = (
        "Search every candidate of the decision variables' domains (vectorised), and show the "
        "best that meets every constraint with its derivation, its neighbours and why they "
        "lose, and the binding constraints' exact boundaries."
    )
    parser.add_argument(
        "terms", nargs="*", metavar="name=value", help="givens; name='<= value' is a requirement"
    )
    parser.add_argument("--minimize", action="append", default=[], metavar="TARGET")
    parser.add_argument("--maximize", action="append", default=[], metavar="TARGET")
    parser.add_argument(
        "--over",
        action="append",
        default=[],
        metavar="NAME[,NAME]|NAME=DOMAIN",
        help="decision variables (default domains), or one with its domain; repeatable",
    )
    parser.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="'NAME OP VALUE'",
        help="a constraint of your own, such as 'train_time <= 30 days'; repeatable",
    )
    parser.add_argument("--gpu", action="append", help="accelerator record, or a comma list")
    parser.add_argument("--model", action="append", help="model record, or a comma list")
    parser.add_argument("--precision", choices=PRECISIONS)
    parser.add_argument("--format", choices=("text", "markdown", "json", "csv"), default="text")
    parser.add_argument("--top", type=int, default=5, help="runners-up to list (default 5)")
    parser.add_argument(
        "--max-candidates", type=int, default=None, help="refuse a search past N candidates"
    )
    parser.add_argument(
        "--no-derivation", action="store_true", help="leave out the best candidate's derivation"
    )
    parser.add_argument("--tolerance", type=float, default=0.01)
    parser.add_argument(
        "--strict", action="store_true", help="exit with status 1 when no candidate fits"
    )
    parser.add_argument("--csv", metavar="FILE", help="also write every candidate as CSV")
    parser.add_argument("--json", metavar="FILE", help="also write the answer as JSON")
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="also plot the objective against the first decision (two: their Pareto front)",
    )
    parser.set_defaults(handler=run)


def _over(items: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        if sep:
            out[name.strip()] = spec.strip()
            continue
        for part in item.split(","):
            if part.strip():
                out[part.strip()] = None
    return out


def _givens(terms: list[str]) -> dict[str, str]:
    """name=value terms; a bare name is a target, which optimize takes as --minimize/--maximize."""
    givens: dict[str, str] = {}
    for term in terms:
        name, sep, value = term.partition("=")
        name = name.strip()
        if not sep:
            raise NapkinError(
                f"{term}: say what to optimise with --minimize {name} or --maximize {name}; "
                "every other term is a given name=value"
            )
        if not name:
            raise NapkinError(f"{term!r}: a given needs a name before '=', like mfu=0.4")
        if name in givens:
            raise NapkinError(f"{name} is given twice")
        givens[name] = value.strip()
    return givens


def run(args: argparse.Namespace) -> int:
    from napkinmath.cli.jsonout import document
    from napkinmath.cli.main import RECORD_TERMS, keywords, record_terms
    from napkinmath.cli.whatif import (
        check_outputs,
        file_options,
        input_options,
        record_options,
        writing_options,
    )
    from napkinmath.whatif.optimize import optimize
    from napkinmath.writing import write_output

    check_outputs(args)
    requirements = list(args.require)
    terms = []
    for term in args.terms:
        if _REQUIREMENT_TERM.match(term):  # train_time<=3weeks, written without '='
            requirements.append(term)
        else:
            terms.append(term)
    givens = _givens(terms)
    objectives = [*args.minimize, *args.maximize]
    if not objectives:
        raise NapkinError(
            "optimise what? give --minimize TARGET or --maximize TARGET (two for a Pareto front)"
        )
    chosen = record_terms(args, givens, "optimize", RECORD_TERMS)
    options = {
        "maximize": list(args.maximize),
        "over": _over(args.over) or None,
        "require": requirements,
        "gpu": record_options(chosen.get("gpu")),
        "model": record_options(chosen.get("model")),
        "precision": chosen.get("precision"),
        "tolerance": args.tolerance,
        "top": args.top,
        "achievable": args.achievable,
        **({"max_candidates": args.max_candidates} if args.max_candidates is not None else {}),
    }
    optimum = optimize(objectives, **keywords(options, givens, "optimize"))
    if args.plot:
        optimum.check_plot()
    render = {
        "text": lambda: optimum.text(derivation=not args.no_derivation),
        "markdown": optimum.to_markdown,
        "json": lambda: document("optimum", optimum.to_dict()),
        "csv": lambda: optimum.to_csv().rstrip("\n"),
    }
    print(render[args.format]())
    if args.json:
        with writing_options(args.json):
            text = document("optimum", optimum.to_dict()) + "\n"
            write_output(args.json, text, inputs=input_options(args))
        print(f"wrote {args.json}", file=sys.stderr)
    file_options(optimum, args)  # --csv and --plot, as sweep and compare write them
    if args.strict and not optimum.fits:
        print(f"napkin: --strict: {optimum.warnings[0]}", file=sys.stderr)
        return 1
    return 0
