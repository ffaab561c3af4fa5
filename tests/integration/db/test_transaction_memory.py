"""Writes bounded by construction under a Neo4j transaction memory cap on a real server:
``db.memory.transaction.max`` of 8 MB. Neo4j Community has no ``dbms.setConfigValue``, so a
second local server is started with it in its neo4j.conf (NEO4J_TX_MEMORY=8m; ports
7972/7973, stopped after). A write over the cap is split in halves and written, one row alone
over it is a one-line error, and an ingest whose text units' extractions outgrow one
transaction loses none of them. Deleting a document, pruning archived reports and setting the
degrees of a large graph go in batches (WRITE_BATCH_SIZE, halved over the cap); `doctor`
shows the cap and WRITE_BATCH_SIZE."""

import hashlib
import json
import logging
import os
import shutil

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.db import Graph, TransactionTooLarge
from neo4j_retag.index.delete import delete_documents
from neo4j_retag.index.elements import summarize_descriptions
from neo4j_retag.llm import run_with_llm
from neo4j_retag.ops.doctor import run_checks
from neo4j_retag.services import neo4j_local
from tests.conftest import HOME, corpus, ingest, make_settings, wipe
from tests.llm_double import _text_block, default_extract

pytestmark = pytest.mark.integration
CAP = "db.memory.transaction.max"


@pytest.fixture(scope="module")
def capped_env():
    """A local Neo4j + GDS whose transactions are capped at 8 MB, for this module."""
    # RETAG_TEST_CAPPED_BOLT_PORT / _HTTP_PORT: beside another engineer's capped server
    bolt = int(os.environ.get("RETAG_TEST_CAPPED_BOLT_PORT", "7972"))
    http = int(os.environ.get("RETAG_TEST_CAPPED_HTTP_PORT", "7973"))
    env = {"neo4j_retag_home": HOME, "neo4j_bolt_port": bolt, "neo4j_http_port": http,
           "neo4j_data": HOME / f"neo4j-data-test-{bolt}-capped", "neo4j_heap": "768m",
           "neo4j_pagecache": "64m", "neo4j_tx_memory": "8m"}
    shutil.rmtree(env["neo4j_data"], ignore_errors=True)  # a fresh database each time
    try:
        neo4j_local.start(Settings(**env))
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"cannot start a second local Neo4j: {err}")
    yield env
    neo4j_local.stop(Settings(**env))
    shutil.rmtree(env["neo4j_data"], ignore_errors=True)


@pytest.fixture
def capped(capped_env, tmp_path, double):
    """Settings and an empty graph on the capped server."""
    # the extraction bounds (LLM_SCHEMA_MAX_ITEMS / _CHARS) would cut the double's oversized
    # records long before Neo4j's cap: raised, so that the cap is what these tests meet
    s = make_settings(tmp_path, capped_env, openai_base_url=double.base_url,
                      chunk_size=120, chunk_overlap=20, embeddings=False,
                      llm_schema_max_items=1000, llm_schema_max_chars=100_000)
    with Graph(s) as g:
        with g.driver.session() as session:  # small transactions: the nodes are big
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1 ROW"
                        ).consume()
        wipe(g)
        g.ensure_schema()
        yield s, g


def test_a_write_over_the_cap_is_split_and_one_row_over_it_is_one_line(capped, tmp_path,
                                                                        caplog):
    s, graph = capped
    ingest(s, graph, [corpus(tmp_path, 4)])
    keys = [r[0] for r in graph.driver.execute_query("MATCH (e:Entity) RETURN e.key").records]
    assert len(keys) >= 6, keys
    big = "word " * 400_000  # 2 MB each: six of them are over 8 MB in one transaction
    rows = [{"key": k, "description": big, "type": "person", "dirty": False} for k in keys]
    with caplog.at_level(logging.WARNING):
        assert graph.write("index/set_entity_descriptions", rows) == len(rows)
    assert "written in halves" in caplog.text
    n = graph.driver.execute_query("MATCH (e:Entity) WHERE size(e.description) = $n "
                                   "RETURN count(*)", n=len(big)).records[0][0]
    assert n == len(keys)  # every row written
    huge = [{"key": keys[0], "description": "word " * 3_000_000, "type": "person",
             "dirty": False}]
    with pytest.raises(TransactionTooLarge) as err:
        graph.write("index/set_entity_descriptions", huge)
    assert str(err.value).startswith("one row of index/set_entity_descriptions is over")
    assert "\n" not in str(err.value) and CAP in str(err.value)


