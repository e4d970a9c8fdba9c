"""The answer's plan reuses the consistency checks' analysis of the whole independent library
(issue 12): restricted to the targets' scope, it must equal the scope analysed alone, field by
field and order by order, so that a plan never depends on what was analysed before it."""

import pytest
import test_properties as props

import napkinmath as nm
from napkinmath.errors import NapkinError
from napkinmath.solving import plan
from napkinmath.solving.solver import bind


def _knowns(question) -> tuple[tuple[str, ...], frozenset[str]] | None:
    target, values, gpu = question
    try:
        return (target,), frozenset(bind((target,), values, gpu=gpu))
    except NapkinError:
        return None


def _fields(analysis) -> tuple:
    return (
        analysis.determined,
        list(analysis.computed_by.items()),
        list(analysis.reads.items()),
        analysis.leftover,
        analysis.coupled,
    )


@pytest.mark.parametrize("seed", [5, 6])
def test_the_whole_analysis_restricted_to_a_scope_is_the_scope_analysed_alone(seed):
    independent = plan._formula_sets().sets[0]
    compared = 0
    for question in props.questions(150, seed=seed):
        found = _knowns(question)
        if found is None:
            continue
        targets, knowns = found
        for known in (knowns, knowns - {sorted(knowns)[0]} if knowns else knowns):
            names = independent & plan.relevant_formulas(targets, known)
            alone = plan.analyse_formulas.__wrapped__(known, names)
            within = plan._within(plan.independent_analysis(known), names)
            assert _fields(within) == _fields(alone), (targets, sorted(known))
            compared += 1
    assert compared > 200


def test_a_plan_is_the_same_with_the_whole_analysis_known_or_not():
    question = ("n_gpus", dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4), "H100-SXM")
    targets, knowns = _knowns(question)
    plan._INDEPENDENT.clear()
    plan.structural_plan.cache_clear()
    alone = plan.structural_plan(targets, knowns)
    plan.structural_plan.cache_clear()
    plan.independent_analysis(knowns)
    assert (None, knowns) in plan._INDEPENDENT  # the library alone in force
    reused = plan.structural_plan(targets, knowns)
    assert reused == alone and reused is not alone
    assert [b.unknowns[0].name for b in reused.blocks] == ["train_compute", "n_gpus"]


def test_the_whole_analyses_kept_are_bounded():
    for n in range(300):
        plan.independent_analysis(frozenset({"params", f"not_a_variable_{n}"}))
    assert len(plan._INDEPENDENT) <= 256


def test_a_solve_answers_alike_after_other_questions():
    """The W12 derivation is the same text in a fresh process as after many questions."""
    w12 = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
    first = str(nm.solve("n_gpus", **w12))
    for question in props.questions(40, seed=3):
        props.answer(question)
    plan.structural_plan.cache_clear()
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
    for question in props.questions(120, seed=8):
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
