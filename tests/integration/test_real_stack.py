"""Every stage on the real stack: Neo4j + GDS and the local SmolLM2-135M through llama.cpp.

Small slices only (a few text units): the 135M model makes ~25 tokens/s on 2 cores. What is
asserted is that each stage runs and the graph is consistent, not what a 135M model writes.
"""

import json
import re

import pytest
from click.testing import CliRunner

from neo4j_retag.citations import MARKER, parse
from neo4j_retag.cli import main
from neo4j_retag.index.extract_records import ExtractedClaim, grounded
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.index.topics import build_topics
from neo4j_retag.llm import Usage, run_with_llm
from neo4j_retag.model import Query
from neo4j_retag.ops.stats import collect
from neo4j_retag.query.answer.map_reduce import MapFailedError
from neo4j_retag.query.answer.quote import sentences
from neo4j_retag.query.global_search import ask_global
from neo4j_retag.query.retag import RetagOptions, ask_retag
from neo4j_retag.text import strip_chatter
from tests.conftest import CORPORA

pytestmark = [pytest.mark.integration, pytest.mark.llm]


def carol_slice(tmp_path, chars=4200):
    book = (CORPORA / "christmas-carol" / "book.txt").read_text()
    start = book.index("Marley was dead")
    path = tmp_path / "carol-slice.txt"
    path.write_text(book[start:start + chars])
    return path


def plain(text):
    """Words only: a quote's spacing and punctuation are tidied, its report's data references
    removed."""
    return " ".join(re.findall(r"\w+", MARKER.sub("", text)))


def run(settings, usage, fn):
    return run_with_llm(settings, fn, usage)


