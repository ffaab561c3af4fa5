"""LazyGraphRAG's relevance search under a budget: text units ranked best-first, communities
ranked by their text units, tested breadth-first from the root down with cheap yes/no calls.

Our own reading of the MIT reference (microsoft/intelligence-toolkit,
``query_text_data/relevance_assessor.py``), on our community hierarchy:

- a virtual root holds every text unit; each level's communities are ranked by the mean rank
  of their best RANKING_UNITS text units, and each text unit is tested (at most once) under
  the best-ranked community of the level that holds it;
- level by level, each community (in rank order) gets up to PER_COMMUNITY tests, in batches
  of TEST_BATCH calls at once; its testing stops at the first batch with nothing relevant;
- a community with nothing relevant is pruned, and with it every descendant; after
  RESTART_AFTER pruned communities in a row the level restarts one level deeper (the
  best-ranked communities get looked at again); a level where nothing was relevant ends it;
- the untested neighbours (previous / next text unit) of relevant text units are reserved
  budget, tested at the end;
- tests never exceed the budget: every call counts, a failed one too; the budget's time and
  its count of relevant text units end the tests early (``lazy_budget``), neighbours
  included.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .lazy_budget import Budget

TEST_BATCH = 5  # tests in flight at once
PER_COMMUNITY = 10  # tests per community per round
RANKING_UNITS = 10  # a community's rank: the mean rank of its best text units
RESTART_AFTER = 5  # successive pruned communities before going one level deeper
ROOT = -1  # the virtual root community (every text unit), tested first

# the test: a batch of text unit ids -> True (relevant), False, or None (the call failed)
Tester = Callable[[list[str]], Awaitable[list[bool | None]]]


@dataclass
class Hierarchy:
    """The general communities as the search reads them."""

    level_of: dict[int, int]  # community id -> level
    parent: dict[int, int | None]
    unit_communities: dict[str, list[int]]  # text unit -> its communities (any level)
    neighbours: dict[str, list[str]] = field(default_factory=dict)  # previous / next unit

    @property
    def levels(self) -> list[int]:
        return sorted(set(self.level_of.values()))


@dataclass
class SearchResult:
    relevant: list[str] = field(default_factory=list)  # in test order
    tested: dict[str, bool | None] = field(default_factory=dict)  # in test order
    failed: int = 0
    pruned: set[int] = field(default_factory=set)
    communities_tested: int = 0
    levels_reached: int = 0

    @property
    def spent(self) -> int:
        return len(self.tested)


def level_plan(ranked: list[str], hier: Hierarchy,
               level: int) -> tuple[list[int], dict[int, list[str]]]:
    """The communities of ``level`` best first, and each one's text units (best first), every
    text unit under the best-ranked community of the level that holds it."""
    pos = {u: i for i, u in enumerate(ranked)}
    units: dict[int, list[str]] = defaultdict(list)
    for u in ranked:
        for c in hier.unit_communities.get(u, ()):
            if hier.level_of.get(c) == level:
                units[c].append(u)
    rank = {c: sum(pos[u] for u in us[:RANKING_UNITS]) / len(us[:RANKING_UNITS])
            for c, us in units.items()}
    order = sorted(units, key=lambda c: (rank[c], c))
    index = {c: i for i, c in enumerate(order)}
    assigned: dict[int, list[str]] = defaultdict(list)
    for u in ranked:
        held = [c for c in hier.unit_communities.get(u, ()) if c in index]
        if held:
            assigned[min(held, key=index.__getitem__)].append(u)
    return order, assigned


async def search(ranked: list[str], hier: Hierarchy, budget: int | Budget,
                 test: Tester) -> SearchResult:
    """Spend at most ``budget`` relevance tests (a count, or a `Budget` that may also stop
    early) on ``ranked`` (every text unit, best first)."""
    limits = budget if isinstance(budget, Budget) else Budget(budget)
    out = SearchResult()
    plans = {ROOT: ([ROOT], {ROOT: list(ranked)})}
    for lv in hier.levels:
        plans[lv] = level_plan(ranked, hier, lv)
    order = [ROOT, *hier.levels]

    def reserved() -> list[str]:
        return [n for u in out.relevant for n in hier.neighbours.get(u, ())
                if n not in out.tested]

    def left() -> int:
        return limits.left(out.spent, len(out.relevant))

    def room() -> int:
        return left() - len(set(reserved()))

    async def run(batch: list[str]) -> bool:
        got = await test(batch)
        for u, g in zip(batch, got, strict=True):
            out.tested[u] = g
            out.failed += g is None
            if g:
                out.relevant.append(u)
        return any(g is True for g in got)

    async def assess(units: list[str], limit: Callable[[], int]) -> bool:
        found = False
        for i in range(0, len(units), TEST_BATCH):
            batch = [u for u in units[i:i + TEST_BATCH] if u not in out.tested][:max(0, limit())]
            if not batch:
                break
            hit = await run(batch)
            found |= hit
            if not hit:  # nothing relevant in this batch: the community is done for now
                break
        return found

    step, misses = 0, 0
    while room() > 0:
        level = order[step]
        out.levels_reached = max(out.levels_reached, step)
        sequence, units = plans[level]
        relevant_here, spent_before = False, out.spent
        for c in sequence:
            if c in out.pruned:
                continue
            if hier.parent.get(c) in out.pruned:
                out.pruned.add(c)  # its parent had nothing relevant: nor has it
                continue
            unseen = [u for u in units[c] if u not in out.tested][:PER_COMMUNITY]
            if not unseen:
                continue
            out.communities_tested += c != ROOT
            hit = await assess(unseen, room)
            if room() <= 0:
                break
            relevant_here |= hit
            if level != ROOT and not hit:
                out.pruned.add(c)
                misses += 1
                if misses == RESTART_AFTER:
                    misses = 0
                    break
            else:
                misses = 0
        if out.spent == spent_before or (level != ROOT and not relevant_here):
            break  # every text unit left is pruned or tested, or nothing relevant here
        step = min(step + 1, len(order) - 1)

    # the neighbours of relevant text units, with what is left of the budget
    await assess(list(dict.fromkeys(reserved())), left)
    return out
