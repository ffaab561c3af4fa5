"""The tokenizer an index was built with: text units are cut and every budget counted in its
tokens, so it is recorded by the first ingest and a later ingest with another one refused
(its text units would be cut differently from the stored ones, unnoticed)."""

from __future__ import annotations

from .. import tokens
from ..config import Settings
from ..db import Graph
from ..errors import ConfigError


def check_encoding(graph: Graph, settings: Settings) -> str:
    """The tokenizer loads (ConfigError naming the fix when it cannot, e.g. offline), and is
    the one the index was built with (recorded here on the first ingest); returns its name."""
    stored = graph.run("index/index_encoding")[0]["encoding"]
    if stored is not None and stored != settings.encoding:
        raise ConfigError(
            f"this index was built with ENCODING={stored}; ENCODING={settings.encoding} would "
            f"cut new text units and count budgets differently: set ENCODING={stored}, or "
            "re-chunk everything under the new one with `neo4j-retag reset --yes` and a fresh "
            "`ingest` (the LLM cache keeps unchanged calls free)")
    tokens.encoding(settings.encoding)  # loads, or a ConfigError naming the fix
    if stored is None:
        graph.run("index/set_index_meta", props={"encoding": settings.encoding})
    return settings.encoding
