"""Writes examples/sample-corpus/library-report.pdf: the Millbrook Public Library's annual
report, a short text we wrote (about the same small town as the other sample stories), set
on one page with fpdf2 (`pip install fpdf2`, part of the test extra).

    python examples/make_sample_pdf.py

The file is committed; rerunning gives the same text (and the same document id in the
index: a document's id is the hash of its text).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fpdf import FPDF

TITLE = "Millbrook Public Library - Annual Report"
PARAGRAPHS = [
    "Head librarian Nadia Osei presents the library's report for the year. The library on "
    "Station Road lent more books than in any year since it opened, and visits rose by a "
    "third after the new reading room on the harbour front opened in March.",
    "The reading room was paid for by the Harbour Trust as part of mayor Elena Varga's harbour "
    "plan. The trust has also promised to fund a mobile library van, which will visit Port "
    "Alder and the outlying farms every Tuesday from next spring.",
    "Volunteers from Millbrook Rovers run a Saturday story hour for children, and striker "
    "Amara Okafor read to a full room during the county cup week. Lumen Analytics gave ten "
    "laptops for the homework club and trains volunteers to teach older readers to use them.",
    "During the winter festival the library lent lanterns for the lantern walk on the quay "
    "and kept its doors open late. Ms Osei thanked the city council for keeping the library's "
    "budget level, and warned that the roof of the Station Road building needs repair.",
]
OUT = Path(__file__).resolve().parent / "sample-corpus" / "library-report.pdf"


def main() -> None:
    pdf = FPDF()
    pdf.set_creation_date(dt.datetime(2025, 1, 1, tzinfo=dt.UTC))  # the same bytes each run
    pdf.add_page()
    pdf.set_font("helvetica", "B", 15)
    pdf.multi_cell(0, 9, TITLE)
    pdf.ln(3)
    pdf.set_font("helvetica", size=11)
    for para in PARAGRAPHS:
        pdf.multi_cell(0, 6, para)
        pdf.ln(3)
    pdf.output(str(OUT))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
