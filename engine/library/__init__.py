"""The formula library's vocabulary (`declare`) and its lookup and dimension checks (`lookup`)."""

from napkinmath.library.lookup import (
    check_dimensions,
    dimension_of,
    formulas,
    variable,
    variables,
)

__all__ = ["check_dimensions", "dimension_of", "formulas", "variable", "variables"]
