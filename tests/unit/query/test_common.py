"""What the query methods share: BM25 over an in-memory candidate set, and local search
ranking its candidate text units with it before the context budget cuts them (in-memory
graph, scripted LLM double; seeding by embedding is in test_drift.py)."""

import asyncio

from neo4j_retag.config import Settings
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import Query
from neo4j_retag.query import METHODS
from neo4j_retag.query.common import bm25_order
from neo4j_retag.query.local import ask_local


def test_bm25_puts_the_best_match_first_and_keeps_ties_in_order():
    texts = ["The weather in London was cold.", "Marley's ghost visits Scrooge at night.",
             "Scrooge counts his money.", "Nothing here."]
    order = bm25_order("Which ghost visits Scrooge?", texts)
    assert order[:2] == [1, 2]  # two terms beat one; "Nothing here." shares none
    assert sorted(order) == [0, 1, 2, 3]
    assert bm25_order("anything", ["a b", "c d"]) == [0, 1]  # no match: order kept
    assert bm25_order("q", []) == [] and bm25_order("q", ["", "!"]) == [0, 1]


FILLER = "The fog lay thick over the city and the lamps burned low. " * 6


class LocalGraph:
    """Answers local search's statements, without embeddings: one entity matched by name,
    whose three mentioning text units come in the order Neo4j found them, the one about the
    question last."""

    def run(self, name, **p):
        if name == "query/scope_levels":
            return [{"level": 0, "communities": 1, "reports": 1}]
        if name == "db/vector_state":
            return [{"model": None, "dimensions": None, "chunks": 0, "entities": 0,
                     "communities": 0}]
        if name == "db/vector_indexes_state":
            return []
        if name == "query/local_seed_text":
            return [{"key": "scrooge", "name": "Scrooge", "score": 1.0}]
        if name == "query/local_entities":
            return [{"i": 0, "key": "scrooge", "name": "Scrooge", "type": "person",
                     "description": "a miser", "degree": 0, "reports": []}]
        if name in ("query/local_relationships", "query/local_claims"):
            return []
        assert name == "query/local_text_units", name
        return [{"i": 0, "units": [{"id": "u1", "text": "Fog. " + FILLER, "rels": 0},
                                   {"id": "u2", "text": "Lamps. " + FILLER, "rels": 0},
                                   {"id": "u3", "text": "Marley's ghost warns Scrooge of the "
                                    "three spirits.", "rels": 0}]}]


def test_local_search_keeps_the_text_units_that_match_the_question(double, tmp_path):
    # half of 160 tokens holds one filler unit or the short one: BM25 puts u3 first
    settings = Settings(openai_base_url=double.base_url, openai_model="double",
                        llm_json_mode="json_schema", llm_cache=False, llm_max_retries=1,
                        neo4j_retag_home=tmp_path, reduce_context_tokens=160)

    async def go():
        async with LLM(settings, Usage()) as llm:
            return await ask_local(LocalGraph(), llm, settings,
                                   Query(question="What does Marley's ghost warn of?"))
    answer = asyncio.run(go())
    prompt = next(b for k, b in double.calls if k == "answer")["messages"][-1]["content"]
    sources = prompt.split("-----Sources-----")[1]
    assert "three spirits" in sources and "fog lay thick" not in sources.lower()
    assert answer.trace.method == "local" and answer.trace.seeding.by == "full_text"


def test_refinable_is_a_property_of_each_method():
    refinable = {n for n, m in METHODS.items() if m.refinable}
    assert {"retag", "global"} <= refinable and not {"global-dynamic", "local", "drift", "rag",
                                                     "ts", "lazy", "auto"} & refinable
    assert all(METHODS[n].needs_reports for n in refinable)  # they cite a level's reports
    assert "global-dynamic" in METHODS and all(m.help for m in METHODS.values())
