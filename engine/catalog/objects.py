"""The library as objects: one formula by name, and the formula-variable graph.

nm.formula("fleet_equation")      # the Formula: .equation (sympy Eq), .variables, .source
nm.graph()                        # networkx bipartite graph, formulas and variables as nodes
nm.graph("mfu", depth=1)          # the formulas that mention mfu, and their variables
to_dot(nm.graph("mfu"))           # Graphviz DOT text (`napkin graph mfu --format dot`)
"""

from __future__ import annotations

import networkx as nx

from napkinmath import arguments
from napkinmath.catalog.lookup import formulas, unknown_message, variable
from napkinmath.errors import UnknownNameError
from napkinmath.library.declare import Formula


def formula(name: str) -> Formula:
    """The formula called `name` (its sympy equation, variables, source and title)."""
    name = arguments.name(
        name, "name", kind="formula", example="fleet_equation", listing="napkin formulas"
    )
    known = formulas()
    if name not in known:
        raise UnknownNameError(
            unknown_message("formula", name, known) + " (list them with `napkin formulas`)", name
        )
    return known[name]


def graph(around: str | None = None, depth: int = 1) -> nx.Graph:
    """The bipartite formula-variable graph: nodes ('formula', name) with bipartite=0 and
    ('variable', name) with bipartite=1, an edge where a formula mentions a variable.

    With `around` (a variable name), only the part within `depth` formulas of it: depth 1 is
    the formulas that mention it and their variables; a formula name gives that formula and
    its variables (and with depth 2, the formulas that share them)."""
    arguments.whole(depth, "depth", low=1, what="a whole number of formulas")
    if around is not None:
        around = arguments.name(
            around, "around", kind="variable or formula", example="mfu", listing="napkin vars"
        )
    g = nx.Graph()
    for f in formulas().values():
        g.add_node(
            ("formula", f.name), bipartite=0, title=f.title, source=f.source, subject=f.subject
        )
        for v in f.variables:
            g.add_node(("variable", v.name), bipartite=1, unit=str(v.unit))
            g.add_edge(("formula", f.name), ("variable", v.name))
    if around is None:
        return g
    if ("formula", around) in g and ("variable", around) not in g:
        return nx.ego_graph(g, ("formula", around), radius=2 * depth - 1).copy()
    variable(around)  # an unknown name is an UnknownNameError with suggestions
    if ("variable", around) not in g:  # a variable no formula mentions
        alone = nx.Graph()
        alone.add_node(("variable", around), bipartite=1)
        return alone
    return nx.ego_graph(g, ("variable", around), radius=2 * depth).copy()


def to_dot(g: nx.Graph, highlight: str | None = None) -> str:
    """Graphviz DOT text of a formula-variable graph, nodes and edges in sorted order (the
    same graph gives the same bytes): formulas as boxes, variables as ellipses, the variable
    `highlight` filled."""
    from napkinmath.catalog.lookup import variables
    from napkinmath.units import format_unit

    known = variables()
    lines = [
        "graph napkinmath {",
        "  // formulas are boxes, variables ellipses; an edge: the formula mentions the variable",
        "  graph [rankdir=LR];",
        '  node [fontname="Helvetica", fontsize=10];',
    ]
    for kind, name in sorted(g.nodes):
        if kind == "formula":
            label = f"{g.nodes[(kind, name)].get('title', name)}\\n{name}"
            lines.append(f'  {_id(kind, name)} [shape=box, label="{_quoted(label)}"];')
        else:
            unit = format_unit(known[name].unit) if name in known else ""
            label = f"{name}\\n{unit}" if unit else name
            fill = ", style=filled, fillcolor=lightyellow" if name == highlight else ""
            lines.append(f'  {_id(kind, name)} [shape=ellipse, label="{_quoted(label)}"{fill}];')
    edges = sorted(tuple(sorted(edge)) for edge in g.edges)
    lines += [f"  {_id(*a)} -- {_id(*b)};" for a, b in edges]
    lines.append("}")
    return "\n".join(lines)


def _id(kind: str, name: str) -> str:
    return f'"{kind[0]}:{_quoted(name)}"'


def _quoted(text: str) -> str:
    """Text for inside a DOT double-quoted string (a '\\n' we wrote stays a line break)."""
    return text.replace('"', '\\"')
