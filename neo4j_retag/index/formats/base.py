"""What every reader shares: `Part` and `Unreadable`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Part:
    """A run of a document's text and where it is: ``page`` (PDF, from 1; ODT where the
    file records its page breaks), ``slide`` (PPTX, from 1) or ``heading`` (the heading path,
    ``"Budget > Staff"``; an EPUB chapter's title first), None when unknown; ``lost`` counts
    what of it a reader could not read, by reason (``hidden-slides``, ``hidden-shapes``,
    ``unmapped-glyphs``: characters, each left as U+FFFD in ``text``); ``title`` is the
    document's own title where the file states it (an HTML ``<title>``, an EPUB's or ODT's
    ``dc:title``: the first part's is taken)."""

    text: str
    page: int | None = None
    slide: int | None = None
    heading: str | None = None
    lost: dict[str, int] = field(default_factory=dict)
    title: str | None = None


class Unreadable(Exception):
    """A file that is not read: ``reason`` is a short key (``encrypted``, ``no-text``,
    ``corrupt``, ``mismatched``, ``needs-extra``, ``empty``), the message one line for the
    user."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
