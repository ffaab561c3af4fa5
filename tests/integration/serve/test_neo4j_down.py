"""`serve` while its Neo4j stops and starts again (the project's own test server, really
stopped): concurrent questions each fail within seconds with one line (503 naming Neo4j),
not one after another behind the driver's retries; /health answers at once with `degraded`;
once the server is back, questions are answered again without restarting `serve`."""

from __future__ import annotations

import asyncio
import time

import httpx2 as httpx
import pytest

from neo4j_retag.config import Settings
from neo4j_retag.services import neo4j_local

from .conftest import BASE_PORT, Running

pytestmark = pytest.mark.integration
ASK = {"question": "What are the main themes?", "method": "global", "level": 0}


async def _asks(url: str, n: int) -> tuple[list[httpx.Response], float]:
    async with httpx.AsyncClient(base_url=url, timeout=120) as c:
        t0 = time.perf_counter()
        rs = await asyncio.gather(*(c.post("/ask", json=ASK) for _ in range(n)))
        return list(rs), time.perf_counter() - t0


def _health(url: str) -> tuple[float, dict]:
    t0 = time.perf_counter()
    body = httpx.get(f"{url}/health", timeout=30).json()
    return time.perf_counter() - t0, body


def test_asks_fail_fast_while_neo4j_is_stopped_and_work_once_it_is_back(indexed, neo4j_env):
    if not neo4j_env.get("neo4j_bolt_port"):
        pytest.skip("needs the project's own test server (it is stopped and started again)")
    server = Settings(**neo4j_env)
    # NEO4J_RETRY_SECONDS as by default: a question must not spend it while Neo4j is down
    settings = indexed.model_copy(update={"neo4j_retry_seconds": 30.0, "llm_concurrency": 4})
    with Running(settings, BASE_PORT + 5) as srv:
        rs, _ = asyncio.run(_asks(srv.url, 1))
        assert rs[0].status_code == 200, rs[0].text
        try:
            assert neo4j_local.stop(server)
            down, seconds = asyncio.run(_asks(srv.url, 5))
            healths = [_health(srv.url) for _ in range(5)]
        finally:
            neo4j_local.start(server)
        deadline, back = time.monotonic() + 60, None
        while back is None or (back.status_code != 200 and time.monotonic() < deadline):
            time.sleep(0.5)
            back = httpx.post(f"{srv.url}/ask", json=ASK, timeout=120)
        after = _health(srv.url)[1]
    assert [r.status_code for r in down] == [503] * 5, [r.text for r in down]
    for r in down:
        assert set(r.json()) == {"error"}
        assert r.json()["error"].startswith(f"Neo4j at {server.neo4j.bolt_uri} unreachable")
    # one after another behind the driver's retries would be 5 x 30 s
    assert seconds < 15, seconds
    assert max(t for t, _ in healths) < 1.0, healths
    assert all(b["status"] == "degraded" and b["neo4j"] != "ok" for _, b in healths), healths
    assert back.status_code == 200, back.text
    assert after["status"] == "ok", after
