"""What every reader shares: `Part`, `Unreadable`, and the check that a file's content is
the type its name claims."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Part:
    """A run of a document's text and where it is: ``page`` (PDF, from 1), ``slide`` (PPTX,
    from 1) or ``heading`` (the heading path, ``"Budget > Staff"``), None when unknown;
    ``lost`` counts what of it a reader could not read, by reason (``hidden-slides``,
    ``unmapped-glyphs``: characters, each left as U+FFFD in ``text``)."""

    text: str
    page: int | None = None
    slide: int | None = None
    heading: str | None = None
    lost: dict[str, int] = field(default_factory=dict)


class Unreadable(Exception):
    """A file that is not read: ``reason`` is a short key (``encrypted``, ``no-text``,
    ``corrupt``, ``mismatched``, ``needs-extra``), the message one line for the user."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def sniff(head: bytes, path: Path | None = None) -> str:
    """What the first bytes of a file are: ``pdf``, ``docx``, ``pptx``, ``xlsx``, ``zip``,
    ``ole`` (a legacy or encrypted Office file), ``corrupt-zip`` or ``other``. ``path``
    lets a zip archive be opened to tell the Office types apart."""
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "ole"
    if head.startswith(b"PK\x03\x04"):
        if path is None:
            return "zip"
        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
        except (zipfile.BadZipFile, OSError):
            return "corrupt-zip"
        for kind, member in (("docx", "word/document.xml"), ("pptx", "ppt/presentation.xml"),
                             ("xlsx", "xl/workbook.xml")):
            if member in names:
                return kind
        return "zip"
    return "other"


_NAMES = {"pdf": "a PDF", "docx": "a Word document", "pptx": "a PowerPoint file",
          "xlsx": "an Excel workbook", "zip": "a zip archive", "corrupt-zip": "a zip archive",
          "ole": "a legacy or encrypted Office file (OLE)", "other": "not a zip archive or PDF"}


def check_type(path: Path, expected: str) -> None:
    """Raises Unreadable when the content of ``path`` is not ``expected`` (``pdf``, ``docx``
    or ``pptx``): a corrupt archive, or a file whose name claims another type."""
    with path.open("rb") as fh:
        head = fh.read(2048)
    got = sniff(head, path)
    if got == expected:
        return
    if got == "corrupt-zip" and expected in ("docx", "pptx"):
        raise Unreadable("corrupt", f"corrupt archive: {path.suffix} is a zip file that "
                                    "cannot be opened")
    if got == "ole" and expected in ("docx", "pptx"):
        raise Unreadable("encrypted", f"claims {path.suffix} but is {_NAMES[got]}: save it "
                                      "unencrypted as .docx/.pptx")
    if got == "other":
        raise Unreadable("mismatched", f"claims {path.suffix} but is not {_NAMES[expected]}"
                                       " (its first bytes say another type)")
    raise Unreadable("mismatched", f"claims {path.suffix} but is {_NAMES[got]}")
