"""`napkin mcp`: napkinmath for AI assistants over the Model Context Protocol, on stdio
(`napkinmath.mcp_server`; needs the mcp extra: pip install 'napkinmath[mcp]')."""

from __future__ import annotations

import argparse


def options(parser: argparse.ArgumentParser) -> None:
    """The `mcp` command's usage and options."""
    parser.usage = "napkin mcp [--root FOLDER]"
    parser.description = (
        "Serve napkinmath's solve, check, audit, optimize, explain, vars and formulas to an "
        "AI assistant over the Model Context Protocol (stdio). Each tool's arguments have a "
        "JSON schema; each result is the JSON document --format json prints and the "
        "derivation as text. No file is read unless --root names a folder audit may read."
    )
    parser.add_argument(
        "--root",
        metavar="FOLDER",
        help="the folder whose files audit may read (default: none; texts only)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from napkinmath.mcp_server import server

    server(args.root).run("stdio")
    return 0
