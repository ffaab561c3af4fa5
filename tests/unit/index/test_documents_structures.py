"""Each structure of issue 47 read as a reader sees it, once (files made at test time:
tests/document_files.py); what cannot be read is counted on the document."""

import pytest

from neo4j_retag.errors import Failure
from neo4j_retag.index.documents import Document, read_path
from tests import document_files as f


def _read(tmp_path, make, name):
    path = tmp_path / name
    if isinstance(make, str):
        path.write_text(make)
    else:
        make(path)
    items = list(read_path(path))
    assert len(items) == 1 and isinstance(items[0], Document), items
    return items[0]


def _once(doc: Document, *sentences: str) -> None:
    for s in sentences:
        assert doc.text.count(s) == 1, (s, doc.text)


def test_docx_tracked_change_reads_the_accepted_view(tmp_path):
    doc = _read(tmp_path, f.docx_tracked_change, "t.docx")
    _once(doc, "The fee for berth 4 is 4.50 EUR per metre.")
    assert "3.90" not in doc.text


def test_docx_content_controls_block_and_inline(tmp_path):
    doc = _read(tmp_path, f.docx_content_control, "c.docx")
    _once(doc, "The harbour master signs every berth permit.",
          "Permits are valid for twelve months.")


def test_docx_text_box_once_though_word_writes_it_twice(tmp_path):
    doc = _read(tmp_path, f.docx_text_box, "b.docx")
    _once(doc, "Quay 7 is closed for dredging in May.")
    assert doc.text.index("Notices") < doc.text.index("Quay 7")


def test_docx_notes_marked_at_the_end_of_their_section(tmp_path):
    doc = _read(tmp_path, f.docx_notes, "n.docx")
    _once(doc, "Berth fees are reviewed yearly.[^1]", "[^1]: The last review was in January 2026.",
          "[^e1]: Fees exclude VAT at 21 percent.")
    # after the paragraph that refers to it, before the next heading section
    assert doc.text.index("Fees are paid") < doc.text.index("[^1]: ") < \
        doc.text.index("# Moorings")
    at = doc.text.index("[^1]: ")
    assert doc.locate(at, at + 5)["heading"] == "Berth fees"


def test_docx_header_and_footer_once_per_document(tmp_path):
    doc = _read(tmp_path, f.docx_header_footer, "h.docx")
    _once(doc, "Page header: Port of Millbrook tariff sheet",
          "Page footer: Issued by the harbour office", "Visitor berths are let by the night.")
    assert doc.text.startswith("Page header:") and doc.text.endswith("harbour office")


def test_docx_merged_cell_once_and_columns_kept(tmp_path):
    doc = _read(tmp_path, f.docx_merged_cells, "m.docx")
    _once(doc, "Winter tariff")
    assert "| Winter tariff |  |  |\n|---|---|---|\n| Class | Length | Fee |" in doc.text


def test_docx_nested_table_as_a_table_of_its_own(tmp_path):
    doc = _read(tmp_path, f.docx_nested_table, "t.docx")
    assert "| Tariff per vessel class |  |" in doc.text
    assert "| Class | Fee |\n|---|---|\n| Trawler | 6.20 EUR |" in doc.text


def test_pptx_shapes_in_groups_at_any_depth(tmp_path):
    doc = _read(tmp_path, f.pptx_groups, "g.pptx")
    _once(doc, "The ferry leaves at 07:15 from quay 2.", "Return trips leave at 18:40.")


def test_pptx_notes_marked_and_hidden_slide_skipped_and_counted(tmp_path):
    doc = _read(tmp_path, f.pptx_notes_hidden, "n.pptx")
    _once(doc, "Notes: Bring the tide tables for March.")
    assert "9.99" not in doc.text and "Draft" not in doc.text
    assert doc.metadata["hidden_slides"] == "1"


def test_pptx_all_slides_hidden_is_not_read(tmp_path):
    import pptx
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[1]).shapes.title.text = "Secret"
    deck.slides[0]._element.set("show", "0")
    deck.save(str(tmp_path / "h.pptx"))
    (item,) = read_path(tmp_path / "h.pptx")
    assert isinstance(item, Failure) and item.reason == "no-text"
    assert "1 hidden-slides" in item.error


def test_html_body_inside_a_form_is_read(tmp_path):
    doc = _read(tmp_path, f.HTML_FORM, "v.html")
    _once(doc, "Visitors moor at the east pontoon.", "The pontoon has water and power")
    assert "VIEWSTATE" not in doc.text and "Search" not in doc.text


