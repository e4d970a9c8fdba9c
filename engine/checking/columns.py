"""The columns of a claims table, and the errors that name a column a table should not have.

A claims table has a fixed set of columns (with a few aliases); any other column gives a
value to a name the claim's expression uses (`n`, `params`). A column that is neither is an
error, never a value taken silently: a misspelt `claimd` or `tolerence` would otherwise be a
given that nothing uses, and the row would pass on a default.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from napkinmath.errors import InputError
from napkinmath.text.escape import clip, visible

#: Each column name (lower case) and the column it stands for.
COLUMNS = {
    "id": "id",
    "name": "id",
    "label": "id",
    "claim_id": "id",
    "quantity": "quantity",
    "variable": "quantity",
    "expression": "expression",
    "expr": "expression",
    "claimed": "claimed",
    "claim": "claimed",
    "value": "claimed",
    "expected": "claimed",
    "expect": "claimed",
    "unit": "unit",
    "tolerance": "tolerance",
    "tol": "tolerance",
    "gpu": "gpu",
    "model": "model",
    "context": "context",
    "source": "source",
    "note": "note",
    "notes": "note",
    "comment": "note",
}
#: The columns, each once, in the order a message lists them.
CANONICAL = tuple(dict.fromkeys(COLUMNS.values()))
#: Columns a context cell may set ("gpu=H100-SXM; tolerance=1%"); the others (id, claimed,
#: expression ...) have their own visible columns, which a context must not override.
CONTEXT_COLUMNS = ("gpu", "model", "tolerance")
#: How close (difflib's ratio) a name must be to a column's to be taken for a misspelling of
#: it: 'claimd', 'expresion', 'tolerence', 'modle' are; 'n', 'params', 'n_gpus' are not.
NEAR = 0.8
#: How close a name must be to be suggested in an error that is raised anyway.
SUGGEST = 0.7
#: What a message may quote of a column name from a file (a cell that does not look like a
#: name, the secret in a file that is not a table, is not shown).
SAFE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_ .()-]{0,39}")


class UnknownColumnError(InputError):
    """A row has a column that is neither a claims column nor a value the claim uses."""


def column_of(name: object) -> str | None:
    """The claims column `name` stands for (case does not matter), or None."""
    return COLUMNS.get(str(name).strip().lower())


def closest(name: str, cutoff: float = SUGGEST) -> str | None:
    """The claims column nearest to `name` (difflib), if any is at least `cutoff` close."""
    match = difflib.get_close_matches(name.strip().lower(), list(COLUMNS), n=1, cutoff=cutoff)
    return COLUMNS[match[0]] if match else None


def near_miss(name: str) -> str | None:
    """The claims column that `name` is a misspelling of ('claimd' -> 'claimed'), or None."""
    return None if column_of(name) else closest(name, NEAR)


def shown(name: object) -> str:
    """A column name as a message quotes it: escaped, clipped, never a file's contents."""
    text = str(name).strip()
    return repr(visible(clip(text, 40))) if SAFE_NAME.fullmatch(text) else "(a column)"


def allowed() -> str:
    """The columns a table may have, for an error message."""
    return (
        f"the claims columns are {', '.join(CANONICAL)}; any other column gives a value "
        "to a name the claim's expression uses"
    )


def misspelt(name: str, where: str) -> UnknownColumnError:
    """The error for a column that looks like a claims column but is not one."""
    return UnknownColumnError(
        f"{where}: column {shown(name)} is not a claims column: did you mean "
        f"{near_miss(name)!r}? ({allowed()}, and must not look like a claims column)"
    )


def unused(names: list[str], where: str, row: Mapping) -> UnknownColumnError:
    """The error for columns (or values of a context cell) that are not claims columns and
    that the claim does not use."""
    parts = []
    for name in names:
        guess = closest(name)
        kind = "column" if name in row else "context value"
        parts.append(f"{kind} {shown(name)}" + (f" (did you mean {guess!r}?)" if guess else ""))
    one = len(parts) == 1
    return UnknownColumnError(
        f"{where}: {', '.join(parts)} {'is' if one else 'are'} not a claims column, and the "
        f"claim does not use {'it' if one else 'them'} as a value: {allowed()}. Rename it, "
        "or leave it empty in this row"
    )
