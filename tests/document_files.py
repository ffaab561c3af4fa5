"""Real document files made at test time with the libraries' writers (fpdf2 for PDF,
python-docx, python-pptx), and the bad files `ingest` must skip one at a time."""

from __future__ import annotations

import zipfile
from pathlib import Path

PAGES = [
    "Millbrook Public Library annual report. Librarian Nadia Osei opened the new reading "
    "room on the harbour front in March.",
    "The reading room was paid for by the Harbour Trust. Mayor Elena Varga said the trust "
    "will fund the mobile library van next year.",
    "Visits rose by a third. Nadia Osei credits the Saturday story hour run by volunteers "
    "from Millbrook Rovers.",
]


def write_pdf(path: Path, pages: list[str] = PAGES, *, blank: int = 0,
              password: str | None = None) -> Path:
    """A PDF with one page per text (fpdf2), then ``blank`` pages with a drawing and no
    text layer (as a scan has); encrypted when ``password`` is given."""
    from fpdf import FPDF
    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    for _ in range(blank):
        pdf.add_page()
        pdf.rect(20, 20, 150, 200, style="F")  # an "image" of a page: no text layer
    if password:
        pdf.set_encryption(owner_password="owner", user_password=password)
    pdf.output(str(path))
    return path


def write_docx(path: Path) -> Path:
    """A Word document: a title, two heading sections (one nested) and a table."""
    import docx
    d = docx.Document()
    d.add_heading("Harbour Trust minutes", level=1)
    d.add_paragraph("The Harbour Trust met in the Millbrook town hall. Elena Varga chaired.")
    d.add_heading("Budget", level=2)
    d.add_paragraph("The trust approved the budget for the mobile library van.")
    table = d.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate([("Item", "Cost"), ("Library van", "40000"),
                                ("Reading room", "25000")]):
        table.cell(r, 0).text, table.cell(r, 1).text = a, b
    d.add_heading("Staff", level=3)
    d.add_paragraph("Nadia Osei will manage the van with two volunteers.")
    d.save(str(path))
    return path


def write_pptx(path: Path) -> Path:
    """A PowerPoint deck of two slides: text on the first, a table and notes on the second."""
    import pptx
    from pptx.util import Inches
    deck = pptx.Presentation()
    s1 = deck.slides.add_slide(deck.slide_layouts[1])
    s1.shapes.title.text = "Winter festival plan"
    s1.placeholders[1].text = "Tomas Lindqvist leads the winter festival on the quay."
    s2 = deck.slides.add_slide(deck.slide_layouts[5])
    s2.shapes.title.text = "Stalls"
    rows = [("Stall", "Owner"), ("Lanterns", "Millbrook Rovers"), ("Books", "Nadia Osei")]
    tbl = s2.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, (a, b) in enumerate(rows):
        tbl.cell(r, 0).text, tbl.cell(r, 1).text = a, b
    s2.notes_slide.notes_text_frame.text = "The library lends lanterns to the festival."
    deck.save(str(path))
    return path


HTML = """<!doctype html><html><head><title>Quay news</title><style>p{color:red}</style>
<script>var tracking = 1;</script></head><body><nav><a href="/">Home</a></nav>
<h1>Quay news</h1><p>The <b>Harbour Trust</b> opened the quay to the festival.</p>
<h2>Events</h2><ul><li>Lantern walk with Tomas Lindqvist</li><li>Story hour</li></ul>
<table><tr><th>Day</th><th>Event</th></tr><tr><td>Friday</td><td>Lantern walk</td></tr></table>
</body></html>"""

MARKDOWN = """# Library notes

Opening hours changed in spring.

## Mobile van

Nadia Osei drives the van to Port Alder every Tuesday.
"""


def write_bad_files(folder: Path) -> dict[str, str]:
    """One file of each bad kind in ``folder``; returns file name -> the skip reason."""
    write_pdf(folder / "locked.pdf", password="secret")
    write_pdf(folder / "scan.pdf", [], blank=2)
    with zipfile.ZipFile(folder / "broken.docx", "w") as z:
        z.writestr("word/document.xml", "<w:document/>" * 50)
    (folder / "broken.docx").write_bytes((folder / "broken.docx").read_bytes()[:60])
    (folder / "fake.pdf").write_text("This is plain text, not a PDF.")
    write_pptx(folder / "deck-named-as.docx")
    return {"locked.pdf": "encrypted", "scan.pdf": "no-text", "broken.docx": "corrupt",
            "fake.pdf": "mismatched", "deck-named-as.docx": "mismatched"}


