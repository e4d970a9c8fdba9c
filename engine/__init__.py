"""napkinmath: the arithmetic of AI infrastructure, with units and a derivation for every answer.

>>> import napkinmath as nm
>>> r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4,
...              gpu="H100-SXM")
>>> print(r)            # the derivation, step by step
"""

from typing import TYPE_CHECKING

from napkinmath.answer import printers as _answer_printers
from napkinmath.errors import (
    InconsistentError,
    InputError,
    NapkinError,
    NoRootError,
    NotInvertibleError,
    NumericError,
    ParseError,
    UnderDeterminedError,
    UnknownNameError,
)
from napkinmath.text import references as _references

# The lazily loaded names (see __getattr__). For type checkers and IDEs these imports are the
# module's names: __getattr__ is hidden from them, so that a misspelt `nm.sovle` is an error.
if TYPE_CHECKING:
    from napkinmath import formulas, hardware
    from napkinmath.answer.result import Result
    from napkinmath.catalog.lookup import constraints, variable, variables
    from napkinmath.catalog.objects import formula, graph
    from napkinmath.catalog.user import user_formulas
    from napkinmath.checking.audit import audit
    from napkinmath.checking.claims import ClaimsReport, check_claims
    from napkinmath.checking.expression import check
    from napkinmath.checking.outcome import CheckResult
    from napkinmath.checking.reconcile import Reconciliation, reconcile
    from napkinmath.questions import solve
    from napkinmath.scenario.answer import Plan, plan
    from napkinmath.text.values import to_registry
    from napkinmath.units import Quantity, ureg
    from napkinmath.whatif.answers import RangeResult, SampleResult
    from napkinmath.whatif.compare import Comparison, compare
    from napkinmath.whatif.frames import to_frame
    from napkinmath.whatif.gap import GapBudget, gap
    from napkinmath.whatif.optimize import optimize
    from napkinmath.whatif.optimum import Optimum
    from napkinmath.whatif.sensitivity import Sensitivity
    from napkinmath.whatif.spread import Interval, lognormal, normal, uniform
    from napkinmath.whatif.sweep import sweep
    from napkinmath.whatif.table import Table

__all__ = [
    "CheckResult",
    "ClaimsReport",
    "Comparison",
    "GapBudget",
    "InconsistentError",
    "InputError",
    "Interval",
    "NapkinError",
    "NoRootError",
    "NotInvertibleError",
    "NumericError",
    "Optimum",
    "ParseError",
    "Plan",
    "Quantity",
    "RangeResult",
    "Reconciliation",
    "Result",
    "SampleResult",
    "Sensitivity",
    "Table",
    "UnderDeterminedError",
    "UnknownNameError",
    "audit",
    "check",
    "check_claims",
    "clear_caches",
    "compare",
    "constraints",
    "formula",
    "formulas",
    "gap",
    "graph",
    "hardware",
    "lognormal",
    "normal",
    "optimize",
    "plan",
    "reconcile",
    "solve",
    "sweep",
    "to_frame",
    "to_registry",
    "uniform",
    "ureg",
    "user_formulas",
    "variable",
    "variables",
]
#: what-if names, loaded (with numpy) only when first used
_WHATIF = {
    "sweep": "napkinmath.whatif.sweep",
    "compare": "napkinmath.whatif.compare",
    "lognormal": "napkinmath.whatif.spread",
    "normal": "napkinmath.whatif.spread",
    "uniform": "napkinmath.whatif.spread",
    "Interval": "napkinmath.whatif.spread",
    "RangeResult": "napkinmath.whatif.answers",
    "SampleResult": "napkinmath.whatif.answers",
    "Table": "napkinmath.whatif.table",
    "Comparison": "napkinmath.whatif.compare",
    "Sensitivity": "napkinmath.whatif.sensitivity",
    "to_frame": "napkinmath.whatif.frames",
    "gap": "napkinmath.whatif.gap",
    "GapBudget": "napkinmath.whatif.gap",
    "optimize": "napkinmath.whatif.optimize",
    "Optimum": "napkinmath.whatif.optimum",
    "solve": "napkinmath.questions",
    "Result": "napkinmath.answer.result",
    "formula": "napkinmath.catalog.objects",
    "graph": "napkinmath.catalog.objects",
    "variable": "napkinmath.catalog.lookup",
    "constraints": "napkinmath.catalog.lookup",
    "plan": "napkinmath.scenario.answer",
    "Plan": "napkinmath.scenario.answer",
    "CheckResult": "napkinmath.checking.outcome",
    "ClaimsReport": "napkinmath.checking.claims",
    "to_registry": "napkinmath.text.values",
    "audit": "napkinmath.checking.audit",
    "reconcile": "napkinmath.checking.reconcile",
    "Reconciliation": "napkinmath.checking.reconcile",
    "user_formulas": "napkinmath.catalog.user",
}
__version__ = "0.1.0"


def _record(name: str) -> "_references.Record":
    """The record called `name` in force (`napkinmath.hardware.get`, imported on first use)."""
    from napkinmath.hardware import get

    return get(name)


# Text reads RECORD.key values ("H100-SXM.peak_flops") from the records, a layer above it.
_references.use(_record)


def clear_caches(*, disk: bool = False) -> None:
    """Empty every in-memory cache (`napkinmath.caches`); with `disk`, also remove the disk
    cache's entries (`napkinmath.cache`). The next question computes again what it needs."""
    from napkinmath import caches

    caches.clear_caches()
    if disk:
        from napkinmath import cache

        cache.clear()


# An answer is data below its printers and what-ifs (`napkinmath.answer`); here it learns
# where they are: `napkinmath.printing`, which imports each printer when first asked.
def _printers() -> "_answer_printers.Printers":
    from napkinmath.printing import PRINTERS

    return PRINTERS


_answer_printers.use(_printers)


if not TYPE_CHECKING:  # a module __getattr__ would make every misspelt name `Any` to mypy

    def __getattr__(name: str) -> object:
        """Load the solver and the library on first use, keeping `import napkinmath` light;
        each name is then kept in the module, so that the next `nm.solve` is a plain
        attribute."""
        value = _load(name)
        globals()[name] = value
        return value


def _load(name: str) -> object:
    if name in ("Quantity", "ureg"):  # pint, loaded on first use (not for `napkin --help`)
        from napkinmath import units

        return getattr(units, name)
    if name == "check":
        from napkinmath.checking.expression import check

        return check
    if name == "check_claims":
        from napkinmath.checking.claims import check_claims

        return check_claims
    if name == "variables":
        from napkinmath.catalog.lookup import variables

        return variables
    if name == "formulas":
        import importlib

        return importlib.import_module(".formulas", __name__)
    if name == "hardware":
        import importlib

        return importlib.import_module(".hardware", __name__)
    if name in _WHATIF:
        import importlib

        return getattr(importlib.import_module(_WHATIF[name]), name)
    raise AttributeError(f"module 'napkinmath' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_WHATIF})
