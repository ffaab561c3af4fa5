"""Documents in: files and folders of .txt/.md, .pdf/.docx/.pptx/.html (index/formats: the
documents extra), and .jsonl/.json/.csv records with a text field.

Text is decoded (UTF-8 first, BOMs honoured, other encodings detected by charset-normalizer),
NFC-normalised, and stripped of control characters and lone surrogates before it reaches Neo4j.
A document's id is the SHA-256 of its cleaned text, so re-ingesting the same file adds nothing.
A document keeps where each run of its text came from (`Document.spans`: page, slide or
heading path), so each text unit can say its place (`Document.locate`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from charset_normalizer import from_bytes

from ..errors import Failure, InputError
from ..model import Progress, no_progress
from ..text import clean
from .formats import READERS, Format, Part, Unreadable, check, location, sniff

log = logging.getLogger(__name__)
TEXT_FIELDS = ("body", "text", "content")
META_FIELDS = ("title", "source", "published_at", "category")
# what a document's reader could not read, counted on the document (metadata, Document node
# properties): pages without a text layer, hidden slides and shapes skipped, glyphs left as
# U+FFFD
LOST_KEYS = ("pages_without_text", "hidden_slides", "hidden_shapes", "unmapped_glyphs")
LOST_CHAR = "\ufffd"  # an unreadable character in a text unit: the unit is counted lossy
WESTERN = "cp1252"  # the tie-break among code pages the detector cannot tell apart
CHAOS_TIE = 0.2  # chaos ratios this close are a tie (charset-normalizer gave French in
# cp1252 0.15 where cp1257 scored 0; Polish, Czech or Russian in cp1252 score 0.5 and more)


@dataclass
class Document:
    id: str
    title: str
    path: str
    text: str
    metadata: dict[str, str] = field(default_factory=dict)
    # (character offset, {"page"|"slide"|"heading": ...}) where each located run of text starts
    spans: list[tuple[int, dict[str, int | str]]] = field(default_factory=list)

    def locate(self, start: int, end: int) -> dict[str, object]:
        """Where the text ``[start, end)`` is: ``page`` and ``slide`` (its first), ``pages``
        and ``slides`` (all it covers), ``heading`` (of most of its text; None when unknown)
        and ``location``, the label citations show (``report.pdf p. 7``, ``deck.pptx slides
        1-2, 4``; the file name alone for a plain text file)."""
        ends = [at for at, _ in self.spans[1:]] + [max(end, len(self.text))] * bool(self.spans)
        # (characters of the text inside the span, its place), for every span it overlaps
        hit = [(min(end, stop) - max(start, at), loc)
               for (at, loc), stop in zip(self.spans, ends, strict=True)
               if at < max(end, start + 1) and stop > start]
        pages = sorted({int(h["page"]) for _, h in hit if "page" in h})
        slides = sorted({int(h["slide"]) for _, h in hit if "slide" in h})
        # a unit across sections is where most of its text is
        most = [loc for _, loc in sorted(hit, key=lambda h: -h[0])]
        heading = next((str(h["heading"]) for h in most if "heading" in h), None)
        page, slide = (pages or [None])[0], (slides or [None])[0]
        return {"page": page, "pages": pages or None, "slide": slide, "slides": slides or None,
                "heading": heading, "location": location(Path(self.path).name, page, pages,
                                                         slide, heading, slides)}


def skipped(path: str, reason: str, error: str) -> Failure:
    """An input that is not read (a `Failure` of its path: ``unsupported``, ``binary``,
    ``empty`` or ``malformed``); the next run skips it again, so it is listed, not retried."""
    return Failure(item=path, reason=reason, error=error)


def decode(raw: bytes) -> str | None:
    """Bytes to text; None when the bytes look binary (NUL bytes or no plausible encoding)."""
    if b"\x00" in raw[:8192] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if raw.startswith(bom):
            return raw.decode(enc, errors="replace").lstrip("\ufeff")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # charset-normalizer's evidence: each candidate's chaos (mess ratio) and coherence
    # (language fit). On short single-byte text several code pages tie, or nearly (cp1250
    # reads "Señora" as "Seńora" as cleanly as cp1252 reads it right; cp775 beat cp1252 on
    # "Café “quoted”" by 0.09); among the candidates as coherent and within CHAOS_TIE of the
    # cleanest, the one that could be cp1252, the most common legacy code page, is taken
    results = from_bytes(raw)
    best = results.best()
    if best is None:
        return None
    tied = [m for m in results
            if m.coherence >= best.coherence and m.chaos <= best.chaos + CHAOS_TIE]
    if any(WESTERN in m.could_be_from_charset for m in tied):
        try:
            return raw.decode(WESTERN)
        except UnicodeDecodeError:  # a byte cp1252 leaves undefined: not cp1252 after all
            pass
    return str(best)


def _doc(text: str, path: str, title: str, metadata: dict[str, str]) -> Document:
    text = clean(text).strip()
    return Document(hashlib.sha256(text.encode()).hexdigest(), clean(title)[:500], path, text,
                    {k: clean(str(v)) for k, v in metadata.items() if v not in (None, "")})


def _from_parts(parts: Iterator[Part], path: Path, title: str, *,
                kept: bool = False) -> Document:
    """One document of a reader's parts, each part's place kept in ``spans`` (``kept``:
    the parts are consecutive pieces of a cleaned text, joined as they are). Raises
    Unreadable (``no-text``) when no page has a text layer, or nothing was shown."""
    texts: list[str] = []
    spans: list[tuple[int, dict[str, int | str]]] = []
    lost: Counter[str] = Counter()
    at = blank_pages = pages = 0
    titled = False
    for part in parts:
        lost.update(part.lost)
        if part.title and not titled:
            title, titled = part.title, True
        pages += part.page is not None
        text = part.text if kept else clean(part.text).strip()
        if not text:
            blank_pages += part.page is not None
            continue
        at += 2 if texts and not kept else 0  # the blank line joining parts
        spans.append((at, {k: v for k, v in (("page", part.page), ("slide", part.slide),
                                             ("heading", part.heading)) if v is not None}))
        texts.append(text)
        at += len(text)
    if pages and blank_pages == pages:
        raise Unreadable("no-text", f"no text layer: OCR is not included ({pages} pages)")
    if not texts and lost:
        raise Unreadable("no-text", "nothing shown: " + ", ".join(
            f"{n} {reason}" for reason, n in sorted(lost.items())))
    doc = _doc(("" if kept else "\n\n").join(texts), str(path), title, {})
    doc.spans = spans
    for reason, n in sorted(lost.items()):  # said and counted on the document (LOST_KEYS)
        doc.metadata[reason.replace("-", "_")] = str(n)
        log.warning("%s: %d %s (not indexed)", path, n, reason.replace("-", " "))
    if blank_pages:  # scanned pages in a PDF with text: said and counted on the document
        doc.metadata["pages_without_text"] = str(blank_pages)
        log.warning("%s: %d of %d pages have no text layer (OCR is not included)", path,
                    blank_pages, pages)
    return doc


def read_file(f: Path, text_field: str | None = None,
              progress: Progress = no_progress) -> Iterator[Document | Failure]:
    """The documents of one file (one, or one per record), or a `skipped` Failure: its
    reader is its suffix's row of `READERS`."""
    fmt = READERS.get(f.suffix.lower())
    if fmt is None:
        yield skipped(str(f), "unsupported", f"unsupported file type {f.suffix or '(none)'}")
        return
    try:
        read = fmt.load()
        if fmt.kind == "binary":
            check(f, fmt)
            doc = _from_parts(read(f, progress), f, f.stem)
        elif (text := _text_of(f)) is None or isinstance(text, Failure):
            yield text or skipped(str(f), "binary", "binary file")
            return
        elif fmt.kind == "records":
            yield from _records(f, read(text), text_field)
            return
        else:
            doc = _from_parts(read(clean(text).strip() if fmt.kind == "text" else text), f,
                              f.stem, kept=fmt.kind == "text")
    except Unreadable as err:
        yield skipped(str(f), err.reason, str(err))
        return
    except InputError:
        raise
    except Exception as err:  # noqa: BLE001 - one bad file is skipped, the others are read
        log.warning("%s unreadable", f, exc_info=True)
        reason = "corrupt" if fmt.kind == "binary" else "malformed"
        yield skipped(str(f), reason, f"unreadable {f.suffix} file: {type(err).__name__}: "
                                      f"{' '.join(str(err).split())[:200]}")
        return
    yield doc if doc.text else skipped(str(f), "empty", "empty document")


