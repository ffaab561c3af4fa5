"""`ingest`'s embed stage on real Neo4j + GDS with the scripted double (issue 19): vectors on
text units, entities and reports with their indexes; resumable and incremental; counted;
EMBEDDINGS=false keeps today's graph; a model / dimension change is a one-line error."""

import pytest

from neo4j_retag.db import vectors
from neo4j_retag.errors import ConfigError
from neo4j_retag.llm import Usage
from neo4j_retag.ops.stats import collect
from tests.conftest import corpus, ingest
from tests.llm_double import EMBED_DIM, Fail, default_embed

pytestmark = pytest.mark.integration


def _small(settings):
    return settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20})


def _embedded(graph, label):
    return graph.driver.execute_query(
        f"MATCH (n:{label}) RETURN count(n.embedding) AS n, count(*) AS all, "
        "collect(size(n.embedding))[0] AS dims").records[0].data()


def test_ingest_embeds_every_kind_and_a_rerun_embeds_nothing(settings, graph, double,
                                                              tmp_path):
    settings = _small(settings)
    usage = Usage()
    res = ingest(settings, graph, [corpus(tmp_path, 3)], usage)
    e = res.embeddings
    assert not e.failures and e.text_units > 0 and e.entities > 0 and e.reports > 0
    s = collect(graph)
    assert s["text_units_embedded"] == s["text_units"] == e.text_units
    assert s["entities_embedded"] == s["entities"] == e.entities
    assert s["reports_embedded"] == e.reports >= s["community_reports"]
    # every scope's reports: the general one and the topic scopes, counted apart in stats
    assert s["reports_embedded"] == s["community_reports"] + s["topic_reports"]
    assert s["topic_communities"] >= s["topic_reports"]
    assert s["embedding_model"] == "double-embedding"
    for label in ("Chunk", "Entity", "Community"):
        assert _embedded(graph, label)["dims"] == EMBED_DIM
    st = vectors.state(graph)
    assert {i["name"]: (i["state"], i["dimensions"]) for i in st["indexes"]} == {
        n: ("ONLINE", EMBED_DIM) for n in vectors.INDEXES.values()}
    # counted beside the chat calls: requests and input tokens of the embed stage
    assert usage.stages["embed"].calls >= 2 and usage.stages["embed"].prompt_tokens > 0
    assert "seconds" in res.model_dump() and "embed" in res.seconds
    # a chunk's own text is its nearest text unit (or one of the same text: ties)
    chunk = graph.driver.execute_query("MATCH (c:Chunk) RETURN c.id AS id, c.text AS text "
                                       "ORDER BY c.id LIMIT 1").records[0]
    near = vectors.nearest(graph, "Chunk", default_embed(chunk["text"]), 5)
    assert chunk["id"] in [r["id"] for r in near if r["score"] > 0.9999], near
    # a rerun: nothing pending, no request (the probe is cached)
    calls = double.count("embed")
    again = ingest(settings, graph, [], Usage())
    assert double.count("embed") == calls
    assert (again.embeddings.text_units, again.embeddings.entities) == (0, 0)


def test_only_changed_texts_are_embedded_again(settings, graph, double, tmp_path):
    settings = _small(settings)
    ingest(settings, graph, [corpus(tmp_path, 2)])
    graph.driver.execute_query("MATCH (e:Entity {key: 'scrooge'}) "
                               "SET e.description = 'A miser who changes.'")
    res = ingest(settings, graph, [], Usage())
    assert (res.embeddings.text_units, res.embeddings.entities, res.embeddings.reports) == \
        (0, 1, 0)
    assert double.calls[-1][1]["input"] == ["Scrooge: A miser who changes."]


def test_a_failed_item_is_listed_and_retried_by_the_next_run(settings, graph, double, tmp_path):
    settings = _small(settings)

    def embed(text):
        if text.startswith("Belle:"):
            raise Fail(400, {"error": {"message": "bad input"}})
        return default_embed(text)
    double.embed = embed
    res = ingest(settings, graph, [corpus(tmp_path, 2)])
    assert [f.item for f in res.embeddings.failures] == ["entity belle"]
    assert res.failed_items == 1 and res.embeddings.failures[0].reason == "http400"
    double.embed = default_embed
    res = ingest(settings, graph, [], Usage())
    assert res.embeddings.entities == 1 and not res.embeddings.failures


def test_embeddings_off_keeps_todays_graph(settings, graph, double, tmp_path):
    settings = _small(settings).model_copy(update={"embeddings": False})
    usage = Usage()
    res = ingest(settings, graph, [corpus(tmp_path, 2)], usage)
    assert res.embeddings.model_dump() == {"text_units": 0, "entities": 0, "reports": 0,
                                           "failures": []}
    assert double.count("embed") == 0 and "embed" not in usage.stages
    assert "embed" not in res.seconds
    st = vectors.state(graph)
    assert vectors.stored(st) == 0 and st["indexes"] == [] and st["model"] is None


def test_another_dimension_is_a_one_line_error_before_any_llm_call(settings, graph, double,
                                                                   tmp_path):
    settings = _small(settings)
    ingest(settings, graph, [corpus(tmp_path, 2)])
    calls = double.count()
    other = settings.model_copy(update={"embedding_dimensions": 8})
    with pytest.raises(ConfigError) as err:
        (tmp_path / "more").mkdir()
        ingest(other, graph, [corpus(tmp_path / "more", 3)])
    line = str(err.value)
    assert "\n" not in line and f"({EMBED_DIM} dimensions)" in line and "gives 8" in line
    assert "neo4j-retag ingest --reembed" in line
    assert double.count() == calls + 2  # the two probes only: no extraction was paid for
    # --reembed: every vector again, of the new dimension
    from neo4j_retag.index.pipeline import run_ingest
    from neo4j_retag.llm import run_with_llm
    res = run_with_llm(other, lambda llm: run_ingest(graph, llm, other, [], topics=False,
                                                     reembed=True))
    assert res.embeddings.text_units == collect(graph)["text_units"]
    assert _embedded(graph, "Entity")["dims"] == 8
    assert {i["dimensions"] for i in vectors.state(graph)["indexes"]} == {8}
