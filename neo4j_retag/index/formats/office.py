"""Word (.docx: python-docx) and PowerPoint (.pptx: python-pptx) documents: paragraphs and
tables in reading order, tables as Markdown, headings as the path of each part."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import docx
import pptx
from docx.table import Table
from docx.text.paragraph import Paragraph

from ...model import Progress
from .base import Part, Unreadable, check_type
from .tables import markdown_table

_HEADING = re.compile(r"^(?:Heading\s*(\d)|Title)$", re.I)


def _open(fn, path: Path, kind: str):  # noqa: ANN001, ANN202 - docx.Document / pptx.Presentation
    check_type(path, kind)
    try:
        return fn(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as err:
        raise Unreadable("corrupt", f"corrupt {path.suffix} archive: {err}") from err
    except Exception as err:  # noqa: BLE001 - the libraries' own package errors
        raise Unreadable("corrupt", f"corrupt {path.suffix} file: "
                                    f"{type(err).__name__}: {err}") from err


def read_docx(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per heading section (``heading`` is the path of Heading 1..9 / Title
    paragraphs above it); tables as Markdown. Raises Unreadable: mismatched, corrupt."""
    document = _open(docx.Document, path, "docx")
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    heading: str | None = None
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            lines.append(markdown_table([[c.text for c in row.cells] for row in block.rows]))
            continue
        assert isinstance(block, Paragraph)
        text = block.text.strip()
        m = _HEADING.match(block.style.name if block.style is not None else "")
        if m and text:
            if any(line.strip() for line in lines):
                yield Part("\n\n".join(lines), heading=heading)
            level = int(m.group(1) or 0)
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, text)]
            heading = " > ".join(t for _, t in stack)
            lines = [f"{'#' * max(level, 1)} {text}"]
        elif text:
            lines.append(text)
    if any(line.strip() for line in lines):
        yield Part("\n\n".join(lines), heading=heading)


def read_pptx(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per slide (``slide`` from 1): its title, text frames, tables (as Markdown)
    and speaker notes. Raises Unreadable: mismatched, corrupt."""
    deck = _open(pptx.Presentation, path, "pptx")
    for i, slide in enumerate(deck.slides, 1):
        lines = []
        for shape in slide.shapes:
            if shape.has_text_frame and shape.text_frame.text.strip():
                lines.append(shape.text_frame.text.strip())
            elif getattr(shape, "has_table", False) and shape.has_table:
                lines.append(markdown_table([[c.text for c in row.cells]
                                             for row in shape.table.rows]))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"Notes: {notes}")
        yield Part("\n\n".join(line for line in lines if line), slide=i)
