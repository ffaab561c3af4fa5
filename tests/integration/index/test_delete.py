"""documents list / delete and reset on the real Neo4j + GDS with the scripted LLM double:
deleting one of four documents leaves the graph a fresh ingest of the other three builds."""

import json
import re

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.errors import InputError
from neo4j_retag.index.delete import delete_documents, list_documents
from neo4j_retag.ops.documents import reset
from neo4j_retag.ops.stats import collect
from tests.conftest import ingest
from tests.llm_double import _text_block, names_in

pytestmark = pytest.mark.integration

DOCS = {
    "a.txt": "Scrooge met Marley at the Exchange. Marley warned Scrooge.",
    "b.txt": "Scrooge visited Cratchit. Cratchit carried Tim home to Martha.",
    "c.txt": "Belle left Scrooge. Fezziwig danced with Belle and Scrooge.",
    "d.txt": "Jacob Marley haunted Scrooge. Cratchit and Fezziwig dined with Jacob.",
}


def extract_by_context(body):
    """Descriptions that depend on the text unit, so each document adds its own."""
    names = names_in(_text_block(body))
    lead = names[0] if names else ""
    ents = [{"name": n, "type": "person" if len(n) % 2 else "organization",
             "description": f"{n} appears with {lead if n != lead else names[-1]}."}
            for n in names]
    rels = [{"source": a, "target": b, "description": f"{a} meets {b} near {lead}.",
             "strength": len(a) + len(b)} for a, b in zip(names, names[1:], strict=False)]
    return json.dumps({"entities": ents, "relationships": rels, "claims": [
        {"subject": lead, "object": "", "type": "mention", "status": "TRUE",
         "description": f"{lead} leads.", "source_quote": lead}] if names else []})


def summary_of(body):
    """A summary that names its inputs: a stale summary cannot pass for a fresh one."""
    return "Summary: " + " | ".join(sorted(re.findall(r"^- (.*)$", body["messages"][-1][
        "content"], re.M)))


def snapshot(graph):
    q = graph.driver.execute_query
    ents = {r["k"]: (r["name"], r["type"], r["d"], r["deg"], sorted(r["m"])) for r in q(
        "MATCH (e:Entity) RETURN e.key AS k, e.name AS name, e.type AS type, "
        "e.description AS d, e.degree AS deg, "
        "[(c:Chunk)-[m:MENTIONS]->(e) | c.id + ':' + m.description] AS m").records}
    rels = {(r["a"], r["b"]): (r["w"], r["s"], r["d"], sorted(zip(r["ids"], r["ds"],
                                                                  r["ss"], strict=True)))
            for r in q("MATCH (a)-[r:RELATED]->(b) RETURN a.key AS a, b.key AS b, "
                       "r.weight AS w, r.strength AS s, r.description AS d, "
                       "r.chunk_ids AS ids, r.descriptions AS ds, r.strengths AS ss").records}
    claims = sorted(r["id"] for r in q("MATCH (c:Claim)-[:ABOUT]->(:Entity) "
                                       "RETURN c.id AS id").records)
    return {"entities": ents, "relationships": rels, "claims": claims}


def write_docs(tmp_path, names):
    paths = []
    for n in names:
        (tmp_path / n).write_text(DOCS[n])
        paths.append(tmp_path / n)
    return paths


