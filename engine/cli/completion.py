"""`napkin completion SHELL`: a completion script (shtab) that completes subcommands and
flags, and also the library's names: variables (solve's targets and `name=` givens, sweep,
compare, optimize, check, graph, vars) and records (`--gpu`, `--model`, `napkin hardware
NAME`). The names are written into the script when it is made, sorted, so completing is
instant and needs no Python; make the script again after adding records or formulas.

    napkin completion bash > ~/.local/share/bash-completion/completions/napkin
    napkin completion zsh  > ~/.zfunc/_napkin
    napkin completion fish > ~/.config/fish/completions/napkin.fish
    napkin completion tcsh > ~/.local/share/tcsh_completion/napkin
"""

from __future__ import annotations

import argparse
import re

SHELLS = ("bash", "zsh", "fish", "tcsh")
#: the positional arguments that take variable names, by command
_VARIABLE_ARGS = {
    "solve": "terms",
    "sweep": "terms",
    "compare": "terms",
    "optimize": "terms",
    "check": "terms",
    "graph": "target",
    "vars": "query",
}
#: a name safe to write unquoted into every shell's script
_SAFE = re.compile(r"^[A-Za-z0-9_.+\-]+$")


def _names_completer(kind: str, names: list[str]) -> dict[str, object]:
    """shtab's `complete` for a fixed list: a bash function (in the preamble), a zsh list,
    a tcsh command and fish words."""
    words = " ".join(n for n in names if _SAFE.match(n))
    function = f"_napkin_{kind}"
    return {
        "bash": function,
        "zsh": f"({words})",
        "tcsh": f"`echo {words}`",
        "fish": words,
        "preamble": {"bash": f'{function}() {{ compgen -W "{words}" -- "$1"; }}'},
    }


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script for `shell`, with the library's names attached to `parser`'s
    arguments (shtab reads `action.complete`)."""
    import shtab

    from napkinmath.catalog.lookup import variables
    from napkinmath.hardware import listed

    records = sorted({name for r in listed().values() for name in (r.id, *r.aliases)})
    by_kind = {
        "variables": _names_completer("variables", sorted(variables())),
        "records": _names_completer("records", records),
    }
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.dest in ("gpu", "model") and action.option_strings:
                action.complete = by_kind["records"]
            elif not action.option_strings and (
                _VARIABLE_ARGS.get(name) == action.dest
                or (name == "hardware" and action.dest == "name")
            ):
                kind = "records" if name == "hardware" else "variables"
                action.complete = by_kind[kind]
    return shtab.complete(parser, shell=shell)
