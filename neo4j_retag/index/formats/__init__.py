"""Documents as users have them, each format one row of `READERS`: its suffix, the function
that reads it into `Part`s (saying where their text came from: page, slide, chapter or
heading path), its kind, and what identifies its content (a zip member, leading bytes).

Readers are imported when a file of theirs is read: PDF, DOCX, PPTX, HTML and EPUB need the
``documents`` extra (pypdfium2, pypdf, python-docx, python-pptx, selectolax: chosen by
benchmarks/inputs/document_formats.py and benchmarks/inputs/document_fidelity.py); without
it such a file is skipped with the pip line (``needs-extra``). A file that cannot be read
raises :class:`Unreadable` with a one-line reason (encrypted, no text, corrupt, mismatched:
its content is another type than its name says); the caller skips that file alone.
"""

from __future__ import annotations

import importlib
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .base import Part, Unreadable

__all__ = ["Part", "Unreadable", "READERS", "Format", "sniff", "check", "location"]

EXTRA_HINT = "pip install 'neo4j-retag[documents]'"


@dataclass(frozen=True)
class Format:
    """One row of `READERS`.

    - ``reader``: ``"module.function"`` in this package, imported on first use;
    - ``kind``: what the reader is given and gives back:
      ``binary`` - ``read(path, progress)``, the file's content checked against ``member`` /
      ``magic`` first; ``markup`` - ``read(text)``, the decoded file, its parts joined by
      blank lines; ``text`` - ``read(text)``, the decoded and cleaned file, its parts
      consecutive pieces of it (the text is kept as it is: a document's id is its hash);
      ``records`` - ``read(text)`` gives dicts, one document each;
    - ``name``: what such content is called in a mismatch line (``a Word document``);
    - ``magic``: bytes within its first KB (PDF); ``member``: the zip member that
      identifies it, and ``mimetype`` what that member holds (OpenDocument: its types share
      their members).
    """

    reader: str
    kind: Literal["binary", "markup", "text", "records"]
    name: str
    magic: bytes | None = None
    member: str | None = None
    mimetype: str | None = None

    def load(self) -> Callable[..., Iterator]:
        """The reader function; raises Unreadable (``needs-extra``) when a library it needs
        is not installed."""
        module, function = self.reader.rsplit(".", 1)
        try:
            return getattr(importlib.import_module(f".{module}", __name__), function)
        except ImportError as err:
            raise Unreadable("needs-extra", f"reading {self.name} needs the documents extra "
                                            f"({err.name} missing): {EXTRA_HINT}") from err


_HTML = Format("html.read_html", "markup", "an HTML page")
_MD = Format("markdown.read_markdown", "text", "a Markdown file")
READERS: dict[str, Format] = {
    ".pdf": Format("pdf.read_pdf", "binary", "a PDF", magic=b"%PDF-"),
    ".docx": Format("word.read_docx", "binary", "a Word document", member="word/document.xml"),
    ".pptx": Format("office.read_pptx", "binary", "a PowerPoint file",
                    member="ppt/presentation.xml"),
    ".epub": Format("epub.read_epub", "binary", "an EPUB book",
                    member="META-INF/container.xml"),
    ".odt": Format("odt.read_odt", "binary", "an OpenDocument text", member="mimetype",
                   mimetype="application/vnd.oasis.opendocument.text"),
    ".html": _HTML, ".htm": _HTML, ".xhtml": _HTML,
    ".md": _MD, ".markdown": _MD,
    ".txt": Format("markdown.read_plain", "text", "a text file"),
    ".jsonl": Format("records.read_jsonl", "records", "a JSON Lines file"),
    ".json": Format("records.read_json", "records", "a JSON file"),
    ".csv": Format("records.read_csv", "records", "a CSV file"),
}
# zip formats that are not read, named when a file claims another type
_OTHER_ZIPS = (Format("", "binary", "an Excel workbook", member="xl/workbook.xml"),
               Format("", "binary", "an OpenDocument spreadsheet", member="mimetype",
                      mimetype="application/vnd.oasis.opendocument.spreadsheet"),
               Format("", "binary", "an OpenDocument presentation", member="mimetype",
                      mimetype="application/vnd.oasis.opendocument.presentation"))
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _zip_format(path: Path) -> Format | str:
    """The format of the zip archive at ``path`` (by its members), ``zip`` for another
    archive, ``corrupt-zip`` for one that cannot be opened."""
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            mimetype = (z.read("mimetype")[:100].decode("ascii", "replace").strip()
                        if "mimetype" in names else None)
    except (zipfile.BadZipFile, OSError, KeyError):
        return "corrupt-zip"
    for fmt in (*READERS.values(), *_OTHER_ZIPS):
        if fmt.member in names and fmt.mimetype in (None, mimetype):
            return fmt
    return "zip"