def test_delete_one_of_four_equals_fresh_ingest_of_three(settings, graph, double, tmp_path):
    double.script["extract"] = extract_by_context
    double.script["summarize"] = summary_of
    settings = settings.model_copy(update={"glean": 0})
    three = write_docs(tmp_path, ["a.txt", "b.txt", "c.txt"])
    ingest(settings, graph, three)
    fresh = snapshot(graph)
    fresh_stats = collect(graph)
    assert fresh_stats["communities"] > 0 and fresh_stats["community_reports"] > 0

    cache_files = len(list(settings.cache_dir.rglob("*")))
    gone = reset(graph)
    assert gone["documents"] == 3 and gone["entities"] == len(fresh["entities"])
    after_reset = collect(graph)
    assert all(after_reset[k] == 0 for k in ("documents", "text_units", "entities",
                                             "relationships", "claims", "communities"))
    assert graph.driver.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"] == 0
    assert len(list(settings.cache_dir.rglob("*"))) == cache_files  # the LLM cache is kept

    four = three + write_docs(tmp_path, ["d.txt"])
    ingest(settings, graph, four)
    full = snapshot(graph)
    assert "jacob" in full["entities"] and full["relationships"] != fresh["relationships"]
    docs = list_documents(graph)
    assert len(docs) == 4 and all(d["text_units"] == 1 and d["ingested_at"] for d in docs)
    d_row = next(d for d in docs if d["path"].endswith("d.txt"))
    assert d_row["entities"] == 5 and d_row["entities_only_here"] == 1  # jacob

    with pytest.raises(InputError, match="no-such-doc"):
        delete_documents(graph, [str(tmp_path / "d.txt"), "no-such-doc"])
    assert len(list_documents(graph)) == 4  # a bad ref deletes nothing

    out = delete_documents(graph, [str(tmp_path / "d.txt")])
    assert [d["id"] for d in out["documents"]] == [d_row["id"]]
    # exactly the entities whose description set lost a member are re-summarised
    dirty = {r["k"] for r in graph.driver.execute_query(
        "MATCH (e:Entity {dirty: true}) RETURN e.key AS k").records}
    changed = {k for k, v in full["entities"].items() if k in fresh["entities"]
               and {m.split(":", 1)[1] for m in v[4]}
               != {m.split(":", 1)[1] for m in fresh["entities"][k][4]}}
    assert dirty == changed and dirty and out["entities_to_resummarise"] == len(dirty)
    meta = graph.driver.execute_query(
        "MATCH (m:Meta {id: 'index'}) RETURN m.graph_dirty AS g, m.topics_dirty AS t").records[0]
    assert meta["g"] is True and meta["t"] is True

    ingest(settings, graph, [])  # what `ingest --resume` (or delete --rebuild) does
    assert snapshot(graph) == fresh
    rebuilt = collect(graph)
    assert rebuilt["communities"] == fresh_stats["communities"]
    assert rebuilt["community_reports"] == fresh_stats["community_reports"]
    assert graph.driver.execute_query(
        "MATCH (e:Entity) WHERE NOT (e)-[:IN_COMMUNITY]->() RETURN count(e) AS n"
    ).records[0]["n"] == 0


def test_cli_documents_list_delete_and_reset(settings, graph, double, tmp_path):
    env = ({"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
            "NEO4J_DATA": str(settings.neo4j_data_dir)} if not settings.neo4j.uri else
           {"NEO4J_URI": settings.neo4j.uri, "NEO4J_PASSWORD": settings.neo4j_auth()[1]})
    env.update({"OPENAI_BASE_URL": settings.llm.base_url, "OPENAI_MODEL": "double",
                "LLM_JSON_MODE": "json_schema", "LLM_CACHE_DIR": str(settings.cache_dir),
                "GLEAN": "0"})
    run = CliRunner().invoke
    paths = write_docs(tmp_path, ["a.txt", "b.txt"])
    out = run(main, ["ingest", *map(str, paths), "--no-topics", "--quiet"], env=env)
    assert out.exit_code == 0, out.output
    listed = json.loads(run(main, ["documents", "list", "--json"], env=env).stdout)["documents"]
    assert sorted(d["title"] for d in listed) == ["a", "b"]
    out = run(main, ["documents", "delete", listed[0]["id"][:10], "--rebuild", "--json"],
              env=env)
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout)  # progress lines went to stderr
    assert result["documents"][0]["id"] == listed[0]["id"]
    assert result["rebuild"]["communities_rebuilt"] is True
    out = run(main, ["documents", "delete", "nothing-like-this"], env=env)
    assert out.exit_code == 1 and "no such document" in out.output
    assert "Traceback" not in out.output
    out = run(main, ["reset"], env=env, input="n\n")
    assert out.exit_code != 0 and collect(graph)["documents"] == 1  # declined: nothing gone
    out = run(main, ["reset", "--yes"], env=env)
    assert out.exit_code == 0 and "emptied: 1 documents" in out.output
    assert collect(graph)["documents"] == 0


