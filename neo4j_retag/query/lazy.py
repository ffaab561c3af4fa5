"""`ask --method lazy`: LazyGraphRAG's query over text units and communities, on a lazy index or
a full one (it needs nothing else).

Sub-queries from the question (one call, stage ``lazy_subqueries``; optional: a failure is a
trace note) -> every text unit ranked best-first with no LLM call (``lazy_rank``: BM25 through
the Neo4j full-text index, fused with the question's nearest text units where they have
embeddings) -> one-token relevance tests of each text unit's best sentences
(``lazy_relevance``, ``lazy_excerpt``; stage ``relevance``) under the budget, which may end
them early: a time and a count of relevant text units (``lazy_budget``, ``lazy_search``) ->
the claims of the relevant text units (the best-ranked LAZY_ENOUGH), one call per group that
fits the map budget (stage ``lazy_claims``) -> claims ranked by BM25 in memory (rank-bm25)
against the question and sub-queries, fitted to the reduce budget -> the answer (stage
``lazy_answer``), citing TEXT UNITS.

Faults: a failed test or claim call fails that item, counted in ``trace.lazy_search`` and
recorded in ``trace.failures`` (an `errors.Failure` each); every
test failing, or every claim group failing, raises (exit 1); a budget spent without any
relevant text unit raises NothingRelevantError (exit 1): there is no answer, and the canned
no-answer sentence would hide that the search found nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field, create_model, field_validator

from ..config import Settings
from ..db import Graph, Record
from ..errors import Failure, LevelError, LLMError, RetagError
from ..llm import LLM, Subject
from ..model import Answer, Citation, LazySearch, Query, Trace, timed
from ..prompts import csv_table, render
from ..stages import Stage
from ..tokens import count, truncate
from .answer import QUOTE, Context, chosen, quoted_answer
from .answer.map_reduce import MapFailedError
from .citations import cite_or_attribute
from .common import complete_or_note, no_answer_for, words
from .contract import Method, variant
from .lazy_budget import Budget, LazyOptions, LazySettings
from .lazy_excerpt import excerpt
from .lazy_rank import rank_units
from .lazy_relevance import relevant
from .lazy_search import Hierarchy, search

MAX_SUBQUERIES = 3
MAX_CLAIMS = 8  # per claim call


class NothingRelevantError(RetagError):
    """The relevance budget was spent and no text unit was relevant: no answer."""


class SubQueries(BaseModel):
    queries: list[str] = Field([], json_schema_extra={"items": {"type": "string",
                                                                "maxLength": 80}})

    @field_validator("queries", mode="before")
    @classmethod
    def _list(cls, v: Any) -> list[str]:
        items = v if isinstance(v, list) else [v]
        return [str(q).strip() for q in items if str(q or "").strip()][:MAX_SUBQUERIES]


class Claim(BaseModel):
    statement: str
    sources: list[int] = []


class Claims(BaseModel):
    claims: list[Claim] = []


def claims_model(ids: tuple[int, ...]) -> type[Claims]:
    """Claims whose ``sources`` may name only this group's passage ids (under a grammar), at
    least one per passage (up to MAX_CLAIMS): under a grammar a model stops at the lower bound
    the schema allows, and Qwen2.5-Coder-1.5B gave one claim for five passages - the answer,
    not a fact of each (the map step's ``min_points`` likewise). Parsing stays
    lenient: fewer are accepted."""
    claim = create_model("Claim", __base__=Claim, sources=(list[int], Field(
        [], json_schema_extra={"items": {"type": "integer", "enum": list(ids)}, "minItems": 1})))
    return create_model("Claims", __base__=Claims, claims=(list[claim], Field(  # type: ignore[valid-type]
        [], json_schema_extra={"minItems": min(len(ids), MAX_CLAIMS), "maxItems": MAX_CLAIMS})))


def hierarchy(graph: Graph) -> tuple[list[Record], Hierarchy]:
    """Every text unit (document order) and the general community hierarchy."""
    units = graph.run("query/lazy_units")
    comms = graph.run("query/lazy_communities")
    neighbours: dict[str, list[str]] = {}
    for a, b in zip(units, units[1:], strict=False):
        if a["document"] == b["document"]:
            neighbours.setdefault(a["id"], []).append(b["id"])
            neighbours.setdefault(b["id"], []).append(a["id"])
    return units, Hierarchy(level_of={c["id"]: c["level"] for c in comms},
                            parent={c["id"]: c["parent"] for c in comms},
                            unit_communities={u["id"]: u["communities"] for u in units},
                            neighbours=neighbours)


async def sub_queries(llm: LLM, settings: Settings, question: str, trace: Trace) -> list[str]:
    msgs = render("query/lazy_subqueries", question=question,
                  max_queries=MAX_SUBQUERIES)
    try:
        return (await llm.structured(msgs, SubQueries, stage=Stage.LAZY_SUBQUERIES,
                                     max_tokens=150)).queries
    except LLMError as err:
        trace.note(f"sub-queries failed ({err}): the question alone ranks the text units")
        return []


class Texts:
    """Text units read from the graph once, when first tested."""

    def __init__(self, graph: Graph) -> None:
        self.graph, self.rows = graph, {}

    def get(self, ids: list[str]) -> list[Record]:
        missing = [i for i in ids if i not in self.rows]
        if missing:
            self.rows.update((r["id"], r) for r in self.graph.run("query/lazy_texts", ids=missing))
        return [self.rows[i] for i in ids]


async def extract_claims(llm: LLM, settings: Settings, question: str, units: list[Record],
                         trace: Trace) -> list[tuple[Claim, float]]:
    """Claims of the relevant text units (positions in ``units`` as passage ids), with the
    rank of their best source; one call per group fitting ``map_context_tokens``."""
    enc, budget = settings.encoding, settings.query.map_context_tokens
    groups: list[list[int]] = [[]]
    used = 0
    for i, u in enumerate(units):
        n = count(u["text"], enc) + 10
        if groups[-1] and used + n > budget:
            groups.append([])
            used = 0
        groups[-1].append(i)
        used += n

    async def one(group: list[int]) -> list[Claim] | None:
        rows = [[i, units[i]["title"] or "", truncate(units[i]["text"], budget, enc)]
                for i in group]
        msgs = render("query/lazy_claims", question=question,
                      context=csv_table("Passages", ["id", "title", "text"], rows),
                      max_claims=MAX_CLAIMS)
        try:
            got = await llm.structured(msgs, claims_model(tuple(group)), stage=Stage.LAZY_CLAIMS)
        except LLMError as err:
            ids = [units[i]["id"] for i in group]
            trace.note(f"claims of text units {ids} failed: {err}")
            trace.failures.append(Failure.of(f"lazy_claims {', '.join(ids)}", err))
            return None
        out = []
        for c in got.claims:
            # only this group's passages count; a claim citing none of them is dropped
            c.sources = [s for s in dict.fromkeys(c.sources) if s in group]
            if c.statement.strip() and c.sources:
                out.append(c)
        return out

    results = await asyncio.gather(*(one(g) for g in groups))
    failed = sum(r is None for r in results)
    if trace.lazy_search:
        trace.lazy_search.claim_calls, trace.lazy_search.claim_failures = len(groups), failed
    if failed == len(groups):
        raise MapFailedError(f"{failed} of {failed} claim extraction calls failed: no answer "
                             "(retry, or check the LLM with `neo4j-retag doctor`)")
    return [(c, min(c.sources)) for r in results if r for c in r]


def rank_claims(claims: list[tuple[Claim, float]], query_terms: list[str]) -> list[Claim]:
    """Claims by BM25 against the question and sub-queries, ties by their best source."""
    if not claims:
        return []
    from rank_bm25 import BM25Okapi  # lazy: numpy behind it
    bm25 = BM25Okapi([words(c.statement) or ["_"] for c, _ in claims])
    scores = bm25.get_scores(query_terms) if query_terms else [0.0] * len(claims)
    order = sorted(range(len(claims)), key=lambda i: (-scores[i], claims[i][1], i))
    return [claims[i][0] for i in order]


async def ask_lazy(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """The `lazy` method. Raises LevelError when the graph has no text unit (no call made),
    NothingRelevantError when no text unit tested relevant, MapFailedError when every test or
    every claim call failed."""
    budget = Budget.of(settings, LazyOptions.of(query).budget)
    trace = Trace(method="lazy", level=-1)
    question = query.question
    with timed(trace.seconds, "rank"):
        units, hier = hierarchy(graph)
        if not units:  # before any call: nothing to test, whatever the budget
            raise LevelError("the graph has no text units: run `neo4j-retag ingest PATH` first "
                             "(`--lazy` indexes with no LLM call)")
        subs = await sub_queries(llm, settings, question, trace)
        trace.keywords = subs
        ranking = await rank_units(graph, llm, settings, question, subs, units, trace)
        ranked = ranking.ranked
    texts = Texts(graph)
    terms = " ".join([question, *subs])
    own = settings.method(LazySettings)
    test_tokens = own.test_tokens or settings.query.map_context_tokens

    async def test(ids: list[str]) -> list[bool | None]:
        async def one(row: Record) -> bool | None:
            text = excerpt(row["text"], terms, test_tokens, settings.encoding)
            try:
                return await relevant(llm, question, text)
            except LLMError as err:  # a failed test: the budget is spent all the same
                trace.failures.append(Failure.of(f"relevance {row['id']}", err))
                return None
        return list(await asyncio.gather(*(one(r) for r in texts.get(ids))))

    with timed(trace.seconds, "relevance"):
        found = await search(ranked, hier, budget, test)
    trace.lazy_search = LazySearch(
        budget=budget.tests, tests=found.spent, relevant=len(found.relevant),
        failed_tests=found.failed, bm25_matches=ranking.bm25, vector_matches=ranking.vector,
        communities_tested=found.communities_tested, communities_pruned=len(found.pruned),
        levels_reached=found.levels_reached, stopped=budget.stopped,
        seconds=own.seconds, enough=own.enough, test_tokens=own.test_tokens)
    if found.spent and found.failed == found.spent:
        raise MapFailedError(f"{found.failed} of {found.spent} relevance tests failed: no "
                             "answer (retry, or check the LLM with `neo4j-retag doctor`)")
    if not found.relevant:
        raise NothingRelevantError(
            f"no text unit was relevant to the question in {found.spent} relevance tests "
            f"(budget {budget.tests}): no answer; a larger --budget tests more")
    best = sorted(found.relevant, key=ranked.index)
    if budget.enough and len(best) > budget.enough:  # a batch in flight found more
        trace.note(f"{len(best)} text units relevant: the claims of the best-ranked "
                   f"{budget.enough} are read (LAZY_ENOUGH)")
        best = best[:budget.enough]
    relevant_units = [texts.rows[u] for u in best]
    trace.text_units_retrieved = len(relevant_units)
    if chosen(settings, query, LAZY_ANSWERS, trace) == QUOTE:  # the relevant units quoted
        read = [Citation(kind="text_unit", id=u["id"], title=u["title"] or "")
                for u in relevant_units]
        quoted = quoted_answer(graph, settings, query, Context(
            units=[u["id"] for u in relevant_units], sources=read), trace)
        if quoted is not None:
            return quoted
        trace.note("nothing to quote: no sentence of the relevant text units shares a word "
                   "with the question; answered from their claims instead")
        trace.answer = CLAIMS
    with timed(trace.seconds, "claims"):
        claims = await extract_claims(llm, settings, question, relevant_units, trace)
        ranked_claims = rank_claims(claims, words(" ".join([question, *subs])))
    rows, used = [], 0
    for c in ranked_claims:
        row = [len(rows), c.statement, "; ".join(map(str, c.sources))]
        n = count(",".join(map(str, row)), settings.encoding) + 2
        if used + n > settings.query.reduce_context_tokens:
            break
        rows.append(row)
        used += n
    trace.points_total, trace.points_in_reduce = len(ranked_claims), len(rows)
    if not rows:
        return Answer(answer=no_answer_for(settings, trace, "the relevant text units gave no "
                                           "claim"), trace=trace)
    context = csv_table("Claims", ["id", "claim", "sources"], rows)
    msgs = render("query/lazy_answer", context=context, question=question,
                  response_type=query.response_type)
    with timed(trace.seconds, "answer"):
        text = await complete_or_note(llm, msgs, Stage.LAZY_ANSWER, trace, subject=Subject(
            question, "\n".join(str(r[1]) for r in rows)))
    if not text:
        text = "\n".join(f"- {r[1]} [Data: Sources ({r[2].replace(';', ',')})]" for r in rows)
        trace.note("the answer step gave no text: the best claims are shown")

    def cite(i: int, cited: bool = True) -> Citation:
        return Citation(kind="text_unit", id=relevant_units[i]["id"],
                        title=relevant_units[i]["title"] or "", cited_in_answer=cited)

    valid = {f"Sources:{i}": cite(i) for i in range(len(relevant_units))}
    text, citations = cite_or_attribute(
        text, valid, [(r[1], [int(x) for x in r[2].split("; ")]) for r in rows], trace,
        kind="Sources", by="the text units of the claim")
    cited_ids = {c.id for c in citations}
    behind = dict.fromkeys(int(s) for r in rows for s in r[2].split("; "))
    sources = [cite(i, relevant_units[i]["id"] in cited_ids) for i in behind]
    return Answer(answer=text, citations=citations, sources=sources, trace=trace)


def lazy_lines(answer: Answer) -> list[str]:
    """The budgeted search as `ask` prints it (no topic, level or map batches here)."""
    tr, ls = answer.trace, answer.trace.lazy_search
    lines = [f"method {tr.method} | cited text units "
             f"{[c.location or c.id for c in answer.citations]} | chatter stripped "
             f"{tr.chatter_stripped}"]
    if ls:
        stop = {"enough": f", stopped at {ls.enough} relevant (LAZY_ENOUGH)",
                "seconds": f", stopped after {ls.seconds:g} s (LAZY_SECONDS)"}.get(ls.stopped, "")
        lines.append(f"lazy search: {ls.tests} of {ls.budget} relevance tests "
                     f"({ls.failed_tests} failed){stop}, {ls.relevant} text units relevant, "
                     f"{ls.communities_tested} communities tested, {ls.communities_pruned} "
                     f"pruned | claim calls {ls.claim_calls} ({ls.claim_failures} failed)")
    return lines


# its own answer: claims of the relevant text units, one answer call over them
CLAIMS = "claims"
LAZY_ANSWERS = (CLAIMS, QUOTE)
LAZY = Method("lazy", ask_lazy, "LazyGraphRAG: relevance tests of text units under --budget, "
              "claims citing text units; on a lazy index or a full one", options=LazyOptions,
              settings=LazySettings, trace_part="lazy_search", render=lazy_lines, rank=7,
              answers=LAZY_ANSWERS)
# the small model's lazy answer: the relevant text units' sentences quoted (no claim call, no
# answer call: nothing written)
LAZY_QUOTED = variant(LAZY, "lazy-quoted", "LazyGraphRAG's relevance search, the relevant "
                      "text units' sentences quoted (no claim or answer call)",
                      module=__name__, rank=8, answer="quote")