def sniff(head: bytes, path: Path | None = None) -> Format | str:
    """What the first bytes of a file are: a `Format` of the table (or a zip format not
    read), else ``zip``, ``ole`` (a legacy or encrypted Office file), ``corrupt-zip`` or
    ``other``. ``path`` lets a zip archive be opened to tell its formats apart."""
    for fmt in READERS.values():
        if fmt.magic and fmt.magic in head[:1024]:
            return fmt
    if head.startswith(_OLE):
        return "ole"
    if head.startswith(b"PK\x03\x04"):
        return _zip_format(path) if path is not None else "zip"
    return "other"


_NAMES = {"zip": "a zip archive", "corrupt-zip": "a zip archive",
          "ole": "a legacy or encrypted Office file (OLE)"}


def check(path: Path, fmt: Format) -> None:
    """Raises Unreadable when the content of ``path`` is not ``fmt``: ``empty`` (0 bytes),
    ``corrupt`` (an archive that cannot be opened), ``encrypted`` (an Office file saved with
    a password is an OLE file), ``mismatched`` (its name claims another type)."""
    with path.open("rb") as fh:
        head = fh.read(2048)
    if not head:
        raise Unreadable("empty", "empty file (0 bytes)")
    got = sniff(head, path)
    if got == fmt or (isinstance(got, Format) and got.name == fmt.name):
        return
    zipped = fmt.member is not None
    if got == "corrupt-zip" and zipped:
        raise Unreadable("corrupt", f"corrupt archive: {path.suffix} is a zip file that "
                                    "cannot be opened")
    if got == "ole" and zipped:
        raise Unreadable("encrypted", f"claims {path.suffix} but is {_NAMES[got]}: save it "
                                      f"unencrypted as {path.suffix}")
    if got == "other":
        raise Unreadable("mismatched", f"claims {path.suffix} but is not {fmt.name}"
                                       " (its first bytes say another type)")
    raise Unreadable("mismatched", f"claims {path.suffix} but is "
                                   f"{got.name if isinstance(got, Format) else _NAMES[got]}")


def _numbers(ns: list[int]) -> str:
    """``[1, 2, 4]`` -> ``1-2, 4``."""
    runs: list[list[int]] = []
    for n in ns:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def location(name: str, page: int | None = None, pages: list[int] | None = None,
             slide: int | None = None, heading: str | None = None,
             slides: list[int] | None = None) -> str:
    """A text unit's place for citations: ``report.pdf p. 7``, ``report.pdf pp. 7-8``,
    ``deck.pptx slide 3``, ``deck.pptx slides 1-2, 4``, ``notes.md § Budget > Staff``,
    ``minutes.odt p. 2 § Budget``, or the file name alone."""
    where = ""
    if pages and len(pages) > 1:
        where = f" pp. {_numbers(pages)}"
    elif page is not None:
        where = f" p. {page}"
    elif slides and len(slides) > 1:
        where = f" slides {_numbers(slides)}"
    elif slide is not None:
        where = f" slide {slide}"
    if heading:
        where += f" § {heading}"
    return name + where
