"""Scenario files: a capacity plan written as a file and answered as one report.

    p = napkinmath.plan("examples/startup-7b.toml")   # or plan({...}) from a dict
    p.answers["n_gpus"], p.warnings, p.to_markdown(), p.to_html(), p.write("plan.pdf")
    p.optimizations[0].optimum.best_candidate, p.to_dict()   # [[optimizations]], JSON

The file format is described in `napkinmath.scenario.load`; answering in
`napkinmath.scenario.answer`.
"""

from napkinmath.scenario.answer import Plan, plan
from napkinmath.scenario.load import Scenario, load

__all__ = ["Plan", "Scenario", "load", "plan"]
