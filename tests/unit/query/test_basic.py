"""rag's retrieval of text units: BM25, vector, hybrid (in-memory graph, scripted LLM double;
on the real Neo4j: tests/integration/query/test_drift.py)."""

import pytest

from neo4j_retag.errors import ConfigError
from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import Query
from neo4j_retag.query.basic import RagOptions, ask_rag
from tests.conftest import make_settings
from tests.llm_double import EMBED_DIM

UNITS = {"u1": "The ferry sank in 1912.", "u2": "The mayor opened the harbour.",
         "u3": "A storm hit the coast."}


class UnitGraph:
    """BM25 finds u1 then u2; the vector index gives u3 then u1."""

    def __init__(self, embedded: bool = True) -> None:
        self.embedded = embedded

    def run(self, name, **p):
        n = len(UNITS) if self.embedded else 0
        if name == "query/search_text_units":
            return [{"text_unit_id": i, "title": "T", "text": UNITS[i], "score": 1.0}
                    for i in ("u1", "u2")]
        if name == "db/vector_state":
            return [{"model": "double-embedding", "dimensions": EMBED_DIM, "chunks": n,
                     "entities": 0, "communities": 0}]
        if name == "db/vector_indexes_state":
            return []
        if name == "query/nearest_nodes":
            assert p["index"] == "chunk_embedding"
            return [{"id": "u3", "score": 0.9}, {"id": "u1", "score": 0.8}][:p["k"]]
        if name == "query/lazy_texts":
            return [{"id": i, "text": UNITS[i], "title": "T"} for i in p["ids"]]
        raise AssertionError(name)


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url,
                         embedding_model="double-embedding")


def rag(settings, graph, retrieval):
    return run_with_llm(settings, lambda llm: ask_rag(graph, llm, settings, Query(
        question="What sank?", options=RagOptions(retrieval=retrieval))))


def sources(double):
    body = next(b for k, b in reversed(double.calls) if k == "answer")
    return body["messages"][-1]["content"].split("-----Sources-----")[1]


@pytest.mark.parametrize(("how", "order"), [("bm25", ["u1", "u2"]), ("vector", ["u3", "u1"]),
                                            ("hybrid", ["u1", "u3", "u2"])])
def test_rag_retrieves_text_units_by_bm25_vector_or_both_fused(dsettings, double, how, order):
    a = rag(dsettings, UnitGraph(), how)
    text = sources(double)
    assert [i for i in sorted(UNITS, key=lambda i: text.find(UNITS[i])) if UNITS[i] in text
            ] == order
    assert a.trace.retrieval == how and a.trace.text_units_retrieved == len(order)


def test_vector_rag_without_embeddings_is_a_one_line_error(dsettings, double):
    with pytest.raises(ConfigError, match="vector retrieval needs embeddings: the graph has "
                       "no embeddings of its text units"):
        rag(dsettings, UnitGraph(embedded=False), "vector")
    with pytest.raises(ConfigError, match="EMBEDDINGS=false"):
        rag(dsettings.model_copy(update={"embeddings": False}), UnitGraph(), "hybrid")
    assert double.count("answer") == 0
