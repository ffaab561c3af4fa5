"""Prompt files in `prompts/`: `<<system>>` and `<<user>>` sections, `${name}` placeholders.

Values are substituted once (string.Template), so braces or `$` in document text are data.
"""

from __future__ import annotations

import csv
import io
import re
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any


@lru_cache(maxsize=64)
def _sections(prompts_dir: Path, name: str) -> tuple[tuple[str, str], ...]:
    path = prompts_dir / f"{name}.txt"
    if not path.exists():
        raise FileNotFoundError(f"no prompt file {path}")
    parts = re.split(r"^<<(system|user|assistant)>>\s*$", path.read_text(), flags=re.M)
    if len(parts) < 3:
        return (("user", parts[0].strip()),)
    return tuple((parts[i], parts[i + 1].strip()) for i in range(1, len(parts), 2))


def render(prompts_dir: Path, name: str, /, **values: object) -> list[dict[str, str]]:
    """Chat messages from ``prompts/<name>.txt`` with ``values`` filled in."""
    strs = {k: str(v) for k, v in values.items()}
    return [{"role": role, "content": Template(text).safe_substitute(strs)}
            for role, text in _sections(prompts_dir, name)]


def csv_line(values: list[Any]) -> str:
    """One CSV record, newline-terminated (data tables in prompts are CSV, as in GraphRAG)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


def csv_table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    """A titled CSV table for a prompt context: ``-----Title-----`` then header and rows."""
    return f"-----{title}-----\n" + csv_line(header) + "".join(csv_line(r) for r in rows)