# ---- one small file per structure real office files are full of (issue 47): each made at
# run time, each with the sentences a reader sees (expected once) and text it must not see
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_NSDECL = (f'xmlns:w="{W_NS}" xmlns:v="urn:schemas-microsoft-com:vml" '
           'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
           'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
           'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
           'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')


def _xml(fragment: str):  # noqa: ANN202 - an lxml element of python-docx's oxml classes
    from docx.oxml import parse_xml
    return parse_xml(fragment.replace("<NS ", f"<{_NSDECL} ", 1) if "<NS " in fragment
                     else fragment)


def _p(inner: str) -> str:
    return f'<w:p xmlns:w="{W_NS}">{inner}</w:p>'


def _r(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _body_append(d, xml: str) -> None:  # noqa: ANN001 - a docx.Document
    body = d.element.body
    body.insert(len(body) - 1, _xml(xml))  # before the closing sectPr


def docx_tracked_change(path: Path) -> Path:
    import docx
    d = docx.Document()
    _body_append(d, _p(_r("The fee for berth 4 is ")
                       + '<w:del w:id="1" w:author="Ana"><w:r><w:delText>3.90 EUR</w:delText>'
                       '</w:r></w:del><w:ins w:id="2" w:author="Ana">' + _r("4.50 EUR")
                       + "</w:ins>" + _r(" per metre.")))
    d.save(str(path))
    return path


def docx_content_control(path: Path) -> Path:
    import docx
    d = docx.Document()
    d.add_paragraph("Permits are issued by the harbour office.")
    _body_append(d, f'<w:sdt xmlns:w="{W_NS}"><w:sdtPr><w:alias w:val="Signer"/></w:sdtPr>'
                    "<w:sdtContent>" + _p(_r("The harbour master signs every berth permit."))
                    + "</w:sdtContent></w:sdt>")
    _body_append(d, _p(_r("Permits are valid for ") + "<w:sdt><w:sdtContent>"
                       + _r("twelve months") + "</w:sdtContent></w:sdt>" + _r(".")))
    d.save(str(path))
    return path


def docx_text_box(path: Path) -> Path:
    """A text box as Word writes it: the DrawingML box and its VML fallback, the same text."""
    import docx
    d = docx.Document()
    d.add_paragraph("Notices for skippers follow.")
    box = "<w:txbxContent>" + _p(_r("Quay 7 is closed for dredging in May.")) + \
        "</w:txbxContent>"
    _body_append(d, f"<w:p {_NSDECL}><w:r><mc:AlternateContent><mc:Choice Requires=\"wps\">"
                    "<w:drawing><wp:anchor><a:graphic><a:graphicData><wps:wsp><wps:txbx>"
                    f"{box}</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor>"
                    "</w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>"
                    f"{box}</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent>"
                    "</w:r></w:p>")
    d.save(str(path))
    return path


_NOTES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
          '<w:{kind}s xmlns:w="' + W_NS + '"><w:{kind} w:type="separator" w:id="-1"><w:p>'
          '<w:r><w:separator/></w:r></w:p></w:{kind}><w:{kind} w:id="1"><w:p><w:r>'
          '<w:{kind}Ref/></w:r><w:r><w:t xml:space="preserve"> {text}</w:t></w:r></w:p>'
          '</w:{kind}></w:{kind}s>')


def docx_notes(path: Path) -> Path:
    """A footnote and an endnote (parts python-docx cannot write: added to the archive)."""
    import docx
    d = docx.Document()
    d.add_heading("Berth fees", level=1)
    _body_append(d, _p(_r("Berth fees are reviewed yearly.") + '<w:r><w:footnoteReference '
                       'w:id="1"/></w:r>' + _r(" Fees are paid monthly.")
                       + '<w:r><w:endnoteReference w:id="1"/></w:r>'))
    d.add_heading("Moorings", level=1)
    d.add_paragraph("Moorings are let by the season.")
    d.save(str(path))
    _add_parts(path, {
        "word/footnotes.xml": ("footnotes", _NOTES.format(
            kind="footnote", text="The last review was in January 2026.")),
        "word/endnotes.xml": ("endnotes", _NOTES.format(
            kind="endnote", text="Fees exclude VAT at 21 percent."))})
    return path


