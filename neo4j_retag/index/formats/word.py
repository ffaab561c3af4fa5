"""Word (.docx) as its reader sees it, read from the document's XML (python-docx opens the
package): the accepted view of tracked changes (insertions kept, deletions dropped), content
controls, text boxes (Word writes each twice, a DrawingML box and its VML fallback: read
once), footnotes and endnotes (``[^1]`` where they are referenced, their text at the end of
that heading section), headers and footers once per document, merged cells once and nested
tables as tables of their own. python-docx's ``Paragraph.text`` and ``Table.rows`` miss or
repeat each of these (issue 47; benchmarks/inputs/document_fidelity.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from lxml import etree

from ...model import Progress
from .base import Part, Unreadable
from .office import open_package
from .tables import markdown_table

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_HEADING = re.compile(r"^(?:Heading\s*(\d)|Title)$", re.I)
# what a reader does not see: deleted or moved-away text, field codes, note separators,
# properties, a ruby's phonetic guide (its base text is read)
_UNSEEN = {f"{W}{t}" for t in ("del", "moveFrom", "delText", "instrText", "delInstrText",
                               "rPr", "pPr", "sdtPr", "footnoteRef", "endnoteRef", "rt")}
_OFF = {"0", "false", "off"}


def _vanished(run) -> bool:  # noqa: ANN001 - a w:r element
    """A run formatted as hidden text (``w:vanish``): Word does not show or print it."""
    mark = run.find(f"{W}rPr/{W}vanish")
    return mark is not None and mark.get(f"{W}val") not in _OFF
_BREAKS = {f"{W}br": "\n", f"{W}cr": "\n", f"{W}tab": "\t", f"{W}noBreakHyphen": "-"}


class _Notes:
    """Footnote and endnote texts by id, and the marks met since the last section end."""

    def __init__(self, document) -> None:  # noqa: ANN001 - docx.Document
        self.text: dict[str, str] = {}
        for reltype, kind, mark in ((RT.FOOTNOTES, "footnote", ""), (RT.ENDNOTES, "endnote",
                                                                      "e")):
            for rel in document.part.rels.values():
                if rel.reltype == reltype and not rel.is_external:
                    root = etree.fromstring(rel.target_part.blob)
                    for note in root.iter(f"{W}{kind}"):
                        if note.get(f"{W}type") in (None, "normal"):
                            text = " ".join(t for _, t in _blocks(note, self) if t).strip()
                            self.text[f"{mark}{note.get(f'{W}id')}"] = text
        self.pending: list[str] = []

    def flush(self) -> list[str]:
        """``[^id]: text`` for each note marked since the last call."""
        out = [f"[^{i}]: {self.text[i]}" for i in self.pending if self.text.get(i)]
        self.pending = []
        return out


def _runs(node, notes: _Notes | None, boxes: list) -> Iterator[str]:  # noqa: ANN001
    """The text a reader sees in ``node``; text boxes go to ``boxes`` (read after their
    paragraph), note references become ``[^id]`` marks."""
    for child in node:
        tag = child.tag
        if not isinstance(tag, str) or tag in _UNSEEN or (tag == f"{W}r" and _vanished(child)):
            continue
        if tag == f"{W}t":
            yield child.text or ""
        elif tag in _BREAKS:
            yield _BREAKS[tag]
        elif tag == f"{MC}AlternateContent":  # the first choice alone, else the fallback
            chosen = next(iter(child), None)
            if chosen is not None:
                yield from _runs(chosen, notes, boxes)
        elif tag == f"{W}txbxContent":
            boxes.append(child)
        elif tag in (f"{W}footnoteReference", f"{W}endnoteReference"):
            key = ("e" if tag == f"{W}endnoteReference" else "") + str(child.get(f"{W}id"))
            if notes is not None:
                notes.pending.append(key)
            yield f"[^{key}]"
        else:
            yield from _runs(child, notes, boxes)


def _style(p, styles: dict[str, str]) -> str:  # noqa: ANN001
    node = p.find(f"{W}pPr/{W}pStyle")
    return styles.get(node.get(f"{W}val"), "") if node is not None else ""


def _blocks(container, notes: _Notes | None,  # noqa: ANN001
            styles: dict[str, str] | None = None) -> Iterator[tuple[str, str]]:
    """(style name, text) for each paragraph and ("table", Markdown) for each table, in
    reading order; content controls and custom XML are walked into."""
    for child in container:
        if child.tag == f"{W}p":
            boxes: list = []
            text = "".join(_runs(child, notes, boxes)).strip()
            yield _style(child, styles or {}), text
            for box in boxes:
                yield from _blocks(box, notes, styles)
        elif child.tag == f"{W}tbl":
            yield from _table(child, notes)
        elif child.tag == f"{W}sdt":  # a content control: its content, not its properties
            for content in child.iterchildren(f"{W}sdtContent"):
                yield from _blocks(content, notes, styles)
        elif child.tag in (f"{W}customXml", f"{W}ins", f"{W}moveTo"):
            yield from _blocks(child, notes, styles)


def _in_place(node, tag: str) -> Iterator:  # noqa: ANN001 - lxml elements
    """The ``tag`` children of ``node``, and those a content control (a repeating section
    around rows, a control around one cell) or custom XML holds, where they stand."""
    for child in node:
        if child.tag == tag:
            yield child
        elif child.tag == f"{W}sdt":
            for content in child.iterchildren(f"{W}sdtContent"):
                yield from _in_place(content, tag)
        elif child.tag == f"{W}customXml":
            yield from _in_place(child, tag)


def _table(tbl, notes: _Notes | None) -> Iterator[tuple[str, str]]:  # noqa: ANN001
    """The table as Markdown (a merged cell once, its other grid columns empty; rows and
    cells inside content controls in place), then each table nested in its cells, as a
    table of its own."""
    rows: list[list[str]] = []
    nested: list = []
    for tr in _in_place(tbl, f"{W}tr"):
        row: list[str] = []
        for tc in _in_place(tr, f"{W}tc"):
            span = tc.find(f"{W}tcPr/{W}gridSpan")
            vmerge = tc.find(f"{W}tcPr/{W}vMerge")
            texts = []
            for kind, text in _blocks(tc, notes):
                if kind == "table":
                    nested.append(text)
                elif text:
                    texts.append(text)
            continued = vmerge is not None and vmerge.get(f"{W}val") in (None, "continue")
            row.append("" if continued else " ".join(texts))
            row += [""] * (int(span.get(f"{W}val", "1")) - 1 if span is not None else 0)
        rows.append(row)
    yield "table", markdown_table(rows)
    for table in nested:
        yield "table", table


def _headers_footers(document) -> tuple[list[str], list[str]]:  # noqa: ANN001
    """The distinct header and footer texts of all sections (a header repeated on every
    page or section is one text)."""
    found: dict[str, list[str]] = {"header": [], "footer": []}
    even = document.settings.odd_and_even_pages_header_footer
    for section in document.sections:
        # a first-page or even-page header Word shows only when the document says so
        shown = ["", "first_page_"] if section.different_first_page_header_footer else [""]
        shown += ["even_page_"] if even else []
        for kind in ("header", "footer"):
            for attr in (f"{prefix}{kind}" for prefix in shown):
                part = getattr(section, attr)
                if part.is_linked_to_previous:
                    continue
                text = " ".join(t for _, t in _blocks(part._element, None) if t).strip()
                if text and text not in found[kind]:
                    found[kind].append(text)
    return found["header"], found["footer"]


def read_docx(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per heading section (``heading`` is the path of Heading 1..9 / Title
    paragraphs above it), the page header first and footer last (once each); tables as
    Markdown. Raises Unreadable: corrupt; no-text for a document of images alone (a scan
    saved as Word), as for a PDF without a text layer."""
    document = open_package(docx.Document, path)
    styles = {s.style_id: s.name for s in document.styles}
    notes = _Notes(document)
    headers, footers = _headers_footers(document)
    if headers:
        yield Part("\n\n".join(f"Page header: {h}" for h in headers))
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    heading: str | None = None
    said = False  # body text: a scan under a letterhead header is still a scan
    for style, text in _blocks(document.element.body, notes, styles):
        said = said or bool(text)
        m = _HEADING.match(style) if style != "table" else None
        if m and text:
            lines += notes.flush()
            if lines:
                yield Part("\n\n".join(lines), heading=heading)
            level = int(m.group(1) or 0)
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, text)]
            heading = " > ".join(t for _, t in stack)
            lines = [f"{'#' * max(level, 1)} {text}"]
        elif text:
            lines.append(text)
    lines += notes.flush()
    if lines:
        yield Part("\n\n".join(lines), heading=heading)
    if footers:
        yield Part("\n\n".join(f"Page footer: {f}" for f in footers))
    body = document.element.body
    if not said and (images := sum(1 for tag in (f"{W}drawing", f"{W}pict", f"{W}object")
                                   for _ in body.iter(tag))):
        raise Unreadable("no-text", f"no text: {images} image(s) only (OCR is not included)")
