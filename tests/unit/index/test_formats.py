"""PDF, DOCX, PPTX, HTML and Markdown read into documents with their places; bad files each
skipped alone with one line (files made at test time by the libraries' writers)."""

import sys

import pytest

from neo4j_retag.errors import Failure
from neo4j_retag.index.documents import Document, read_path
from neo4j_retag.index.formats import location
from tests.document_files import (
    HTML,
    MARKDOWN,
    write_bad_files,
    write_docx,
    write_epub,
    write_odt,
    write_pdf,
    write_pptx,
)


def _one(path) -> Document:
    items = list(read_path(path))
    assert len(items) == 1 and isinstance(items[0], Document), items
    return items[0]


def _where(doc: Document, phrase: str) -> dict:
    at = doc.text.index(phrase)
    return doc.locate(at, at + len(phrase))


def test_pdf_pages(tmp_path):
    doc = _one(write_pdf(tmp_path / "library-report.pdf"))
    assert "Harbour Trust" in doc.text and "Saturday story hour" in doc.text
    assert _where(doc, "Saturday story hour") == {
        "page": 3, "pages": [3], "slide": None, "slides": None, "heading": None,
        "location": "library-report.pdf p. 3"}
    # text spanning two pages says both
    start = doc.text.index("in March")
    assert doc.locate(start, doc.text.index("Harbour Trust"))["location"] == \
        "library-report.pdf pp. 1-2"


def test_pdf_with_some_scanned_pages_counts_them(tmp_path):
    doc = _one(write_pdf(tmp_path / "mixed.pdf", blank=2))
    assert doc.metadata["pages_without_text"] == "2"
    assert _where(doc, "Visits rose")["page"] == 3


def test_docx_headings_and_table(tmp_path):
    doc = _one(write_docx(tmp_path / "minutes.docx"))
    assert "| Item | Cost |\n|---|---|\n| Library van | 40000 |" in doc.text
    assert _where(doc, "Library van")["heading"] == "Harbour Trust minutes > Budget"
    assert _where(doc, "two volunteers")["location"] == \
        "minutes.docx § Harbour Trust minutes > Budget > Staff"
    assert _where(doc, "town hall")["heading"] == "Harbour Trust minutes"


def test_pptx_slides_table_and_notes(tmp_path):
    doc = _one(write_pptx(tmp_path / "festival.pptx"))
    assert _where(doc, "Tomas Lindqvist")["location"] == "festival.pptx slide 1"
    assert "| Lanterns | Millbrook Rovers |" in doc.text
    assert _where(doc, "lends lanterns")["slide"] == 2


def test_html_headings_table_without_scripts(tmp_path):
    (tmp_path / "quay.html").write_text(HTML)
    doc = _one(tmp_path / "quay.html")
    assert doc.title == "Quay news"
    assert "tracking" not in doc.text and "color:red" not in doc.text and "Home" not in doc.text
    assert "| Day | Event |\n|---|---|\n| Friday | Lantern walk |" in doc.text
    assert _where(doc, "- Story hour")["location"] == "quay.html § Quay news > Events"


def test_markdown_heading_path_and_text_unchanged(tmp_path):
    (tmp_path / "notes.md").write_text(MARKDOWN)
    doc = _one(tmp_path / "notes.md")
    assert doc.text == MARKDOWN.strip()  # same text, so the same id as before
    assert _where(doc, "Port Alder")["heading"] == "Library notes > Mobile van"
    assert _where(doc, "Opening hours")["heading"] == "Library notes"
    (tmp_path / "plain.txt").write_text("# not a heading in a text file")
    assert _where(_one(tmp_path / "plain.txt"), "not")["location"] == "plain.txt"


def test_each_bad_file_is_skipped_alone_with_one_line(tmp_path):
    expected = write_bad_files(tmp_path)
    write_pdf(tmp_path / "good.pdf")
    items = list(read_path(tmp_path))
    docs = [i for i in items if isinstance(i, Document)]
    skipped = {i.item.rsplit("/", 1)[-1]: i for i in items if isinstance(i, Failure)}
    assert [d.title for d in docs] == ["good"]
    assert {k: v.reason for k, v in skipped.items()} == expected
    assert all("\n" not in v.error and len(v.error) < 200 for v in skipped.values())
    assert skipped["scan.pdf"].error == "no text layer: OCR is not included (2 pages)"
    assert skipped["locked.pdf"].error.startswith("encrypted PDF")
    assert skipped["deck-named-as.docx"].error == "claims .docx but is a PowerPoint file"
    assert "not a PDF" in skipped["fake.pdf"].error