def _add_parts(path: Path, parts: dict[str, tuple[str, str]]) -> None:
    """Adds XML parts related to word/document.xml (name -> (relationship type, xml))."""
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
    ctype = "application/vnd.openxmlformats-officedocument.wordprocessingml.{}+xml"
    with zipfile.ZipFile(path) as z:
        files = {n: z.read(n) for n in z.namelist()}
    rels = files["word/_rels/document.xml.rels"].decode()
    types = files["[Content_Types].xml"].decode()
    for i, (name, (kind, xml)) in enumerate(parts.items()):
        rels = rels.replace("</Relationships>", f'<Relationship Id="rIdX{i}" Type="{rel}'
                            f'{kind}" Target="{name[5:]}"/></Relationships>')
        types = types.replace("</Types>", f'<Override PartName="/{name}" ContentType="'
                              f'{ctype.format(kind)}"/></Types>')
        files[name] = xml.encode()
    files["word/_rels/document.xml.rels"] = rels.encode()
    files["[Content_Types].xml"] = types.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)


def docx_header_footer(path: Path) -> Path:
    """Three sections sharing one header and footer (as a printed tariff of three pages)."""
    import docx
    from docx.enum.section import WD_SECTION
    d = docx.Document()
    d.sections[0].header.paragraphs[0].text = "Port of Millbrook tariff sheet"
    d.sections[0].footer.paragraphs[0].text = "Issued by the harbour office"
    for text in ("Winter berths are let from November.", "Summer berths are let from May.",
                 "Visitor berths are let by the night."):
        if text != "Winter berths are let from November.":
            d.add_section(WD_SECTION.NEW_PAGE)
        d.add_paragraph(text)
    d.save(str(path))
    return path


def docx_merged_cells(path: Path) -> Path:
    import docx
    d = docx.Document()
    t = d.add_table(rows=3, cols=3)
    t.cell(0, 0).merge(t.cell(0, 2)).text = "Winter tariff"
    for r, row in enumerate([("Class", "Length", "Fee"), ("Yacht", "12 m", "4.50 EUR")], 1):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
    d.save(str(path))
    return path


def docx_nested_table(path: Path) -> Path:
    import docx
    d = docx.Document()
    t = d.add_table(rows=1, cols=2)
    t.cell(0, 0).text = "Tariff per vessel class"
    inner = t.cell(0, 1).add_table(rows=2, cols=2)
    for r, (a, b) in enumerate([("Class", "Fee"), ("Trawler", "6.20 EUR")]):
        inner.cell(r, 0).text, inner.cell(r, 1).text = a, b
    d.save(str(path))
    return path


def pptx_groups(path: Path) -> Path:
    """Text in a group and in a group inside that group."""
    import pptx
    from pptx.util import Inches
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Ferry times"
    outer = slide.shapes.add_group_shape()
    outer.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1)).text_frame.text = \
        "The ferry leaves at 07:15 from quay 2."
    inner = outer.shapes.add_group_shape()
    inner.shapes.add_textbox(Inches(1), Inches(3), Inches(4), Inches(1)).text_frame.text = \
        "Return trips leave at 18:40."
    deck.save(str(path))
    return path


def pptx_notes_hidden(path: Path) -> Path:
    """Speaker notes on slide 1; slide 2 hidden (a draft nobody is shown)."""
    import pptx
    deck = pptx.Presentation()
    s1 = deck.slides.add_slide(deck.slide_layouts[1])
    s1.shapes.title.text = "Tide planning"
    s1.placeholders[1].text = "Pilots board at the outer buoy."
    s1.notes_slide.notes_text_frame.text = "Bring the tide tables for March."
    s2 = deck.slides.add_slide(deck.slide_layouts[1])
    s2.shapes.title.text = "Draft"
    s2.placeholders[1].text = "Draft tariff 9.99 EUR per metre."
    s2._element.set("show", "0")
    deck.save(str(path))
    return path


