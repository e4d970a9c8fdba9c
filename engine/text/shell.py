"""A money value the shell cut short: `"$2.50/GPU-hour"` in double quotes reaches napkin as
`.50/GPU-hour`, because the shell reads `$2` as its second argument (empty) and drops it
(POSIX shell, "Parameter Expansion": `$` followed by a digit is a positional parameter)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from napkinmath.text.variable import Variable

#: what is left of "$2.50/h", "$2/h", "$5" once the shell has taken "$2" or "$5"
_CUT = re.compile(r"\s*(\.[0-9]|/|$)")

_FIX = (
    "put the value in single quotes ('$2.50/GPU-hour') or write the currency as a unit "
    "('2.50 USD/GPU-hour')"
)


def is_money(variable: Variable) -> bool:
    """Whether `variable` is an amount of money (its dimension holds a currency)."""
    return "[currency]" in variable.dimensionality


def eaten_dollar(text: str, variable: Variable) -> str:
    """The message for money text that looks cut by the shell (`.50/GPU-hour`, `/h`, empty),
    else ""."""
    if not is_money(variable) or "$" in text or _CUT.match(text) is None:
        return ""
    return (
        f"{variable.name}={text!r} has no number in front: the shell ate a `$` (in double "
        f'quotes "$2.50/GPU-hour" reaches napkin as .50/GPU-hour, as $2 is read as a shell '
        f"argument); {_FIX}"
    )


def maybe_eaten(text: str, variable: Variable) -> str:
    """A note for money text without a currency: a `$` and the digit after it may have been
    taken by the shell (`"$25/h"` arrives as `5/h`); "" for text that is not money."""
    if not is_money(variable) or "$" in text:
        return ""
    return (
        "; if you typed a `$` in double quotes, the shell took it and the digit after it: " + _FIX
    )
