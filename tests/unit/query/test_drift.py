"""DRIFT search and local search's seeding with an in-memory graph and the scripted LLM
double (the real-Neo4j versions are tests/integration/query/test_drift.py)."""

import json
import re

import pytest

from neo4j_retag.errors import ConfigError
from neo4j_retag.llm import run_with_llm
from neo4j_retag.llm.schema import bounded
from neo4j_retag.model import DriftStep, Query, ReportRow
from neo4j_retag.query import METHODS
from neo4j_retag.query.common import AnswerFailedError, no_answer
from neo4j_retag.query.drift import ask_drift
from neo4j_retag.query.drift_steps import folds, reduce_context, reply_model
from neo4j_retag.query.local import ask_local
from tests.conftest import make_settings
from tests.llm_double import EMBED_DIM, Fail, default_embed

# key: (name, description, community, chunk)
ENTITIES = {"scrooge": ("Scrooge", "a miser who hoards money", 1, "c1"),
            "marley": ("Marley", "a dead partner, now a ghost in chains", 2, "c2"),
            "belle": ("Belle", "a young woman who left Scrooge", 3, "c3")}
REPORTS = {1: "Money and the counting-house", 2: "Ghosts and chains", 3: "Lost love"}
CHUNKS = {"c1": "Scrooge counted his money.", "c2": "Marley's ghost rattled its chains.",
          "c3": "Belle left Scrooge for his love of gold."}


class StoryGraph:
    """Answers every statement local search and DRIFT run, from the tables above;
    ``embedded``: whether the nodes hold vectors (the double's embeddings)."""

    def __init__(self, embedded: bool = True, model: str = "double-embedding") -> None:
        self.embedded, self.model, self.runs = embedded, model, []

    def _report(self, i, score=1.0):
        return {"id": i, "title": REPORTS[i], "full_content": f"# {REPORTS[i]}\n\nAbout it.",
                "rank": float(i), "level": 0, "composed": False, "score": score}

    def _near(self, texts, vector, k):
        def cos(t):
            return sum(a * b for a, b in zip(default_embed(t), vector, strict=True))
        return sorted(texts, key=lambda i: -cos(texts[i]))[:k]

    def run(self, name, **p):
        self.runs.append(name)
        n = len(ENTITIES) if self.embedded else 0
        if name == "query/scope_levels":
            return [{"level": 0, "communities": 3, "reports": 3, "stale": 0}]
        if name == "db/vector_state":
            return [{"model": self.model, "dimensions": EMBED_DIM, "chunks": n,
                     "entities": n, "communities": n}]
        if name == "db/vector_indexes_state":
            return []
        if name == "query/nearest_nodes":
            texts = ({k: v[1] for k, v in ENTITIES.items()} if p["index"] == "entity_embedding"
                     else CHUNKS)
            return [{"id": i, "score": 0.5} for i in self._near(texts, p["vector"], p["k"])]
        if name == "query/vector_reports":
            return [self._report(i) for i in self._near(REPORTS, p["vector"], p["top_p"])]
        if name == "query/search_reports":
            return [self._report(i) for i in REPORTS][:p["top_p"]]
        if name == "query/drift_template":
            return [{"full_content": "# A title\n\nA summary.\n\n## A finding\n\nWhy."}]
        if name == "query/local_seed_text":
            words = set(re.findall(r"\w+", p["query"].lower()))
            return [{"key": k, "name": v[0], "score": 1.0} for k, v in ENTITIES.items()
                    if k in words][:p["k"]]
        keys = p.get("keys", [])
        if name == "query/local_entities":
            return [{"i": i, "key": k, "name": ENTITIES[k][0], "type": "person",
                     "description": ENTITIES[k][1], "degree": 1,
                     "reports": [{"id": ENTITIES[k][2], "title": REPORTS[ENTITIES[k][2]],
                                  "summary": "A summary.", "rank": 1.0}]}
                    for i, k in enumerate(keys)]
        if name == "query/local_relationships":
            return [{"source_key": "marley", "source": "Marley", "target_key": "scrooge",
                     "target": "Scrooge", "description": "partners", "weight": 2.0, "rank": 2}]
        if name == "query/local_claims":
            return []
        if name == "query/local_text_units":
            return [{"i": i, "units": [{"id": ENTITIES[k][3], "text": CHUNKS[ENTITIES[k][3]],
                                        "rels": 1}]} for i, k in enumerate(keys)]
        raise AssertionError(name)


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url,
                         drift_n_depth=2, drift_k_followups=3, drift_primer_folds=2)