HTML_FORM = """<!doctype html><html><head><title>Visitors</title></head><body>
<form method="post" action="./visitors.aspx" id="aspnetForm">
<input type="hidden" name="__VIEWSTATE" value="dDwtMTA4NzQ5">
<h1>Visitor moorings</h1><p>Visitors moor at the east pontoon.</p>
<p>The pontoon has water and power at every berth.</p>
<button>Search</button></form></body></html>"""

HTML_HIDDEN = """<!doctype html><html><head><title>Fees</title>
<style>.gone{display: none}</style></head><body><main><h1>Fees</h1>
<p>The fee is 4.50 EUR per metre.</p>
<p hidden>Old fee 3.90 EUR per metre.</p>
<div style="display:none"><p>Old winter fee 2.10 EUR per metre.</p></div>
<p style="visibility: hidden">Old summer fee 5.10 EUR per metre.</p>
<p aria-hidden="true">Decorative fee 0.00 EUR.</p>
<p class="gone">Older fee 3.10 EUR per metre.</p></main></body></html>"""

HTML_BOILERPLATE = """<!doctype html><html><head><title>Dredging</title></head><body>
<div id="cookie-banner" class="cookie-consent"><p>We use cookies to improve your visit.</p>
<button>Accept all</button></div>
<header><a href="/">Port of Millbrook</a><p>Serving skippers since 1890.</p></header>
<nav><ul><li><a href="/a">Berths</a></li><li><a href="/b">Fees</a></li></ul></nav>
<div class="breadcrumb"><a href="/">Home</a> / News</div>
<main><article><h1>Dredging at quay 7</h1>
<p>Quay 7 will be dredged from 4 to 20 May.</p>
<p>Vessels at quay 7 move to the east pontoon meanwhile.</p></article></main>
<aside><h2>Related posts</h2><p>Read about last year's regatta results.</p></aside>
<footer><p>Copyright 2026 Port of Millbrook. All rights reserved.</p></footer></body></html>"""


def _pdf(objects: list[bytes]) -> bytes:
    """A PDF of numbered objects (1 is the catalog), with its cross-reference table."""
    out, offsets = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def _stream(data: bytes, head: bytes = b"") -> bytes:
    return b"<< %s /Length %d >>\nstream\n%s\nendstream" % (head, len(data), data)


FORM_FIELDS = [("Applicant name", "Ingrid Holm"), ("Vessel", "Sea Lark"),
               ("Berth requested", "4")]


def pdf_form(path: Path, hidden: tuple[str, ...] = ()) -> Path:
    """A filled AcroForm: labels in the page text, values only in the fields (as a form a
    user filled in and saved: each field has its value and an appearance showing it); the
    fields labelled in ``hidden`` have the annotation flag Hidden."""
    helv = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    n = len(FORM_FIELDS)
    widgets = [5 + i for i in range(n)]
    aps = [5 + n + 1 + i for i in range(n)]
    lines = b"BT /F1 14 Tf 72 780 Td (Berth application form) Tj ET\n" + b"".join(
        b"BT /F1 11 Tf 72 %d Td (%s:) Tj ET\n" % (740 - 30 * i, label.encode())
        for i, (label, _) in enumerate(FORM_FIELDS))
    refs = b" ".join(b"%d 0 R" % w for w in widgets)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [%s] /DA (/Helv 0 Tf 0 g) "
        b"/DR << /Font << /Helv 4 0 R >> >> >> >>" % refs,
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font "
        b"<< /F1 4 0 R >> >> /Contents %d 0 R /Annots [%s] >>" % (5 + n, refs),
        helv]
    objects += [b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (field%d) /TU (%s) /V (%s) "
                b"/Rect [200 %d 400 %d] /F %d /P 3 0 R /DA (/Helv 11 Tf 0 g) /AP << /N %d 0 R "
                b">> >>" % (i, label.encode(), value.encode(), 735 - 30 * i, 755 - 30 * i,
                            2 if label in hidden else 4, aps[i])
                for i, (label, value) in enumerate(FORM_FIELDS)]
    objects.append(_stream(lines))
    objects += [_stream(b"/Tx BMC BT /Helv 11 Tf 2 6 Td (%s) Tj ET EMC" % value.encode(),
                        b"/Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources "
                        b"<< /Font << /Helv 4 0 R >> >>") for _, value in FORM_FIELDS]
    path.write_bytes(_pdf(objects))
    return path