def test_html_hidden_elements_left_out(tmp_path):
    doc = _read(tmp_path, f.HTML_HIDDEN, "f.html")
    _once(doc, "The fee is 4.50 EUR per metre.")
    for old in ("3.90", "2.10", "5.10", "0.00", "3.10"):
        assert old not in doc.text


@pytest.mark.parametrize("main", [True, False])
def test_html_boilerplate_left_out(tmp_path, main):
    html = f.HTML_BOILERPLATE if main else f.HTML_BOILERPLATE.replace("<main>", "").replace(
        "</main>", "").replace("<article>", "<div>").replace("</article>", "</div>")
    doc = _read(tmp_path, html, "n.html")
    _once(doc, "Quay 7 will be dredged from 4 to 20 May.", "move to the east pontoon")
    for boiler in ("cookies", "Serving skippers", "Berths", "regatta", "Copyright", "Home"):
        assert boiler not in doc.text, boiler


def test_pdf_form_values_beside_their_labels(tmp_path):
    doc = _read(tmp_path, f.pdf_form, "form.pdf")
    _once(doc, "Applicant name: Ingrid Holm", "Vessel: Sea Lark", "Berth requested: 4")
    assert doc.text.startswith("Berth application form")


def test_pdf_ligatures_recovered_from_glyph_names(tmp_path):
    doc = _read(tmp_path, f.pdf_ligatures, "l.pdf")
    _once(doc, f.LIGATURE_SENTENCE)
    assert "unmapped_glyphs" not in doc.metadata


def test_pdf_ligatures_without_names_are_marked_and_counted(tmp_path):
    doc = _read(tmp_path, lambda p: f.pdf_ligatures(p, names=False), "l.pdf")
    # each glyph marked where it was, those PDFium dropped (U+0000) too
    assert doc.text == "The \ufffdnance o\ufffdce con\ufffdrmed the o\ufffdine berth fees."
    assert doc.metadata["unmapped_glyphs"] == "4"


def test_glyph_names_to_letters():
    from neo4j_retag.index.formats.pdf_glyphs import letters
    assert [letters(n) for n in ("fi", "f_f_i", "uniFB02", "ffl.alt", "A", "g123")] == \
        ["fi", "ffi", "fl", "ffl", "A", None]


def test_pdf_hidden_form_field_not_read(tmp_path):
    doc = _read(tmp_path, lambda p: f.pdf_form(p, hidden=("Vessel",)), "form.pdf")
    _once(doc, "Applicant name: Ingrid Holm", "Berth requested: 4")
    assert "Sea Lark" not in doc.text and "\nVessel:\n" in doc.text


def test_docx_first_page_header_only_when_shown(tmp_path):
    import docx
    d = docx.Document()
    d.add_paragraph("Berths are let by the season.")
    d.sections[0].first_page_header.paragraphs[0].text = "Cover page only"
    d.save(str(tmp_path / "a.docx"))
    assert "Cover page only" not in list(read_path(tmp_path / "a.docx"))[0].text
    d.sections[0].different_first_page_header_footer = True
    d.save(str(tmp_path / "b.docx"))
    _once(list(read_path(tmp_path / "b.docx"))[0], "Page header: Cover page only")


def test_html_media_rules_and_container_classes_hide_nothing(tmp_path):
    html = ("<html><head><style>@media (max-width: 600px) { .wide { display: none } }"
            "</style></head><body class=\"has-sidebar menu-open\"><p class=\"wide\">Berths "
            "are let by the season.</p><div class=\"sidebar\">Weather widget</div></body></html>")
    doc = _read(tmp_path, html, "p.html")
    _once(doc, "Berths are let by the season.")
    assert "Weather" not in doc.text


def test_docx_hidden_text_run_left_out(tmp_path):
    import docx
    d = docx.Document()
    p = d.add_paragraph("The fee is 4.50 EUR per metre.")
    p.add_run(" Old fee 3.90 EUR.").font.hidden = True
    p.add_run(" Paid monthly.").font.hidden = False
    d.save(str(tmp_path / "h.docx"))
    doc = list(read_path(tmp_path / "h.docx"))[0]
    assert doc.text == "The fee is 4.50 EUR per metre. Paid monthly."


def test_pptx_hidden_shape_skipped_and_counted_chart_read(tmp_path):
    doc = _read(tmp_path, f.pptx_hidden_shape_and_chart, "v.pptx")
    _once(doc, "Visits rose in every quarter.", "Chart: Arrivals by season (Vessels)")
    assert "fell by 80" not in doc.text
    assert doc.metadata["hidden_shapes"] == "1"
    assert "| Season | Ferries | Yachts |\n|---|---|---|\n| Spring | 120 | 45 |\n" \
        "| Summer | 340 | 210.5 |" in doc.text