def test_delete_from_an_imported_graphrag_graph(settings, graph, double):
    """An imported graph has no per-text-unit lists: weights shrink in proportion, nothing
    breaks, and what only the deleted document supported goes."""
    from pathlib import Path

    from neo4j_retag.interop.graphrag.importer import import_graphrag
    out = Path(__file__).resolve().parents[2] / "data" / "graphrag-output-3x"
    import_graphrag(graph, settings, out)
    before = collect(graph)
    docs = list_documents(graph)
    q = graph.driver.execute_query
    # the document whose deletion leaves most relationships with part of their evidence
    shared = {r["id"]: r["n"] for r in q(
        "MATCH (d:Document)<-[:PART_OF]-(c:Chunk) WITH d, collect(c.id) AS ids "
        "MATCH ()-[r:RELATED]->() WHERE any(i IN r.chunk_ids WHERE i IN ids) "
        "AND any(i IN r.chunk_ids WHERE NOT i IN ids) RETURN d.id AS id, count(r) AS n").records}
    victim = max(docs, key=lambda d: (shared.get(d["id"], 0), d["entities_only_here"]))
    weights = {(r["a"], r["b"]): (r["w"], r["n"]) for r in q(
        "MATCH (a)-[r:RELATED]->(b) RETURN a.key AS a, b.key AS b, r.weight AS w, "
        "size(r.chunk_ids) AS n").records}
    delete_documents(graph, [victim["id"]])
    after = collect(graph)
    assert after["documents"] == before["documents"] - 1
    assert after["text_units"] == before["text_units"] - victim["text_units"]
    assert after["entities"] == before["entities"] - victim["entities_only_here"]
    shrunk = 0
    for r in q("MATCH (a)-[r:RELATED]->(b) RETURN a.key AS a, b.key AS b, r.weight AS w, "
               "size(r.chunk_ids) AS n").records:
        w, n = weights[(r["a"], r["b"])]
        assert r["n"] >= 1 and r["w"] == pytest.approx(w * r["n"] / n)
        shrunk += r["n"] < n
    assert shrunk == shared.get(victim["id"], 0)
    assert after["relationships"] < before["relationships"]


def test_a_delete_cut_short_is_finished_by_the_next_ingest_or_delete(settings, graph, double,
                                                                     tmp_path):
    """A delete goes text unit batch by batch: cut short (a crash, Neo4j gone for good), the
    document is still listed, marked `deleting`. The next ingest of its file removes what is
    left and reads it again (the graph a clean ingest builds); a rerun delete finishes it."""
    from neo4j_retag.index.remove import _remove_units
    double.script["extract"] = extract_by_context
    double.script["summarize"] = summary_of
    settings = settings.model_copy(update={"glean": 0, "chunk_size": 8, "chunk_overlap": 0})
    paths = write_docs(tmp_path, ["a.txt", "b.txt", "c.txt"])
    ingest(settings, graph, paths)
    fresh = snapshot(graph)
    doc = next(d for d in list_documents(graph) if d["path"].endswith("a.txt"))
    units = [r["id"] for r in graph.run("index/document_chunks", ids=[doc["id"]])]
    assert len(units) >= 2
    graph.run("index/mark_deleting", ids=[doc["id"]], topics=True)  # what a delete does first
    _remove_units(graph, units[:1])  # ... and its first batch: then it stopped
    assert [d["text_units"] for d in list_documents(graph) if d["id"] == doc["id"]] == [
        len(units) - 1]
    res = ingest(settings, graph, paths)  # the same files again
    assert res.documents_replaced == 1 and res.documents_new == 1
    assert snapshot(graph) == fresh
    again = next(d for d in list_documents(graph) if d["id"] == doc["id"])
    assert again["text_units"] == len(units)
    assert graph.driver.execute_query("MATCH (d:Document) WHERE d.deleting RETURN count(d) AS n"
                                      ).records[0]["n"] == 0
    # cut short again, then the delete run again: finished
    graph.run("index/mark_deleting", ids=[doc["id"]], topics=True)
    _remove_units(graph, units[:1])
    delete_documents(graph, [doc["id"]])
    assert doc["id"] not in {d["id"] for d in list_documents(graph)}
    assert graph.driver.execute_query("MATCH (c:Chunk) WHERE c.id IN $ids RETURN count(c) AS n",
                                      ids=units).records[0]["n"] == 0
