"""The lazy method's budget ends the relevance tests early: after LAZY_SECONDS of testing (the
first batch always runs) or at LAZY_ENOUGH relevant text units, neighbours included; never
over the count."""

from __future__ import annotations

import asyncio

from neo4j_retag.config import Settings
from neo4j_retag.query.lazy_budget import Budget
from neo4j_retag.query.lazy_search import search

from .test_lazy_search import UNITS, hier


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run(budget, relevant, tick=0.0, clock=None):
    calls: list[list[str]] = []

    async def test(batch):
        calls.append(batch)
        if clock is not None:
            clock.now += tick * len(batch)  # each test takes ``tick`` seconds
        return [u in relevant for u in batch]
    return asyncio.run(search(UNITS, hier(), budget, test)), calls


def test_the_budget_of_a_question_reads_its_settings():
    b = Budget.of(Settings(openai_base_url="http://x/v1", lazy_seconds=30, lazy_enough=4), 12)
    assert (b.tests, b.seconds, b.enough) == (12, 30, 4)
    local = Budget.of(Settings(openai_base_url=None))
    assert (local.tests, local.seconds, local.enough) == (100, 90, 6)  # sized to the model


def test_enough_relevant_stops_the_tests_and_the_neighbours():
    out, calls = run(Budget(40, enough=3), set(UNITS))
    assert len(out.relevant) >= 3 and out.spent == 5  # the first batch already held three
    b = Budget(40, enough=6)
    out, _ = run(b, set(UNITS[::3]))  # every third relevant: their neighbours reserved
    assert len(out.relevant) >= 6 and b.stopped == "enough"
    assert out.spent < 40  # no neighbour tested after the stop


def test_time_stops_new_batches_but_the_first_always_runs():
    clock = Clock()
    b = Budget(40, seconds=12, clock=clock)
    out, calls = run(b, set(UNITS), tick=1.0, clock=clock)  # a batch of 5 takes 5 s
    assert b.stopped == "seconds" and out.spent == 15  # batches at 0, 5 and 10 s
    clock = Clock()
    b = Budget(40, seconds=0.5, clock=clock)
    out, _ = run(b, set(UNITS), tick=1.0, clock=clock)
    assert out.spent == 5 and b.stopped == "seconds"


def test_no_limit_is_the_count_alone():
    b = Budget(12)
    out, _ = run(b, set(UNITS))
    assert out.spent == 12 and b.stopped == ""
