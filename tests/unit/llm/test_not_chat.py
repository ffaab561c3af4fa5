"""Issue 48 item 2: a 200 whose JSON is no chat completion stops the run at the first request
(one line naming OPENAI_BASE_URL), however many calls are in flight; a content-filter refusal
names its category and fails each item it blocks; `doctor` reports any non-API reply in one
line."""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError, LLMError
from neo4j_retag.llm import LLM
from neo4j_retag.ops.doctor import _llm


class Stub:
    """A server answering every GET and POST with one fixed (status, content type, body)."""

    def __init__(self, status: int, ctype: str, body: str) -> None:
        self.calls = {"GET": 0, "POST": 0}
        me = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _answer(self):
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    self.rfile.read(n)
                me.calls[self.command] += 1
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _settings(tmp_path, stub, **extra):
    return Settings(**{"openai_base_url": stub.url, "openai_model": "m", "llm_cache": False,
                       "llm_max_retries": 3, "llm_concurrency": 6,
                       "neo4j_retag_home": tmp_path, **extra})


async def _many(settings, n):
    async with LLM(settings) as llm:
        return await asyncio.gather(*(llm.complete(
            [{"role": "user", "content": f"item {i}"}], stage="extract") for i in range(n)),
            return_exceptions=True), llm.usage


@pytest.mark.parametrize("body", ['"ready"', "[1, 2]", '{"healthy": true, "uptime": 3}',
                                  "null", '{"object": "list", "data": []}'])
def test_json_that_is_no_chat_completion_costs_one_request(tmp_path, body):
    with Stub(200, "application/json", body) as stub:
        got, usage = asyncio.run(_many(_settings(tmp_path, stub), 6))
    assert stub.calls["POST"] == 1  # six calls in flight, one paid for
    assert all(isinstance(e, ConfigError) for e in got)
    msg = str(got[0])
    assert "OPENAI_BASE_URL" in msg and "no chat completion" in msg and "\n" not in msg
    assert json.dumps(json.loads(body))[:20] in msg
    assert usage.stage("extract").failed == 1


def test_a_later_call_asks_again(tmp_path):
    # a long-lived client (serve) is not stuck with a verdict once the endpoint comes right
    with Stub(200, "application/json", '"warming up"') as stub:
        settings = _settings(tmp_path, stub)

        async def go():
            async with LLM(settings) as llm:
                for _ in range(2):
                    with pytest.raises(ConfigError):
                        await llm.complete([{"role": "user", "content": "x"}], stage="answer")
        asyncio.run(go())
    assert stub.calls["POST"] == 2


def _completion(finish: str, **choice_extra) -> str:
    return json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [{
        "index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": ""},
        **choice_extra}]})


def test_a_filtered_answer_names_its_category_and_fails_each_item(tmp_path):
    body = _completion("content_filter", content_filter_results={
        "hate": {"filtered": False, "severity": "safe"},
        "self_harm": {"filtered": True, "severity": "medium"}})
    with Stub(200, "application/json", body) as stub:
        got, usage = asyncio.run(_many(_settings(tmp_path, stub), 3))
    assert stub.calls["POST"] == 3  # one per item: a filter is not asked again
    assert all(isinstance(e, LLMError) and e.reason == "content_filter" for e in got)
    assert all("self_harm (medium)" in str(e) and "hate" not in str(e) for e in got)
    assert usage.faults["content_filter"] == 3


def test_a_filtered_prompt_400_names_its_category(tmp_path):
    body = json.dumps({"error": {
        "message": "The response was filtered due to the prompt triggering our content "
                   "management policy.", "code": "content_filter", "status": 400,
        "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": {
            "jailbreak": {"filtered": True, "detected": True},
            "violence": {"filtered": False, "severity": "low"}}}}})
    with Stub(400, "application/json", body) as stub:
        got, _ = asyncio.run(_many(_settings(tmp_path, stub), 2))
    assert all(isinstance(e, LLMError) and e.reason == "content_filter" for e in got)
    assert "category: jailbreak)" in str(got[0]) and "violence" not in str(got[0])