def test_an_ingest_whose_extractions_outgrow_one_transaction_loses_none(capped, double,
                                                                       tmp_path, caplog):
    def extract(body):  # ~1 MB of descriptions per text unit (20,000 characters each)
        out = json.loads(default_extract(body))
        names = [e["name"] for e in out["entities"]]
        out["entities"] = [{"name": f"{n}", "type": "person", "description": f"{n} {i} "
                            + "appears in the text. " * 950} for i, n in enumerate(names)]
        out["entities"] += [{"name": f"Clerk {j}", "type": "person", "description":
                             f"Clerk {j} " + "works in the counting house. " * 700}
                            for j in range(40)]
        return json.dumps(out)
    double.script["extract"] = extract
    s, graph = capped
    with caplog.at_level(logging.WARNING):
        res = ingest(s, graph, [corpus(tmp_path, 6)])
    assert not res.text_units_failed, res.text_units_failed
    assert res.text_units_extracted > 8
    assert "written in halves" in caplog.text  # the cap was met, and split around
    assert "Traceback" not in caplog.text


def test_one_text_unit_over_the_cap_is_the_one_failed_item(capped, double, tmp_path, caplog):
    """Issue 46: one oversized text unit among 30: it alone fails, named with the setting to
    raise; every other one is written and marked extracted; `--resume` retries it alone."""
    s, graph = capped
    s = s.model_copy(update={"chunk_size": 60, "chunk_overlap": 0})
    folder = tmp_path / "thirty"
    folder.mkdir()
    for i in range(30):  # one text unit each
        (folder / f"t{i:02d}.txt").write_text(f"Scrooge met Marley number {i} in London.")
    big_unit = "number 17 "

    def extract(body):
        out = json.loads(default_extract(body))
        if big_unit in json.dumps(body):  # ~12 MB of descriptions: over 8 MB alone
            out["entities"] += [{"name": f"Clerk {j}", "type": "person", "description":
                                 f"Clerk {j} " + "works in the counting house. " * 700}
                                for j in range(600)]
        return json.dumps(out)
    double.script["extract"] = extract
    with caplog.at_level(logging.WARNING):
        res = ingest(s, graph, [folder])
    assert res.text_units_total == 30 or res.text_units_new == 30
    assert len(res.text_units_failed) == 1, [f.item for f in res.text_units_failed]
    failed = res.text_units_failed[0]
    assert CAP in failed.error and "NEO4J_TX_MEMORY" in failed.error, failed.error
    assert failed.reason == "tx_memory", failed  # its own reason, not an LLM error's
    assert failed.item in failed.error  # the text unit named
    q = graph.driver.execute_query
    done = q("MATCH (c:Chunk {extracted: true}) RETURN count(c) AS n").records[0]["n"]
    assert done == 29
    assert "Traceback" not in caplog.text
    calls = double.count("extract")
    again = ingest(s, graph, [])  # --resume: what earlier runs left
    assert double.count("extract") - calls <= 1  # the failed text unit only (or its cache)
    assert [f.item for f in again.text_units_failed] == [failed.item]