LIGATURE_SENTENCE = "The finance office confirmed the offline berth fees."


def pdf_ligatures(path: Path, *, names: bool = True) -> Path:
    """Ligature glyphs (codes 1-4: fi, ffi, fl, ffl) whose ToUnicode entries point into the
    private-use area (fi, fl) or to U+0000 (ffi, ffl), as some typesetters write them; the
    font's /Differences names each glyph (``names=False``: no names, nothing to recover)."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /L def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"4 beginbfchar <01> <E001> <02> <0000> <03> <E003> <04> <0000> endbfchar\n"
            b"1 beginbfrange <20> <7E> <0020> endbfrange\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    diffs = b"/Differences [1 /fi /ffi /fl /ffl]" if names else b""
    text = (LIGATURE_SENTENCE.replace("ffi", "\\002").replace("ffl", "\\004")
            .replace("fi", "\\001").replace("fl", "\\003")).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font "
        b"<< /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
        b"/BaseEncoding /WinAnsiEncoding %s >> /ToUnicode 6 0 R >>" % diffs,
        _stream(b"BT /F1 12 Tf 72 760 Td (%s) Tj ET" % text),
        _stream(cmap)]
    path.write_bytes(_pdf(objects))
    return path


# ---- EPUB and ODT, written as their packages are (zipfile and XML): the mimetype member
# first and stored, then the XML parts
def _package(path: Path, mimetype: str, parts: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), mimetype, compress_type=zipfile.ZIP_STORED)
        for name, xml in parts.items():
            z.writestr(name, xml)
    return path


def _chapter(title: str, body: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
            'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>' + title + "</title>"
            '<style>.spoiler{display:none}</style></head><body>' + body + "</body></html>")


EPUB_CHAPTERS = {  # file -> (its title in the table of contents, its XHTML body)
    "text/ch1.xhtml": ("Chapter 1: The quay", '<section epub:type="chapter"><header><h1>'
                       "Chapter 1: The quay</h1></header><p>Ingrid Holm kept the harbour "
                       "light at Port Alder for thirty years.</p><h2>The storm</h2><p>In the "
                       "storm of 1953 the light failed for one night.</p><aside epub:type="
                       '"footnote"><p>The keeper\'s log for that night is lost.</p></aside>'
                       "</section>"),
    "text/ch2.xhtml": ("Chapter 2: The ferry", "<p>The ferry to Millbrook ran twice a day "
                       'after the war.</p><p class="spoiler">The ferry sinks in chapter 9.</p>'),
}


def write_epub(path: Path, *, version: int = 3, encrypted: bool = False) -> Path:
    """A two-chapter EPUB book: the spine lists chapter 1 then 2 (the manifest the other way
    round), titles in an EPUB 3 navigation document (``version=2``: an NCX), a cover page of
    an image alone, a footnote in an aside, a paragraph a stylesheet hides. ``encrypted``:
    the chapters listed in META-INF/encryption.xml, as a DRM-protected book has them."""
    opf_ns = 'xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/"'
    items = "".join(f'<item id="c{i}" href="{h}" media-type="application/xhtml+xml"/>'
                    for i, h in reversed(list(enumerate(EPUB_CHAPTERS, 1))))
    items += '<item id="cover" href="text/cover.xhtml" media-type="application/xhtml+xml"/>'
    if version == 3:
        items += '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" ' \
                 'properties="nav"/>'
    else:
        items += '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
    spine = '<itemref idref="cover"/>' + "".join(f'<itemref idref="c{i}"/>'
                                                 for i in range(1, len(EPUB_CHAPTERS) + 1))
    parts = {
        "META-INF/container.xml": '<?xml version="1.0"?><container version="1.0" xmlns="urn:'
        'oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/'
        'content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
        "OEBPS/content.opf": f'<?xml version="1.0"?><package {opf_ns} version="{version}.0">'
        "<metadata><dc:title>The Keepers of Port Alder</dc:title></metadata>"
        f'<manifest>{items}</manifest><spine toc="ncx">{spine}</spine></package>',
        "OEBPS/text/cover.xhtml": _chapter("Cover", '<img src="cover.jpg" alt=""/>'),
    }
    for href, (title, body) in EPUB_CHAPTERS.items():
        parts[f"OEBPS/{href}"] = _chapter(title, body)
    links = "".join(f'<li><a href="{h}">{t}</a></li>' for h, (t, _) in EPUB_CHAPTERS.items())
    parts["OEBPS/nav.xhtml"] = _chapter("Contents", '<nav epub:type="toc"><ol>' + links
                                        + "</ol></nav>")
    parts["OEBPS/toc.ncx"] = ('<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/'
                              '2005/ncx/" version="2005-1"><navMap>' + "".join(
                                  f'<navPoint id="n{i}"><navLabel><text>{t}</text></navLabel>'
                                  f'<content src="{h}"/></navPoint>'
                                  for i, (h, (t, _)) in enumerate(EPUB_CHAPTERS.items()))
                              + "</navMap></ncx>")
    if encrypted:
        parts["META-INF/encryption.xml"] = (
            '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc='
            '"http://www.w3.org/2001/04/xmlenc#">' + "".join(
                '<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/'
                f'xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="OEBPS/{h}"/>'
                "</enc:CipherData></enc:EncryptedData>" for h in EPUB_CHAPTERS)
            + "</encryption>")
    return _package(path, "application/epub+zip", parts)


_ODF = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
        'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
        'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
        'xmlns:xlink="http://www.w3.org/1999/xlink" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.3"')
ODT_BODY = (
    '<text:tracked-changes><text:changed-region text:id="c1"><text:deletion><text:p>Old '
    "tariff 3.90 EUR per metre.</text:p></text:deletion></text:changed-region>"
    "</text:tracked-changes>"
    '<text:h text:outline-level="1">Harbour Trust minutes</text:h>'
    "<text:p>The trust met in the Millbrook town hall.<office:annotation><text:p>Check the "
    "date</text:p></office:annotation> Elena<text:s/>Varga chaired.</text:p>"
    '<text:h text:outline-level="2">Budget</text:h>'
    "<text:p>The trust approved 40,000 EUR for the mobile library van.<text:note "
    'text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation>'
    "<text:note-body><text:p>The van is bought second hand.</text:p></text:note-body>"
    '</text:note></text:p><text:p text:style-name="Hid">Draft figure 99,000 EUR.</text:p>'
    '<table:table table:name="T1"><table:table-column table:number-columns-repeated="3"/>'
    "<table:table-header-rows><table:table-row><table:table-cell><text:p>Item</text:p>"
    "</table:table-cell><table:table-cell><text:p>Cost</text:p></table:table-cell>"
    "<table:table-cell><text:p>Paid by</text:p></table:table-cell></table:table-row>"
    "</table:table-header-rows><table:table-row><table:table-cell "
    'table:number-columns-spanned="2"><text:p>Library van and fittings</text:p>'
    "</table:table-cell><table:covered-table-cell/><table:table-cell><text:p>Harbour "
    "Trust</text:p></table:table-cell></table:table-row></table:table>"
    "<text:soft-page-break/>"
    '<text:h text:outline-level="2">Staff</text:h>'
    "<text:list><text:list-item><text:p>Nadia Osei manages the van.</text:p></text:list-item>"
    "<text:list-item><text:p>Two volunteers drive it on Tuesdays.</text:p></text:list-item>"
    "</text:list>"
    '<text:p text:style-name="Break">The van starts service in March.</text:p>')


def write_odt(path: Path, body: str = ODT_BODY) -> Path:
    """An OpenDocument text: a page header and footer, two heading levels, a tracked
    deletion, a comment, a footnote, a paragraph styled hidden, a table with a merged cell, a
    list, a page LibreOffice laid out (a soft page break) and a paragraph styled to start a
    new page."""
    styles = ('<office:automatic-styles><style:style style:name="Hid" style:family="paragraph">'
              '<style:text-properties text:display="none"/></style:style><style:style '
              'style:name="Break" style:family="paragraph"><style:paragraph-properties '
              'fo:break-before="page"/></style:style></office:automatic-styles>')
    return _package(path, "application/vnd.oasis.opendocument.text", {
        "META-INF/manifest.xml": '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:'
        'oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-'
        'path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
        "</manifest:manifest>",
        "content.xml": f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_ODF}>'
        f"{styles}<office:body><office:text>{body}</office:text></office:body>"
        "</office:document-content>",
        "meta.xml": f'<?xml version="1.0"?><office:document-meta {_ODF}><office:meta>'
        "<dc:title>Harbour Trust minutes, March</dc:title></office:meta></office:document-meta>",
        "styles.xml": f'<?xml version="1.0"?><office:document-styles {_ODF}><office:master-styles>'
        '<style:master-page style:name="Standard"><style:header><text:p>Port of Millbrook'
        "</text:p></style:header><style:footer><text:p>Minutes of the Harbour Trust</text:p>"
        "</style:footer></style:master-page></office:master-styles></office:document-styles>",
    })


def pptx_hidden_shape_and_chart(path: Path) -> Path:
    """A slide with a text box hidden in the Selection Pane (``hidden="1"`` on its cNvPr)
    beside a shown one, and a column chart with a title, axis titles, categories and two
    series."""
    import pptx
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Harbour visits"
    slide.shapes.add_textbox(Inches(1), Inches(1.5), Inches(6), Inches(1)).text_frame.text = \
        "Visits rose in every quarter."
    hidden = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1))
    hidden.text_frame.text = "Draft: visits fell by 80 percent."
    hidden._element.nvSpPr.cNvPr.set("hidden", "1")
    data = CategoryChartData()
    data.categories = ["Spring", "Summer"]
    data.add_series("Ferries", (120, 340))
    data.add_series("Yachts", (45, 210.5))
    chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(3),
                                   Inches(6), Inches(3), data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Arrivals by season"
    chart.value_axis.has_title = True
    chart.value_axis.axis_title.text_frame.text = "Vessels"
    chart.category_axis.has_title = True
    chart.category_axis.axis_title.text_frame.text = "Season"
    deck.save(str(path))
    return path


def pptx_four_slides(path: Path) -> Path:
    """Four short slides, the third hidden: one text unit spans slides 1, 2 and 4."""
    import pptx
    deck = pptx.Presentation()
    for i, text in enumerate(["The quay opens at six.", "The ferry leaves at seven.",
                              "Draft slide.", "The café closes at ten."], 1):
        s = deck.slides.add_slide(deck.slide_layouts[1])
        s.shapes.title.text = f"Part {i}"
        s.placeholders[1].text = text
        if i == 3:
            s._element.set("show", "0")
    deck.save(str(path))
    return path


def _tc(text: str) -> str:
    return f"<w:tc><w:tcPr><w:tcW w:w=\"2000\" w:type=\"dxa\"/></w:tcPr>{_p(_r(text))}</w:tc>" \
        .replace(f' xmlns:w="{W_NS}"', "")


def _sdt(inner: str, alias: str) -> str:
    return f'<w:sdt><w:sdtPr><w:alias w:val="{alias}"/></w:sdtPr><w:sdtContent>{inner}' \
        "</w:sdtContent></w:sdt>"


def docx_table_content_controls(path: Path) -> Path:
    """A table whose middle rows are a repeating section (a content control around the rows,
    one around each row) and whose last row has a content control around one cell."""
    import docx
    d = docx.Document()
    d.add_paragraph("Berth fees by vessel:")
    row = "<w:tr>{}</w:tr>".format
    rows = (row(_tc("Vessel") + _tc("Fee") + _tc("Paid"))
            + _sdt(_sdt(row(_tc("Trawler") + _tc("6.20 EUR") + _tc("yes")), "Item")
                   + _sdt(row(_tc("Yacht") + _tc("4.50 EUR") + _tc("no")), "Item"), "Fees")
            + row(_tc("Ferry") + _sdt(_tc("9.10 EUR"), "Fee") + _tc("yes")))
    _body_append(d, f'<w:tbl xmlns:w="{W_NS}"><w:tblPr/><w:tblGrid><w:gridCol w:w="2000"/>'
                    '<w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>'
                    f"{rows}</w:tbl>")
    d.save(str(path))
    return path


def png(width: int = 2, height: int = 2) -> bytes:
    """A small grey PNG (standard library): an image with no text."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def docx_image_only(path: Path) -> Path:
    """A Word document holding a scanned page: one picture, no text."""
    import io

    import docx
    d = docx.Document()
    d.add_picture(io.BytesIO(png(20, 20)))
    d.save(str(path))
    return path


