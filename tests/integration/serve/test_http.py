"""`serve`'s HTTP API on the real Neo4j + GDS with the LLM double: /ask equals `ask --json`,
/ask/stream gives the stages before the answer and the final JSON, writes need
--allow-writes, ingest stays under its root, keys and body caps, one-line JSON errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx2 as httpx
import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from tests.conftest import double_vars, neo4j_vars

from .conftest import BASE_PORT, Running, sse

pytestmark = pytest.mark.integration
QUESTION = "What are the main themes of Scrooge and Belle?"


def test_ask_equals_ask_json(indexed, client):
    env = {**neo4j_vars(indexed), **double_vars(indexed), "MAP_CONTEXT_TOKENS": "1500",
           "LLM_MAX_RETRIES": "1"}
    out = CliRunner().invoke(main, ["ask", QUESTION, "--level", "0", "--json"], env=env)
    assert out.exit_code == 0, out.output
    cli = json.loads(out.stdout)
    r = client.post("/ask", json={"question": QUESTION, "level": 0, "method": "retag"})
    assert r.status_code == 200, r.text
    api = r.json()
    assert api.keys() == cli.keys() and api["trace"].keys() == cli["trace"].keys()
    assert api["citations"] == cli["citations"] and api["citations"]
    assert api["answer"] == cli["answer"] and api["sources"] == cli["sources"]
    # serve's default method is ask's (ASK_METHOD, else the model class's default)
    default = client.post("/ask", json={"question": QUESTION, "level": 0}).json()
    assert default["trace"]["method"] == cli["trace"]["method"]
    auto = client.post("/ask", json={"question": QUESTION, "level": 0, "method": "auto"}).json()
    assert auto["trace"]["routing"]["kind"] == "global"


def test_a_declared_variant_is_asked_alike_by_the_cli_and_http(indexed, client, double):
    # retag-general came through the method contract alone (query/retag.py, docs/methods.md):
    # the CLI's choice and the HTTP enum know it; it reads the general graph, never classifies
    env = {**neo4j_vars(indexed), **double_vars(indexed), "MAP_CONTEXT_TOKENS": "1500",
           "LLM_MAX_RETRIES": "1"}
    classified = double.count("classify")
    out = CliRunner().invoke(main, ["ask", QUESTION, "--method", "retag-general", "--level",
                                    "0", "--json"], env=env)
    assert out.exit_code == 0, out.output
    cli = json.loads(out.stdout)
    r = client.post("/ask", json={"question": QUESTION, "level": 0, "method": "retag-general",
                                  "topic": "anything"})
    assert r.status_code == 200, r.text
    api = r.json()
    assert cli["trace"]["method"] == api["trace"]["method"] == "retag-general"
    assert cli["trace"]["scope"] == api["trace"]["scope"] == "general"
    assert cli["trace"]["topic"] is None and api["trace"]["topic"] is None
    assert api["answer"] == cli["answer"] and api["citations"] == cli["citations"]
    assert double.count("classify") == classified  # no topic classification
    assert "the topic option applies to retag and retag-quoted-topics only: retag-general " \
        "ignored it" \
        in api["trace"]["notes"]


def test_a_refused_answer_is_the_same_no_answer_in_ask_json_and_post_ask(indexed, client,
                                                                       double):
    # issue 45: `ask --json` exits 1 (no exit 0 while something failed), POST /ask answers
    # 200 (the request was served); both bodies say answered false with the same refusals
    double.script["reduce"] = lambda b: '{"verdict": "WITHHELD", "why": "policy"} That is all.'
    env = {**neo4j_vars(indexed), **double_vars(indexed), "MAP_CONTEXT_TOKENS": "1500",
           "LLM_MAX_RETRIES": "1"}
    out = CliRunner().invoke(main, ["ask", QUESTION, "--level", "0", "--json"], env=env)
    assert out.exit_code == 1, out.output
    cli = json.loads(out.stdout)
    assert "refused: reduce refused (json)" in out.stderr
    r = client.post("/ask", json={"question": QUESTION, "level": 0, "method": "retag"})
    assert r.status_code == 200, r.text
    api = r.json()
    assert cli["answered"] is False and api["answered"] is False
    assert api["answer"] == cli["answer"] and api["trace"]["no_answer"]
    # one refusal per attempt: `ask` here runs with LLM_MAX_RETRIES 1, the server with its own
    assert ({x["rule"] for x in api["trace"]["refusals"]}
            == {x["rule"] for x in cli["trace"]["refusals"]} == {"json"})
    assert api["trace"]["refusals"][0].keys() == cli["trace"]["refusals"][0].keys()
    assert "WITHHELD" in api["trace"]["refusals"][0]["text"]


def test_stream_gives_stages_then_tokens_then_the_answer(client):
    with client.stream("POST", "/ask/stream", json={"question": QUESTION, "level": 0,
                                                    "method": "auto"}) as r:
        assert r.status_code == 200
        got = list(sse(r.iter_lines()))
    kinds = [k for k, _ in got]
    assert kinds[-1] == "answer", kinds
    first_token = kinds.index("token")
    for stage in ("classified", "retrieved", "map", "reduce"):
        assert kinds.index(stage) < first_token, kinds
    assert kinds.count("token") > 3  # the reduce answer word by word
    final = json.loads(got[-1][1])
    streamed = "".join(json.loads(d)["text"] for k, d in got if k == "token")
    assert final["answer"].split("[Data")[0].strip() in streamed
    assert final["citations"] and final["trace"]["llm"]["calls"] >= 3
    maps = [json.loads(d) for k, d in got if k == "map"]
    assert maps[-1]["batch"] == maps[-1]["batches"] == final["trace"]["map_batches"]


def test_errors_are_one_json_line(client):
    r = client.post("/ask", json={"question": QUESTION, "method": "global", "level": 9})
    assert r.status_code == 400 and r.json() == {
        "error": "level 9 does not exist; levels with reports: [0]"} or "level 9" in r.text
    r = client.post("/ask", json={"question": ""})
    assert r.status_code == 422 and r.json()["error"].startswith("question:")
    r = client.post("/ask", json={"question": QUESTION, "method": "nope"})
    # the method is an enum of the registry's names (OpenAPI shows it): a validation error
    assert r.status_code == 422 and r.json()["error"].startswith("method: Input should be")
    assert "'retag-general'" in r.json()["error"]
    r = client.post("/ask", content=b"{" + b" " * 100_000 + b"}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "request body over" in r.json()["error"]
    for resp in (client.get("/reports/999999"), client.get("/jobs/nope")):
        assert resp.status_code == 404 and "Traceback" not in resp.text
    assert client.get("/health").json()["status"] == "ok"
    stats = client.get("/stats").json()
    assert stats["documents"] == 4 and stats["serve"]["limit"] >= 1
    assert client.get("/openapi.json").json()["paths"]["/ask/stream"]


def test_writes_refused_without_allow_writes(client):
    docs = client.get("/documents").json()["documents"]
    assert len(docs) == 4
    r = client.delete(f"/documents/{docs[0]['id']}")
    assert r.status_code == 403 and "--allow-writes" in r.json()["error"]
    r = client.post("/ingest", json={"paths": ["x"]})
    assert r.status_code == 403
    assert len(client.get("/documents").json()["documents"]) == 4


def test_ingest_root_and_write_jobs(indexed, tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "new.txt").write_text("Belle married a kind man. Scrooge saw Belle's children.")
    (outside / "secret.txt").write_text("Not for the index.")
    (root / "escape").symlink_to(outside)
    (root / "sub").mkdir()
    (root / "sub" / "link.txt").symlink_to(outside / "secret.txt")
    with Running(indexed, BASE_PORT + 2, allow_writes=True, serve_ingest_root=root) as srv, \
            httpx.Client(base_url=srv.url, timeout=60) as c:
        same = "is not a file or folder under the ingest root"  # outside and missing alike
        for bad, why in (("../outside/secret.txt", "'..'"), (str(outside / "secret.txt"),
                         same), ("escape", same), ("/etc/shadow", same),
                         ("/etc/no-such-file", same), ("sub", "leads outside the ingest"),
                         ("missing.txt", same)):
            r = c.post("/ingest", json={"paths": [bad]})
            assert r.status_code == 400 and why in r.json()["error"], (bad, r.text)
        job = c.post("/ingest", json={"paths": ["new.txt"], "topics": False})
        assert job.status_code == 202, job.text
        jid = job.json()["id"]
        for _ in range(600):
            state = c.get(f"/jobs/{jid}").json()
            if state["status"] != "running":
                break
            time.sleep(0.2)
        assert state["status"] == "done", state
        assert state["progress"]["documents loaded"] == [1, 1]
        docs = c.get("/documents").json()["documents"]
        assert len(docs) == 5 and not any("secret" in (d["path"] or "") for d in docs)
        new = next(d for d in docs if d["path"].endswith("new.txt"))
        r = c.delete(f"/documents/{new['id']}")
        assert r.status_code == 200 and r.json()["documents"][0]["id"] == new["id"]


def test_api_key_and_bind(indexed):
    with Running(indexed, BASE_PORT + 3, serve_api_key="s3cret") as srv:
        assert httpx.get(f"{srv.url}/health").status_code == 200  # probes need no key
        for h, said in (({}, "missing API key"), ({"Authorization": "Bearer wrong"}, "wrong"),
                        ({"Authorization": "Basic s3cret"}, "wrong API key")):
            r = httpx.get(f"{srv.url}/documents", headers=h)
            assert r.status_code == 401 and r.json()["error"].startswith(said), r.text
        r = httpx.get(f"{srv.url}/documents", headers={"Authorization": "Bearer s3cret"})
        assert r.status_code == 200
    env = {**os.environ, **neo4j_vars(indexed), "SERVE_API_KEY": "",
           "PYTHONPATH": os.getcwd()}
    out = subprocess.run([sys.executable, "-m", "neo4j_retag.cli", "serve", "--host",
                          "0.0.0.0", "--port", str(BASE_PORT + 4)], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out
    assert "refusing to listen on 0.0.0.0 without SERVE_API_KEY" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 2
