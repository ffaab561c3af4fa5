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
