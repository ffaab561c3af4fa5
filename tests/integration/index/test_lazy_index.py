"""The lazy index (LazyGraphRAG) on the real Neo4j + GDS: no LLM call, concepts, their
co-occurrence and communities; incremental, resumable, documents delete works on it, and
`ingest --full` turns it into the full index."""

import asyncio
from pathlib import Path

import pytest

from neo4j_retag.errors import InputError
from neo4j_retag.index.delete import delete_documents
from neo4j_retag.index.estimate import estimate_ingest
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import Query
from neo4j_retag.ops.stats import collect
from neo4j_retag.query import answer
from tests.conftest import ingest

pytestmark = pytest.mark.integration
SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-corpus"


def ask(settings, graph, method: str, **query):
    async def go():
        async with LLM(settings, Usage()) as llm:
            q = Query(question="What are the main themes of this corpus?", **query)
            return await answer(method, graph, llm, settings, q), llm.usage
    return asyncio.run(go())


def chat_calls(double) -> int:
    """LLM (chat) calls the double answered: embedding requests are not LLM calls (a lazy
    ingest still embeds its text units when EMBEDDINGS is on: issue 19's embed stage)."""
    return double.count() - double.count("embed")


def one(graph, cypher: str, **params):
    records, _, _ = graph.driver.execute_query(cypher, params, database_=graph.database)
    return records[0].data() if records else {}


@pytest.fixture
def lazy(settings):
    return settings.model_copy(update={"index_method": "lazy"})


def test_lazy_ingest_of_the_sample_corpus_makes_no_llm_call(lazy, graph, double):
    usage = Usage()
    result = ingest(lazy, graph, [SAMPLE], usage)
    assert chat_calls(double) == 0 and set(usage.stages) <= {"embed"}
    assert result.documents_new == 5 and result.communities_rebuilt
    counts = one(graph, """
        MATCH (k:Concept) WITH count(k) AS concepts
        MATCH (:Concept)-[r:CO_OCCURS]->(:Concept) WITH concepts, count(r) AS co, min(r.weight) AS w
        MATCH (c:Chunk) WITH concepts, co, w, count(c) AS chunks,
              count(CASE WHEN c.concepts_done THEN 1 END) AS done
        RETURN concepts, co, w, chunks, done,
               COUNT { (:Chunk)-[:HAS_CONCEPT]->(:Concept) } AS has,
               COUNT { (:Entity) } AS entities""")
    assert counts["concepts"] > 20 and counts["co"] > counts["concepts"] and counts["w"] >= 1
    assert counts["done"] == counts["chunks"] > 0 and counts["has"] >= counts["concepts"]
    assert counts["entities"] == 0
    stats = collect(graph)  # `stats` tells a lazy index from an empty one
    assert stats["index_method"] == "lazy" and stats["concepts"] == counts["concepts"]
    assert stats["co_occurrences"] == counts["co"]
    comms = one(graph, """
        MATCH (c:Community {scope: 'general'})
        RETURN count(c) AS n, max(c.level) AS depth,
               count(CASE WHEN c.report_status IS NOT NULL THEN 1 END) AS reported,
               COUNT { (:Concept)-[:IN_COMMUNITY]->(:Community {level: 0}) } AS members,
               COUNT { (:Concept) } AS concepts""")
    assert comms["n"] > 1 and comms["reported"] == 0
    assert comms["members"] == comms["concepts"]  # level 0 covers every concept once
    # the stories' own names are concepts (the sample corpus: a football club, a harbour ...)
    names = {r["key"] for r in graph.run("index/concept_keys")}
    assert len(names & {"harbour", "city council", "winter festival"}) >= 1, sorted(names)[:40]

    again = ingest(lazy, graph, [SAMPLE], Usage())  # nothing new: nothing rebuilt
    assert again.documents_new == 0 and not again.communities_rebuilt
    assert chat_calls(double) == 0


def test_plain_ingest_keeps_a_lazy_index_lazy_and_lazy_refuses_a_full_one(
        lazy, settings, graph, double, tmp_path):
    ingest(lazy, graph, [SAMPLE])
    (tmp_path / "more.txt").write_text("Harbour Authority chair Maria Lopez met the "
                                       "City Council about the harbour plan and the ferry.")
    result = ingest(settings, graph, [tmp_path / "more.txt"])  # INDEX_METHOD=full, lazy graph
    assert result.documents_new == 1 and result.communities_rebuilt
    assert chat_calls(double) == 0
    assert one(graph, "MATCH (k:Concept {key: 'maria lopez'}) RETURN k.name AS n")["n"]