def _text_of(f: Path) -> str | Failure | None:
    """The decoded text of a text file; a Failure when it holds a PDF or an archive; None
    when it is binary."""
    raw = f.read_bytes()
    if (kind := sniff(raw[:2048])) != "other":  # a PDF or an archive named as text
        what = kind.name if isinstance(kind, Format) else f"a binary archive ({kind})"
        return skipped(str(f), "mismatched", f"claims {f.suffix} but is {what}")
    return decode(raw)


def _records(f: Path, records: Iterator[object], text_field: str | None,
             ) -> Iterator[Document | Failure]:
    try:
        rows = [r if isinstance(r, dict) else {} for r in records]
    except (json.JSONDecodeError, csv.Error, AttributeError) as err:
        yield skipped(str(f), "malformed", f"malformed records: {err}")
        return
    found = sorted({str(k) for r in rows for k in r})
    if text_field and rows and not any(text_field in r for r in rows):
        raise InputError(f"{f}: no field {text_field!r} in its records; fields found: "
                         f"{', '.join(found) or 'none'} (choose one with --text-field)")
    for i, rec in enumerate(rows):
        fields = (text_field,) if text_field else TEXT_FIELDS
        body = next((str(rec[k]) for k in fields if rec.get(k)), "")
        meta = {k: str(rec[k]) for k in META_FIELDS if rec.get(k)}
        doc = _doc(body, f"{f}#{i}", meta.get("title", f"{f.stem} #{i}"), meta)
        yield doc if doc.text else skipped(
            f"{f}#{i}", "empty", f"empty record or no text field (fields: {', '.join(found)})")


def check_inputs(paths: Sequence[Path]) -> None:
    """Raises InputError for a path that does not exist, or when no file under ``paths`` has
    a type `ingest` reads: nothing to ingest is a user error, not an empty success."""
    for path in paths:
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
    # the first readable file ends the walk: a large folder is not listed twice
    if paths and not any(f.suffix.lower() in READERS for p in paths for f in _files(p)):
        raise InputError(f"nothing to ingest in {', '.join(map(str, paths))}: no "
                         f"{', '.join(sorted(READERS))} file")


def _files(path: Path) -> Iterator[Path]:
    """The files of a folder, recursively (unsorted), or the file itself."""
    return (p for p in path.rglob("*") if p.is_file()) if path.is_dir() else iter([path])


def read_path(path: Path, text_field: str | None = None,
              progress: Progress = no_progress) -> Iterator[Document | Failure]:
    """Documents (or a `skipped` Failure) from one file or a folder, recursively, sorted: a
    file of a type no reader reads is listed as skipped (``unsupported``); a long PDF
    reports its pages read to ``progress``."""
    for f in sorted(_files(path)):
        yield from read_file(f, text_field, progress)
