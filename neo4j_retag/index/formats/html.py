"""HTML pages (selectolax, the Lexbor parser): the main content a visitor reads - headings,
paragraphs, lists and tables in reading order, tables as Markdown.

Left out: what a browser does not show (``hidden``, ``aria-hidden``, inline or stylesheet
``display:none`` / ``visibility:hidden``), scripts and styles, form controls, and the page's
boilerplate (navigation, headers and footers outside the article, asides, cookie banners,
breadcrumbs: by tag, ARIA role and id/class). When a page marks its main content (``<main>``,
``role=main``, or a single ``<article>``) only that is read. A body wrapped in one ``<form>``
(ASP.NET WebForms) is read like any other. Phrasing elements (``b``, ``a``, ``span``,
``sub``...) run on with the text beside them, as a browser shows them. A book's chapter
(EPUB: ``sections(..., web=False)``) keeps its asides, headers and footers. Own rules rather
than trafilatura or readability-lxml: benchmarks/inputs/document_fidelity.py and
docs/documents.md say why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .base import Part
from .tables import markdown_table

_SKIP = {"script", "style", "noscript", "template", "svg", "nav", "head", "iframe", "button",
         "select", "input", "textarea", "option", "aside", "footer", "dialog", "-comment"}
# a book's chapter (EPUB) keeps its asides (footnotes) and footers
_BOOK_SKIP = _SKIP - {"aside", "footer"}
_SKIP_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "dialog",
               "alertdialog"}
# id/class words of boilerplate blocks (matched as whole words of the attribute, camelCase
# split: "cookieConsent" is "cookie Consent"; "CybotCookiebotDialog" holds "Cookiebot")
_BOILER = re.compile(r"(?:^|[\s_-])(cookie\w*|consent|gdpr|onetrust|breadcrumbs?|sidebar|navbar|"
                     r"menu|newsletter|share|social|related|advert|ads|promo|skip-link)"
                     r"(?:$|[\s_-])", re.I)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HIDDEN_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
# a compound selector: an optional tag, then classes and ids (div.old-rates, p#x, .a.b)
_COMPOUND = re.compile(r"^\s*([a-zA-Z][\w-]*)?((?:[.#][\w-]+)+)\s*$")
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
# blocks whose text is one paragraph (not walked into: their inline tags join their text)
_BLOCKS = {"p", "li", "pre", "blockquote", "dt", "dd", "caption", "figcaption", "address",
           "summary", "td", "th"}
# phrasing elements: their text runs on with their neighbours' (CO<sub>2</sub> is "CO2")
_INLINE = {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em",
           "font", "i", "ins", "kbd", "mark", "nobr", "q", "s", "samp", "small", "span",
           "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr", "-text"}


# page containers: the boilerplate words of their id/class ("has-sidebar", "menu-open") say
# nothing about their content
_CONTAINERS = {"html", "body", "main", "article", "form"}
Rule = tuple[str | None, str | None, frozenset[str]]  # tag, id, classes a selector names


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


def _hidden_rules(tree: LexborHTMLParser) -> list[Rule]:
    """What the page's <style> blocks hide: compound selectors of a tag, classes and an id
    (descendant, child and attribute selectors, pseudo-classes are not read)."""
    rules: list[Rule] = []
    for style in tree.css("style"):
        for selectors, body in _top_rules(style.text() or ""):
            if not _HIDDEN_STYLE.search(body):
                continue
            for sel in selectors.split(","):
                if m := _COMPOUND.match(sel):
                    parts = re.findall(r"([.#])([\w-]+)", m.group(2))
                    ids = {name for mark, name in parts if mark == "#"}
                    if len(ids) <= 1:
                        rules.append(((m.group(1) or "").lower() or None, next(iter(ids), None),
                                      frozenset(n for mark, n in parts if mark == ".")))
    return rules


class _Page:
    """What of a page is read: ``web`` pages lose their boilerplate too, a book's chapter
    only what is hidden."""

    def __init__(self, tree: LexborHTMLParser, web: bool = True) -> None:
        self.rules = _hidden_rules(tree)
        self.web = web
        self.skip = _SKIP if web else _BOOK_SKIP

    def unseen(self, node: LexborNode) -> bool:
        """A node a visitor does not see, or page boilerplate."""
        tag = node.tag
        if tag in self.skip:
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
        classes = set((attrs.get("class") or "").split())
        if any((t is None or t == tag) and (i is None or attrs.get("id") == i)
               and c <= classes for t, i, c in self.rules):
            return True
        if not self.web:
            return False
        words = _CAMEL.sub(" ", " ".join(classes)) + " " + _CAMEL.sub(" ", attrs.get("id") or "")
        if tag not in _CONTAINERS and _BOILER.search(words):
            return True
        # a page header (site name, slogan); an article's own header is kept
        return tag == "header" and not any(
            p.tag in ("article", "main") for p in _ancestors(node))

    def inline_text(self, node: LexborNode) -> str:
        """The text of ``node`` as shown, uncollapsed: phrasing elements run on with their
        neighbours, other elements and line breaks are set apart by a space."""
        parts: list[str] = []
        for child in node.iter(include_text=True):
            if self.unseen(child):
                continue
            if child.tag == "-text":
                parts.append(child.text_content or "")
            elif child.tag in _INLINE:
                parts.append(self.inline_text(child))
            else:
                parts.append(f" {self.inline_text(child)} ")
        return "".join(parts)

    def visible_text(self, node: LexborNode) -> str:
        return " ".join(self.inline_text(node).split())


def _ancestors(node: LexborNode) -> Iterator[LexborNode]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _walk(page: _Page, node: LexborNode) -> Iterator[tuple[str, int | None, str]]:
    """(kind, heading level, text) in reading order: kind is heading, text or table. Text
    and phrasing elements next to each other are one paragraph."""
    run: list[str] = []
    for child in node.iter(include_text=True):
        tag = child.tag
        if page.unseen(child):
            continue
        if tag in _INLINE:
            run.append(child.text_content or "" if tag == "-text" else page.inline_text(child))
            continue
        if text := " ".join("".join(run).split()):
            yield "text", None, text
        run = []
        if tag in _HEADINGS:
            yield "heading", _HEADINGS[tag], page.visible_text(child)
        elif tag == "table":
            rows = [[page.visible_text(c) for c in tr.css("th, td") if not page.unseen(c)]
                    for tr in child.css("tr") if not page.unseen(tr)]
            yield "table", None, markdown_table(rows)
        elif tag in _BLOCKS:
            text = page.visible_text(child)
            if text:
                yield "text", None, f"- {text}" if tag == "li" else text
        elif tag != "br":
            yield from _walk(page, child)
    if text := " ".join("".join(run).split()):
        yield "text", None, text


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


def sections(html: str, *, web: bool = True) -> Iterator[tuple[list[str], str]]:
    """(heading path, text) per heading section: the <h1>..<h6> texts above it, and its
    text (headings as Markdown, tables as Markdown tables). ``web``: a web page, its
    boilerplate left out and its marked main content alone read; else a book's chapter."""
    tree = LexborHTMLParser(html)
    root = _main(tree) if web else tree.body or tree.root
    if root is None:
        return
    page = _Page(tree, web)
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    for kind, level, text in _walk(page, root):
        if kind == "heading" and text and level is not None:
            if lines:
                yield [t for _, t in stack], "\n\n".join(lines)
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, text)]
            lines = [f"{'#' * level} {text}"]
        elif text:
            lines.append(text)
    if lines:
        yield [t for _, t in stack], "\n\n".join(lines)


def read_html(html: str) -> Iterator[Part]:
    """One `Part` per heading section, ``heading`` the path of <h1>..<h6> above it; the
    first says the page's <title>."""
    title = html_title(html)
    for path, text in sections(html):
        yield Part(text, heading=" > ".join(path) or None, title=title)
