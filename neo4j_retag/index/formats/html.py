"""HTML pages (selectolax, the Lexbor parser): headings, paragraphs, lists and tables in
reading order; tables as Markdown; scripts, styles and navigation left out."""

from __future__ import annotations

from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .base import Part
from .tables import markdown_table

_SKIP = {"script", "style", "noscript", "template", "svg", "nav", "head", "iframe", "form",
         "button", "select", "-comment"}
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
# blocks whose text is one paragraph (not walked into: their inline tags join their text)
_BLOCKS = {"p", "li", "pre", "blockquote", "dt", "dd", "caption", "figcaption", "address",
           "summary", "td", "th"}


def _walk(node: LexborNode) -> Iterator[tuple[str, int | None, str]]:
    """(kind, heading level, text) in reading order: kind is heading, text or table."""
    for child in node.iter(include_text=True):
        tag = child.tag
        if tag in _SKIP:
            continue
        if tag == "-text":
            text = " ".join((child.text_content or "").split())
            if text:
                yield "text", None, text
        elif tag in _HEADINGS:
            yield "heading", _HEADINGS[tag], " ".join(child.text(deep=True).split())
        elif tag == "table":
            rows = [[" ".join(c.text(deep=True, separator=" ").split())
                     for c in tr.css("th, td")] for tr in child.css("tr")]
            yield "table", None, markdown_table(rows)
        elif tag in _BLOCKS:
            text = " ".join(child.text(deep=True, separator=" ").split())
            if text:
                yield "text", None, f"- {text}" if tag == "li" else text
        elif tag == "br":
            continue
        else:
            yield from _walk(child)


def html_title(html: str) -> str | None:
    """The page's <title>, None when it has none."""
    node = LexborHTMLParser(html).css_first("title")
    return " ".join(node.text().split()) or None if node is not None else None


def read_html(html: str) -> Iterator[Part]:
    """One `Part` per heading section, ``heading`` the path of <h1>..<h6> above it."""
    tree = LexborHTMLParser(html)
    root = tree.body or tree.root
    if root is None:
        return
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    heading: str | None = None
    for kind, level, text in _walk(root):
        if kind == "heading" and text and level is not None:
            if lines:
                yield Part("\n\n".join(lines), heading=heading)
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, text)]
            heading = " > ".join(t for _, t in stack)
            lines = [f"{'#' * level} {text}"]
        elif text:
            lines.append(text)
    if lines:
        yield Part("\n\n".join(lines), heading=heading)
