"""Fidelity on the structures real office files are full of (issue 47): one small file per
structure, made at run time (python-docx, python-pptx, hand-written PDF, HTML, EPUB and ODT:
tests/document_files.py), read by our readers and by the maintained libraries installed
(markitdown, mammoth, trafilatura, readability-lxml, pypdf, pypdfium2's plain text layer).

For each file and reader: the expected sentences found once, missing, duplicated, and the
text a reader must not show (a deleted revision, a hidden element, boilerplate, a hidden
slide) that leaked. Text is compared with Markdown marks (| * _ # \\) and whitespace folded.
Writes bench-results/document_fidelity.json. The other readers are compared when installed
(not part of any extra: they were measured, not kept; docs/documents.md says why):

    pip install 'markitdown[docx,pptx,pdf]' mammoth trafilatura readability-lxml
    python -m benchmarks.inputs.document_fidelity
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import RESULTS, machine
from tests import document_files as f  # the test files' writers

# name -> (file name, writer or HTML text, expected sentences, text that must not show)
STRUCTURES: dict[str, tuple[str, object, list[str], list[str]]] = {
    "docx tracked change": ("tracked.docx", f.docx_tracked_change,
                            ["The fee for berth 4 is 4.50 EUR per metre."], ["3.90"]),
    "docx content control": ("control.docx", f.docx_content_control,
                             ["The harbour master signs every berth permit.",
                              "Permits are valid for twelve months."], []),
    "docx text box": ("box.docx", f.docx_text_box, ["Quay 7 is closed for dredging in May."],
                      []),
    "docx footnote and endnote": ("notes.docx", f.docx_notes,
                                  ["Berth fees are reviewed yearly.",
                                   "The last review was in January 2026.",
                                   "Fees exclude VAT at 21 percent."], []),
    "docx header and footer": ("header.docx", f.docx_header_footer,
                               ["Port of Millbrook tariff sheet", "Issued by the harbour office",
                                "Summer berths are let from May."], []),
    "docx merged cell": ("merged.docx", f.docx_merged_cells, ["Winter tariff", "Yacht 12 m"],
                         []),
    "docx nested table": ("nested.docx", f.docx_nested_table,
                          ["Tariff per vessel class", "Trawler 6.20 EUR"], []),
    "pptx grouped shapes": ("groups.pptx", f.pptx_groups,
                            ["The ferry leaves at 07:15 from quay 2.",
                             "Return trips leave at 18:40."], []),
    "pptx notes and hidden slide": ("notes.pptx", f.pptx_notes_hidden,
                                    ["Pilots board at the outer buoy.",
                                     "Bring the tide tables for March."], ["9.99"]),
    "html form-wrapped body": ("form.html", f.HTML_FORM,
                               ["Visitors moor at the east pontoon.",
                                "The pontoon has water and power at every berth."], []),
    "html hidden elements": ("hidden.html", f.HTML_HIDDEN, ["The fee is 4.50 EUR per metre."],
                             ["3.90", "2.10", "5.10", "0.00", "3.10"]),
    "html boilerplate": ("news.html", f.HTML_BOILERPLATE,
                         ["Quay 7 will be dredged from 4 to 20 May.",
                          "Vessels at quay 7 move to the east pontoon meanwhile."],
                         ["cookies", "Serving skippers", "regatta", "Copyright"]),
    "pdf filled form": ("form.pdf", f.pdf_form,
                        [f"{label}: {value}" for label, value in f.FORM_FIELDS], []),
    "pdf ligatures": ("ligatures.pdf", f.pdf_ligatures, [f.LIGATURE_SENTENCE], []),
    "pdf ligatures alone in their strings": ("lone.pdf", f.pdf_lone_ligatures,
                                             ["The fishery board floated the staff"], []),
    "pdf two columns drawn line by line": (
        "columns.pdf", f.pdf_two_columns,
        [" ".join(f.COLUMN_LEFT[:2]), " ".join(f.COLUMN_RIGHT[:3])], []),
    "pptx hidden shape and chart": ("chart.pptx", f.pptx_hidden_shape_and_chart,
                                    ["Visits rose in every quarter.", "Arrivals by season",
                                     "Summer 340 210.5"], ["fell by 80"]),
    "docx content controls around rows and a cell": (
        "rows.docx", f.docx_table_content_controls,
        ["Trawler 6.20 EUR yes", "Yacht 4.50 EUR no", "Ferry 9.10 EUR yes"], []),
    "html cookie banner, compound selectors, inline tags": (
        "rates.html", f.HTML_EDGES,
        ["Berth fees are 0.12 GBP per kilogram of CO2 emitted.",
         "Fees were set by harbour master Okafor."], ["cookies", "0.09", "0.30", "0.05"]),
    "epub chapters (spine, footnote aside, hidden)": (
        "book.epub", f.write_epub,
        ["Ingrid Holm kept the harbour light at Port Alder for thirty years.",
         "In the storm of 1953 the light failed for one night.",
         "The keeper's log for that night is lost.",
         "The ferry to Millbrook ran twice a day after the war."], ["sinks"]),
    "odt minutes (tracked change, comment, note, hidden, table)": (
        "minutes.odt", f.write_odt,
        ["The trust met in the Millbrook town hall. Elena Varga chaired.",
         "The van is bought second hand.", "Library van and fittings",
         "Two volunteers drive it on Tuesdays."], ["3.90", "Check the date", "99,000"]),
}


def ours(path: Path) -> str:
    from neo4j_retag.index.documents import Document, read_path
    items = list(read_path(path))
    return "\n".join(i.text for i in items if isinstance(i, Document))


def readers() -> dict[str, dict[str, Callable[[Path], str]]]:
    """The installed readers by suffix (ours first)."""
    out: dict[str, dict[str, Callable[[Path], str]]] = {
        s: {"neo4j-retag": ours} for s in (".docx", ".pptx", ".html", ".pdf", ".epub", ".odt")}
    try:
        from markitdown import MarkItDown
        md = MarkItDown()
        for s in out:
            out[s]["markitdown"] = lambda p: md.convert(str(p)).text_content
    except ImportError:
        pass
    try:
        import mammoth
        out[".docx"]["mammoth"] = lambda p: mammoth.extract_raw_text(str(p)).value
    except ImportError:
        pass
    try:
        import trafilatura
        out[".html"]["trafilatura"] = lambda p: trafilatura.extract(
            p.read_text(), include_tables=True, favor_recall=True) or ""
    except ImportError:
        pass
    try:
        from lxml.html import fromstring
        from readability import Document as Readable
        out[".html"]["readability-lxml"] = lambda p: fromstring(
            Readable(p.read_text()).summary()).text_content()
    except ImportError:
        pass
    import pypdfium2 as pdfium
    out[".pdf"]["pypdfium2 text layer"] = lambda p: "\n".join(
        pg.get_textpage().get_text_bounded() for pg in pdfium.PdfDocument(str(p)))
    try:
        from pypdf import PdfReader
        out[".pdf"]["pypdf"] = lambda p: "\n".join(pg.extract_text() for pg in
                                                   PdfReader(str(p)).pages)
    except ImportError:
        pass
    return out


def fold(text: str) -> str:
    return " ".join(re.sub(r"[|*_#\\]", " ", text).split())


def score(text: str, expected: list[str], unseen: list[str]) -> dict[str, object]:
    text = fold(text)
    counts = {s: text.count(fold(s)) for s in expected}
    return {"found": sum(n == 1 for n in counts.values()),
            "missing": [s for s, n in counts.items() if n == 0],
            "duplicated": [s for s, n in counts.items() if n > 1],
            "leaked": [s for s in unseen if s in text]}


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        by_suffix = readers()
        for name, (fname, make, expected, unseen) in STRUCTURES.items():
            path = Path(tmp) / fname
            if isinstance(make, str):
                path.write_text(make)
            else:
                make(path)
            for reader, read in by_suffix[path.suffix].items():
                t0 = time.perf_counter()
                try:
                    text, error = read(path), None
                except Exception as err:  # noqa: BLE001 - a reader that fails scores 0
                    text, error = "", f"{type(err).__name__}: {err}"[:200]
                row = {"structure": name, "reader": reader, "expected": len(expected),
                       **score(text, expected, unseen), "error": error,
                       "seconds": round(time.perf_counter() - t0, 3)}
                rows.append(row)
                print(json.dumps(row))
    totals: dict[str, dict[str, int]] = {}
    for r in rows:
        t = totals.setdefault(r["reader"], {"files": 0, "expected": 0, "found": 0,
                                            "missing": 0, "duplicated": 0, "leaked": 0,
                                            "files_all_right": 0})
        t["files"] += 1
        t["expected"] += r["expected"]
        t["found"] += r["found"]
        t["missing"] += len(r["missing"])
        t["duplicated"] += len(r["duplicated"])
        t["leaked"] += len(r["leaked"])
        t["files_all_right"] += r["found"] == r["expected"] and not r["leaked"]
    for reader, t in totals.items():
        print(f"{reader:22} {t}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "document_fidelity.json"
    out.write_text(json.dumps({"results": rows, "totals": totals, "machine": machine()},
                              indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