def test_real_ingest_topics_and_ask(real_settings, real_graph, tmp_path):
    settings = real_settings.model_copy(update={"glean": 1})  # gleaning, for real (default 0)
    path = carol_slice(tmp_path)
    usage = Usage()
    result = run(settings, usage, lambda llm: run_ingest(
        real_graph, llm, settings, [path], topics=False))
    s = collect(real_graph)
    assert s["text_units"] >= 2 and result.text_units_extracted + len(
        result.text_units_failed) == s["text_units"]
    assert s["text_units_extracted"] >= 1 and s["entities"] > 0
    assert usage.stage("extract").calls >= 1 and usage.stage("glean").calls >= 1
    # every stored claim is grounded in its text unit; stored descriptions carry no chatter
    for r in real_graph.driver.execute_query(
            "MATCH (c:Chunk)-[:HAS_CLAIM]->(cl:Claim) RETURN c.text AS text, "
            "cl.subject AS subject, cl.source_quote AS quote").records:
        claim = ExtractedClaim(subject=r["subject"], source_quote=r["quote"] or "")
        assert grounded(claim, r["text"]), r
    descriptions = [r["d"] for r in real_graph.driver.execute_query(
        "MATCH (e:Entity) WHERE e.description <> '' RETURN e.description AS d").records]
    assert not [d for d in descriptions if strip_chatter(d).changed]
    levels = [lv["level"] for lv in s["levels"]]
    assert levels and levels == list(range(len(levels)))
    # each entity has a community at every level; each community a report or a recorded failure
    missing = real_graph.driver.execute_query(
        "MATCH (e:Entity) WITH e, COUNT { (e)-[:IN_COMMUNITY]->(:Community {scope: 'general'}) }"
        " AS n WHERE n <> $levels RETURN count(e) AS n", levels=len(levels)).records[0]["n"]
    assert missing == 0
    unreported = real_graph.driver.execute_query(
        "MATCH (c:Community) WHERE c.report_status IS NULL RETURN count(c) AS n"
    ).records[0]["n"]
    assert unreported == 0
    assert s["community_reports"] >= 1

    # the local model selects (LLM_CLASS=small): every entity rests on sentences of the slice,
    # its description made of them
    for r in real_graph.driver.execute_query(
            "MATCH (e:Entity) RETURN e.description AS d, [(e)-[:EVIDENCE]->(s) | s.text] AS ev"
    ).records:
        assert r["ev"] and all(t in r["d"] for t in r["ev"][:1]), r
    assert usage.stage("summarize").calls == 0

    # its topics are groups of the grounded communities: no mining, no assignment call
    topics = run(settings, usage, lambda llm: build_topics(real_graph, llm, settings))
    assert usage.stage("map").calls == 0 and usage.stage("topic_assign").calls == 0
    assert not topics.failed and "unable to answer" not in topics.corpus_description

    ids = {r["id"] for r in real_graph.driver.execute_query(
        "MATCH (c:Community) RETURN c.id AS id").records}
    q = "What are the main themes of this story?"
    answers = {}
    for name, ask, query in (("global", ask_global, Query(question=q, level=0)),
                             ("retag", ask_retag, Query(question=q, level=0,
                                                        options=RetagOptions(top_p=200)))):
        try:
            answers[name] = run(settings, usage, lambda llm, ask=ask, query=query: ask(
                real_graph, llm, settings, query))
        except MapFailedError as err:  # a 135M model's map reply can be unusable: one line
            assert "map batches" in str(err) and "\n" not in str(err), err
    # which of the two the model answers varies with llama.cpp's batching; never neither
    assert answers, "neither global nor retag search answered"
    for a in answers.values():
        assert a.answer.strip()
        assert all(c.id in ids for c in a.citations + a.sources)
        # citations are what the text cites, never appended for it
        assert all(f"{c.id}" in a.answer for c in a.citations)
        t = a.trace.model_dump()
        assert t["reports_retrieved"] >= 0 and "map" in t["seconds"] or t["notes"]
    if "retag" in answers:
        assert answers["retag"].trace.method == "retag"
        assert answers["retag"].trace.keywords is not None

    # the CLI on the same graph: --json trace is complete
    env = {"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
           "NEO4J_HTTP_PORT": str(settings.neo4j.http_port),
           "NEO4J_DATA": str(settings.neo4j_data_dir), "LLM_CACHE_DIR": str(settings.cache_dir)}
    if settings.neo4j.uri:
        env = {"NEO4J_URI": settings.neo4j.uri,
               "NEO4J_PASSWORD": settings.neo4j_auth()[1], "LLM_CACHE_DIR": str(settings.cache_dir)}
    # the test's embeddings: another endpoint, or `local` (the model in process)
    env["EMBEDDING_BASE_URL"] = settings.embedding.base_url or "local"
    # retag by name: the embedded model's default is auto (docs/evaluation.md)
    out = CliRunner().invoke(main, ["ask", q, "--method", "retag", "--level", "0", "--json"],
                             env=env)
    data = json.loads(out.stdout)
    # the 135M model's answer may be about nothing in its reports: then the honest no-answer,
    # exit 1 with its reason - never its text, never a traceback
    assert out.exit_code == 0 or (out.exit_code == 1 and data["trace"]["no_answer"]
                                  and "no answer:" in out.stderr), out.output
    assert data["answer"] and data["trace"]["method"] == "retag"
    assert {"classify", "keywords", "retrieve", "total"} <= set(data["trace"]["seconds"])
    assert data["trace"]["llm"]["calls"] + data["trace"]["llm"]["cached"] >= 1  # keywords
    # the small model's ReTAG (retag-quoted): real keywords from the model and real full-text
    # search, then the answer quoted - each sentence a sentence of the text units it cites,
    # with their place, and no answer call
    out = CliRunner().invoke(main, ["ask", "What does Scrooge do?", "--method", "retag-quoted",
                                    "--level", "0", "--json"], env=env)
    data = json.loads(out.stdout)
    assert out.exit_code == 0, out.output
    assert data["trace"]["answer"] == "quote" and "answer" not in data["trace"]["llm_stages"]
    units = {r["id"]: r["ss"] for r in real_graph.driver.execute_query(
        "MATCH (c:Chunk) RETURN c.id AS id, [(c)-[:HAS_SENTENCE]->(s) | s.text] AS ss").records}
    assert data["citations"] and all(c["kind"] == "text_unit" and c["location"]
                                     for c in data["citations"])
    for line in data["answer"].split("\n"):
        cited = [i for _, i in parse(line)]
        assert cited and all(i in units for i in cited), line
        body = line.removeprefix("- ").split("**: ", 1)[-1].rsplit(" [Data:", 1)[0]
        said = {plain(t) for i in cited for t in units[i]}
        for sent in sentences(body.replace(" — ", "\n")):
            assert plain(sent) in said, (sent, cited)

    # a rerun of the ingest is free: every LLM answer comes from the cache or is not needed
    before = usage.total.calls
    run(settings, usage, lambda llm: run_ingest(real_graph, llm, settings, [path],
                                                topics=False))
    assert usage.total.calls == before
