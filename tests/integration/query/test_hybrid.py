"""Hybrid retrieval for ReTAG on real Neo4j + GDS with the real embedded embedding model
(all-MiniLM-L6-v2, int8 ONNX, in process; issue 19): a question in other words than the
reports, which BM25 misses, is answered from the right report by vector and hybrid retrieval.

Chat stays the scripted double (the retrieval is under test, not the answer's prose); the
reports are written here, in words a question about "firms that struggled" does not use.
"""

import json

import pytest

from neo4j_retag.errors import ConfigError
from neo4j_retag.index.embed import embed_if_enabled
from neo4j_retag.llm import Usage
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import answer
from neo4j_retag.query.retag import RetagOptions
from tests.conftest import CORPORA, corpus, ingest

pytestmark = [pytest.mark.integration, pytest.mark.embed]

REPORTS = [
    ("Carmaker announces 2,000 redundancies",
     "The company reported heavy losses after sales collapsed; its profits fell and two "
     "factories will close.", "Losses deepen", "Revenue dropped sharply and debts rose."),
    ("Striker scores twice in cup final", "The forward's goals won the trophy for his club.",
     "A late winner", "The second goal came in extra time."),
    ("Oscar nominations announced", "Several films and actors were nominated for awards.",
     "Best picture race", "Two dramas lead the nominations."),
    ("Election campaign promises", "Parties set out pledges on tax and schools to voters.",
     "Tax pledges", "Both parties promise lower income tax."),
]
QUESTION = "Which firms struggled?"


@pytest.fixture
def reports(settings, graph, double, tmp_path, local_embedding):
    """A graph from eight BBC articles whose level-0 reports are REPORTS, embedded by the real
    model; the id of the losses report."""
    s = settings.model_copy(update={"max_cluster_size": 3, **local_embedding})
    folder = tmp_path / "bbc"
    folder.mkdir()
    for kind in ("business", "sport", "entertainment", "politics"):  # many names: communities
        for path in sorted((CORPORA / "bbc-news" / kind).glob("*.txt"))[:2]:
            (folder / f"{kind}-{path.name}").write_text(path.read_text())
    ingest(s, graph, [folder])
    ids = [r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general', level: 0}) WHERE c.report_status = 'ok' "
        "RETURN c.id AS id ORDER BY id").records]
    assert len(ids) >= len(REPORTS), ids
    for cid, (title, summary, finding, why) in zip(ids, REPORTS, strict=False):
        graph.driver.execute_query(
            "MATCH (c:Community {id: $id}) SET c.title = $t, c.summary = $s, c.findings = $f, "
            "c.full_content = '# ' + $t + '\\n\\n' + $s + '\\n\\n## ' + $fs + '\\n\\n' + $w",
            id=cid, t=title, s=summary, f=json.dumps([{"summary": finding, "explanation": why}]),
            fs=finding, w=why)
    for cid in ids[len(REPORTS):]:  # the rest: out of the way of both retrievals
        graph.driver.execute_query("MATCH (c:Community {id: $id}) SET c.report_status = "
                                   "'failed'", id=cid)
    counts = run(s, lambda llm: embed_if_enabled(graph, llm, s))
    assert counts.reports == len(REPORTS)  # only the rewritten reports: their text changed
    double.script["keywords"] = lambda b: json.dumps({"keywords": []})
    return s, ids[0]


def ask(settings, graph, retrieval, usage=None):
    s = settings.model_copy(update={"retrieval": retrieval})
    return run(s, lambda llm: answer("retag", graph, llm, s,
                                     Query(question=QUESTION, level=0,
                                           options=RetagOptions(top_p=2))), usage)


def test_bm25_misses_the_synonym_question_and_hybrid_answers_from_the_right_report(
        reports, graph):
    settings, losses = reports
    bm25 = ask(settings, graph, "bm25")
    assert bm25.trace.retrieval == "bm25" and bm25.trace.reports_retrieved == 0
    assert any("found no report" in n for n in bm25.trace.notes)

    vector = ask(settings, graph, "vector")
    assert vector.trace.context[0].id == losses

    usage = Usage()
    hybrid = ask(settings, graph, "auto", usage)  # auto: the reports have embeddings
    assert hybrid.trace.retrieval == "hybrid"
    assert hybrid.trace.context[0].id == losses
    assert losses in {c.id for c in hybrid.citations}, hybrid.answer
    # the question's vector is counted like any other call (cached: the vector run asked)
    st = usage.stages["embed_query"]
    assert (st.calls, st.cached) == (0, 1)

    # the stored-model check: the in-process model's vectors keep the server's name, and
    # another endpoint's model (the double's) is refused before any call, not mixed in
    from neo4j_retag.db import vectors
    stored = vectors.state(graph)
    if settings.embedding.local(settings.llm):
        assert (stored["model"], stored["dimensions"]) == ("all-minilm-l6-v2", 384)
    other = settings.model_copy(update={"embedding_base_url": None,
                                        "embedding_model": "double-embedding"})
    with pytest.raises(ConfigError, match="vectors of two models cannot be compared"):
        ask(other, graph, "vector")


def test_vector_retrieval_without_embeddings_is_a_one_line_error(settings, graph, double,
                                                                  tmp_path):
    s = settings.model_copy(update={"embeddings": False, "chunk_size": 120})
    ingest(s, graph, [corpus(tmp_path, 2)])
    with pytest.raises(ConfigError, match="RETRIEVAL=vector needs community report "
                       "embeddings"):
        ask(s.model_copy(update={"embeddings": True}), graph, "vector")
    auto = ask(s, graph, "auto")  # today's behaviour, with a note saying why
    assert auto.trace.retrieval == "bm25"
    assert any("no report embeddings" in n for n in auto.trace.notes)
