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
import io
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
from .formats import (
    BINARY_SUFFIXES,
    EXTRA_HINT,
    HTML_SUFFIXES,
    Part,
    Unreadable,
    location,
    reader,
    sniff,
)
from .formats.markdown import heading_spans

log = logging.getLogger(__name__)
TEXT_SUFFIXES = {".txt", ".md", ".markdown"}
RECORD_SUFFIXES = {".jsonl", ".json", ".csv"}
# what `ingest` reads
SUFFIXES = TEXT_SUFFIXES | RECORD_SUFFIXES | BINARY_SUFFIXES | HTML_SUFFIXES
TEXT_FIELDS = ("body", "text", "content")
META_FIELDS = ("title", "source", "published_at", "category")
# what a document's reader could not read, counted on the document (metadata, Document node
# properties): pages without a text layer, hidden slides skipped, glyphs left as U+FFFD
LOST_KEYS = ("pages_without_text", "hidden_slides", "unmapped_glyphs")
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
        """Where the text ``[start, end)`` is: ``page`` (its first), ``pages`` (all, PDF),
        ``slide`` and ``heading`` (of most of its text; None when unknown) and ``location``,
        the label citations show (``report.pdf p. 7``; the file name alone for a plain text
        file)."""
        ends = [at for at, _ in self.spans[1:]] + [max(end, len(self.text))] * bool(self.spans)
        # (characters of the text inside the span, its place), for every span it overlaps
        hit = [(min(end, stop) - max(start, at), loc)
               for (at, loc), stop in zip(self.spans, ends, strict=True)
               if at < max(end, start + 1) and stop > start]
        pages = sorted({int(h["page"]) for _, h in hit if "page" in h})
        # a unit across slides or sections is where most of its text is
        most = [loc for _, loc in sorted(hit, key=lambda h: -h[0])]
        slide = next((int(h["slide"]) for h in most if "slide" in h), None)
        heading = next((str(h["heading"]) for h in most if "heading" in h), None)
        out: dict[str, object] = {"page": pages[0] if pages else None,
                                  "pages": pages or None, "slide": slide, "heading": heading}
        out["location"] = location(Path(self.path).name, pages[0] if pages else None, pages,
                                   slide, heading)
        return out


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


def _from_parts(parts: Iterator[Part], path: Path, title: str) -> Document:
    """One document of a reader's parts, each part's place kept in ``spans``. Raises
    Unreadable (``no-text``) when no page has a text layer."""
    texts: list[str] = []
    spans: list[tuple[int, dict[str, int | str]]] = []
    lost: Counter[str] = Counter()
    at = blank_pages = pages = 0
    for part in parts:
        lost.update(part.lost)
        pages += part.page is not None
        text = clean(part.text).strip()
        if not text:
            blank_pages += part.page is not None
            continue
        at += 2 if texts else 0  # the blank line joining parts
        spans.append((at, {k: v for k, v in (("page", part.page), ("slide", part.slide),
                                             ("heading", part.heading)) if v is not None}))
        texts.append(text)
        at += len(text)
    if pages and blank_pages == pages:
        raise Unreadable("no-text", f"no text layer: OCR is not included ({pages} pages)")
    if not texts and lost:
        raise Unreadable("no-text", "nothing shown: " + ", ".join(
            f"{n} {reason}" for reason, n in sorted(lost.items())))
    doc = _doc("\n\n".join(texts), str(path), title, {})
    doc.spans = spans
    for reason, n in sorted(lost.items()):  # said and counted on the document (LOST_KEYS)
        doc.metadata[reason.replace("-", "_")] = str(n)
        log.warning("%s: %d %s (not indexed)", path, n, reason.replace("-", " "))
    if blank_pages:  # scanned pages in a PDF with text: said and counted on the document
        doc.metadata["pages_without_text"] = str(blank_pages)
        log.warning("%s: %d of %d pages have no text layer (OCR is not included)", path,
                    blank_pages, pages)
    return doc


def _read_binary(f: Path, progress: Progress) -> Document | Failure:
    suffix = f.suffix.lower()
    try:
        read = reader(suffix)
        assert read is not None
        doc = _from_parts(read(f, progress), f, f.stem)
    except Unreadable as err:
        return skipped(str(f), err.reason, str(err))
    except Exception as err:  # noqa: BLE001 - one bad file is skipped, the others are read
        log.warning("%s unreadable", f, exc_info=True)
        return skipped(str(f), "corrupt", f"unreadable {suffix} file: {type(err).__name__}: "
                                          f"{' '.join(str(err).split())[:200]}")
    return doc if doc.text else skipped(str(f), "empty", "empty document")


