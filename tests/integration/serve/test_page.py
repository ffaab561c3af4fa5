"""The page at / in headless Chromium (the system one, as tests/integration/test_browser.py):
ask, watch the stages and the streamed answer, click a citation, read the report beside the
answer. The screenshot goes to docs/serve-page.png with RETAG_UPDATE_DOCS=1."""

from __future__ import annotations

import os
import re
import shutil

import pytest

from neo4j_retag.config import REPO_ROOT
from tests.unit.test_explore import ARGS, CHROMIUM

from .conftest import BASE_PORT, Running

pytestmark = [pytest.mark.integration, pytest.mark.browser]


def _reduce(body) -> str:
    ids = list(dict.fromkeys(re.findall(r"Reports \((\d+)\)", body["messages"][-1]["content"])))
    cite = f" [Data: Reports ({', '.join(ids[:3])})]" if ids else ""
    # grounded in what the reduce step was given (an answer about nothing there is refused)
    context = re.sub(r"\[Data:[^\]]*\]", "", body["messages"][-1]["content"])
    words = list(dict.fromkeys(re.findall(r"\b[A-Z][a-z]{3,}\b", context)))
    names = ", ".join(w for w in words if w not in {"Point", "Question", "Analyst", "Importance",
                                                     "Score", "Report", "Reports"})[:120]
    return (f"Two threads run through the story: {names}{cite}.\n\nThey meet in the "
            f"same places, {names}{cite}.")


@pytest.fixture
def chromium():
    if not CHROMIUM.exists() and not shutil.which("chromium"):
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM if CHROMIUM.exists() else
                                                  shutil.which("chromium")),
                              headless=True, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def test_page_asks_streams_and_opens_a_cited_report(indexed, double, chromium, tmp_path):
    double.script["reduce"] = _reduce
    with Running(indexed, BASE_PORT + 6) as srv:
        page = chromium.new_page(viewport={"width": 1300, "height": 820})
        page.goto(srv.url + "/")
        assert page.locator("#method").input_value() == "auto"
        page.fill("#question", "What are the main themes of the story?")
        page.click("#go")
        logs: list[str] = []
        page.on("console", lambda m: logs.append(m.text))
        try:
            page.wait_for_function(
                "() => document.getElementById('cost').textContent.length > 0", timeout=60_000)
        except Exception:
            pytest.fail(f"no answer: error {page.locator('#error').text_content()!r}, events "
                        f"{page.locator('#events li').all_text_contents()}, console {logs}")
        events = page.locator("#events li").all_text_contents()
        assert events[0].startswith("classified: global question -> global"), events
        assert any(e.startswith("retrieved") for e in events)
        assert any(e.startswith("map batch") for e in events)
        assert "Two threads run through the story" in page.locator("#answer").text_content()
        assert "LLM calls" in page.locator("#cost").text_content()
        links = page.locator("#citations a.citation")
        assert links.count() >= 1
        title = links.first.text_content().split(": ", 1)[1]
        links.first.click()
        page.wait_for_selector("#report-title", timeout=30_000)
        assert page.locator("#report-title").text_content() == title
        assert page.locator("#report .entities li").count() >= 1
        assert page.locator("#report .finding").count() >= 1
        # docs/serve-page.png is this screenshot, taken with RETAG_UPDATE_DOCS=1
        shot = (REPO_ROOT / "docs" if os.environ.get("RETAG_UPDATE_DOCS") == "1"
                else tmp_path) / "serve-page.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000


