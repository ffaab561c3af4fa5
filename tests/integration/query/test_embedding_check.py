"""One check of the question's embedding for every method on real Neo4j + GDS with the
scripted double: vectors of another model of the same dimension are refused by every method
that compares vectors - rag and ReTAG (vector, hybrid; by RETRIEVAL or by the question's own
retrieval), ReTAG's auto, local search, DRIFT and auto (whose methods read vectors) - before
any call; a question vector of zeros is a one-line error or a noted fallback, never a Neo4j
traceback."""

import pytest

from neo4j_retag.errors import ConfigError, LLMError
from neo4j_retag.llm import Usage
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import answer
from neo4j_retag.query.ask import given_options
from tests.llm_double import EMBED_DIM, default_embed

pytestmark = pytest.mark.integration

# (method, the question's options, settings): every way a method comes to compare vectors
CASES = [("rag", {"retrieval": "vector"}, {}), ("rag", {"retrieval": "hybrid"}, {}),
         ("retag", {}, {"retrieval": "vector"}), ("retag", {}, {"retrieval": "hybrid"}),
         ("retag", {}, {"retrieval": "auto"}), ("retag", {"retrieval": "vector"}, {}),
         ("retag", {"retrieval": "hybrid"}, {"retrieval": "bm25"}), ("local", {}, {}),
         ("drift", {}, {}), ("auto", {}, {})]


def ask(settings, graph, method, query=None, usage=None):
    return run(settings, lambda llm: answer(method, graph, llm, settings, Query(
        question="Who is Scrooge?", level=0, options=given_options()(**(query or {})))), usage)


@pytest.mark.parametrize(("method", "query", "env"), CASES)
def test_another_model_of_the_same_dimension_is_refused_before_any_call(
        indexed, graph, double, method, query, env):
    other = indexed.model_copy(update={"embedding_model": "another-model", **env})
    before = len(double.calls)
    usage = Usage()
    with pytest.raises(ConfigError) as err:
        ask(other, graph, method, query, usage)
    msg = str(err.value)
    # both models named, each as what it is (the graph's, then the one set now)
    assert "the graph's vectors were made by" in msg and "(32 dimensions)" in msg
    assert "EMBEDDING_MODEL is another-model" in msg and "--reembed" in msg
    assert len(double.calls) == before and usage.total.calls == 0  # no chat, no embedding
    # the same question under the model that made the vectors runs
    assert ask(indexed.model_copy(update=env), graph, method, query).answer


def test_a_question_vector_of_zeros_is_one_line_or_a_noted_fallback(indexed, graph, double):
    double.embed = lambda text: ([0.0] * EMBED_DIM if "Scrooge" in text
                                 else default_embed(text))
    with pytest.raises(LLMError, match="all zeros"):
        ask(indexed, graph, "rag", {"retrieval": "vector"})
    a = ask(indexed, graph, "local")  # vectors only help local search: string match
    assert a.trace.seeding.by == "full_text"
    assert any("embedding the question failed (invalid)" in n for n in a.trace.notes)
    assert [f.item for f in a.trace.failures] == ["embed question"]
