"""PDF text by page (pypdfium2: PDFium's text layer; ~10x pypdf's speed at the same text,
benchmarks/inputs/document_formats.py), with what the text layer leaves out: the values of a filled
form (each beside its label) and ligature glyphs mapped to no text (index/formats/
pdf_glyphs.py). Tables come out as their text layer: PDFs have no table structure to read
without layout analysis. Columns drawn line by line are read one after another."""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterator
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw

from ...model import Progress
from .base import Part, Unreadable
from .pdf_columns import reading_boxes
from .pdf_glyphs import UNREADABLE, Glyphs, recover

PROGRESS_PAGES = 50  # a PDF this long shows its pages read
_VALUED = {raw.FPDF_FORMFIELD_TEXTFIELD, raw.FPDF_FORMFIELD_COMBOBOX,
           raw.FPDF_FORMFIELD_LISTBOX}
_UNSHOWN = raw.FPDF_ANNOT_FLAG_HIDDEN | raw.FPDF_ANNOT_FLAG_NOVIEW  # a field nobody sees
_CHECKED = {raw.FPDF_FORMFIELD_CHECKBOX, raw.FPDF_FORMFIELD_RADIOBUTTON}


def _text(raw_text: str) -> str:
    # PDFium marks a hyphen that breaks a word at a line end as \x02: the word is joined
    raw_text = raw_text.replace("\r\n", "\n").replace("\r", "\n")
    return raw_text.replace("\x02\n", "").replace("\x02", "-")


def _wide(fn, *args) -> str:  # noqa: ANN001 - a PDFium getter of UTF-16LE text
    n = fn(*args, None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    fn(*args, ctypes.cast(buf, ctypes.POINTER(raw.FPDF_WCHAR)), n)
    return buf.raw[:n].decode("utf-16-le", "replace").rstrip("\x00").strip()


def _fields(doc: pdfium.PdfDocument, page: pdfium.PdfPage,
            textpage: pdfium.PdfTextPage) -> list[tuple[str, str]]:
    """(label, value) of each filled form field on ``page``: the label is the page text on
    the field's line to its left, else the field's tooltip name, else its name."""
    out: list[tuple[str, str]] = []
    env = doc.formenv
    for i in range(raw.FPDFPage_GetAnnotCount(page.raw)):
        annot = raw.FPDFPage_GetAnnot(page.raw, i)
        try:
            if raw.FPDFAnnot_GetSubtype(annot) != raw.FPDF_ANNOT_WIDGET or \
                    raw.FPDFAnnot_GetFlags(annot) & _UNSHOWN:
                continue
            kind = raw.FPDFAnnot_GetFormFieldType(env, annot)
            if kind in _VALUED:
                value = _wide(raw.FPDFAnnot_GetFormFieldValue, env, annot)
            elif kind in _CHECKED and raw.FPDFAnnot_IsChecked(env, annot):
                value = _wide(raw.FPDFAnnot_GetFormFieldExportValue, env, annot) or "yes"
            else:
                continue
            if not value:
                continue
            rect = raw.FS_RECTF()
            raw.FPDFAnnot_GetRect(annot, rect)
            label = " ".join(textpage.get_text_bounded(
                left=0, bottom=rect.bottom, right=rect.left, top=rect.top).split())
            label = label or _wide(raw.FPDFAnnot_GetFormFieldAlternateName, env, annot) or \
                _wide(raw.FPDFAnnot_GetFormFieldName, env, annot)
            out.append((label, value))
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    return out


def _fill(text: str, fields: list[tuple[str, str]]) -> str:
    """The page text with each value after its label's line (``Vessel: Sea Lark``); a value
    whose label is not a line of its own goes at the end of the page, labelled."""
    lines = text.split("\n")
    extra: list[str] = []
    for label, value in fields:
        at = next((i for i, line in enumerate(lines) if line.strip() == label), None)
        if at is None:
            extra.append(f"{label.rstrip(':')}: {value}")
        else:
            lines[at] = f"{label} {value}" if label.endswith(":") else f"{label}: {value}"
    return "\n".join(lines + extra)


def _page_text(textpage: pdfium.PdfTextPage) -> str:
    """The page's text in reading order: columns side by side one after another
    (index/formats/pdf_columns.py), else PDFium's own order."""
    rects = [textpage.get_rect(i) for i in range(textpage.count_rects())]
    if not rects:
        return _text(textpage.get_text_bounded())
    margin = 1000.0  # the outer edges cut no text, wherever the page's box starts
    boxes = reading_boxes(rects, (min(r[0] for r in rects) - margin,
                                  min(r[1] for r in rects) - margin,
                                  max(r[2] for r in rects) + margin,
                                  max(r[3] for r in rects) + margin))
    if len(boxes) == 1:
        return _text(textpage.get_text_bounded())
    texts = [_text(textpage.get_text_bounded(*b)).strip() for b in boxes]
    return "\n".join(line.rstrip() for t in texts if t for line in t.split("\n"))


def _suspect(textpage: pdfium.PdfTextPage) -> bool:
    """A page with a glyph mapped to the private-use area or to U+0000: PDFium's bounded
    text drops the latter, its char list keeps them (U+FFFE in the range text, which also
    stands for a line-end hyphen: the chars are looked at only then). Only such pages are
    read again with pypdf (pdf_glyphs)."""
    text = textpage.get_text_range()
    if UNREADABLE.search(text):
        return True
    return any(raw.FPDFText_GetUnicode(textpage.raw, m.start()) == 0
               for m in re.finditer("\ufffe", text))


def read_pdf(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per page (``page`` from 1; a page without a text layer gives an empty
    one), read a page at a time, form values beside their labels, ligatures recovered
    (``lost["unmapped-glyphs"]``: characters that could not be). Raises Unreadable:
    mismatched, encrypted, corrupt."""
    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as err:
        if "password" in str(err).lower():
            raise Unreadable("encrypted", "encrypted PDF: a password is needed to read it "
                                          "(save it without one)") from err
        raise Unreadable("corrupt", f"corrupt PDF: {err}") from err
    try:
        doc.init_forms()  # before any page is loaded: form values are read through it
        glyphs = Glyphs(path)
        n = len(doc)
        task = f"PDF pages read ({path.name})"
        if n >= PROGRESS_PAGES:
            progress(task, 0, n)
        for i in range(n):
            page = doc[i]
            try:
                textpage = page.get_textpage()
                text = _page_text(textpage)
                suspect = _suspect(textpage)
                if fields := _fields(doc, page, textpage):
                    text = _fill(text, fields)
                textpage.close()
            finally:
                page.close()
            text, lost = recover(text, glyphs.fixes(i) if suspect else [])
            yield Part(text, page=i + 1, lost={"unmapped-glyphs": lost} if lost else {})
            if n >= PROGRESS_PAGES:
                progress(task, 1, None)
    finally:
        doc.close()
