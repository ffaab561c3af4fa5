"""Descriptions assembled from evidence, for a model that selects (``LLM_CLASS=small``): an
entity's or relationship's description is its evidence sentences, as the sources write them,
not a summary a model writes (Edge et al. 2024 §3.1.3's element summaries, without the call).

The sentences that say most about the graph come first (those that are evidence of the most
entities and claims), then the earliest; as many as ``SUMMARY_MAX_TOKENS`` holds, shown in the
order of their documents. No LLM call: nothing is paid, nothing invented.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import tokens
from ..db import Record


def assembled(evidence: Sequence[Record], max_tokens: int, enc: str,
              fallback: Sequence[str] = ()) -> str:
    """The description from ``evidence`` (``{id, text, index, document_id, weight}`` rows):
    the heaviest sentences first, within ``max_tokens``, in document order; ``fallback``
    (the text units' descriptions) joined when there is no evidence (an element merged before
    evidence existed, or imported)."""
    rows = {r["id"]: r for r in evidence if (r.get("text") or "").strip()}
    if not rows:
        return tokens.truncate(" ".join(dict.fromkeys(d.strip() for d in fallback if d.strip())),
                               max_tokens, enc)
    ranked = sorted(rows.values(), key=lambda r: (-(r.get("weight") or 0),
                                                  r.get("document_id") or "", r.get("index") or 0))
    chosen, used = [], 0
    for r in ranked:
        n = tokens.count(r["text"], enc) + 1
        if chosen and used + n > max_tokens:
            continue
        chosen.append(r)
        used += n
    chosen.sort(key=lambda r: (r.get("document_id") or "", r.get("index") or 0))
    return " ".join(r["text"] for r in chosen)
