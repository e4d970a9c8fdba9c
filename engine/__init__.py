"""napkinmath: the arithmetic of AI infrastructure, with units and a derivation for every answer.

    >>> import napkinmath as nm
    >>> r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4,
    ...              gpu="H100-SXM")
    >>> print(r)            # the derivation, step by step
"""

from napkinmath.errors import (
    InconsistentError,
    InputError,
    NapkinError,
    NoRootError,
    NotInvertibleError,
    ParseError,
    UnderDeterminedError,
    UnknownNameError,
)
from napkinmath.units import Quantity, ureg

__all__ = [
    "InconsistentError",
    "InputError",
    "NapkinError",
    "NoRootError",
    "NotInvertibleError",
    "ParseError",
    "Quantity",
    "Result",
    "UnderDeterminedError",
    "UnknownNameError",
    "check",
    "check_claims",
    "formulas",
    "hardware",
    "solve",
    "ureg",
    "variables",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    """Load the solver and the library on first use, keeping `import napkinmath` light."""
    if name in ("solve", "Result"):
        from napkinmath.solving import solver as _solve_module

        return getattr(_solve_module, name)
    if name == "check":
        from napkinmath.checking.expression import check

        return check
    if name == "check_claims":
        from napkinmath.checking.claims import check_claims

        return check_claims
    if name == "variables":
        from napkinmath.library.lookup import variables

        return variables
    if name == "formulas":
        import importlib

        return importlib.import_module(".formulas", __name__)
    if name == "hardware":
        import importlib

        return importlib.import_module(".hardware", __name__)
    raise AttributeError(f"module 'napkinmath' has no attribute {name!r}")