def test_full_after_lazy_turns_the_lazy_index_into_the_full_one(lazy, settings, graph, double):
    ingest(lazy, graph, [SAMPLE])
    chunks = one(graph, "MATCH (c:Chunk) RETURN count(c) AS n")["n"]
    lazy_ids = {r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community) RETURN c.id AS id", database_=graph.database).records}
    assert chat_calls(double) == 0
    full = settings.model_copy(update={"index_method": "full"})  # `ingest --full`
    # the estimate follows: a plain ingest stays lazy (0 calls), --full extracts every unit
    assert not estimate_ingest(settings, [SAMPLE], graph).stages
    est = estimate_ingest(full, [SAMPLE], graph)
    assert est.stages["extract"].calls == chunks
    assert est.upgrade and est.documents_known == 0  # said so, not "new documents"
    assert not est.calibrated  # the lazy ingest before called no LLM: nothing to scale by
    result = ingest(full, graph, [SAMPLE])
    assert result.documents_new == 0 and result.text_units_extracted == chunks
    assert result.communities_rebuilt and any("turned into the full index" in o
                                              for o in result.outcomes)
    assert double.count("extract") >= chunks and double.count("report") >= 1
    state = one(graph, """
        MATCH (m:Meta {id: 'index'})
        RETURN m.index_method AS method, m.graph_dirty AS dirty,
               COUNT { (:Concept) } AS concepts, COUNT { (:Entity) } AS entities,
               COUNT { (c:Chunk) WHERE c.extracted } AS extracted,
               COUNT { (c:Chunk) WHERE c.concepts_done IS NOT NULL } AS concept_marks,
               COUNT { (:Entity)-[:IN_COMMUNITY]->(:Community {scope: 'general'}) } AS members,
               COUNT { (:Community) } AS communities,
               COUNT { (c:Community) WHERE c.report_status = 'ok' } AS reported""")
    assert state["method"] == "full" and state["dirty"] is False
    assert state["concepts"] == 0 == state["concept_marks"]
    assert state["entities"] > 0 and state["extracted"] == chunks and state["members"] > 0
    assert state["reported"] == state["communities"] > 0
    # the communities are the entities' ones, with new ids (none of the concept communities')
    assert not {r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community) RETURN c.id AS id", database_=graph.database).records} & lazy_ids
    assert collect(graph)["index_method"] == "full"
    calls = double.count()
    again = ingest(settings, graph, [SAMPLE])  # a plain ingest now keeps it full: no work
    assert again.text_units_extracted == 0 and not again.communities_rebuilt
    assert double.count() == calls


def test_lazy_is_refused_once_the_index_was_turned_full(lazy, settings, graph, double):
    ingest(lazy, graph, [SAMPLE])
    ingest(settings.model_copy(update={"index_method": "full"}), graph, [SAMPLE])
    with pytest.raises(InputError, match="full index"):
        ingest(lazy, graph, [SAMPLE])


def test_full_index_refuses_lazy(settings, lazy, indexed, graph):
    with pytest.raises(InputError, match="full index"):
        ingest(lazy, graph, [SAMPLE])


def test_documents_delete_takes_out_concepts_and_cooccurrence(lazy, graph, double, tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "a.txt").write_text("Harbour Authority and Maria Lopez plan the harbour ferry. "
                                  "Maria Lopez said the harbour ferry starts in spring.")
    (folder / "b.txt").write_text("Winter Festival lights and the Harbour Authority. "
                                  "The Winter Festival opens on the quay.")
    ingest(lazy, graph, [folder])
    shared = "MATCH (:Concept {key: $a})-[r:CO_OCCURS]-(:Concept {key: $b}) RETURN r.weight AS w"
    assert one(graph, "MATCH (k:Concept {key: 'maria lopez'}) RETURN count(k) AS n")["n"] == 1
    delete_documents(graph, [str(folder / "a.txt")])
    assert one(graph, "MATCH (k:Concept {key: 'maria lopez'}) RETURN count(k) AS n")["n"] == 0
    assert one(graph, "MATCH (k:Concept {key: 'winter festival'}) RETURN count(k) AS n")["n"] == 1
    assert one(graph, shared, a="harbour authority", b="winter festival")["w"] == 1
    assert one(graph, "MATCH (m:Meta {id: 'index'}) RETURN m.graph_dirty AS d")["d"] is True
    result = ingest(lazy, graph, [])  # --resume: the communities are rebuilt, no LLM call
    assert result.communities_rebuilt and chat_calls(double) == 0
    assert one(graph, "MATCH (k:Concept)-[:IN_COMMUNITY]->(c:Community) "
                      "RETURN count(DISTINCT k) AS n")["n"] == one(
        graph, "MATCH (k:Concept) RETURN count(k) AS n")["n"]


@pytest.mark.llm
def test_lazy_then_full_with_the_real_local_llm_answers_global_from_reports(
        real_settings, real_graph):
    """The quickstart's path on the real stack: the sample corpus indexed lazily (0 calls),
    then `ingest --full` on the same corpus; the global answer rests on its reports. (The lazy
    ingest makes no LLM call; its text units are embedded.)"""
    lazy = real_settings.model_copy(update={"index_method": "lazy"})
    usage = Usage()
    ingest(lazy, real_graph, [SAMPLE], usage)
    assert set(usage.stages) <= {"embed"} and collect(real_graph)["index_method"] == "lazy"
    # gleaning off: the shared 135M server is slow and the upgrade, not gleaning, is tested
    full = real_settings.model_copy(update={"index_method": "full", "glean": 0})
    result = ingest(full, real_graph, [SAMPLE])
    stats = collect(real_graph)
    assert stats["index_method"] == "full" and stats["concepts"] == 0
    assert stats["entities"] > 0 and stats["community_reports"] > 0, (stats, result.failures)
    a, _ = ask(full, real_graph, "global", level=0)
    reports = {r["id"] for r in real_graph.run("query/reports_at_level", scope="general",
                                               level=0)}
    # the answer rests on the full index's reports (the 135M model does not always write the
    # [Data: Reports (...)] marker, so `sources` - what reached map-reduce - is checked, and
    # whatever it cites must be among them)
    assert a.answer.strip() and a.sources and all(c.kind == "report" for c in a.sources)
    assert {c.id for c in a.sources} <= reports
    assert {c.id for c in a.citations} <= {c.id for c in a.sources}