def test_a_long_document_over_the_cap_is_deleted_in_batches(capped, double, tmp_path, caplog):
    """A 300-line document whose text units hold ~6 MB of claims: its delete was one
    transaction (over the cap: exit 1, nothing deleted); now its text units go in batches."""
    s, graph = capped

    def extract(body):  # ten claims of 20,000 characters per text unit
        out = json.loads(default_extract(body))
        tag = hashlib.sha256(_text_block(body).encode()).hexdigest()[:8]
        if "Scrooge" in _text_block(body):
            out["claims"] = [{"subject": "Scrooge", "object": "", "type": "mention",
                              "status": "TRUE", "source_quote": "Scrooge", "description":
                              f"Claim {tag} {j}: " + "Scrooge keeps the ledgers. " * 730}
                             for j in range(10)]
        return json.dumps(out)
    double.script["extract"] = extract
    folder = tmp_path / "long"
    folder.mkdir()
    (folder / "ledger.txt").write_text("".join(
        f"Line {i}: Scrooge met Marley in London.\n" for i in range(300)))
    (folder / "short.txt").write_text("Belle met Fezziwig at the ball.")
    res = ingest(s, graph, [folder])
    assert not res.text_units_failed, res.text_units_failed
    q = graph.driver.execute_query
    counts = q("MATCH (:Document {title: 'ledger'})<-[:PART_OF]-(c:Chunk) "
               "RETURN count(c) AS units, sum(COUNT { (c)-[:HAS_CLAIM]->() }) AS claims"
               ).records[0]
    assert counts["units"] > 20 and counts["claims"] >= 10 * counts["units"], counts.data()
    with caplog.at_level(logging.WARNING):
        out = delete_documents(graph, [str(folder / "ledger.txt")])
    assert [d["title"] for d in out["documents"]] == ["ledger"]
    assert "in halves" in caplog.text  # the cap was met, and split around
    left = q("MATCH (d:Document) RETURN collect(d.title) AS docs").records[0]["docs"]
    assert left == ["short"]
    assert q("MATCH (c:Chunk) WHERE NOT (c)-[:PART_OF]->(:Document {title: 'short'}) "
             "RETURN count(c) AS n").records[0]["n"] == 0
    assert q("MATCH (k:Claim) WHERE k.description STARTS WITH 'Claim ' OR NOT "
             "(:Chunk)-[:HAS_CLAIM]->(k) RETURN count(k) AS n").records[0]["n"] == 0
    assert q("MATCH (e:Entity) RETURN collect(e.key) AS keys").records[0]["keys"] != []
    assert q("MATCH (e:Entity) WHERE NOT ()-[:MENTIONS]->(e) RETURN count(e) AS n"
             ).records[0]["n"] == 0
    assert q("MATCH (e:Entity) WHERE e.degree <> COUNT { (e)-[:RELATED]-() } "
             "RETURN count(e) AS n").records[0]["n"] == 0
    meta = q("MATCH (m:Meta {id: 'index'}) RETURN m.graph_dirty AS g").records[0]
    assert meta["g"] is True


def test_archived_reports_over_the_cap_are_pruned_in_batches(capped, tmp_path, caplog):
    """An `ingest --resume` that rebuilds the communities prunes the archived reports at its
    end: 200 archives of 100 KB were one transaction (the resume stopped there every time)."""
    s, graph = capped
    ingest(s, graph, [corpus(tmp_path, 2)])
    with graph.driver.session() as session:  # archived reports of a bigger graph
        session.run("UNWIND range(1, 200) AS i CALL (i) { CREATE (:ReportArchive "
                    "{scope: 'general', id: 100000 + i, full_content: $text}) } "
                    "IN TRANSACTIONS OF 10 ROWS", text="x" * 100_000).consume()
    graph.run("index/set_index_meta", props={"graph_dirty": True})
    with caplog.at_level(logging.WARNING):
        res = ingest(s, graph, [])  # what `ingest --resume` does
    assert res.communities_rebuilt
    assert "index/prune_archive: 1000 rows per transaction were over" in caplog.text
    assert graph.driver.execute_query("MATCH (a:ReportArchive) RETURN count(a) AS n"
                                      ).records[0]["n"] == 0


def test_degrees_of_a_large_graph_are_set_in_batches(capped):
    """The degrees are set after the summaries: over 100,000 entities they were one
    transaction (the ingest stopped after paying its extraction calls)."""
    s, graph = capped
    with graph.driver.session() as session:
        session.run("UNWIND range(1, 50000) AS i CALL (i) { CREATE (:Entity {key: 'a' + i, "
                    "name: 'A' + i})-[:RELATED {weight: 1.0}]->(:Entity {key: 'b' + i, "
                    "name: 'B' + i}) } IN TRANSACTIONS OF 200 ROWS").consume()
    try:
        run_with_llm(s, lambda llm: summarize_descriptions(graph, llm, s))
        rows = graph.driver.execute_query(
            "MATCH (e:Entity) RETURN e.degree AS d, count(*) AS n").records
        assert [(r["d"], r["n"]) for r in rows] == [(1, 100_000)]
    finally:  # small nodes: the next test's clean-up goes one node per transaction
        with graph.driver.session() as session:
            session.run("MATCH (e:Entity) CALL (e) { DETACH DELETE e } "
                        "IN TRANSACTIONS OF 1000 ROWS").consume()


def test_doctor_shows_the_cap_and_the_batch_size(capped):
    s, _ = capped
    checks = {c.name: c for c in run_checks(s)}
    line = checks["transactions"].detail
    assert f"{CAP} 8.00MiB" in line and "WRITE_BATCH_SIZE 1000" in line, line
    assert "NEO4J_LIVENESS_CHECK" in checks["connections"].detail