def test_text_file_that_is_a_pdf_is_mismatched(tmp_path):
    pdf = write_pdf(tmp_path / "r.pdf")
    (tmp_path / "notes.md").write_bytes(pdf.read_bytes())
    pdf.unlink()
    (item,) = read_path(tmp_path)
    assert isinstance(item, Failure) and item.reason == "mismatched"
    assert item.error == "claims .md but is a PDF"


def test_long_pdf_is_read_page_by_page_with_progress(tmp_path):
    pages = [f"Page {i} of the harbour archive: the quay in {1800 + i}." for i in range(500)]
    calls: list[tuple[str, int, int | None]] = []
    (doc,) = read_path(write_pdf(tmp_path / "archive.pdf", pages), None,
                       lambda task, n, total: calls.append((task, n, total)))
    assert calls[0] == ("PDF pages read (archive.pdf)", 0, 500)
    assert sum(n for _, n, total in calls[1:]) == 500
    assert _where(doc, "the quay in 2299")["location"] == "archive.pdf p. 500"


def test_missing_extra_gives_the_pip_line(tmp_path, monkeypatch):
    write_pdf(tmp_path / "r.pdf")
    (tmp_path / "q.html").write_text(HTML)
    for mod in ("neo4j_retag.index.formats.pdf", "neo4j_retag.index.formats.html"):
        monkeypatch.delitem(sys.modules, mod, raising=False)
    monkeypatch.setitem(sys.modules, "pypdfium2", None)
    monkeypatch.setitem(sys.modules, "selectolax.lexbor", None)
    items = {i.item.rsplit("/", 1)[-1]: i for i in read_path(tmp_path)}
    for name in ("r.pdf", "q.html"):
        assert items[name].reason == "needs-extra"
        assert items[name].error.endswith("pip install 'neo4j-retag[documents]'")


@pytest.mark.parametrize("args, label", [
    ({"page": 7, "pages": [7]}, "r.pdf p. 7"), ({"page": 7, "pages": [7, 8]}, "r.pdf pp. 7-8"),
    ({"slide": 3}, "r.pdf slide 3"), ({"heading": "A > B"}, "r.pdf § A > B"), ({}, "r.pdf"),
    ({"page": 2, "pages": [2], "heading": "A"}, "r.pdf p. 2 § A"),
    ({"page": 3, "pages": [3, 5]}, "r.pdf pp. 3, 5"),
    ({"slide": 1, "slides": [1, 2, 4]}, "r.pdf slides 1-2, 4")])
def test_location_labels(args, label):
    assert location("r.pdf", **args) == label


def test_unsupported_files_in_a_folder_are_listed_as_skipped(tmp_path):
    # they were left out of a folder without a word (an .epub or .odt among them)
    (tmp_path / "notes.md").write_text("The harbour plan.")
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "budget.xlsx").write_bytes(b"PK\x03\x04")
    (tmp_path / "README").write_text("no suffix")
    items = list(read_path(tmp_path))
    skipped = {i.item.rsplit("/", 1)[-1]: (i.reason, i.error) for i in items
               if isinstance(i, Failure)}
    assert skipped == {"photo.png": ("unsupported", "unsupported file type .png"),
                       "budget.xlsx": ("unsupported", "unsupported file type .xlsx"),
                       "README": ("unsupported", "unsupported file type (none)")}
    assert [i.title for i in items if isinstance(i, Document)] == ["notes"]


