"""Topic names: the models a topic-listing reply is read into, and the fallbacks and checks
on what a small model gives (bullet lines, placeholder names, near-duplicates)."""

from __future__ import annotations

import difflib
import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

MAX_TOPICS = 8  # the topics a build makes at most, unless asked for another number
# names a small model copies from the prompt's JSON example instead of answering
PLACEHOLDERS = {"...", "short topic name", "topic name", "name", "topic"}


class Topic(BaseModel):
    name: str = Field(json_schema_extra={"maxLength": 60})
    description: str = ""

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v: Any) -> str:
        return " ".join(str(v or "").split()).strip(" -*#:.")[:80]


class TopicList(BaseModel):
    # at least one topic in the schema only: under a grammar a small model answers [] otherwise
    topics: list[Topic] = Field([], json_schema_extra={"minItems": 1})

    @field_validator("topics", mode="before")
    @classmethod
    def _items(cls, v: Any) -> Any:
        return [{"name": t} if isinstance(t, str) else t for t in (v or [])]


# words that carry no topic meaning in a topic name ("The Role of the Harbour Plan")
STOPWORDS = frozenset({
    "a", "an", "and", "the", "of", "in", "on", "for", "to", "with", "by", "at", "from", "its",
    "their", "his", "her", "about", "as", "or", "vs", "versus", "role", "impact", "issues",
    "issue", "topic", "topics", "theme", "themes", "story", "stories", "news", "community",
    "communities", "local", "town", "city"})


def content_words(name: str) -> frozenset[str]:
    """The meaning-bearing words of a topic name, lower-cased, a plural 's' dropped."""
    words = re.findall(r"[a-z0-9]+", name.casefold())
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss")
                     else w for w in words if w not in STOPWORDS)


def same_topic(a: str, b: str, cutoff: float = 0.85) -> bool:
    """Whether two topic names are near-duplicates, by spelling (string similarity >=
    ``cutoff``) or by meaning-bearing words: one name's content words all within the other's
    with at least two shared ("Lantern Festival" ~ "Lantern Festival Community"), or a
    Jaccard overlap of at least 0.75. A single shared word ("Millbrook Council" vs "Millbrook
    Rovers") is not enough."""
    if difflib.SequenceMatcher(None, a.casefold(), b.casefold()).ratio() >= cutoff:
        return True
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return False
    shared = len(wa & wb)
    contained = shared == min(len(wa), len(wb))
    return (contained and (shared >= 2 or wa == wb)) or shared / len(wa | wb) >= 0.75


def dedupe(topics: list[Topic], max_topics: int, cutoff: float = 0.85) -> list[Topic]:
    """Union of topics with near-duplicates merged (:func:`same_topic`), the first kept (the
    listing is ranked); placeholder names a small model copies from the prompt dropped."""
    out: list[Topic] = []
    for t in topics:
        if not t.name or t.name.casefold() in PLACEHOLDERS or "<" in t.name:
            continue
        if any(same_topic(t.name, o.name, cutoff) for o in out):
            continue
        out.append(t)
    return out[:max_topics]


def bullets(text: str) -> list[Topic]:
    """Fallback: topics from an answer's bullet or numbered lines ("name: description")."""
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*(?:[-*\u2022]|\d+[.)])\s+(.+)", line)
        if m:
            name, _, desc = m.group(1).replace("**", "").partition(":")
            out.append(Topic(name=name, description=desc.strip()))
    return out