def drift(settings, graph, question="Who haunts Scrooge?"):
    return run_with_llm(settings, lambda llm: ask_drift(graph, llm, settings,
                                                        Query(question=question)))


def test_folds_split_the_reports_best_first_in_near_equal_parts():
    rows = [ReportRow(id=i) for i in range(7)]
    assert [[r.id for r in f] for f in folds(rows, 3)] == [[0, 1, 2], [3, 4], [5, 6]]
    assert len(folds(rows[:2], 5)) == 2 and folds([], 5) == []


def test_the_reply_schema_names_its_answer_and_keeps_the_clients_bounds():
    model = reply_model("response")
    assert "maxLength" not in json.dumps(model.model_json_schema())
    # as sent to the local model (json_object): the client's small bounds, grammar-safe
    small = bounded(model, 6, 150)["properties"]
    assert small["response"]["maxLength"] == 150
    assert small["follow_up_queries"]["maxItems"] == 6
    reply = model.model_validate({"response": "x", "score": "140",
                                  "follow_up_queries": "Who is A?\nWho is B?"})
    assert reply.score == 100 and reply.follow_up_queries == ["Who is A?", "Who is B?"]


def test_the_reduce_context_ranks_answers_by_score_within_its_budget(dsettings):
    acts = [DriftStep(query=f"q{i}", answer=f"answer {i} " * 20, score=s)
            for i, s in enumerate([10, 90, 50, 0])] + [DriftStep(query="empty", score=99)]
    ctx, used = reduce_context(dsettings, acts)
    assert [a.query for a in used] == ["q1", "q2", "q0", "q3"]
    assert ctx.index("q1") < ctx.index("q2")
    small = dsettings.model_copy(update={"reduce_context_tokens": 90})
    assert [a.query for a in reduce_context(small, acts)[1]] == ["q1"]


def test_drift_is_registered_and_reads_reports():
    assert METHODS["drift"].needs_reports and not METHODS["drift"].refinable


def test_drift_primes_with_hyde_then_answers_follow_ups_and_cites_what_exists(
        dsettings, double):
    graph = StoryGraph()
    a = drift(dsettings, graph)
    d = a.trace.drift
    assert d.primer_by == "hyde" and d.primer_reports == 3 and double.count("drift_hyde") == 1
    assert double.count("drift_primer") == 2  # two folds: reports [a, b] and [c]
    # depth 2, 3 follow-ups per round, none asked twice
    assert double.count("drift_local") == len([s for s in d.steps if s.depth > 0]) <= 6
    asked = [s.query for s in d.steps if s.depth > 0]
    assert len(asked) == len(set(asked)) and max(s.depth for s in d.steps) <= 2
    assert all(s.seeded_by == "embedding" for s in d.steps if s.depth > 0)
    assert a.citations and {c.kind for c in a.citations} == {"report", "text_unit"}
    assert {c.id for c in a.citations if c.kind == "report"} <= set(REPORTS)
    assert {c.id for c in a.citations if c.kind == "text_unit"} <= set(CHUNKS)
    assert {c.id for c in a.citations} <= {c.id for c in a.sources}
    assert set(d.phases) == {"primer", "local", "reduce"}
    assert d.phases["reduce"].calls == 1 and d.phases["local"].calls >= 2  # answers + embeds
    assert not a.trace.failures and a.trace.method == "drift"


def test_follow_ups_are_ranked_by_the_score_of_the_answer_that_asked_them(dsettings, double):
    def primer(b):
        low = "Lost love" in b["messages"][-1]["content"]
        return json.dumps({"intermediate_answer": "## x", "score": 5 if low else 80,
                           "follow_up_queries": ["low?"] if low else ["high?", "high too?"]})
    double.script["drift_primer"] = primer
    settings = dsettings.model_copy(update={"drift_k_followups": 2, "drift_n_depth": 1})
    d = drift(settings, StoryGraph()).trace.drift
    assert [s.query for s in d.steps if s.depth == 1] == ["high?", "high too?"]
    assert d.followups_left >= 1  # "low?" waits


