"""Issue 21 kind 6: a wrong endpoint stops the run at its first reply with one line naming the
status, the content type, a snippet and the /v1 hint - not four retries per item; an HTML 404
is no "model not found"; JSON served as text/plain is accepted."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError
from neo4j_retag.llm import run_with_llm

COMPLETION = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                         "choices": [{"index": 0, "finish_reason": "stop", "message": {
                             "role": "assistant", "content": "OK"}}]})
LOGIN = ("<!DOCTYPE html><html><head><title>Sign in - Corp Proxy</title></head><body>"
         "<form action='/login'>Username</form></body></html>")


class Endpoint:
    """A server answering every POST with one fixed (status, content type, body)."""

    def __init__(self, status: int, ctype: str, body: str) -> None:
        self.calls = 0
        me = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                me.calls += 1
                data = body.encode()
                self.send_response(status)
                if ctype:
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def _ask(tmp_path, ep: Endpoint) -> str:
    settings = Settings(openai_base_url=ep.url, openai_model="m", llm_cache=False,
                        llm_max_retries=3, neo4j_retag_home=tmp_path)
    return run_with_llm(settings, lambda llm: llm.complete(
        [{"role": "user", "content": "Say OK."}], stage="answer"))


@pytest.mark.parametrize("status, ctype, body, snippet", [
    (200, "text/html; charset=utf-8", "<html><body><h1>Welcome to nginx!</h1></body></html>",
     "Welcome to nginx!"),
    (200, "text/html", LOGIN, "Sign in - Corp Proxy"),
    (200, "", "", "an empty body"),
    (404, "text/html", "<html><body>404 Not Found</body></html>", "404 Not Found"),
])
def test_a_web_page_stops_at_the_first_reply(tmp_path, status, ctype, body, snippet):
    ep = Endpoint(status, ctype, body)
    try:
        with pytest.raises(ConfigError) as e:
            _ask(tmp_path, ep)
    finally:
        ep.stop()
    msg = str(e.value)
    assert f"HTTP {status}" in msg and snippet in msg and "/v1" in msg
    assert (ctype.split(";")[0] or "without a content type") in msg
    assert "OPENAI_MODEL" not in msg and "\n" not in msg
    assert ep.calls == 1  # no retry: every call would get the same page


def test_json_served_as_text_plain_is_accepted(tmp_path):
    ep = Endpoint(200, "text/plain", COMPLETION)
    try:
        assert _ask(tmp_path, ep) == "OK"
    finally:
        ep.stop()


def test_a_json_404_naming_the_model_is_still_model_not_found(tmp_path):
    ep = Endpoint(404, "application/json", json.dumps(
        {"error": {"message": "The model `m` does not exist", "code": "model_not_found"}}))
    try:
        with pytest.raises(ConfigError, match="OPENAI_MODEL"):
            _ask(tmp_path, ep)
    finally:
        ep.stop()
