"""The lazy index (LazyGraphRAG) on the real Neo4j + GDS: no LLM call, concepts, their
co-occurrence and communities; incremental, resumable, and documents delete works on it."""

from pathlib import Path

import pytest

from neo4j_retag.errors import InputError
from neo4j_retag.index.delete import delete_documents
from neo4j_retag.llm import Usage
from neo4j_retag.ops.stats import collect
from tests.conftest import ingest

pytestmark = pytest.mark.integration
SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-corpus"


def one(graph, cypher: str, **params):
    records, _, _ = graph.driver.execute_query(cypher, params, database_=graph.database)
    return records[0].data() if records else {}


@pytest.fixture
def lazy(settings):
    return settings.model_copy(update={"index_method": "lazy"})


def test_lazy_ingest_of_the_sample_corpus_makes_no_llm_call(lazy, graph, double):
    usage = Usage()
    result = ingest(lazy, graph, [SAMPLE], usage)
    assert double.count() == 0 and usage.total.calls == 0
    assert result.documents_new == 4 and result.communities_rebuilt
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
    assert double.count() == 0


def test_plain_ingest_keeps_a_lazy_index_lazy_and_lazy_refuses_a_full_one(
        lazy, settings, graph, double, tmp_path):
    ingest(lazy, graph, [SAMPLE])
    (tmp_path / "more.txt").write_text("Harbour Authority chair Maria Lopez met the "
                                       "City Council about the harbour plan and the ferry.")
    result = ingest(settings, graph, [tmp_path / "more.txt"])  # INDEX_METHOD=full, lazy graph
    assert result.documents_new == 1 and result.communities_rebuilt
    assert double.count() == 0
    assert one(graph, "MATCH (k:Concept {key: 'maria lopez'}) RETURN k.name AS n")["n"]


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
    assert result.communities_rebuilt and double.count() == 0
    assert one(graph, "MATCH (k:Concept)-[:IN_COMMUNITY]->(c:Community) "
                      "RETURN count(DISTINCT k) AS n")["n"] == one(
        graph, "MATCH (k:Concept) RETURN count(k) AS n")["n"]
