"""The few GGUF header fields the local server needs: model name, architecture, trained
context length, and whether the file carries a chat template.

GGUF v2/v3 layout (little-endian): magic ``GGUF``, version u32, tensor count u64, metadata
count u64, then ``key (u64 length + UTF-8), value type u32, value``. Arrays (the tokenizer's
150k tokens) are skipped, not kept. No dependency: the `gguf` package is not installed.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

from neo4j_retag.errors import ConfigError

from ..model import JSON

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
WANTED = ("general.name", "general.architecture", "tokenizer.chat_template")


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise EOFError
    return struct.unpack(fmt, data)[0]


def _string(f: BinaryIO) -> str:
    return f.read(_read(f, "<Q")).decode("utf-8", errors="replace")


def _value(f: BinaryIO, vtype: int, keep: bool) -> Any:
    if vtype in _SCALARS:
        return _read(f, _SCALARS[vtype])
    if vtype == _STRING:
        if keep:
            return _string(f)
        f.seek(_read(f, "<Q"), 1)
        return None
    if vtype == _ARRAY:
        itype, n = _read(f, "<I"), _read(f, "<Q")
        if itype in _SCALARS:  # fixed-size items: one seek
            f.seek(n * struct.calcsize(_SCALARS[itype]), 1)
        else:
            for _ in range(n):
                _value(f, itype, False)
        return None
    raise ValueError(f"unknown GGUF value type {vtype}")


def read_metadata(path: Path) -> JSON:
    """``{"name", "architecture", "context_length", "chat_template": bool}`` of a GGUF file.

    Raises ConfigError (naming LLM_MODEL_PATH) when the file is missing or not GGUF."""
    try:
        with path.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise ConfigError(f"LLM_MODEL_PATH {path} is not a GGUF file")
            _read(f, "<I")  # version
            _read(f, "<Q")  # tensor count
            found: JSON = {}
            for _ in range(_read(f, "<Q")):
                key = _string(f)
                vtype = _read(f, "<I")
                keep = key in WANTED or key.endswith(".context_length")
                value = _value(f, vtype, keep)
                if keep:
                    found[key] = value
    except OSError as err:
        raise ConfigError(f"LLM_MODEL_PATH {path}: {err.strerror or err}") from err
    except (EOFError, ValueError, struct.error) as err:
        raise ConfigError(f"LLM_MODEL_PATH {path}: unreadable GGUF header ({err})") from err
    arch = found.get("general.architecture")
    return {"name": found.get("general.name"), "architecture": arch,
            "context_length": found.get(f"{arch}.context_length"),
            "chat_template": bool(found.get("tokenizer.chat_template"))}
