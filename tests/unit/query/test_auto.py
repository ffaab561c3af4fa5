"""`--method auto`'s fallback reads local search's seeding, not a report count (the
real-Neo4j routing tests are tests/integration/query/test_auto.py)."""

from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import Answer, Query, Seeding, Trace
from neo4j_retag.query.auto import auto_method
from tests.conftest import make_settings


class NoTopics:
    def run(self, name, **params):
        # no stored vectors: auto's vector check passes without an embedding call
        return {"query/topics": [], "query/corpus": [{"description": ""}],
                "db/vector_state": [{"model": None, "dimensions": None, "chunks": 0,
                                     "entities": 0, "communities": 0}],
                "db/vector_indexes_state": []}[name]


def ask(tmp_path, double, seeding: Seeding | None) -> Answer:
    settings = make_settings(tmp_path, {}, openai_base_url=double.base_url)

    async def local(graph, llm, settings, query):
        # an entity seeded, no report in its context: still local's answer
        return Answer(answer="local", trace=Trace(method="local", seeding=seeding))

    async def global_(graph, llm, settings, query):
        return Answer(answer="global", trace=Trace(method="global", reports_retrieved=3))

    auto = auto_method({"local": local, "global": global_})
    return run_with_llm(settings, lambda llm: auto(NoTopics(), llm, settings,
                                                   Query(question="Who is Scrooge?")))


def test_a_seeded_local_answer_stands_though_no_report_was_retrieved(tmp_path, double):
    a = ask(tmp_path, double, Seeding(by="full_text", entities=["scrooge"], scores=[1.0]))
    assert a.answer == "local" and a.trace.routing.method == "local"
    assert a.trace.reports_retrieved == 0


def test_no_entity_seeded_is_answered_globally(tmp_path, double):
    a = ask(tmp_path, double, None)
    assert a.answer == "global" and a.trace.routing.method == "global"
    assert a.trace.routing.kind == "specific"
    assert any("no entity matches" in n for n in a.trace.notes)
