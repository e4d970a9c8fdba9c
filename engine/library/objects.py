"""The library as objects: one formula by name, and the formula-variable graph.

    nm.formula("fleet_equation")      # the Formula: .equation (sympy Eq), .variables, .source
    nm.graph()                        # networkx bipartite graph, formulas and variables as nodes
"""

from __future__ import annotations

import networkx as nx

from napkinmath.errors import UnknownNameError
from napkinmath.library.declare import Formula
from napkinmath.library.lookup import _unknown_message, formulas


def formula(name: str) -> Formula:
    """The formula called `name` (its sympy equation, variables, source and title)."""
    known = formulas()
    if name not in known:
        raise UnknownNameError(_unknown_message("formula", name, known) +
                               " (list them with `napkin formulas`)", name)
    return known[name]


def graph() -> nx.Graph:
    """The bipartite formula-variable graph: nodes ('formula', name) with bipartite=0 and
    ('variable', name) with bipartite=1, an edge where a formula mentions a variable."""
    g = nx.Graph()
    for f in formulas().values():
        g.add_node(("formula", f.name), bipartite=0, title=f.title, source=f.source,
                   subject=f.subject)
        for v in f.variables:
            g.add_node(("variable", v.name), bipartite=1, unit=str(v.unit))
            g.add_edge(("formula", f.name), ("variable", v.name))
    return g
