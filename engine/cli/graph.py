"""`napkin graph`: the formulas around a variable, as text or as Graphviz DOT.

napkin graph mfu                          # the formulas that mention mfu, with their variables
napkin graph train_time --depth 2 --format dot | dot -Tsvg > train_time.svg
"""

from __future__ import annotations

import argparse

EXAMPLES = """\
examples:
  napkin graph mfu
  napkin graph train_time --depth 2 --format dot | dot -Tsvg > train_time.svg
  napkin graph --format dot > library.dot          # the whole library
"""


def options(parser: argparse.ArgumentParser) -> None:
    """`napkin graph`'s description and options (its line in `napkin --help` is in
    `napkinmath.cli.main`)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.description = (
        "Show the formulas that mention a variable and the variables they "
        "link it to; --format dot writes Graphviz DOT, nodes and edges in "
        "sorted order; --format json a document (docs/json.md)."
    )
    parser.add_argument(
        "target",
        nargs="?",
        metavar="VARIABLE|FORMULA",
        help="the variable or formula at the centre (default: the whole library)",
    )
    parser.add_argument(
        "--depth",
        type=int,
        default=1,
        help="how many formulas away from VARIABLE to go (default 1)",
    )
    parser.add_argument("--format", choices=("text", "dot", "json"), default="text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from napkinmath.catalog.objects import graph, to_dot

    g = graph(args.target, depth=args.depth) if args.target else graph()
    if args.format == "dot":
        print(to_dot(g, highlight=args.target))
        return 0
    if args.format == "json":
        from napkinmath.cli.jsonout import document
        from napkinmath.rendering import listings

        print(document("graph", listings.graph(g, args.target, args.depth)))
        return 0
    found = sorted(name for kind, name in g.nodes if kind == "formula")
    if not found:
        print(f"{args.target}: no formula mentions it")
        return 0
    width = max(len(name) for name in found)
    for name in found:
        linked = sorted(v for _, v in g.neighbors(("formula", name)))
        print(f"{name.ljust(width)}  {', '.join(linked)}")
    return 0
