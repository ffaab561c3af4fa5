"""docs/configuration.md's tables, written from the settings' own descriptions: a setting is
described once, where it is declared (``env(NAME, default, description)``), and its row
follows. :func:`rewrite` replaces the part of the page between the markers; the prose around
them is the page's own. `neo4j-retag config --write-page docs/configuration.md` runs it with
the query methods' groups (config never imports the query side: they are given).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from pydantic.fields import FieldInfo

from . import LOCAL_LLM_CTX, flat_name
from .groups import (
    EmbeddingSettings,
    GdsSettings,
    Group,
    LLMSettings,
    Neo4jSettings,
    Top,
    local_value,
)
from .indexing import IndexSettings
from .querying import QuerySettings
from .services import ServicesSettings
from .serving import ServeSettings

BEGIN = ("<!-- settings: written from the settings' descriptions by `neo4j-retag config "
         "--write-page docs/configuration.md`; edit those, not these rows -->")
END = "<!-- settings: end -->"
# the settings a deployment sets (the endpoints, the model's class, what to extract, how to
# answer), in this order, first; every other is tuning, by part of the system
YOU_SET = ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE", "OPENAI_BASE_URL",
           "OPENAI_API_KEY", "OPENAI_MODEL", "LLM_CLASS", "LLM_CONCURRENCY",
           "EMBEDDING_BASE_URL", "EMBEDDING_API_KEY", "EMBEDDING_MODEL", "CHUNK_SIZE",
           "ENTITY_TYPES", "ASK_METHOD", "ANSWER", "SERVE_API_KEY")
# a section: its title and its groups (a group, or the top level's fields by name); the query
# methods' own groups follow "Query", each under its docstring's first line
Part = type[Group] | tuple[type[Group], str]
SECTIONS: tuple[tuple[str, tuple[Part, ...]], ...] = (
    ("Database", (Neo4jSettings,)),
    ("Graph Data Science", (GdsSettings,)),
    ("LLM endpoint", (LLMSettings,)),
    ("Local servers", ((Top, "home"), ServicesSettings)),
    ("Embeddings", (EmbeddingSettings,)),
    ("Index", (IndexSettings, (Top, "encoding"), (Top, "progress_interval"))),
    ("Query: what the methods share", (QuerySettings,)),
    ("Serve", (ServeSettings,)),
)
HEADER = "| variable | default | meaning |\n|---|---|---|"


def _fields(part: Part) -> list[tuple[type[Group], str, FieldInfo]]:
    group, only = (part, None) if isinstance(part, type) else part
    return [(group, n, f) for n, f in group.model_fields.items() if only in (None, n)]


def _default(group: type[Group], name: str, field: FieldInfo) -> str:
    """The default as the row shows it; a budget the local server lowers says how."""
    value: Any = field.default
    if value is None or isinstance(value, SecretStr):
        text = "unset"
    elif isinstance(value, bool):
        text = f"`{str(value).lower()}`"
    elif isinstance(value, int | float):
        text = f"{value:g}"
    elif isinstance(value, Path):
        text = f"`{str(value).replace(str(Path.home()), '~')}`"
    elif isinstance(value, list):
        text = f"`{json.dumps(value)}`"
    else:
        text = f"`{value}`" if value else "empty"
    local = local_value(field)
    if local is not None:
        text += (f" (local: {local} × `LLM_CTX`/{LOCAL_LLM_CTX})" if name.endswith("_tokens")
                 else f" (local: {local})")
    return text


def _row(group: type[Group], name: str, field: FieldInfo) -> str:
    cells = (f"`{flat_name(field).upper()}`", _default(group, name, field),
             (field.description or "").replace("|", "\\|"))
    return f"| {' | '.join(cells)} |"


def _title(group: type[Group]) -> str:
    """A method group's section: its docstring's first paragraph."""
    return " ".join((group.__doc__ or group.__name__).strip().split("\n\n")[0].split()
                    ).rstrip(".")


def tables(methods: Sequence[type[Group]]) -> str:
    """The generated part of the page: the settings you set, then every other by section, the
    query methods' ``methods`` groups after the shared query settings."""
    sections = [(title, [f for part in parts for f in _fields(part)]) for title, parts in SECTIONS]
    at = next(i for i, (title, _) in enumerate(sections) if title.startswith("Query")) + 1
    sections[at:at] = [(f"Query: {_title(g)}", _fields(g)) for g in methods]
    every = {flat_name(f).upper(): (g, n, f) for _, fs in sections for g, n, f in fs}
    out = [BEGIN, "", "## The settings you set", "", HEADER,
           *(_row(*every[name]) for name in YOU_SET), "", "## Tuning", ""]
    for title, fields in sections:
        rows = [_row(g, n, f) for g, n, f in fields if flat_name(f).upper() not in YOU_SET]
        if rows:
            out += [f"### {title}", "", HEADER, *rows, ""]
    return "\n".join([*out, END])


def rewrite(page: str, methods: Iterable[type[Group]]) -> str:
    """``page`` with its generated part (between the markers) written again. Raises
    ValueError when the page has no markers."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the page has no generated part: put {BEGIN!r} and {END!r} where "
                         "the tables go")
    return page[:start] + tables(list(methods)) + page[end + len(END):]
