"""Documents in: files and folders of .txt/.md, and .jsonl/.json/.csv records with a text field.

Text is decoded (UTF-8 first, BOMs honoured, other encodings detected by charset-normalizer),
NFC-normalised, and stripped of control characters and lone surrogates before it reaches Neo4j.
A document's id is the SHA-256 of its cleaned text, so re-ingesting the same file adds nothing.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from charset_normalizer import from_bytes

from ..errors import InputError
from ..model import Failure, clean

TEXT_SUFFIXES = {".txt", ".md", ".markdown"}
RECORD_SUFFIXES = {".jsonl", ".json", ".csv"}
SUFFIXES = TEXT_SUFFIXES | RECORD_SUFFIXES  # what `ingest` reads
TEXT_FIELDS = ("body", "text", "content")
META_FIELDS = ("title", "source", "published_at", "category")
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


def read_path(path: Path, text_field: str | None = None) -> Iterator[Document | Failure]:
    """Documents (or a `skipped` Failure) from one file or a folder, recursively, sorted."""
    for f in sorted(_files(path)):
        suffix = f.suffix.lower()
        if suffix not in SUFFIXES:
            if not path.is_dir():
                yield skipped(str(f), "unsupported", f"unsupported file type {suffix or '(none)'}")
            continue
        text = decode(f.read_bytes())
        if text is None:
            yield skipped(str(f), "binary", "binary file")
            continue
        if suffix in TEXT_SUFFIXES:
            doc = _doc(text, str(f), f.stem, {})
            yield doc if doc.text else skipped(str(f), "empty", "empty document")
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
