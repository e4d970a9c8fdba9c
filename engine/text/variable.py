"""What reading a given needs to know of its variable: a Protocol that the library's
`napkinmath.library.declare.Variable` satisfies, so that text/ reads values without
importing the library above it."""

from __future__ import annotations

from typing import Protocol

import pint


class Admissible(Protocol):
    """The values a variable admits (`napkinmath.library.declare.Bounds`)."""

    @property
    def hi(self) -> float: ...

    def contains(self, x: float) -> bool: ...


class Variable(Protocol):
    """A named quantity: its name, meaning, unit and admissible values."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def unit(self) -> pint.Unit: ...

    @property
    def dimensionality(self) -> pint.util.UnitsContainer: ...

    @property
    def bounds(self) -> Admissible: ...

    def __hash__(self) -> int: ...  # readings are memoised by variable