def test_pptx_text_unit_across_slides_cites_every_slide(tmp_path):
    from neo4j_retag.config import Settings
    from neo4j_retag.index.pipeline import text_units
    doc = _read(tmp_path, f.pptx_four_slides, "d.pptx")
    ((_, where),) = text_units(doc, Settings())
    assert (where["slide"], where["slides"]) == (1, [1, 2, 4])
    assert where["location"] == "d.pptx slides 1-2, 4"


def test_docx_content_controls_around_rows_and_a_cell_read_in_place(tmp_path):
    # the repeating section's rows were dropped, and the cell's row shifted a column
    doc = _read(tmp_path, f.docx_table_content_controls, "r.docx")
    assert "| Vessel | Fee | Paid |\n|---|---|---|\n| Trawler | 6.20 EUR | yes |\n" \
        "| Yacht | 4.50 EUR | no |\n| Ferry | 9.10 EUR | yes |" in doc.text


def test_docx_of_an_image_alone_is_no_text_as_a_scanned_pdf(tmp_path):
    (item,) = read_path(f.docx_image_only(tmp_path / "scan.docx"))
    assert isinstance(item, Failure)
    assert (item.reason, item.error) == ("no-text", "no text: 1 image(s) only (OCR is not "
                                                    "included)")
    import docx
    d = docx.Document(str(tmp_path / "scan.docx"))
    d.sections[0].header.paragraphs[0].text = "Port of Millbrook"  # a letterhead over a scan
    d.save(str(tmp_path / "letter.docx"))
    assert list(read_path(tmp_path / "letter.docx"))[0].reason == "no-text"
    docx.Document().save(str(tmp_path / "blank.docx"))  # no image, no text: empty, as before
    assert list(read_path(tmp_path / "blank.docx"))[0].reason == "empty"


@pytest.mark.parametrize("name", ["e.docx", "e.pptx", "e.pdf", "e.epub", "e.odt"])
def test_zero_byte_file_is_empty_not_mismatched(tmp_path, name):
    (tmp_path / name).write_bytes(b"")
    (item,) = read_path(tmp_path / name)
    assert (item.reason, item.error) == ("empty", "empty file (0 bytes)")


def test_html_cookie_banner_compound_selectors_and_inline_tags(tmp_path):
    doc = _read(tmp_path, f.HTML_EDGES, "rates.html")
    _once(doc, "Berth fees are 0.12 GBP per kilogram of CO2 emitted.",
          "Fees were set by harbour master Okafor.", "The east pontoon's water is free.",
          "Rates are reviewed in June.", "Old rates are archived at the office.")
    for hidden in ("cookies", "privacy", "0.09", "0.30", "0.05"):
        assert hidden not in doc.text, hidden


def test_pdf_ligatures_alone_in_their_strings_recovered(tmp_path):
    # "The shery board": a ligature mapped to U+0000 alone in its string was dropped
    doc = _read(tmp_path, f.pdf_lone_ligatures, "l.pdf")
    assert " ".join(doc.text.split()) == "The fishery board floated the staff and profits."
    assert "unmapped_glyphs" not in doc.metadata


def test_pdf_two_columns_drawn_line_by_line_read_column_after_column(tmp_path):
    # each line read across both columns: "The harbour board met on Monday Meanwhile the..."
    doc = _read(tmp_path, f.pdf_two_columns, "news.pdf")
    assert doc.text.split("\n") == ["Port of Millbrook newsletter, spring issue",
                                    *f.COLUMN_LEFT, *f.COLUMN_RIGHT,
                                    "Printed by the harbour office for all berth holders and "
                                    "their families."]


def test_pdf_table_and_single_column_keep_their_order(tmp_path):
    # lines side by side that are a table's short cells, not columns: read row by row
    rows = [(f"Berth {i}", f"{4 + i}.50 EUR") for i in range(8)]
    doc = _read(tmp_path, f.write_pdf, "one.pdf")
    assert doc.text.startswith(f.PAGES[0].split(" room")[0])
    ops = b"\n".join(b"BT /F1 11 Tf 72 %d Td (%s) Tj ET BT /F1 11 Tf 310 %d Td (%s) Tj ET"
                     % (750 - 14 * i, a.encode(), 750 - 14 * i, b.encode())
                     for i, (a, b) in enumerate(rows))
    (tmp_path / "t.pdf").write_bytes(f._pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font "
        b"<< /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        f._stream(ops)]))
    (doc,) = read_path(tmp_path / "t.pdf")
    assert doc.text.split("\n") == [f"{a} {b}" for a, b in rows]
