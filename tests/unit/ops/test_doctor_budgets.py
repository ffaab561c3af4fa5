"""doctor compares every token budget with the window the LLM server runs with (issue 46
item 6): a llama.cpp server's own n_ctx (GET /props), else the window learnt from a refusal,
else LLM_CTX; budgets over it, and an LLM_CTX the running server does not serve, fail with
the setting to change; a broken model file fails the model check in one line."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.llm.endpoint import WINDOW_KEY, Capabilities
from neo4j_retag.ops import doctor
from neo4j_retag.ops.doctor_budgets import served_ctx, window


@pytest.fixture
def llama_props():
    """A server answering llama.cpp's GET /props with ``n_ctx`` (set by the test)."""
    state = {"n_ctx": 256}

    class Props(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"default_generation_settings": {"n_ctx": state["n_ctx"]},
                               "total_slots": 1}).encode()
            self.send_response(200 if self.path == "/props" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Props)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state["port"] = server.server_address[1]
    yield state
    server.shutdown()


def test_budgets_of_8000_tokens_fail_against_a_256_token_server(tmp_path, llama_props):
    s = Settings(openai_base_url=f"http://127.0.0.1:{llama_props['port']}/v1",
                 llm_cache_dir=tmp_path)
    assert served_ctx(s.llm.endpoint) == 256
    [c] = doctor._budgets(s)
    assert not c.ok and "window 256 tokens (the server's n_ctx)" in c.detail
    for name in ("CHUNK_SIZE", "REPORT_CONTEXT_TOKENS", "MAP_CONTEXT_TOKENS",
                 "REDUCE_CONTEXT_TOKENS"):
        assert name in c.detail, c.detail
    assert "LLM_CTX" in c.fix
    llama_props["n_ctx"] = 131072  # a window every budget fits
    [c] = doctor._budgets(s)
    assert c.ok and "MAP_CONTEXT_TOKENS 8,000" in c.detail


def test_a_local_server_serving_another_context_than_llm_ctx(tmp_path, llama_props):
    s = Settings(openai_base_url=None, llm_port=llama_props["port"], llm_ctx=8192,
                 llm_cache_dir=tmp_path)
    checks = doctor._budgets(s)
    ctx = next(c for c in checks if c.name == "LLM context")
    assert not ctx.ok and "n_ctx 256" in ctx.detail and "llm stop" in ctx.fix


def test_without_props_the_learnt_window_then_llm_ctx(tmp_path):
    remote = Settings(openai_base_url="http://127.0.0.1:9/v1", llm_cache_dir=tmp_path)
    assert window(remote) == (None, "the endpoint does not tell its window")
    assert doctor._budgets(remote)[0].ok
    Capabilities(remote).set(WINDOW_KEY, 2048)
    assert window(remote) == (2048, "learnt from the endpoint's refusal")
    assert not doctor._budgets(remote)[0].ok  # 8,000-token budgets in a 2,048 window
    local = Settings(openai_base_url=None, llm_port=9, llm_ctx=8192,
                     llm_cache_dir=tmp_path / "l")
    ctx, _ = window(local)
    assert ctx == 8192 and doctor._budgets(local)[0].ok  # the local budgets follow LLM_CTX


def test_a_broken_model_file_fails_the_model_check(tmp_path):
    broken = tmp_path / "zeros.gguf"
    with broken.open("wb") as f:
        f.truncate(1 << 20)
    c = doctor._model(Settings(openai_base_url=None, llm_model_path=broken))
    assert not c.ok and str(broken) in c.detail
