"""HTML pages (selectolax, the Lexbor parser): the main content a visitor reads - headings,
paragraphs, lists and tables in reading order, tables as Markdown.

Left out: what a browser does not show (``hidden``, ``aria-hidden``, inline or stylesheet
``display:none`` / ``visibility:hidden``), scripts and styles, form controls, and the page's
boilerplate (navigation, headers and footers outside the article, asides, cookie banners,
breadcrumbs: by tag, ARIA role and id/class). When a page marks its main content (``<main>``,
``role=main``, or a single ``<article>``) only that is read. A body wrapped in one ``<form>``
(ASP.NET WebForms) is read like any other. Own rules rather than trafilatura or
readability-lxml: benchmarks/inputs/document_fidelity.py and docs/documents.md say why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .base import Part
from .tables import markdown_table

_SKIP = {"script", "style", "noscript", "template", "svg", "nav", "head", "iframe", "button",
         "select", "input", "textarea", "option", "aside", "footer", "dialog", "-comment"}
_SKIP_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "dialog",
               "alertdialog"}
# id/class words of boilerplate blocks (matched as whole words of the attribute)
_BOILER = re.compile(r"(?:^|[\s_-])(cookies?|consent|gdpr|breadcrumbs?|sidebar|navbar|menu|"
                     r"newsletter|share|social|related|advert|ads|promo|skip-link)(?:$|[\s_-])",
                     re.I)
_HIDDEN_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
_SIMPLE = re.compile(r"^\s*([.#])([\w-]+)\s*$")
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
# blocks whose text is one paragraph (not walked into: their inline tags join their text)
_BLOCKS = {"p", "li", "pre", "blockquote", "dt", "dd", "caption", "figcaption", "address",
           "summary", "td", "th"}


# page containers: the boilerplate words of their id/class ("has-sidebar", "menu-open") say
# nothing about their content
_CONTAINERS = {"html", "body", "main", "article", "form"}


def _top_rules(css: str) -> Iterator[tuple[str, str]]:
    """(selectors, declarations) of a stylesheet's top-level rules: a rule inside @media
    (hidden on a small screen only, say) is not one a reader of the page misses."""
    depth, start, selectors = 0, 0, ""
    for i, ch in enumerate(css):
        if ch == "{":
            if depth == 0:
                selectors, start = css[start:i], i + 1
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                if not selectors.lstrip().startswith("@"):
                    yield selectors, css[start:i]
                start = i + 1


def _hidden_selectors(tree: LexborHTMLParser) -> tuple[set[str], set[str]]:
    """The classes and ids that the page's <style> blocks hide (simple selectors only)."""
    classes: set[str] = set()
    ids: set[str] = set()
    for style in tree.css("style"):
        for selectors, body in _top_rules(style.text() or ""):
            if _HIDDEN_STYLE.search(body):
                for sel in selectors.split(","):
                    if m := _SIMPLE.match(sel):
                        (classes if m.group(1) == "." else ids).add(m.group(2))
    return classes, ids


class _Page:
    def __init__(self, tree: LexborHTMLParser) -> None:
        self.classes, self.ids = _hidden_selectors(tree)

    def unseen(self, node: LexborNode) -> bool:
        """A node a visitor does not see, or page boilerplate."""
        tag = node.tag
        if tag in _SKIP:
            return True
        if tag in ("-text", "-comment") or tag is None:
            return False
        attrs = node.attributes
        if "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        if _HIDDEN_STYLE.search(attrs.get("style") or ""):
            return True
        if attrs.get("role") in _SKIP_ROLES:
            return True
        classes = (attrs.get("class") or "").split()
        if self.classes.intersection(classes) or attrs.get("id") in self.ids:
            return True
        if tag not in _CONTAINERS and (_BOILER.search(" ".join(classes))
                                       or _BOILER.search(attrs.get("id") or "")):
            return True
        # a page header (site name, slogan); an article's own header is kept
        return tag == "header" and not any(
            p.tag in ("article", "main") for p in _ancestors(node))

    def visible_text(self, node: LexborNode) -> str:
        parts: list[str] = []
        for child in node.iter(include_text=True):
            if self.unseen(child):
                continue
            parts.append(child.text_content or "" if child.tag == "-text"
                         else self.visible_text(child))
        return " ".join(" ".join(parts).split())


def _ancestors(node: LexborNode) -> Iterator[LexborNode]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _walk(page: _Page, node: LexborNode) -> Iterator[tuple[str, int | None, str]]:
    """(kind, heading level, text) in reading order: kind is heading, text or table."""
    for child in node.iter(include_text=True):
        tag = child.tag
        if page.unseen(child):
            continue
        if tag == "-text":
            text = " ".join((child.text_content or "").split())
            if text:
                yield "text", None, text
        elif tag in _HEADINGS:
            yield "heading", _HEADINGS[tag], page.visible_text(child)
        elif tag == "table":
            rows = [[page.visible_text(c) for c in tr.css("th, td") if not page.unseen(c)]
                    for tr in child.css("tr") if not page.unseen(tr)]
            yield "table", None, markdown_table(rows)
        elif tag in _BLOCKS:
            text = page.visible_text(child)
            if text:
                yield "text", None, f"- {text}" if tag == "li" else text
        elif tag == "br":
            continue
        else:
            yield from _walk(page, child)


def html_title(html: str) -> str | None:
    """The page's <title>, None when it has none."""
    node = LexborHTMLParser(html).css_first("title")
    return " ".join(node.text().split()) or None if node is not None else None


def _main(tree: LexborHTMLParser) -> LexborNode | None:
    """The page's marked main content: <main>, role=main, or its only <article>; else the
    body."""
    for selector in ("main", "[role=main]"):
        if (node := tree.css_first(selector)) is not None:
            return node
    articles = tree.css("article")
    return articles[0] if len(articles) == 1 else tree.body or tree.root


def read_html(html: str) -> Iterator[Part]:
    """One `Part` per heading section, ``heading`` the path of <h1>..<h6> above it."""
    tree = LexborHTMLParser(html)
    root = _main(tree)
    if root is None:
        return
    page = _Page(tree)
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    heading: str | None = None
    for kind, level, text in _walk(page, root):
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
