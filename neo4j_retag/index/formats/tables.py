"""Tables as Markdown: what DOCX, PPTX and HTML tables become in a document's text."""

from __future__ import annotations

from collections.abc import Sequence


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cell texts as a Markdown table, the first row as its header (rows padded to
    the widest); "" for a table with no text."""
    rows = [[_cell(c) for c in r] for r in rows if any(c.strip() for c in r)]
    if not rows:
        return ""
    width = max(map(len, rows))
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = [f"| {' | '.join(rows[0])} |", f"|{'---|' * width}"]
    lines += [f"| {' | '.join(r)} |" for r in rows[1:]]
    return "\n".join(lines)