def test_a_format_is_one_row_of_the_reader_table(tmp_path, monkeypatch):
    from neo4j_retag.index import formats
    from neo4j_retag.index.formats import READERS, Format
    (tmp_path / "log.rst").write_text("The quay opens at six.")
    assert list(read_path(tmp_path / "log.rst"))[0].reason == "unsupported"
    monkeypatch.setitem(READERS, ".rst", Format("markdown.read_plain", "text", "a text file"))
    assert _one(tmp_path / "log.rst").text == "The quay opens at six."
    # a zip format is told by the member its row names, for a file that claims another type
    monkeypatch.setitem(READERS, ".kmz", Format("x.read_kmz", "binary", "a KMZ map",
                                                member="doc.kml"))
    import zipfile
    with zipfile.ZipFile(tmp_path / "map.docx", "w") as z:
        z.writestr("doc.kml", "<kml/>")
    (item,) = read_path(tmp_path / "map.docx")
    assert (item.reason, item.error) == ("mismatched", "claims .docx but is a KMZ map")
    assert formats.sniff(b"%PDF-1.7") is READERS[".pdf"]


def test_every_row_loads_its_reader():
    from neo4j_retag.index.formats import READERS
    for suffix, fmt in READERS.items():
        assert callable(fmt.load()), suffix
        assert suffix == suffix.lower() and suffix.startswith(".")


@pytest.mark.parametrize("version", [3, 2])
def test_epub_chapters_in_spine_order_with_their_titles(tmp_path, version):
    doc = _one(write_epub(tmp_path / "keepers.epub", version=version))
    assert doc.title == "The Keepers of Port Alder"
    assert doc.text.index("Ingrid Holm") < doc.text.index("The ferry to Millbrook")
    assert _where(doc, "failed for one night")["location"] == \
        "keepers.epub § Chapter 1: The quay > The storm"
    # a chapter without a heading of its own: its title in the table of contents
    assert _where(doc, "twice a day")["heading"] == "Chapter 2: The ferry"
    assert "log for that night is lost" in doc.text  # a footnote in an aside is the book's
    assert "sinks" not in doc.text and "Contents" not in doc.text


def test_epub_with_drm_is_skipped_as_encrypted(tmp_path):
    (item,) = read_path(write_epub(tmp_path / "locked.epub", encrypted=True))
    assert isinstance(item, Failure) and item.reason == "encrypted"
    assert item.error == "DRM-protected EPUB: 2 of 3 chapters are encrypted"


def test_odt_headings_pages_and_what_is_not_shown(tmp_path):
    doc = _one(write_odt(tmp_path / "minutes.odt"))
    assert doc.title == "Harbour Trust minutes, March"
    assert _where(doc, "town hall")["location"] == "minutes.odt p. 1 § Harbour Trust minutes"
    assert _where(doc, "Two volunteers")["location"] == \
        "minutes.odt p. 2 § Harbour Trust minutes > Staff"
    assert _where(doc, "starts service")["page"] == 3  # a paragraph styled to break the page
    assert "Elena Varga chaired." in doc.text and "[^1]: The van is bought second hand." in \
        doc.text
    assert doc.text.startswith("Page header: Port of Millbrook\n\n# Harbour Trust minutes")
    assert doc.text.endswith("\n\nPage footer: Minutes of the Harbour Trust")
    assert "| Library van and fittings |  | Harbour Trust |" in doc.text
    for unseen in ("3.90", "Check the date", "99,000"):  # deleted, a comment, hidden
        assert unseen not in doc.text


def test_odt_without_page_breaks_has_no_pages_and_images_alone_are_no_text(tmp_path):
    doc = _one(write_odt(tmp_path / "a.odt", "<text:h>Fees</text:h><text:p>Berths are let by "
                                             "the season.</text:p>"))
    assert _where(doc, "Berths")["location"] == "a.odt § Fees"
    write_odt(tmp_path / "scan.odt", '<text:p><draw:frame><draw:image xlink:href="Pictures/'
                                     'p.png"/></draw:frame></text:p>')
    (item,) = read_path(tmp_path / "scan.odt")
    assert (item.reason, item.error) == ("no-text", "no text: 1 image(s) only (OCR is not "
                                                    "included)")


def test_epub_named_as_odt_is_mismatched(tmp_path):
    write_epub(tmp_path / "book.odt")
    (item,) = read_path(tmp_path / "book.odt")
    assert (item.reason, item.error) == ("mismatched", "claims .odt but is an EPUB book")
