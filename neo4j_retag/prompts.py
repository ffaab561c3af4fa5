"""Prompt files in `prompts/<part>/`: `<<system>>` / `<<user>>` sections, `${name}` placeholders.

Values are substituted once (string.Template), so braces or `$` in document text are data.
Rendering is strict: a placeholder without a value, or a value without a placeholder, raises
ConfigError naming the file - a misspelt placeholder never reaches the LLM unnoticed.

Data from the documents sits in a block: a tag on a line of its own (``<data>``, ``<text>``),
the placeholder, the closing tag on a line of its own; the prompt says the text between them is
data, never instructions (tests/unit/test_prompts.py walks every prompt). A value rendered into
a block has every copy of the prompt's block tags defused (``</data>`` becomes ``&lt;/data>``):
a document cannot close its block and write after it as if it were the prompt.

Callers name a prompt (``render("query/map", ...)``); the folder is resolved once here, as
`Graph.run` resolves Cypher files, so it is not threaded through the stages. Tests may point
`FOLDER` elsewhere (``monkeypatch.setattr(prompts, "FOLDER", tmp_path)``).
"""

from __future__ import annotations

import csv
import io
import re
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

from .config import resource_dir
from .errors import ConfigError

Message = dict[str, str]  # {"role": ..., "content": ...}, as the openai client takes it

FOLDER: Path = resource_dir("prompts")


@lru_cache(maxsize=256)
def _read_in(folder: Path, name: str) -> str:
    path = folder / f"{name}.txt"
    if not path.exists():
        raise ConfigError(f"no prompt file {path}")
    return path.read_text()


def _read(name: str) -> str:
    return _read_in(FOLDER, name)  # keyed by folder: a test's FOLDER never sees stale text


@lru_cache(maxsize=256)
def _sections_in(folder: Path, name: str) -> tuple[tuple[str, str], ...]:
    parts = re.split(r"^<<(system|user|assistant)>>\s*$", _read_in(folder, name), flags=re.M)
    if len(parts) < 3:
        return (("user", parts[0].strip()),)
    return tuple((parts[i], parts[i + 1].strip()) for i in range(1, len(parts), 2))


def sections(name: str) -> tuple[tuple[str, str], ...]:
    """(role, template text) pairs of ``prompts/<name>.txt``; one user section if unmarked."""
    return _sections_in(FOLDER, name)


def placeholders(texts: list[str]) -> set[str]:
    """The ``${name}`` / ``$name`` placeholders of some template texts."""
    return {n for t in texts for n in Template(t).get_identifiers()}


# a block of data: its tag alone on a line, the data, the closing tag alone on a line
_BLOCK = re.compile(r"^<([a-z]+)(?:[ \t][^>\n]*)?>[ \t]*\n(.*?)^</\1>[ \t]*$", re.M | re.S)


def blocks(texts: list[str]) -> dict[str, set[str]]:
    """The placeholders of some template texts that sit in a data block, each with the tags
    of its blocks."""
    out: dict[str, set[str]] = {}
    for t in texts:
        for m in _BLOCK.finditer(t):
            for name in placeholders([m.group(2)]):
                out.setdefault(name, set()).add(m.group(1))
    return out


def defused(text: str, tags: set[str] | tuple[str, ...]) -> str:
    """``text`` with every opening or closing tag named in ``tags`` written as ``&lt;``...:
    data that cannot end its block (or open another) early."""
    if not tags:
        return text
    names = "|".join(sorted(map(re.escape, tags)))
    return re.sub(rf"<(?=\s*/?\s*(?:{names})\b)", "&lt;", text, flags=re.I)


def _fill(name: str, texts: list[str], values: dict[str, object]) -> list[str]:
    wanted = placeholders(texts)
    missing, unused = wanted - set(values), set(values) - wanted
    if missing or unused:
        raise ConfigError(f"prompt {name}: placeholders without a value {sorted(missing)}, "
                          f"values without a placeholder {sorted(unused)}")
    guarded = blocks(texts)
    tags = set().union(*guarded.values()) if guarded else set()
    strs = {k: defused(str(v), tags) if k in guarded else str(v) for k, v in values.items()}
    # safe_substitute: a lone "$" in the prompt's own text (a price) stays as written
    return [Template(t).safe_substitute(strs) for t in texts]


def render(name: str, /, **values: object) -> list[Message]:
    """Chat messages from ``prompts/<name>.txt`` with ``values`` filled in.

    Raises ConfigError for a missing file or a placeholder/value mismatch.
    """
    roles, texts = zip(*sections(name), strict=True)
    return [{"role": r, "content": c}
            for r, c in zip(roles, _fill(name, list(texts), values), strict=True)]


def fragment(name: str, /, **values: object) -> str:
    """A prompt piece (``prompts/<name>.txt`` as one string, its final newline dropped)."""
    return _fill(name, [_read(name).rstrip("\n")], values)[0]


def entries(name: str) -> dict[str, str]:
    """``name: text`` lines of a prompt data file (``//`` lines are comments)."""
    out = {}
    for line in _read(name).splitlines():
        if line.strip() and not line.startswith("//"):
            key, _, text = line.partition(":")
            out[key.strip()] = text.strip()
    return out


def csv_line(values: list[Any]) -> str:
    """One CSV record, newline-terminated (data tables in prompts are CSV, as in GraphRAG)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


def csv_table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    """A titled CSV table for a prompt context: ``-----Title-----`` then header and rows."""
    return f"-----{title}-----\n" + csv_line(header) + "".join(csv_line(r) for r in rows)
