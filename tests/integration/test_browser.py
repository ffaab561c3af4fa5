"""Exploring in Neo4j Browser / Bloom: the GraSS style and the Bloom perspective checked against
what Browser's parser and Bloom's documentation accept, then Browser itself in headless
Chromium against the local test server: log in, load the style, run a ready explore query on an
imported GraphRAG graph, check the graph renders with the style's colours."""

from __future__ import annotations

import shutil

import pytest

from neo4j_retag.config import REPO_ROOT
from neo4j_retag.interop.graphrag.importer import import_graphrag
from tests.graphrag_fixture import write_fixture
from tests.unit.test_explore import ARGS, CHROMIUM, COMMUNITY_COLOUR, ENTITY_COLOUR


@pytest.fixture
def browser():
    if not CHROMIUM.exists() and not shutil.which("chromium"):
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright (python) is not installed")
    with sync_api.sync_playwright() as p:
        # the system Chromium: Playwright never downloads a browser here
        b = p.chromium.launch(executable_path=str(CHROMIUM if CHROMIUM.exists() else
                                                  shutil.which("chromium")),
                              headless=True, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def _frames(page) -> int:
    return page.locator("[data-testid='frame']").count()


def _run(page, text: str) -> None:
    """Type ``text`` into the editor, run it, wait for its result frame."""
    before = _frames(page)
    page.click("[data-testid='activeEditor']")
    page.keyboard.insert_text(text)
    page.click("[data-testid='editor-Run']")
    page.wait_for_function(f"() => document.querySelectorAll(\"[data-testid='frame']\").length"
                           f" > {before}", timeout=30_000)


def _drop_file(page, name: str, text: str) -> None:
    """What dragging a file onto the Browser window does (Browser imports .grass files)."""
    page.evaluate("""([name, text]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name));
      const target = document.querySelector("[data-testid='main']");
      for (const type of ['dragenter', 'dragover', 'drop'])
        target.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true,
                                                  dataTransfer: dt}));
    }""", [name, text])


@pytest.mark.integration
@pytest.mark.browser
def test_browser_renders_a_ready_query_with_the_style(settings, graph, browser, tmp_path):
    if settings.neo4j.uri:
        pytest.skip("the Browser test drives the project's local server only")
    import_graphrag(graph, settings, write_fixture(tmp_path / "graphrag"))
    user, password = settings.neo4j_auth()
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"http://127.0.0.1:{settings.neo4j.http_port}/browser/")
    page.wait_for_selector("input[data-testid='username']", timeout=60_000)
    page.fill("input[data-testid='boltaddress']", f"127.0.0.1:{settings.neo4j.bolt_port}")
    page.fill("input[data-testid='username']", user)
    page.fill("input[data-testid='password']", password)
    page.click("button[data-testid='connect']")
    page.wait_for_selector("text=Connected to Neo4j", timeout=60_000)

    before = _frames(page)
    _drop_file(page, "style.grass", (REPO_ROOT / "explore" / "style.grass").read_text())
    page.wait_for_function(f"() => document.querySelectorAll(\"[data-testid='frame']\").length"
                           f" > {before}", timeout=30_000)  # Browser echoes the loaded style
    _run(page, ":param community => 0")
    query = (REPO_ROOT / "cypher" / "explore" / "community.cypher").read_text()
    _run(page, query)
    shot = tmp_path / "browser-community.png"
    try:
        page.wait_for_function(
            "() => document.querySelectorAll('svg g.node').length >= 5", timeout=60_000)
    finally:
        page.wait_for_timeout(1500)  # let the force layout settle for the screenshot
        page.screenshot(path=str(shot))
    nodes = page.evaluate("""() => [...document.querySelectorAll('svg g.node')].map(g => ({
        fill: g.querySelector('circle.b-outline')?.getAttribute('fill'),
        text: g.textContent.trim()}))""")
    fills = [n["fill"] for n in nodes]
    assert fills.count(COMMUNITY_COLOUR) == 1 and fills.count(ENTITY_COLOUR) == 4, nodes
    captions = " ".join(n["text"] for n in nodes)
    assert "MARLEY" in captions and "LONDON" in captions
    assert page.locator("text=Displaying 5 nodes").count() == 1
    assert shot.stat().st_size > 10_000