def test_page_with_a_key_logs_in_and_asks(indexed, double, chromium):
    double.script["reduce"] = _reduce
    with Running(indexed, BASE_PORT + 6, serve_api_key="s3cret") as srv:
        page = chromium.new_page()
        page.goto(srv.url + "/")  # the page itself opens without the key
        page.wait_for_selector("#login:not([hidden])", timeout=30_000)
        assert not page.locator("#main").is_visible()
        page.fill("#key", "wrong")
        page.click("#signin")
        page.wait_for_function(
            "() => document.getElementById('login-error').textContent.length > 0")
        assert "wrong API key" in page.locator("#login-error").text_content()
        page.fill("#key", "s3cret")
        page.click("#signin")
        page.wait_for_selector("#main:not([hidden])", timeout=30_000)
        page.fill("#question", "What are the main themes of the story?")
        page.click("#go")
        page.wait_for_function(
            "() => document.getElementById('cost').textContent.length > 0", timeout=60_000)
        assert "Two threads run through the story" in page.locator("#answer").text_content()
        # the session is an HttpOnly cookie: the page's script never holds the key
        assert page.evaluate("document.cookie") == ""
        assert page.evaluate("JSON.stringify(sessionStorage) + JSON.stringify(localStorage)") \
            == "{}{}"
        assert "s3cret" not in page.url
        cookies = page.context.cookies()
        assert [(c["name"], c["httpOnly"], c["sameSite"]) for c in cookies] == [
            ("retag_session", True, "Strict")]
        # a reload keeps the session: no login form
        page.reload()
        page.wait_for_function(
            "() => document.getElementById('corpus').textContent.length > 0", timeout=30_000)
        assert not page.locator("#login").is_visible()


def test_a_page_on_another_origin_cannot_frame_it(indexed, double, chromium):
    import http.server
    import threading

    from .conftest import BASE_PORT as base
    with Running(indexed, base + 6) as srv:
        frame_page = (f'<html><body><h1>win a prize</h1><iframe id="f" src="{srv.url}/" '
                      'width="900" height="600"></iframe></body></html>').encode()

        class Evil(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the handler's name
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.end_headers()
                self.wfile.write(frame_page)

            def log_message(self, *args):
                pass

        evil = http.server.ThreadingHTTPServer(("127.0.0.1", base + 8), Evil)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        try:
            calls = double.count()
            page = chromium.new_page()
            console: list[str] = []
            page.on("console", lambda m: console.append(m.text))
            page.goto(f"http://localhost:{base + 8}/")  # another origin than the server's
            page.wait_for_load_state("load")
            page.wait_for_timeout(1000)
            child = page.frames[1]
            refused = child.url.startswith("chrome-error:") or any(
                "frame-ancestors" in m for m in console)
            assert refused, (child.url, console)
            assert child.locator("#question").count() == 0  # nothing to click into
            # the page itself, opened directly, works
            direct = chromium.new_page()
            direct.goto(srv.url + "/")
            assert direct.locator("#question").count() == 1
            assert double.count() == calls
        finally:
            evil.shutdown()
            evil.server_close()


def test_the_page_shows_a_degraded_service_and_its_recovery(indexed, chromium):
    from neo4j import GraphDatabase

    from .conftest import BASE_PORT as base
    with Running(indexed, base + 6) as srv:
        page = chromium.new_page()
        page.goto(srv.url + "/")
        page.wait_for_function("() => document.getElementById('corpus').textContent.length > 0",
                               timeout=30_000)
        assert not page.locator("#status").is_visible()
        live = srv.service.graph.driver
        dead = GraphDatabase.driver(f"bolt://127.0.0.1:{base + 9}", auth=("neo4j", "x"))
        srv.service.graph.driver = dead  # Neo4j gone while the page is open
        try:
            page.wait_for_selector("#status:not([hidden])", timeout=30_000)
            warning = page.locator("#status").text_content()
            assert "Neo4j: unreachable" in warning and "Questions fail" in warning, warning
            page.reload()  # and a page opened while it is down
            page.wait_for_function("() => document.getElementById('corpus').textContent"
                                   ".startsWith('corpus unavailable')", timeout=30_000)
            corpus = page.locator("#corpus").text_content()
            assert "Neo4j at bolt://" in corpus and "unreachable" in corpus, corpus
            page.wait_for_selector("#status:not([hidden])", timeout=30_000)
        finally:
            srv.service.graph.driver = live
            dead.close()
        # back: the warning goes and the corpus line is read again, without a reload
        page.wait_for_selector("#status[hidden]", state="attached", timeout=30_000)
        page.wait_for_function("() => !document.getElementById('corpus').textContent"
                               ".startsWith('corpus unavailable')", timeout=30_000)
