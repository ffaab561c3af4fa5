"""PDF, DOCX, PPTX, HTML and Markdown ingested into the real Neo4j + GDS (the scripted LLM
double): text units keep their page, slide or heading path, `ask --json` citations say
"library-report.pdf p. 3", and each bad file is skipped alone."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from tests.conftest import double_vars, ingest, neo4j_vars
from tests.document_files import (
    HTML,
    MARKDOWN,
    write_bad_files,
    write_docx,
    write_pdf,
    write_pptx,
)
from tests.llm_double import _table_ids

pytestmark = pytest.mark.integration


def chunks(graph, where: str) -> list[dict]:
    return [r.data() for r in graph.driver.execute_query(
        "MATCH (c:Chunk) WHERE c.text CONTAINS $w RETURN c.location AS location, c.page AS "
        "page, c.pages AS pages, c.slide AS slide, c.heading AS heading", w=where).records]


def test_folder_of_documents_keeps_pages_slides_headings(settings, graph, double, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    write_pdf(folder / "library-report.pdf")
    write_docx(folder / "minutes.docx")
    write_pptx(folder / "festival.pptx")
    (folder / "quay.html").write_text(HTML)
    (folder / "notes.md").write_text(MARKDOWN)
    bad = write_bad_files(folder)
    settings = settings.model_copy(update={"chunk_size": 40, "chunk_overlap": 5})
    res = ingest(settings, graph, [folder])
    assert res.documents_new == 5 and not res.text_units_failed
    assert {s.item.rsplit("/", 1)[-1]: s.reason for s in res.skipped} == bad
    # 40-token text units: the story hour's unit runs from page 2 onto page 3
    (story,) = chunks(graph, "Saturday story hour")
    assert story["location"] == "library-report.pdf pp. 2-3" and story["pages"] == [2, 3]
    assert story["page"] == 2
    assert {c["location"] for c in chunks(graph, "Millbrook Rovers.")} == {
        "library-report.pdf p. 3"}
    assert {c["heading"] for c in chunks(graph, "two volunteers")} == {
        "Harbour Trust minutes > Budget > Staff"}
    assert {c["slide"] for c in chunks(graph, "lends lanterns")} == {2}
    assert {c["location"] for c in chunks(graph, "Port Alder")} == {
        "notes.md § Library notes > Mobile van"}
    assert {c["location"] for c in chunks(graph, "| Friday | Lantern walk |")} == {
        "quay.html § Quay news > Events"}
    # tables are Markdown tables in their text units, the header in each part
    assert all(t.startswith("| Item | Cost |") or "\n| Item | Cost |" in t for t in (
        r["t"] for r in graph.driver.execute_query(
            "MATCH (c:Chunk) WHERE c.text CONTAINS '| Library van |' RETURN c.text AS t"
        ).records))

    # `ask --json`: every text unit cited says where it is
    double.script["answer"] = lambda body: "Volunteers run it. [Data: Sources ({})]".format(
        ", ".join(_table_ids(body, "Sources")))
    env = {**neo4j_vars(settings), **double_vars(settings)}
    r = CliRunner().invoke(main, ["ask", "Who runs the Saturday story hour?", "--method", "rag",
                                  "--json"], env=env)
    assert r.exit_code == 0, r.output
    cites = json.loads(r.stdout)["citations"]
    assert cites and all(c["kind"] == "text_unit" and c["location"] for c in cites)
    assert "library-report.pdf pp. 2-3" in {c["location"] for c in cites}
    r = CliRunner().invoke(main, ["ask", "Who runs the Saturday story hour?", "--method",
                                  "lazy"], env=env)
    assert r.exit_code == 0 and "library-report.pdf pp. 2-3" in r.output, r.output

    # the CLI's rerun adds nothing and lists each bad file again, counted by reason; the
    # documents it could not read fail the run (exit 3), never a silent success
    r = CliRunner().invoke(main, ["ingest", str(folder)], env={**env, "COLUMNS": "200"})
    assert r.exit_code == 3, r.output
    assert "5 document(s) could not be read" in r.output, r.output
    assert "5 (corrupt 1, encrypted 1, mismatched 2, no-text 1)" in r.output, r.output
    assert "scan.pdf: no text layer: OCR is not included (2 pages)" in r.output
