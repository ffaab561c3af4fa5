"""Files of records, one document each: JSON Lines, a JSON array (or one object), CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator


def read_jsonl(text: str) -> Iterator[object]:
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def read_json(text: str) -> Iterator[object]:
    data = json.loads(text)
    yield from (data if isinstance(data, list) else [data])


def read_csv(text: str) -> Iterator[object]:
    yield from csv.DictReader(io.StringIO(text))
