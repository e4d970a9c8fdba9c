"""The formula library's vocabulary (`declare`) and its lookup and dimension checks (`lookup`).

The names below load `lookup` (and sympy) on first use, so that `napkinmath.library.names`
can be imported without them.
"""

__all__ = ["check_dimensions", "dimension_of", "formulas", "variable", "variables"]


def __getattr__(name: str):
    if name in __all__:
        from napkinmath.library import lookup

        return getattr(lookup, name)
    raise AttributeError(f"module 'napkinmath.library' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