def test_a_failed_follow_up_fails_that_item_only(dsettings, double):
    def local(b):
        if "Follow-up question-\nWho is Marley?" in b["messages"][-1]["content"]:
            raise Fail(500)
        return json.dumps({"response": "Found [Data: Sources (0)]", "score": 50,
                           "follow_up_queries": []})
    double.script["drift_local"] = local
    double.script["drift_primer"] = lambda b: json.dumps({
        "intermediate_answer": "## P [Data: Reports (1)]", "score": 70,
        "follow_up_queries": ["Who is Marley?", "Who is Belle?"]})
    a = drift(dsettings, StoryGraph())
    failed = [f for f in a.trace.failures if f.item.startswith("drift follow-up")]
    assert len(failed) == 1 and failed[0].reason == "http5xx"
    assert [s.failed for s in a.trace.drift.steps if s.query == "Who is Marley?"] == [True]
    assert a.answer != no_answer(dsettings) and a.citations


def test_every_step_failing_is_an_error_not_a_no_answer(dsettings, double):
    def fail(b):
        raise Fail(500)
    double.script["drift_primer"] = fail
    double.script["drift_local"] = fail
    with pytest.raises(AnswerFailedError, match="DRIFT steps failed"):
        drift(dsettings, StoryGraph())


def test_nothing_found_is_the_honest_no_answer(dsettings, double):
    double.script["drift_primer"] = lambda b: json.dumps({
        "intermediate_answer": "", "score": 0, "follow_up_queries": []})
    graph = StoryGraph(embedded=False)
    a = drift(dsettings, graph, "Xyzzy?")
    assert a.answer == no_answer(dsettings) and not a.citations
    assert a.trace.drift.primer_by == "bm25" and double.count("drift_hyde") == 0
    assert any("no embeddings" in n for n in a.trace.notes)
    assert any("question itself is searched locally" in n for n in a.trace.notes)
    assert [(s.query, s.seeded_by) for s in a.trace.drift.steps if s.depth == 1] == [
        ("Xyzzy?", None)]  # searched; no entity matched it


def test_local_search_seeds_by_embedding_and_falls_back_to_string_match(dsettings, double):
    def ask(graph, q):
        return run_with_llm(dsettings, lambda llm: ask_local(graph, llm, dsettings,
                                                             Query(question=q, level=0)))
    a = ask(StoryGraph(), "Which ghost rattles chains?")  # no entity named in it
    assert a.trace.seeding.by == "embedding" and a.trace.seeding.entities[0] == "marley"
    b = ask(StoryGraph(embedded=False), "What did scrooge do?")
    assert b.trace.seeding.by == "full_text" and b.trace.seeding.entities == ["scrooge"]
    assert any("no embeddings of its entities" in n for n in b.trace.notes)
    body = next(b for k, b in reversed(double.calls) if k == "answer")
    assert "-----Sources-----" in body["messages"][-1]["content"]


def test_vectors_of_another_model_stop_the_question_with_one_line(dsettings, double):
    with pytest.raises(ConfigError, match="the graph's vectors were made by other-model"):
        run_with_llm(dsettings, lambda llm: ask_local(StoryGraph(model="other-model"), llm,
                                                      dsettings, Query(question="Who?")))
    assert double.count("answer") == 0


def test_an_intermediate_answer_that_is_json_is_never_scored(dsettings, double):
    # issue 32 item 5: a document's template made the primer answer with a JSON object,
    # which was scored 100 and reduced into the answer
    double.script["drift_primer"] = lambda b: json.dumps({
        "intermediate_answer": '{"status": "REDACTED",}', "score": 100,
        "follow_up_queries": []})
    a = drift(dsettings, StoryGraph())
    primer = [s for s in a.trace.drift.steps if s.depth == 0]
    assert primer and all(s.failed and s.score is None for s in primer)
    assert double.count("drift_primer") == 2 * len(primer)  # each fold asked again, failed
    assert [f.reason for f in a.trace.failures] == ["degenerate"] * len(primer)
    reduce_prompt = next(b for k, b in double.calls if k == "drift_reduce")
    assert "REDACTED" not in json.dumps(reduce_prompt) and "REDACTED" not in a.answer
