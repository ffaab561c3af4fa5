"""What `neo4j-retag browse` shows: the ready Browser queries in `cypher/explore/`, the style
and Bloom files in `explore/`, and whether the local Browser answers."""

from __future__ import annotations

import itertools
import re
import urllib.request
from pathlib import Path
from typing import Any

from ..config import resource_dir


def explore_dir() -> Path:
    """The folder with `style.grass` and `bloom-perspective.json`."""
    return resource_dir("explore")


def explore_queries() -> list[dict[str, Any]]:
    """The ready Browser queries: name, path, first comment lines, `:param` lines, text."""
    out = []
    for path in sorted((resource_dir("cypher") / "explore").glob("*.cypher")):
        text = path.read_text()
        comments = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("//")]
        intro = " ".join(itertools.takewhile(lambda c: not c.startswith("Browser:"), comments))
        out.append({"name": path.stem, "path": path, "text": text, "about": intro,
                    "params": [m for c in comments
                               for m in re.findall(r":param [^;]+?(?=\s{2,}|$)", c)]})
    return out


def browser_answers(url: str) -> bool:
    """True when ``url`` (the local Browser) answers within 2 s."""
    try:
        with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - loopback, fixed scheme
            return True
    except OSError:
        return False
