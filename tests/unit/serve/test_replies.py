"""An exception no handler takes is a 500 with one JSON line, logged once, and the client's
connection stays open for its next request (Starlette's handler for ``Exception`` raised it
again, so uvicorn logged a second traceback and closed the connection). A real uvicorn on a
free loopback port, a real keep-alive client."""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time

import uvicorn
from fastapi import FastAPI

from neo4j_retag.errors import RetagError
from neo4j_retag.serve.conn import server_config
from neo4j_retag.serve.replies import Contained, error_response


def test_a_bug_is_one_500_and_the_connection_lives_on(caplog):
    app = FastAPI()
    app.add_exception_handler(RetagError, lambda request, err: error_response(err))
    app.add_middleware(Contained)

    @app.get("/bug")
    async def bug() -> dict:
        raise KeyError("surprise")

    @app.get("/fine")
    async def fine() -> dict:
        return {"ok": True}

    server = uvicorn.Server(server_config(app, "127.0.0.1", 0))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.02)
    logging.getLogger("uvicorn.error").addHandler(caplog.handler)
    try:
        c = http.client.HTTPConnection("127.0.0.1", server.servers[0].sockets[0].getsockname()[1])
        c.request("GET", "/bug")
        r = c.getresponse()
        assert r.status == 500 and json.loads(r.read()) == {
            "error": "internal error (KeyError); see the server log"}
        sock = c.sock
        c.request("GET", "/fine")
        r = c.getresponse()
        assert r.status == 200 and json.loads(r.read()) == {"ok": True} and c.sock is sock
    finally:
        logging.getLogger("uvicorn.error").removeHandler(caplog.handler)
        server.should_exit = True
        thread.join(10)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in errors] == ["internal error"]  # ours, once
