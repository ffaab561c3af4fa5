"""A `serve` app under uvicorn in a thread, on the helper's ports (8861-8869, or
RETAG_TEST_SERVE_PORT as the first), against the real Neo4j with the LLM double."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
import uvicorn  # noqa: E402

from neo4j_retag.config import ServeSettings, Settings  # noqa: E402
from neo4j_retag.serve.conn import Limits, server_config  # noqa: E402
from neo4j_retag.serve.http import create_app, with_guard  # noqa: E402
from neo4j_retag.serve.service import Service  # noqa: E402

BASE_PORT = int(os.environ.get("RETAG_TEST_SERVE_PORT", "8861"))
# ../shared/tools/fakellm beside the checkout (a worktree sits one folder deeper)
FAKELLM = next((p / "shared" / "tools" / "fakellm" / "fakellm.py"
                for p in Path(__file__).resolve().parents
                if (p / "shared" / "tools" / "fakellm" / "fakellm.py").exists()),
               Path("fakellm.py"))


class Running:
    """``with Running(settings, port, ...) as r:`` - r.url, r.service. uvicorn as `serve`
    configures it (serve.conn: read timeouts, the connection cap; ``limits`` changes them)."""

    def __init__(self, settings: Settings, port: int, *, allow_writes: bool = False,
                 tls: tuple[Path, Path] | None = None, limits: Limits | None = None,
                 **api: Any) -> None:
        # api: serve's settings by their variables' names in lower case (serve_api_key=...),
        # validated (model_copy would keep a key as a plain str, not a SecretStr)
        group = ServeSettings(**{k.upper(): v for k, v in api.items()})
        self.service = Service(settings.model_copy(update={"serve": group}),
                               allow_writes=allow_writes)
        app = with_guard(create_app(self.service), self.service, "127.0.0.1", port)
        ssl = {"ssl_certfile": str(tls[0]), "ssl_keyfile": str(tls[1])} if tls else {}
        self.server = uvicorn.Server(server_config(app, "127.0.0.1", port,
                                                   limits or Limits.of(group), **ssl))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"

    def __enter__(self) -> Running:
        self.thread.start()
        deadline = time.time() + 60
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("serve did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def server(indexed: Settings) -> Iterator[Running]:
    with Running(indexed, BASE_PORT) as r:
        yield r


@pytest.fixture
def client(server: Running) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=120) as c:
        yield c


@pytest.fixture
def fakellm_url() -> Iterator[str]:
    """fakellm with --delay-ms 300 on the second port."""
    if not FAKELLM.exists():
        pytest.skip(f"no fakellm at {FAKELLM}")
    port = BASE_PORT + 1
    proc = subprocess.Popen([sys.executable, str(FAKELLM), str(port), "--delay-ms", "300",
                             "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield f"{url}/v1"
    finally:
        proc.terminate()
        proc.wait(10)


def sse(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) pairs of a server-sent event stream."""
    kind, data = "message", []
    for line in lines:
        if not line:
            if data:
                yield kind, "\n".join(data)
            kind, data = "message", []
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
