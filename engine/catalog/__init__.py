"""The formula library as loaded: the shipped formulas (read from their snapshot, or declared
by importing `napkinmath.formulas`), your formulas over them, and lookup by name (`lookup`).

It sits above formulas/, which declare themselves with the vocabulary of
`napkinmath.library`. The names below load `lookup` (and sympy) on first use, so that
`napkinmath.catalog.names` can be imported without them.
"""

__all__ = ["check_dimensions", "dimension_of", "formulas", "variable", "variables"]


def __getattr__(name: str):
    if name in __all__:
        from napkinmath.catalog import lookup

        return getattr(lookup, name)
    raise AttributeError(f"module 'napkinmath.catalog' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
