"""Documents as users have them: PDF, Word (.docx), PowerPoint (.pptx), HTML and Markdown,
each read into `Part`s that say where their text came from (page, slide or heading path).

PDF, DOCX, PPTX and HTML need the ``documents`` extra (pypdfium2, python-docx, python-pptx,
selectolax, pypdf: chosen by benchmarks/inputs/document_formats.py and
benchmarks/inputs/document_fidelity.py); without it such a file is skipped with
the pip line. A file that cannot be read raises :class:`Unreadable` with a one-line reason
(encrypted, no text layer, corrupt, mismatched: its content is another type than its name
says); the caller skips that file alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ...model import Progress
from .base import Part, Unreadable, check_type, sniff

__all__ = ["Part", "Unreadable", "check_type", "sniff", "reader", "location"]

EXTRA_HINT = "pip install 'neo4j-retag[documents]'"


Reader = Callable[[Path, Progress], Iterator[Part]]


def reader(suffix: str) -> Reader | None:
    """The reader of a binary document type (``.pdf``, ``.docx``, ``.pptx``); None for others.
    Raises Unreadable (``needs-extra``) when the documents extra is not installed."""
    try:
        if suffix == ".pdf":
            from .pdf import read_pdf
            return read_pdf
        if suffix == ".docx":
            from .word import read_docx
            return read_docx
        if suffix == ".pptx":
            from .office import read_pptx
            return read_pptx
    except ImportError as err:
        raise Unreadable("needs-extra", f"reading {suffix} needs the documents extra "
                                        f"({err.name} missing): {EXTRA_HINT}") from err
    return None


def location(name: str, page: int | None = None, pages: list[int] | None = None,
             slide: int | None = None, heading: str | None = None) -> str:
    """A text unit's place for citations: ``report.pdf p. 7``, ``report.pdf pp. 7-8``,
    ``deck.pptx slide 3``, ``notes.md § Budget > Staff``, or the file name alone."""
    if pages and len(pages) > 1:
        return f"{name} pp. {pages[0]}-{pages[-1]}"
    if page is not None:
        return f"{name} p. {page}"
    if slide is not None:
        return f"{name} slide {slide}"
    if heading:
        return f"{name} § {heading}"
    return name


BINARY_SUFFIXES = {".pdf", ".docx", ".pptx"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
