"""The few GGUF header fields the local server needs - model name, architecture, trained
context length, whether the file carries a chat template - and the check that the file is
whole before a server is started on it: magic, version, and every tensor's data within the
file's bounds (llama.cpp dies on either at load: "invalid magic characters", "tensor data is
not within the file bounds").

GGUF v2/v3 layout (little-endian): magic ``GGUF``, version u32, tensor count u64, metadata
count u64, then ``key (u64 length + UTF-8), value type u32, value``; then per tensor ``name,
n_dims u32, dims u64 x n_dims, ggml type u32, offset u64``; the tensor data starts at the
next multiple of ``general.alignment`` (32). Arrays (the tokenizer's 150k tokens) are skipped,
not kept: Qwen's 1.1 GB file is read in a third of a second. No dependency: the `gguf`
package's reader maps every tensor into numpy, and only the block sizes are needed here.
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
WANTED = ("general.name", "general.architecture", "tokenizer.chat_template",
          "general.alignment")
VERSIONS = (2, 3)
# bounds beyond any model's header: past them it is garbage (a zero-filled or damaged file)
MAX_TENSORS = 1 << 20
MAX_ITEMS = 1 << 24  # metadata entries, array items (a tokenizer's 150k tokens)
MAX_STRING = 1 << 24  # bytes of one string (a chat template: a few kB)
MAX_DIMS = 4  # GGML_MAX_DIMS
# ggml type -> (elements per block, bytes per block), as ggml.c's type traits
_BLOCKS = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24),
           8: (32, 34), 9: (32, 36), 10: (256, 84), 11: (256, 110), 12: (256, 144),
           13: (256, 176), 14: (256, 210), 15: (256, 292), 16: (256, 66), 17: (256, 74),
           18: (256, 98), 19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82),
           23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8),
           29: (256, 56), 30: (1, 2), 34: (256, 54), 35: (256, 66), 39: (32, 17)}


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise EOFError
    return struct.unpack(fmt, data)[0]


def _length(f: BinaryIO, bound: int, what: str) -> int:
    """A u64 length or count, refused past ``bound``: garbage read as a length would have
    the reader allocate or loop over gigabytes."""
    n = _read(f, "<Q")
    if n > bound:
        raise ValueError(f"a {what} of {n:,}: a corrupt header")
    return n


def _string(f: BinaryIO) -> str:
    return f.read(_length(f, MAX_STRING, "string length")).decode("utf-8", errors="replace")


def _value(f: BinaryIO, vtype: int, keep: bool) -> Any:
    if vtype in _SCALARS:
        return _read(f, _SCALARS[vtype])
    if vtype == _STRING:
        if keep:
            return _string(f)
        f.seek(_length(f, MAX_STRING, "string length"), 1)
        return None
    if vtype == _ARRAY:
        itype, n = _read(f, "<I"), _length(f, MAX_ITEMS, "array length")
        if itype in _SCALARS:  # fixed-size items: one seek
            f.seek(n * struct.calcsize(_SCALARS[itype]), 1)
        else:
            for _ in range(n):
                _value(f, itype, False)
        return None
    raise ValueError(f"unknown GGUF value type {vtype}")


def _metadata(f: BinaryIO) -> tuple[int, JSON]:
    """(tensor count, the WANTED fields and context lengths) of an open GGUF, at its
    tensor infos after. Raises ValueError naming what is wrong with the header."""
    if f.read(4) != b"GGUF":
        raise ValueError("not a GGUF file (no GGUF magic)")
    version = _read(f, "<I")
    if version not in VERSIONS:
        raise ValueError(f"GGUF version {version} (llama.cpp reads {VERSIONS})")
    tensors = _length(f, MAX_TENSORS, "tensor count")
    found: JSON = {}
    for _ in range(_length(f, MAX_ITEMS, "metadata count")):
        key = _string(f)
        vtype = _read(f, "<I")
        keep = key in WANTED or key.endswith(".context_length")
        value = _value(f, vtype, keep)
        if keep:
            found[key] = value
    return tensors, found


def _fail(path: Path, err: Exception) -> ConfigError:
    if isinstance(err, OSError):
        return ConfigError(f"model file {path}: {err.strerror or err}")
    why = "the file ends inside its header" if isinstance(err, EOFError) else str(err)
    return ConfigError(f"model file {path} is not a usable GGUF: {why}")


def read_metadata(path: Path) -> JSON:
    """``{"name", "architecture", "context_length", "chat_template": bool}`` of a GGUF file.

    Raises ConfigError (naming the file) when it is missing or not GGUF."""
    try:
        with path.open("rb") as f:
            _, found = _metadata(f)
    except (OSError, EOFError, ValueError, struct.error, UnicodeDecodeError) as err:
        raise _fail(path, err) from err
    return _described(found)


def _described(found: JSON) -> JSON:
    arch = found.get("general.architecture")
    return {"name": found.get("general.name"), "architecture": arch,
            "context_length": found.get(f"{arch}.context_length"),
            "chat_template": bool(found.get("tokenizer.chat_template"))}


def check_file(path: Path) -> JSON:
    """``read_metadata`` after checking that the file is whole: the GGUF magic, a version
    llama.cpp reads, and every tensor's data (by its ggml type's block size) within the
    file; with ``tensors`` (their count). A right-sized file of the wrong content passes
    when its header is sound: the pinned SHA-256 catches that (``llm_fetch.verified``).

    Raises ConfigError (one line naming the file and what is wrong) otherwise."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            count, found = _metadata(f)
            end, name = 0, ""
            for _ in range(count):
                name = _string(f)
                n_dims = _read(f, "<I")
                if n_dims > MAX_DIMS:
                    raise ValueError(f"tensor {name!r} has {n_dims} dimensions: a corrupt "
                                     "header")
                dims = [_read(f, "<Q") for _ in range(n_dims)]
                ggml_type, offset = _read(f, "<I"), _read(f, "<Q")
                per, nbytes = _BLOCKS.get(ggml_type, (1, 0))  # unknown type: its offset only
                elements = 1
                for d in dims:
                    elements *= d
                end = max(end, offset + elements // per * nbytes)
                if end > size:
                    break
            align = found.get("general.alignment") or 32
            start = -(-f.tell() // align) * align
        if start + end > size:
            raise ValueError(f"tensor {name!r} ends past the file's {size:,} bytes (the file "
                             "is truncated)")
    except (OSError, EOFError, ValueError, struct.error, UnicodeDecodeError) as err:
        raise _fail(path, err) from err
    return {**_described(found), "tensors": count, "data_bytes": start + end}
