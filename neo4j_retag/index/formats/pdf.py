"""PDF text by page (pypdfium2: PDFium's text layer; ~10x pypdf's speed at the same text,
benchmarks/document_formats.py). Tables come out as their text layer: PDFs have no table
structure to read without layout analysis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pypdfium2 as pdfium

from ...model import Progress
from .base import Part, Unreadable, check_type

PROGRESS_PAGES = 50  # a PDF this long shows its pages read


def _text(raw: str) -> str:
    # PDFium marks a hyphen that breaks a word at a line end as \x02: the word is joined
    raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    return raw.replace("\x02\n", "").replace("\x02", "-")


def read_pdf(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per page (``page`` from 1; a page without a text layer gives an empty
    one), read a page at a time. Raises Unreadable: mismatched, encrypted, corrupt."""
    check_type(path, "pdf")
    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as err:
        if "password" in str(err).lower():
            raise Unreadable("encrypted", "encrypted PDF: a password is needed to read it "
                                          "(save it without one)") from err
        raise Unreadable("corrupt", f"corrupt PDF: {err}") from err
    try:
        n = len(doc)
        task = f"PDF pages read ({path.name})"
        if n >= PROGRESS_PAGES:
            progress(task, 0, n)
        for i in range(n):
            page = doc[i]
            try:
                textpage = page.get_textpage()
                text = textpage.get_text_bounded()
                textpage.close()
            finally:
                page.close()
            yield Part(_text(text), page=i + 1)
            if n >= PROGRESS_PAGES:
                progress(task, 1, None)
    finally:
        doc.close()
