"""Entity identity: the key an entity is merged by, and the display name of one whose name runs
away (a small model's repetition loop must not produce an unindexable key, and two long names
that share their start must stay two entities). Pure functions, no imports from the package."""

from __future__ import annotations

import hashlib
import unicodedata

MAX_KEY_CHARS = 200  # a small model's repetition loop must not produce an unindexable key


def _full_key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFC", name).casefold().split()).strip(" \"'.,;:")


def _capped(text: str, key: str) -> str:
    # the first characters, then a hash of the whole key: two long names that share their
    # first MAX_KEY_CHARS characters stay two entities
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return f"{text[:MAX_KEY_CHARS - 14].rstrip()} #{digest}"


def entity_key(name: str) -> str:
    """The entity identity: NFC, case-folded, whitespace collapsed; a key longer than
    MAX_KEY_CHARS is cut and ends with a hash of the full key (`name_capped` says when)."""
    key = _full_key(name)
    return key if len(key) <= MAX_KEY_CHARS else _capped(key, key)


def name_capped(name: str) -> str | None:
    """The display name of an entity whose name is longer than MAX_KEY_CHARS (cut, with the
    hash suffix of its key), or None when it fits."""
    name, key = " ".join(name.split()), _full_key(name)
    return _capped(name, key) if len(key) > MAX_KEY_CHARS or len(name) > MAX_KEY_CHARS else None
