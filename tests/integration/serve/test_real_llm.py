"""`serve` on the real stack: Neo4j + GDS and the local SmolLM2 through llama.cpp. An ingest
job (its own process) indexes a slice of A Christmas Carol, then a streamed question (in a
question process) shows its stages and ends with the answer. What a 135M model writes is not
judged; that every hop across the processes carries real work is."""

from __future__ import annotations

import json
import time

import httpx2 as httpx
import pytest

from tests.conftest import CORPORA

from .conftest import BASE_PORT, Running, sse

pytestmark = [pytest.mark.integration, pytest.mark.llm]


def test_serve_ingests_and_answers_with_the_local_llm(real_settings, real_graph, tmp_path):
    book = (CORPORA / "christmas-carol" / "book.txt").read_text()
    start = book.index("Marley was dead")
    (tmp_path / "carol.txt").write_text(book[start:start + 2400])
    with Running(real_settings, BASE_PORT + 5, allow_writes=True,
                 serve_ingest_root=tmp_path) as srv, \
            httpx.Client(base_url=srv.url, timeout=600) as c:
        job = c.post("/ingest", json={"paths": ["carol.txt"], "topics": False}).json()
        deadline = time.monotonic() + 900
        while (state := c.get(f"/jobs/{job['id']}").json())["status"] == "running":
            assert time.monotonic() < deadline, state
            time.sleep(1)
        with c.stream("POST", "/ask/stream", json={
                "question": "What are the main themes of this story?", "method": "retag-quoted",
                "level": 0}) as r:
            got = list(sse(r.iter_lines()))
        stats = c.get("/stats").json()
    assert state["status"] == "done", state
    assert state["result"]["text_units_extracted"] >= 1 and state["progress"], state
    kinds = [k for k, _ in got]
    assert kinds[-1] == "answer", got[-1]
    # the small model's ReTAG: keywords, the top-p reports, their source sentences quoted
    assert {"keywords", "retrieved"} <= set(kinds[:-1]), kinds
    answer = json.loads(got[-1][1])
    assert answer["answer"].strip() and answer["trace"]["method"] == "retag-quoted"
    assert answer["trace"]["answer"] == "quote" and answer["citations"]
    assert answer["trace"]["llm"]["calls"] >= 1  # the keyword expansion
    assert stats["serve"]["answered"] == 1 and stats["serve"]["llm_calls_max"] >= 1
    # both processes recorded their LLM usage in the graph (`stats`)
    used = {u["stage"]: u["calls"] for u in stats["llm_usage"]}
    assert used.get("extract", 0) >= 1 and used.get("keywords", 0) >= 1, used
