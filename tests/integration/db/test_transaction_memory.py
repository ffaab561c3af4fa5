"""Writes bounded by construction under a Neo4j transaction memory cap (issue 32 item 4) on
a real server: ``db.memory.transaction.max`` of 8 MB. Neo4j Community has no
``dbms.setConfigValue``, so a second local server is started with it in its neo4j.conf
(NEO4J_TX_MEMORY=8m; ports 7972/7973, stopped after). A write over the cap is split in halves
and written, one row alone over it is a one-line error, and an ingest whose text units'
extractions outgrow one transaction loses none of them."""

import json
import logging
import shutil

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.db import Graph, TransactionTooLarge
from neo4j_retag.services import neo4j_local
from tests.conftest import HOME, corpus, ingest, make_settings, wipe
from tests.llm_double import default_extract

pytestmark = pytest.mark.integration
CAP = "db.memory.transaction.max"


@pytest.fixture(scope="module")
def capped_env():
    """A local Neo4j + GDS whose transactions are capped at 8 MB, for this module."""
    env = {"neo4j_retag_home": HOME, "neo4j_bolt_port": 7972, "neo4j_http_port": 7973,
           "neo4j_data": HOME / "neo4j-data-test-7972-capped", "neo4j_heap": "768m",
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
    s = make_settings(tmp_path, capped_env, openai_base_url=double.base_url,
                      chunk_size=120, chunk_overlap=20, embeddings=False)
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