HTML_EDGES = """<!doctype html><html><head><title>Rates</title><style>
div.old-rates{display:none} p#draft { visibility: hidden } .note.stale{display:none}
</style></head><body>
<div id="cookieConsent"><p>This site uses cookies. Accept?</p></div>
<div class="CybotCookiebotDialog">We value your privacy.</div>
<h1>Rates</h1>
<p>Berth fees are 0<span>.12</span> GBP per kilogram of CO<sub>2</sub> emitted.</p>
<p>Fees were set by harbour master <a href="/okafor">Okafor</a>.</p>
<div>The <b>east</b> pontoon<i>'s</i> water is free.</div>
<div class="old-rates"><p>Old rate 0.09 GBP per kilogram.</p></div>
<p id="draft">Draft rate 0.30 GBP per kilogram.</p>
<p class="note stale">Stale note 0.05 GBP.</p>
<p class="note">Rates are reviewed in June.</p>
<div class="old">Old rates are archived at the office.</div>
</body></html>"""


def pdf_lone_ligatures(path: Path) -> Path:
    """Ligature glyphs named /fi, /fl, /ff in the font's /Differences and mapped to U+0000,
    each alone in its string (a TJ array's kerned piece, a Tj of its own) or at a line's
    start or a word's end, as typesetters that kern around ligatures write them."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /L def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"3 beginbfchar <01> <0000> <02> <0000> <03> <0000> endbfchar\n"
            b"1 beginbfrange <20> <7E> <0020> endbfrange\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    content = (b"BT /F1 12 Tf 72 760 Td [(The)-333(\\001)(shery)-333(board)] TJ\n"
               b"0 -16 Td (\\002) Tj (oated the) Tj\n"
               b"0 -16 Td (sta\\003 and pro\\001ts.) Tj ET")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font "
        b"<< /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
        b"/BaseEncoding /WinAnsiEncoding /Differences [1 /fi /fl /ff] >> /ToUnicode 6 0 R >>",
        _stream(content),
        _stream(cmap)]
    path.write_bytes(_pdf(objects))
    return path


COLUMN_LEFT = ["The harbour board met on Monday", "to discuss the new quay. Members",
               "agreed a budget of 40,000 EUR", "for the dredging of berth four.",
               "Work starts in the first week", "of May and ends by the summer."]
COLUMN_RIGHT = ["Meanwhile the ferry company said", "its winter timetable starts in",
                "November with two crossings a", "day. Tickets go on sale at the",
                "quay office from the first of", "October, priced as last year."]


def pdf_two_columns(path: Path) -> Path:
    """A newsletter page: a title across the page, two columns drawn line by line (a line of
    the left column, then the line beside it in the right one, as some layout programs
    write them), and a footer across the page."""
    ops = [b"BT /F1 16 Tf 72 790 Td (Port of Millbrook newsletter, spring issue) Tj ET"]
    for i, (left, right) in enumerate(zip(COLUMN_LEFT, COLUMN_RIGHT, strict=True)):
        y = 750 - 14 * i
        ops.append(b"BT /F1 11 Tf 72 %d Td (%s) Tj ET" % (y, left.encode()))
        ops.append(b"BT /F1 11 Tf 310 %d Td (%s) Tj ET" % (y, right.encode()))
    ops.append(b"BT /F1 9 Tf 72 600 Td (Printed by the harbour office for all berth holders "
               b"and their families.) Tj ET")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font "
        b"<< /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        _stream(b"\n".join(ops))]
    path.write_bytes(_pdf(objects))
    return path
