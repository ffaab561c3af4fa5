"""EPUB books (EPUB 2 and 3): the chapters in the order of the package's spine, each read as
a book's page (index/formats/html.py: what is hidden is left out, footnotes in asides are
kept), with the chapter's title from the table of contents (the EPUB 3 navigation document,
else the EPUB 2 NCX; else its first heading) first in the heading path each part cites."""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree as ET

from ...model import Progress
from .base import Part, Unreadable
from .html import sections

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_NCX = "{http://www.daisy.org/z3986/2005/ncx/}"
_XHTML = "{http://www.w3.org/1999/xhtml}"
_EPUB = "{http://www.idpf.org/2007/ops}"
_ENC = "{http://www.w3.org/2001/04/xmlenc#}"
_FONT_OBFUSCATION = ("http://www.idpf.org/2008/embedding",  # fonts only: the text is readable
                     "http://ns.adobe.com/pdf/enc#RC")
_XML_ENCODING = re.compile(rb"^<\?xml[^>]*encoding=[\"']([\w.-]+)")


def _xml(z: zipfile.ZipFile, name: str) -> ET.Element:
    try:
        return ET.fromstring(z.read(name))
    except KeyError as err:
        raise Unreadable("corrupt", f"corrupt EPUB: {name} is missing") from err
    except ET.ParseError as err:
        raise Unreadable("corrupt", f"corrupt EPUB: {name}: {err}") from err


def _join(base: str, href: str) -> str:
    """A zip member named by ``href`` relative to the member ``base`` (no fragment)."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(base),
                                             unquote(href.split("#")[0])))


def _text(node: ET.Element | None) -> str:
    return " ".join("".join(node.itertext()).split()) if node is not None else ""


def _toc(z: zipfile.ZipFile, opf: str, package: ET.Element,
         items: dict[str, tuple[str, str, str]]) -> dict[str, str]:
    """Chapter member -> its title in the table of contents (the first entry naming it)."""
    titles: dict[str, str] = {}
    nav = next((href for href, _, props in items.values() if "nav" in props.split()), None)
    if nav is not None:
        root = _xml(z, nav)
        for toc in root.iter(f"{_XHTML}nav"):
            if toc.get(f"{_EPUB}type", "toc") != "toc":
                continue
            for a in toc.iter(f"{_XHTML}a"):
                if a.get("href") and (label := _text(a)):
                    titles.setdefault(_join(nav, a.get("href", "")), label)
        return titles
    ncx_id = package.find(f"{_OPF}spine")
    ncx = items.get(ncx_id.get("toc", "") if ncx_id is not None else "")
    if ncx is None:
        ncx = next((i for i in items.values() if i[1] == "application/x-dtbncx+xml"), None)
    if ncx is not None:
        for point in _xml(z, ncx[0]).iter(f"{_NCX}navPoint"):
            content = point.find(f"{_NCX}content")
            label = _text(point.find(f"{_NCX}navLabel"))
            if content is not None and content.get("src") and label:
                titles.setdefault(_join(ncx[0], content.get("src", "")), label)
    return titles


def _encrypted(z: zipfile.ZipFile) -> set[str]:
    """The members an ``encryption.xml`` says are encrypted (font obfuscation aside)."""
    if "META-INF/encryption.xml" not in z.namelist():
        return set()
    out: set[str] = set()
    for data in _xml(z, "META-INF/encryption.xml").iter(f"{_ENC}EncryptedData"):
        method = data.find(f"{_ENC}EncryptionMethod")
        ref = data.find(f".//{_ENC}CipherReference")
        if ref is not None and (method is None or
                                method.get("Algorithm") not in _FONT_OBFUSCATION):
            out.add(unquote(ref.get("URI", "")))
    return out


def _decode(raw: bytes) -> str:
    m = _XML_ENCODING.match(raw)
    try:
        return raw.decode(m.group(1).decode() if m else "utf-8", "replace")
    except LookupError:
        return raw.decode("utf-8", "replace")


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def read_epub(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per heading section of each chapter in spine order, ``heading`` the
    chapter's title then the headings inside it (``Chapter 2 > The storm``); the first part
    says the book's ``dc:title``. Raises Unreadable: encrypted (DRM), corrupt."""
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise Unreadable("corrupt", f"corrupt EPUB archive: {err}") from err
    with z:
        root = _xml(z, "META-INF/container.xml").find(f".//{_CONTAINER}rootfile")
        if root is None or not root.get("full-path"):
            raise Unreadable("corrupt", "corrupt EPUB: its container names no package")
        opf = root.get("full-path", "")
        package = _xml(z, opf)
        book = _text(package.find(f"{_OPF}metadata/{_DC}title")) or None
        items = {i.get("id", ""): (_join(opf, i.get("href", "")), i.get("media-type", ""),
                                   i.get("properties", ""))
                 for i in package.iter(f"{_OPF}item")}
        spine = [items[r.get("idref", "")] for r in package.iter(f"{_OPF}itemref")
                 if r.get("idref") in items]
        chapters = [href for href, kind, _ in spine if "html" in kind]
        if locked := _encrypted(z).intersection(chapters):
            raise Unreadable("encrypted", f"DRM-protected EPUB: {len(locked)} of "
                                          f"{len(chapters)} chapters are encrypted")
        titles = _toc(z, opf, package, items)
        for href in chapters:
            try:
                html = _decode(z.read(href))
            except KeyError as err:
                raise Unreadable("corrupt", f"corrupt EPUB: {href} is missing") from err
            title = titles.get(href)
            for heads, text in sections(html, web=False):
                top = title or (heads[0] if heads else None)
                rest = heads[1:] if heads and top and _same(heads[0], top) else heads
                heading = " > ".join([top, *rest] if top else rest) or None
                yield Part(text, heading=heading, title=book)