def _read_text(f: Path, text: str) -> Document | Failure:
    suffix = f.suffix.lower()
    if suffix in HTML_SUFFIXES:
        try:
            from .formats.html import html_title, read_html
        except ImportError as err:
            return _needs_extra(f, err)
        return _read_html(f, text, html_title, read_html)
    doc = _doc(text, str(f), f.stem, {})
    if suffix != ".txt":  # Markdown: the heading path of each text unit
        doc.spans = [(at, {"heading": h}) for at, h in heading_spans(doc.text)]
    return doc if doc.text else skipped(str(f), "empty", "empty document")


def _read_html(f: Path, text: str, html_title, read_html) -> Document | Failure:  # noqa: ANN001
    try:
        doc = _from_parts(read_html(text), f, html_title(text) or f.stem)
    except Exception as err:  # noqa: BLE001 - one bad page is skipped, the others are read
        return skipped(str(f), "malformed", f"unreadable HTML: {type(err).__name__}: {err}")
    return doc if doc.text else skipped(str(f), "empty", "empty document")


def _needs_extra(f: Path, err: ImportError) -> Failure:
    return skipped(str(f), "needs-extra", f"reading {f.suffix} needs the documents extra "
                                          f"({err.name} missing): {EXTRA_HINT}")


def _records(path: Path, text: str, text_field: str | None) -> Iterator[dict[str, object]]:
    if path.suffix == ".csv":
        yield from csv.DictReader(io.StringIO(text))
    elif path.suffix == ".jsonl":
        for line in text.splitlines():
            if line.strip():
                yield json.loads(line)
    else:
        data = json.loads(text)
        yield from (data if isinstance(data, list) else [data])


def check_inputs(paths: Sequence[Path]) -> None:
    """Raises InputError for a path that does not exist, or when no file under ``paths`` has
    a type `ingest` reads: nothing to ingest is a user error, not an empty success."""
    for path in paths:
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
    # the first readable file ends the walk: a large folder is not listed twice
    if paths and not any(f.suffix.lower() in SUFFIXES for p in paths for f in _files(p)):
        raise InputError(f"nothing to ingest in {', '.join(map(str, paths))}: no "
                         f"{', '.join(sorted(SUFFIXES))} file")


def _files(path: Path) -> Iterator[Path]:
    """The files of a folder, recursively (unsorted), or the file itself."""
    return (p for p in path.rglob("*") if p.is_file()) if path.is_dir() else iter([path])


def read_path(path: Path, text_field: str | None = None,
              progress: Progress = no_progress) -> Iterator[Document | Failure]:
    """Documents (or a `skipped` Failure) from one file or a folder, recursively, sorted; a
    long PDF reports its pages read to ``progress``."""
    for f in sorted(_files(path)):
        suffix = f.suffix.lower()
        if suffix not in SUFFIXES:
            if not path.is_dir():
                yield skipped(str(f), "unsupported", f"unsupported file type {suffix or '(none)'}")
            continue
        if suffix in BINARY_SUFFIXES:
            yield _read_binary(f, progress)
            continue
        raw = f.read_bytes()
        if (kind := sniff(raw[:2048])) != "other":  # a PDF or an archive named as text
            yield skipped(str(f), "mismatched", f"claims {suffix} but is "
                          f"{'a PDF' if kind == 'pdf' else 'a binary archive (' + kind + ')'}")
            continue
        text = decode(raw)
        if text is None:
            yield skipped(str(f), "binary", "binary file")
            continue
        if suffix in TEXT_SUFFIXES | HTML_SUFFIXES:
            yield _read_text(f, text)
            continue
        try:
            records = [r if isinstance(r, dict) else {} for r in _records(f, text, text_field)]
            found = sorted({str(k) for r in records for k in r})
            if text_field and records and not any(text_field in r for r in records):
                raise InputError(f"{f}: no field {text_field!r} in its records; fields found: "
                                 f"{', '.join(found) or 'none'} (choose one with --text-field)")
            for i, rec in enumerate(records):
                fields = (text_field,) if text_field else TEXT_FIELDS
                body = next((str(rec[k]) for k in fields if rec.get(k)), "")
                meta = {k: str(rec[k]) for k in META_FIELDS if rec.get(k)}
                doc = _doc(body, f"{f}#{i}", meta.get("title", f"{f.stem} #{i}"), meta)
                yield doc if doc.text else skipped(
                    f"{f}#{i}", "empty", f"empty record or no text field (fields: "
                    f"{', '.join(found)})")
        except (json.JSONDecodeError, csv.Error, AttributeError) as err:
            yield skipped(str(f), "malformed", f"malformed records: {err}")
