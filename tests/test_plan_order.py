"""A plan never depends on what was analysed before it, and its blocks come in the order
networkx gives the condensation of "v's formula reads u"."""

import test_properties as props

import napkinmath as nm
from napkinmath.errors import NapkinError
from napkinmath.solving import plan, planner, solver
from napkinmath.solving.solver import bind


def _knowns(question) -> tuple[tuple[str, ...], frozenset[str]] | None:
    target, values, gpu = question
    try:
        return (target,), frozenset(bind((target,), values, gpu=gpu))
    except NapkinError:
        return None


def test_a_solve_answers_alike_after_other_questions():
    """The W12 derivation is the same text in a fresh process as after many questions."""
    w12 = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
    first = str(nm.solve("n_gpus", **w12))
    for question in props.questions(40, seed=3):
        props.answer(question)
    solver.plan_for.cache_clear()  # planned again, from the analyses the others left
    planner.planned.cache_clear()
    assert str(nm.solve("n_gpus", **w12)) == first


def _blocks_by_networkx(analysis, needed) -> list:
    """The block order by networkx: condensation, then the lexicographic topological order."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(sorted(needed))
    graph.add_edges_from((u, v) for v in sorted(needed) for u in analysis.reads.get(v, ()))
    order = nx.condensation(graph)
    members = nx.get_node_attributes(order, "members")
    return [
        (
            [f.name for f in dict.fromkeys(analysis.computed_by[n] for n in sorted(members[node]))],
            sorted(members[node]),
        )
        for node in nx.lexicographical_topological_sort(order, key=lambda n: min(members[n]))
    ]


def test_blocks_are_ordered_as_networkx_orders_the_condensation():
    compared = coupled = 0
    for question in props.questions(200, seed=8):
        found = _knowns(question)
        if found is None:
            continue
        analysis = plan.independent_analysis(found[1])
        for names in ([n] for n in [*sorted(analysis.determined), None]):
            needed = analysis.ancestors(analysis.determined if names == [None] else names)
            mine = [
                ([f.name for f in b.formulas], [v.name for v in b.unknowns])
                for b in plan.blocks_of(analysis, needed)
            ]
            assert mine == _blocks_by_networkx(analysis, needed), (names, sorted(found[1]))
            compared += 1
            coupled += bool(analysis.coupled & needed)
    assert compared > 1000 and coupled > 10, (compared, coupled)