@pytest.mark.parametrize("ctype, body", [
    ("text/html", "<!doctype html><title>Grafana</title><p>Dashboard</p>"),
    ("application/json", '"pong"'),
    ("application/json", "[]"),
    ("application/json", '{"status": "ok", "version": "2.1"}'),
    ("text/plain", "OK"),
])
def test_doctor_reports_any_non_api_reply_in_one_line(tmp_path, ctype, body):
    with Stub(200, ctype, body) as stub:
        checks = asyncio.run(_llm(_settings(tmp_path, stub)))
    assert [c.name for c in checks] == ["LLM endpoint"] and not checks[0].ok
    detail = checks[0].detail
    assert "OPENAI_BASE_URL" in detail and "\n" not in detail
    assert "_set_private_attributes" not in detail and "object has no attribute" not in detail
    assert stub.calls["POST"] == 0  # the model list showed it: no completion asked


def test_a_filtered_stream_names_its_category(tmp_path):
    from neo4j_retag.llm.stream import complete_streaming

    def chunk(content, finish, **extra):
        return "data: " + json.dumps({"id": "s", "object": "chat.completion.chunk", "created": 0,
                                      "model": "m", "choices": [{
                                          "index": 0, "delta": {"content": content},
                                          "finish_reason": finish, **extra}]}) + "\n\n"
    body = (chunk("The ", None) + chunk("", "content_filter", content_filter_results={
        "sexual": {"filtered": False, "severity": "safe"},
        "hate": {"filtered": True, "severity": "high"}}) + "data: [DONE]\n\n")
    with Stub(200, "text/event-stream", body) as stub:
        settings = _settings(tmp_path, stub)

        async def go():
            async with LLM(settings) as llm:
                return await complete_streaming(llm, [{"role": "system", "content": "s"},
                                                      {"role": "user", "content": "q"}],
                                                stage="reduce", on_token=lambda t: None)
        with pytest.raises(LLMError) as e:
            asyncio.run(go())
    assert e.value.reason == "content_filter" and "category: hate (high))" in str(e.value)
    assert stub.calls["POST"] == 1


def test_a_structured_output_refusal_is_named(tmp_path):
    body = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [{
        "index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": None,
            "refusal": "I can't assist with extracting that."}}]})
    with Stub(200, "application/json", body) as stub:
        got, _ = asyncio.run(_many(_settings(tmp_path, stub, llm_max_retries=0), 1))
    assert isinstance(got[0], LLMError) and got[0].reason == "refused"
    assert "I can't assist with extracting" in str(got[0])


def test_a_json_404_that_names_no_model_is_a_wrong_path(tmp_path):
    with Stub(404, "application/json", '{"detail": "Not Found"}') as stub:
        got, _ = asyncio.run(_many(_settings(tmp_path, stub), 3))
    assert all(isinstance(e, ConfigError) and "OPENAI_BASE_URL" in str(e) for e in got)
    assert "OPENAI_MODEL" not in str(got[0]) and stub.calls["POST"] == 1


def test_an_embeddings_endpoint_answering_status_json_is_one_line(tmp_path):
    from neo4j_retag.llm.embeddings import Embedder
    with Stub(200, "application/json", '{"healthy": true}') as stub:
        settings = _settings(tmp_path, stub, embedding_base_url=stub.url,
                             embedding_model="e")

        async def go():
            async with LLM(settings) as llm:
                return await Embedder.of(llm).embed_items({"a": "alpha", "b": "beta"})
        with pytest.raises(ConfigError) as e:
            asyncio.run(go())
    assert "EMBEDDING_BASE_URL" in str(e.value) and "no embeddings list" in str(e.value)
    assert stub.calls["POST"] == 1
