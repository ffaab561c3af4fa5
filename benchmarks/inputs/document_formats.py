"""Document readers measured (not a test): pages per second and text fidelity per format,
for the readers `ingest` uses (index/formats) and, when installed, the candidates they were
chosen over (pypdf and pdfminer.six for PDF, trafilatura for HTML).

    .venv/bin/python -m benchmarks.inputs.document_formats [--pages 120] [--pdf FILE ...]

Files are made here from the Christmas Carol text of shared/corpora (fpdf2 for PDF,
python-docx, python-pptx, plain HTML and Markdown), so the text each reader should give back
is known: fidelity is difflib's ratio between the source words and the words read (1.0 =
every word, in order). A "page" is a PDF page, a PPTX slide, or 3,000 characters of text for
DOCX, HTML and Markdown (no pages of their own). Real PDFs given with --pdf (default: the
PDF manuals under /usr/share/doc, when present) are timed too (no source text: no fidelity).
Writes bench-results/document_formats.json.
"""

from __future__ import annotations

import argparse
import difflib
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import RESULTS, SHARED, machine
from neo4j_retag.index.documents import read_path

PAGE_CHARS = 3000
REAL_PDFS = [Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
             Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")]


def source_pages(n: int) -> list[str]:
    """n pages of 2,000 characters of the book, from its start again when it runs out
    (Latin-1: fpdf2's core fonts)."""
    text = (SHARED / "corpora" / "christmas-carol" / "book.txt").read_text()
    text = " ".join(text.split()).encode("latin-1", "replace").decode("latin-1")
    text *= -(-n * 2000 // len(text))
    return [text[i * 2000:(i + 1) * 2000] for i in range(n)]


def make_files(folder: Path, pages: list[str]) -> dict[str, Path]:
    import docx
    import pptx
    from fpdf import FPDF
    pdf = FPDF()
    pdf.set_font("helvetica", size=10)
    for p in pages:
        pdf.add_page()
        pdf.multi_cell(0, 5, p)
    pdf.output(str(folder / "book.pdf"))
    d = docx.Document()
    for i, p in enumerate(pages):
        d.add_heading(f"Part {i + 1}", level=1)
        d.add_paragraph(p)
    d.save(str(folder / "book.docx"))
    deck = pptx.Presentation()
    for i, p in enumerate(pages):
        s = deck.slides.add_slide(deck.slide_layouts[1])
        s.shapes.title.text = f"Part {i + 1}"
        s.placeholders[1].text = p
    deck.save(str(folder / "book.pptx"))
    body = "".join(f"<h2>Part {i + 1}</h2><p>{p}</p>" for i, p in enumerate(pages))
    (folder / "book.html").write_text(
        f"<html><head><title>Book</title><script>var x=1;</script></head><body>{body}</body>"
        "</html>")
    (folder / "book.md").write_text("".join(f"## Part {i + 1}\n\n{p}\n\n"
                                            for i, p in enumerate(pages)))
    return {f.suffix[1:]: f for f in sorted(folder.iterdir())}


def fidelity(source: str, got: str) -> float:
    a, b = source.split(), got.split()
    return round(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio(), 4)


def ours(path: Path) -> str:
    (doc,) = read_path(path)
    return doc.text


def candidates() -> dict[str, dict[str, Callable[[Path], str]]]:
    """The alternatives that are installed, by format."""
    out: dict[str, dict[str, Callable[[Path], str]]] = {"pdf": {}, "html": {}}
    try:
        from pypdf import PdfReader
        out["pdf"]["pypdf"] = lambda p: "\n".join(pg.extract_text() for pg in PdfReader(p).pages)
    except ImportError:
        pass
    try:
        from pdfminer.high_level import extract_text
        out["pdf"]["pdfminer.six"] = lambda p: extract_text(str(p))
    except ImportError:
        pass
    try:
        import trafilatura
        out["html"]["trafilatura"] = lambda p: trafilatura.extract(
            p.read_text(), include_tables=True) or ""
    except ImportError:
        pass
    return out


def timed(fn: Callable[[Path], str], path: Path) -> tuple[str, float]:
    t0 = time.perf_counter()
    text = fn(path)
    return text, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=120)
    ap.add_argument("--pdf", type=Path, nargs="*", default=None)
    args = ap.parse_args()
    pages = source_pages(args.pages)
    # headings and titles are part of what the readers give back; fidelity counts them too
    source = {fmt: " ".join(f"Part {i + 1} {p}" for i, p in enumerate(pages))
              for fmt in ("docx", "pptx", "html", "md")} | {"pdf": " ".join(pages)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = make_files(Path(tmp), pages)
        alts = candidates()
        for fmt, path in files.items():
            for name, fn in [("neo4j-retag", ours), *alts.get(fmt, {}).items()]:
                text, secs = timed(fn, path)
                n = args.pages if fmt in ("pdf", "pptx") else len(text) / PAGE_CHARS
                rows.append({"format": fmt, "reader": name, "pages": round(n, 1),
                             "seconds": round(secs, 3), "pages_per_second": round(n / secs, 1),
                             "fidelity": fidelity(source[fmt], text),
                             "bytes": path.stat().st_size})
                print(json.dumps(rows[-1]))
    import pypdfium2 as pdfium
    for path in args.pdf if args.pdf is not None else [p for p in REAL_PDFS if p.exists()]:
        n = len(pdfium.PdfDocument(str(path)))
        for name, fn in [("neo4j-retag", ours), *candidates()["pdf"].items()]:
            _, secs = timed(fn, path)
            rows.append({"format": "pdf (real)", "file": path.name, "reader": name, "pages": n,
                         "seconds": round(secs, 3), "pages_per_second": round(n / secs, 1)})
            print(json.dumps(rows[-1]))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "document_formats.json"
    out.write_text(json.dumps({"page_chars": PAGE_CHARS, "results": rows,
                               "machine": machine()}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
