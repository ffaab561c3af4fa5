"""The budgeted relevance search (LazyGraphRAG's query): never over budget, communities pruned
with their descendants, neighbours of relevant text units tested at the end."""

import asyncio

from neo4j_retag.query.lazy import Claim, rank_claims
from neo4j_retag.query.lazy_search import Hierarchy, level_plan, search

UNITS = [f"u{i:02d}" for i in range(40)]


def hier() -> Hierarchy:
    # two roots: A (u00-u19) and B (u20-u39), each with two children of ten units
    level_of = {1: 0, 2: 0, 11: 1, 12: 1, 21: 1, 22: 1}
    parent = {1: None, 2: None, 11: 1, 12: 1, 21: 2, 22: 2}

    def comms(i: int) -> list[int]:
        root = 1 if i < 20 else 2
        return [root, root * 10 + 1 + (i % 20 >= 10)]

    nb: dict[str, list[str]] = {}
    for a, b in zip(UNITS, UNITS[1:], strict=False):
        nb.setdefault(a, []).append(b)
        nb.setdefault(b, []).append(a)
    return Hierarchy(level_of, parent, {u: comms(i) for i, u in enumerate(UNITS)}, nb)


def run(ranked, budget, relevant):
    calls: list[list[str]] = []

    async def test(batch):
        calls.append(batch)
        return [None if u == "fail" else u in relevant for u in batch]
    return asyncio.run(search(ranked, hier(), budget, test)), calls


def test_budget_is_spent_exactly_when_everything_is_relevant():
    for budget in (1, 7, 12, 39):
        out, calls = run(UNITS[::-1], budget, set(UNITS))
        assert out.spent == budget == sum(map(len, calls))
        assert len(set(out.tested)) == budget  # no text unit tested twice


def test_irrelevant_branch_is_pruned_with_its_descendants():
    relevant = set(UNITS[:10])  # community 11 only
    # B and A interleaved
    ranked = [u for pair in zip(UNITS[20:], UNITS[:20], strict=True) for u in pair]
    out, _ = run(ranked, 40, relevant)
    assert set(out.relevant) == relevant
    assert 2 in out.pruned and {21, 22} <= out.pruned  # root B and its children
    assert not {u for u in out.tested if u >= "u20"} - set(ranked[:20])  # B tested at root only
    assert out.spent <= 40


def test_nothing_relevant_stops_early():
    out, _ = run(UNITS, 100, set())
    assert out.relevant == [] and out.spent < 40


def test_communities_ranked_by_their_best_text_units():
    order, units = level_plan(UNITS[20:] + UNITS[:20], hier(), 1)
    assert order[:2] == [21, 22] and units[21][0] == "u20"
    assert sum(map(len, units.values())) == 40  # each text unit under one community


def test_claims_ranked_by_bm25_then_source():
    claims = [(Claim(statement="The festival had lights.", sources=[3]), 3),
              (Claim(statement="The harbour ferry starts in spring.", sources=[5]), 5),
              (Claim(statement="Tourists came.", sources=[1]), 1)]
    ranked = rank_claims(claims, ["harbour", "ferry"])
    assert ranked[0].sources == [5] and ranked[1].sources == [1]  # ties by best source
