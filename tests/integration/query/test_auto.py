"""`--method auto` on the real Neo4j with the LLM double: one classification call, then the
method it chose; the trace says which and why; the stage events a listener sees."""

import pytest

from neo4j_retag import events
from neo4j_retag.llm import Usage
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query, Routing
from neo4j_retag.query import answer
from neo4j_retag.query.auto import method_for
from tests.llm_double import Fail

pytestmark = pytest.mark.integration


def test_method_for_kinds(indexed):
    capable = indexed  # the double: a capable model by its name
    assert method_for("global", True, capable) == "retag"
    assert method_for("global", False, capable) == "global"
    assert method_for("specific", True, capable) == method_for("specific", False,
                                                               capable) == "local"
    # ReTAG set to read the general graph: global questions go to it
    general = capable.model_copy(update={"retag_topics": False})
    assert method_for("global", False, general) == "retag"
    assert method_for("specific", False, general) == "local"
    # a small model's questions go to the quoted variants, whatever the topics
    small = capable.model_copy(update={"llm_class": "small"})
    assert method_for("global", True, small) == method_for("global", False, small) == \
        "retag-quoted"
    assert method_for("specific", True, small) == "local-quoted"


def test_auto_routes_global_and_specific_questions(indexed, graph, double):
    usage = Usage()
    seen: list[tuple[str, dict]] = []

    async def go(llm):
        with events.listening(lambda kind, data: seen.append((kind, data))):
            return await answer("auto", graph, llm, indexed,
                                Query(question="What are the main themes?", level=0))

    a = run(indexed, go, usage)
    # no topics in this graph: a global question goes to GraphRAG's global search
    assert a.trace.method == "global" and a.trace.routing.kind == "global"
    assert a.trace.routing.reason == "the double says global"
    assert any("answered by global" in n for n in a.trace.notes)
    assert usage.stages["route"].calls == 1 and double.count("route") == 1
    kinds = [k for k, _ in seen]
    assert kinds.index("classified") < kinds.index("retrieved") < kinds.index("map") \
        < kinds.index("reduce") < kinds.index("token")
    pieces = [d["text"] for k, d in seen if k == "token"]
    assert len(pieces) > 3 and None not in pieces  # streamed word by word, no restart
    assert "".join(pieces).startswith("The main themes")
    assert usage.stages["reduce"].calls == 1 and usage.stages["reduce"].completion_tokens > 0
    assert a.citations  # the streamed reduce gives the same cited answer

    b = run(indexed, lambda llm: answer("auto", graph, llm, indexed,
                                        Query(question="Who is Scrooge?", level=0)))
    assert b.trace.method == "local" and b.trace.routing == Routing(
        kind="specific", method="local", reason="the double says specific", topics=0)
    assert b.as_dict()["trace"]["routing"]["method"] == "local"


def test_auto_sends_global_questions_to_retag_over_the_general_graph(indexed, graph, double):
    # RETAG_TOPICS=false: no topics needed, ReTAG reads the general graph's reports, here in
    # one answer call
    general = indexed.model_copy(update={"retag_topics": False, "answer": "one-call"})
    a = run(general, lambda llm: answer("auto", graph, llm, general,
                                        Query(question="What are the main themes?", level=0)))
    assert a.trace.method == "retag" and a.trace.routing.method == "retag"
    assert any("answered by retag" in n for n in a.trace.notes)
    assert double.count("map") == 0 and double.count("answer") == 1 and a.citations


def test_auto_falls_back_when_nothing_matches_or_the_call_fails(indexed, graph, double):
    # local search seeds by string match without embeddings (with them the nearest entities
    # always seed it, as in GraphRAG): then a name that matches nothing goes global
    words = indexed.model_copy(update={"embeddings": False})
    a = run(words, lambda llm: answer("auto", graph, llm, words,
                                      Query(question="Who is Zebulon?", level=0)))
    assert a.trace.routing.method == "global" and a.trace.routing.kind == "specific"
    assert any("no entity matches" in n for n in a.trace.notes)

    def refuse(body):
        raise Fail(400, {"error": {"message": "bad request"}})

    double.script["route"] = refuse
    b = run(indexed, lambda llm: answer("auto", graph, llm, indexed,
                                        Query(question="Who is Scrooge?", level=0)))
    assert b.trace.method == "global"
    assert any("classification failed" in n for n in b.trace.notes)
    assert [f.item for f in b.trace.failures][:1] == ["route"]
