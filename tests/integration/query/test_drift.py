"""Local search seeded by embedding, DRIFT search and rag's vector / hybrid retrieval on the
real Neo4j + GDS: with the scripted LLM double (its embeddings: a hashed bag of words, stored
in the real vector indexes), and once with the real local model and embedding model (marked
llm)."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query.basic import RagOptions, ask_rag
from neo4j_retag.query.drift import ask_drift
from neo4j_retag.query.local import ask_local
from neo4j_retag.query.retrieval import lucene_query
from tests.conftest import corpus, double_vars, ingest, neo4j_vars

pytestmark = pytest.mark.integration
SMALL = {"drift_n_depth": 2, "drift_k_followups": 3, "drift_primer_folds": 2}


def ids(graph, cypher):
    return {r["id"] for r in graph.driver.execute_query(cypher).records}


def chunk_ids(graph):
    return ids(graph, "MATCH (c:Chunk) RETURN c.id AS id")


def cited_exist(graph, answer, level):
    reports = ids(graph, "MATCH (c:Community {scope: 'general'}) WHERE c.level = "
                  f"{int(level)} RETURN c.id AS id")
    for c in [*answer.citations, *answer.sources]:
        assert c.id in (reports if c.kind == "report" else chunk_ids(graph)), c


def test_local_search_seeds_by_embedding_through_the_vector_index(indexed, graph, double):
    a = run(indexed, lambda llm: ask_local(graph, llm, indexed, Query(
        question="Who went home to Tiny Tim?", level=0)))
    seeding = a.trace.seeding
    keys = ids(graph, "MATCH (e:Entity) RETURN e.key AS id")
    assert seeding.by == "embedding" and set(seeding.entities) <= keys
    assert len(seeding.entities) == min(10, len(keys))
    assert seeding.scores == sorted(seeding.scores, reverse=True)
    assert not any("string match" in n for n in a.trace.notes)
    cited_exist(graph, a, 0)


def test_local_search_without_embeddings_matches_strings_with_a_note(settings, graph,
                                                                       tmp_path, double):
    s = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20,
                                    "embeddings": False})
    ingest(s, graph, [corpus(tmp_path, 2)])
    a = run(s, lambda llm: ask_local(graph, llm, s, Query(question="Who is Belle?", level=0)))
    assert a.trace.seeding.by == "full_text" and a.trace.seeding.entities[0] == "belle"
    assert any("EMBEDDINGS=false" in n for n in a.trace.notes)


def test_drift_answers_with_citations_that_exist(indexed, graph, double):
    s = indexed.model_copy(update=SMALL)
    a = run(s, lambda llm: ask_drift(graph, llm, s, Query(question="Who haunts Scrooge?",
                                                           level=0)))
    d = a.trace.drift
    assert d.primer_by == "hyde" and d.primer_reports >= 1
    assert a.citations and {c.kind for c in a.citations} == {"report", "text_unit"}
    cited_exist(graph, a, 0)
    follow = [st for st in d.steps if st.depth > 0]
    assert follow and all(st.seeded_by == "embedding" for st in follow)
    assert len(follow) <= 6 and max(st.depth for st in follow) <= 2
    assert d.phases["primer"].calls >= 3 and d.phases["reduce"].calls == 1  # hyde + 2 folds
    assert not a.trace.failures


def test_rag_by_vector_and_hybrid_cites_real_text_units(indexed, graph, double):
    for how in ("vector", "hybrid"):
        a = run(indexed, lambda llm, h=how: ask_rag(graph, llm, indexed, Query(
            question="What did Scrooge remember?", options=RagOptions(retrieval=h))))
        assert a.citations and {c.id for c in a.citations} <= chunk_ids(graph), how
        assert not any("BM25 instead" in n for n in a.trace.notes), how


def test_cli_ask_drift_and_rag_retrieval(indexed, graph, double):
    env = {**neo4j_vars(indexed), **double_vars(indexed), "DRIFT_N_DEPTH": "1",
           "DRIFT_K_FOLLOWUPS": "2", "DRIFT_PRIMER_FOLDS": "1"}
    r = CliRunner().invoke(main, ["ask", "Who haunts Scrooge?", "--method", "drift",
                                  "--level", "0", "--json"], env=env)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["trace"]["drift"]["k_followups"] == 2 and out["citations"]
    assert set(out["trace"]["drift"]["phases"]) == {"primer", "local", "reduce"}
    r = CliRunner().invoke(main, ["ask", "Who haunts Scrooge?", "--method", "drift",
                                  "--level", "0"], env=env)
    assert r.exit_code == 0 and "drift: primer by hyde over" in r.output, r.output
    r = CliRunner().invoke(main, ["ask", "What did Scrooge remember?", "--method", "rag",
                                  "--retrieval", "hybrid", "--json"], env=env)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["citations"] and out["trace"]["retrieval"] == "hybrid"
    r = CliRunner().invoke(main, ["ask", "Who haunts Scrooge?", "--method", "retag", "--level",
                                  "0", "--retrieval", "vector", "--json"], env=env)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["trace"]["retrieval"] == "vector"


def test_eval_compares_drift_with_local(indexed, graph, double, tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("Who haunts Scrooge?\n")
    env = {**neo4j_vars(indexed), **double_vars(indexed), "DRIFT_N_DEPTH": "1",
           "DRIFT_K_FOLLOWUPS": "2", "DRIFT_PRIMER_FOLDS": "1"}
    out = CliRunner().invoke(main, ["eval", str(questions), "--methods", "local,drift",
                                    "--level", "0", "--out", str(tmp_path / "ev"), "--json"],
                             env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["failures"] == [] and len(data["answers"]) == 2
    answers = json.loads((tmp_path / "ev" / "answers.json").read_text())
    assert [a["method"] for a in answers if a["citations"]] == ["local", "drift"]


# --- the real embedded embedding model (all-MiniLM-L6-v2) and the real local LLM ----------

# entity descriptions a question can mean without sharing a word with them
DESCRIPTIONS = {
    "marley": "the ghost of Scrooge's dead business partner, who walks the earth bound in "
              "heavy iron chains",
    "fezziwig": "a jolly old merchant who threw a merry Christmas ball for his apprentices",
    "belle": "a young woman who broke off her engagement to Scrooge because he loved gold",
    "cratchit": "Scrooge's poorly paid clerk, father of a large and loving family",
}
MEANING = "Who hosted a festive dance for the young workers?"  # Fezziwig, in other words


@pytest.fixture
def described(settings, graph, double, tmp_path, local_embedding):
    """The story graph (chat: the double) with meaningful entity descriptions, embedded by the
    real model."""
    from neo4j_retag.index.embed import embed_if_enabled
    s = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20, **local_embedding})
    ingest(s, graph, [corpus(tmp_path, 3)])
    for key, text in DESCRIPTIONS.items():
        graph.driver.execute_query("MATCH (e:Entity {key: $k}) SET e.description = $d",
                                   k=key, d=text)
    run(s, lambda llm: embed_if_enabled(graph, llm, s))
    return s


@pytest.mark.embed
def test_local_search_seeds_the_entity_a_question_means_by_the_real_model(described, graph):
    by_words = graph.run("query/local_seed_text", query=lucene_query(MEANING), k=10)
    assert by_words[0]["key"] != "fezziwig"  # by words ("who", "young") another comes first
    a = run(described, lambda llm: ask_local(graph, llm, described,
                                             Query(question=MEANING, level=0)))
    assert a.trace.seeding.by == "embedding" and a.trace.seeding.entities[0] == "fezziwig"
    d = run(described.model_copy(update=SMALL), lambda llm: ask_drift(
        graph, llm, described.model_copy(update=SMALL), Query(question=MEANING, level=0)))
    assert d.trace.drift.primer_by == "hyde" and d.citations
    cited_exist(graph, d, 0)


@pytest.mark.llm
@pytest.mark.embed
def test_local_drift_and_vector_rag_with_the_real_local_models(described, graph, neo4j_env,
                                                                local_llm_env,
                                                                local_embedding, tmp_path):
    """The questions answered by the real SmolLM2-135M (the graph from the double, embedded
    by the real all-MiniLM-L6-v2): 6 calls, DRIFT at its smallest (1 fold, 1 follow-up).
    The local server's budgets are given, so that OPENAI_BASE_URL may point at a shared
    server that is too busy to answer the fixture's readiness probe."""
    from neo4j_retag.config import Settings
    s = Settings(**{**neo4j_env, **local_llm_env, **local_embedding,
                    "llm_cache_dir": tmp_path / "real-cache", "llm_max_tokens": 400,
                    "map_context_tokens": 3000, "reduce_context_tokens": 3000,
                    "llm_json_mode": "json_object", "llm_timeout": 1800,
                    "drift_n_depth": 1, "drift_k_followups": 1, "drift_primer_folds": 1})
    local = run(s, lambda llm: ask_local(graph, llm, s, Query(question=MEANING, level=0)))
    assert local.trace.seeding.by == "embedding" and local.trace.seeding.entities[0] == \
        "fezziwig"
    # the 135M model's answer is the answer, or refused by the answer checks (about nothing in
    # its context) and the honest no-answer given: both are the real path; nothing else fails
    assert local.answer.strip()
    assert not local.trace.failures or (not local.answered and all(
        f.reason == "degenerate" for f in local.trace.failures))
    cited_exist(graph, local, 0)
    drift = run(s, lambda llm: ask_drift(graph, llm, s, Query(question=MEANING, level=0)))
    d = drift.trace.drift
    assert d.primer_by == "hyde" and d.primer_reports >= 1 and drift.answer.strip()
    assert [st.depth for st in d.steps] in ([0], [0, 1])
    # a degenerate reduce (the 135M model) is asked once more, with a repetition penalty
    assert set(d.phases) == {"primer", "local", "reduce"} and d.phases["reduce"].calls in (1, 2)
    cited_exist(graph, drift, 0)
    rag = run(s, lambda llm: ask_rag(graph, llm, s, Query(
        question=MEANING, options=RagOptions(retrieval="vector"))))
    assert rag.trace.retrieval == "vector" and rag.trace.text_units_retrieved >= 1
    assert {c.id for c in rag.citations} <= chunk_ids(graph)
    print(json.dumps({"local": local.answer, "local_cited": [c.id for c in local.citations],
                      "drift": drift.answer, "drift_cited": [c.id for c in drift.citations],
                      "drift_sources": [c.id for c in drift.sources],
                      "drift_trace": d.model_dump(), "notes": drift.trace.notes,
                      "failures": [f.line() for f in drift.trace.failures],
                      "seconds": drift.trace.seconds,
                      "rag": rag.answer, "rag_cited": [c.id for c in rag.citations]},
                     indent=1, default=str))
