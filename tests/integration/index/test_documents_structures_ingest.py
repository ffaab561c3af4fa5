"""Issue 47 against the real Neo4j + GDS (`ingest --lazy`, no LLM call; the scripted double
serves embeddings): a folder holding an encrypted PDF ingests the rest and exits 3 naming the
file; what the readers could not read is counted in the summary, `--json` and `documents
list`; `--accept-skipped` takes the skip knowingly (exit 0, still listed)."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from tests import document_files as f
from tests.conftest import double_vars, neo4j_vars

pytestmark = pytest.mark.integration


def test_encrypted_pdf_skipped_named_counted_exit_3(settings, graph, double, tmp_path):
    folder = tmp_path / "port"
    folder.mkdir()
    f.write_pdf(folder / "locked.pdf", password="secret")
    f.docx_tracked_change(folder / "tariff.docx")
    f.pptx_notes_hidden(folder / "tides.pptx")
    f.pdf_ligatures(folder / "letter.pdf", names=False)  # 4 glyphs nothing can recover
    (folder / "fees.html").write_text(f.HTML_HIDDEN)
    env = {**neo4j_vars(settings), **double_vars(settings), "COLUMNS": "200"}

    r = CliRunner().invoke(main, ["ingest", str(folder), "--lazy", "--json", "--quiet"],
                           env=env)
    assert r.exit_code == 3, r.output
    s = json.loads(r.stdout)
    assert s["documents_new"] == 4 and s["documents_unread"] == 1 and s["failed_items"] == 1
    (skip,) = s["skipped"]
    assert skip["item"].endswith("locked.pdf") and skip["reason"] == "encrypted"
    assert s["lossy"] == {"hidden_slides": 1, "unmapped_glyphs": 4, "text_units": 1}
    texts = [r["t"] for r in graph.driver.execute_query(
        "MATCH (c:Chunk) RETURN c.text AS t").records]
    assert sum("4.50 EUR per metre" in t for t in texts) == 2  # the docx and the page
    assert not any("3.90" in t or "9.99" in t for t in texts)

    # the table says the same, and names the file
    r = CliRunner().invoke(main, ["ingest", str(folder), "--lazy", "--quiet"], env=env)
    assert r.exit_code == 3, r.output
    assert "locked.pdf: encrypted PDF" in r.output and "1 document(s) could not be read" in \
        r.output, r.output
    assert "hidden_slides 1" in r.output and "unmapped_glyphs 4" in r.output, r.output

    # accepted knowingly: exit 0, the file still listed and counted
    r = CliRunner().invoke(main, ["ingest", str(folder), "--lazy", "--quiet",
                                  "--accept-skipped"], env=env)
    assert r.exit_code == 0, r.output
    assert "locked.pdf" in r.output and "accepted with --accept-skipped" in r.output

    r = CliRunner().invoke(main, ["documents", "list", "--json"], env=env)
    assert r.exit_code == 0, r.output
    rows = {d["path"].rsplit("/", 1)[-1]: d for d in json.loads(r.stdout)["documents"]}
    assert rows["tides.pptx"]["lost"]["hidden_slides"] == "1"
    assert rows["letter.pdf"]["lost"]["unmapped_glyphs"] == "4"
    assert rows["letter.pdf"]["text_units_lossy"] == 1
    assert rows["fees.html"]["text_units_lossy"] == 0
    r = CliRunner().invoke(main, ["documents", "list"], env=env)
    assert "unmapped glyphs 4" in r.output and "hidden slides 1" in r.output, r.output


def test_slides_books_and_unsupported_files_in_the_graph(settings, graph, double, tmp_path):
    # a text unit across slides 1, 2 and 4 kept slide 1 only; an .epub or .odt in a folder
    # was left out without a word, and a hidden shape was indexed
    folder = tmp_path / "port"
    folder.mkdir()
    f.pptx_four_slides(folder / "day.pptx")
    f.pptx_hidden_shape_and_chart(folder / "visits.pptx")
    f.write_epub(folder / "keepers.epub")
    f.write_odt(folder / "minutes.odt")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    env = {**neo4j_vars(settings), **double_vars(settings), "COLUMNS": "200"}
    r = CliRunner().invoke(main, ["ingest", str(folder), "--lazy", "--json", "--quiet"],
                           env=env)
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["documents_new"] == 4
    assert s["lossy"] == {"hidden_slides": 1, "hidden_shapes": 1}
    assert [(k["item"].rsplit("/", 1)[-1], k["reason"]) for k in s["skipped"]] == \
        [("photo.png", "unsupported")]
    rows = {r["loc"]: r for r in graph.driver.execute_query(
        "MATCH (c:Chunk) RETURN c.location AS loc, c.slide AS slide, c.slides AS slides, "
        "c.page AS page, c.heading AS heading").records}
    assert rows["day.pptx slides 1-2, 4"]["slides"] == [1, 2, 4]
    assert rows["day.pptx slides 1-2, 4"]["slide"] == 1
    assert any(loc.startswith("keepers.epub § Chapter 1: The quay") for loc in rows)
    assert any(loc.startswith("minutes.odt pp. 1-3 § Harbour Trust minutes") for loc in rows)
    r = CliRunner().invoke(main, ["documents", "list", "--json"], env=env)
    docs = {d["path"].rsplit("/", 1)[-1]: d for d in json.loads(r.stdout)["documents"]}
    assert docs["visits.pptx"]["lost"]["hidden_shapes"] == "1"
    assert docs["keepers.epub"]["title"] == "The Keepers of Port Alder"
