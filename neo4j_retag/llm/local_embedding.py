"""The local embedding model, in process: all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions, model
name ``all-minilm-l6-v2``) on fastembed, which runs sentence-transformers' pipeline (WordPiece
cut at 256, the transformer on onnxruntime, mean pooling, L2 normalisation) on the pinned,
checked files of ``embed_files``. Used when neither EMBEDDING_BASE_URL nor OPENAI_BASE_URL is
set; its vectors are those of the embedding server it replaces (cosine 1.0000 on 400 texts,
docs/benchmarks.md), so stored vectors and the embedding cache stay valid.

Loaded once per process and setting of threads, on first use (``model``: thread-safe), with the
Hugging Face hub offline: fastembed is given the local folder only and never downloads. The
runtime (fastembed, onnxruntime, tokenizers) is the ``embed`` extra.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import ConfigError, IntegrityError
from . import embed_files

BATCH = 16  # texts per forward pass: the server's; 64 at once took 2.9 GB (docs/benchmarks.md)
# what keeps the Hugging Face hub (huggingface_hub, fastembed) from any network access
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
           "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1"}
_lock = threading.Lock()
_models: dict[tuple[Path, int], Model] = {}


@contextmanager
def offline() -> Iterator[None]:
    """The hub switched off for the block (the environment as it was afterwards)."""
    saved = {k: os.environ.get(k) for k in OFFLINE}
    os.environ.update(OFFLINE)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Model:
    """fastembed's model over one prepared folder, and the tokenizer that counts usage."""

    def __init__(self, folder: Path, threads: int, cache_dir: Path) -> None:
        from tokenizers import Tokenizer

        with offline():
            from fastembed import TextEmbedding

            # the name picks fastembed's pipeline (mean pooling, normalised); the files are
            # the folder's alone: specific_model_path is returned as is, never downloaded
            self.embedding = TextEmbedding(
                "sentence-transformers/all-MiniLM-L6-v2", specific_model_path=str(folder),
                cache_dir=str(cache_dir), threads=threads, local_files_only=True)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=embed_files.MAX_LENGTH)
        self.tokenizer.no_padding()
        self.lock = threading.Lock()  # one batch at a time: onnxruntime uses every thread given

    def tokens(self, texts: list[str]) -> int:
        """Word pieces the model reads for ``texts`` (cut at 256 each, [CLS]/[SEP] included):
        the usage fastembed does not report."""
        return sum(len(e.ids) for e in self.tokenizer.encode_batch(texts))

    def embed(self, texts: list[str]) -> tuple[list[list[float]], int]:
        """Unit vectors of 384 floats in input order, and the word pieces read. Inputs run in
        batches of similar length (less padding), as the server did."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[Any] = [None] * len(texts)
        with self.lock:
            vectors = self.embedding.embed([texts[i] for i in order], batch_size=BATCH)
            for i, v in zip(order, vectors, strict=True):
                out[i] = v.tolist()
        return out, self.tokens(texts)


def model(settings: Settings) -> Model:
    """This process's model (loaded on the first call, by one thread; the pinned SHA-256 of
    the files checked before). Raises ConfigError: the runtime or a file missing, a file not
    the pinned one, the folder not writable."""
    key = (embed_files.home(settings), settings.services.llm_threads)
    if (found := _models.get(key)) is not None:
        return found
    with _lock:
        if (found := _models.get(key)) is None:
            if importlib.util.find_spec("fastembed") is None:
                raise ConfigError("the local embedding runtime (fastembed) is not installed: "
                                  f"{embed_files.INSTALL}; or set EMBEDDING_BASE_URL")
            try:
                folder = embed_files.folder(settings)
            except (RuntimeError, IntegrityError, OSError) as err:
                raise ConfigError(str(err)) from err
            found = _models[key] = Model(folder, settings.services.threads,
                                         embed_files.home(settings) / "hub-cache")
    return found


def check(settings: Settings) -> None:
    """Refuse settings the local model cannot serve: another EMBEDDING_MODEL (its vectors
    would be stored under a name they are not of) or EMBEDDING_DIMENSIONS other than 384.
    Raises ConfigError."""
    e = settings.embedding
    if e.model != embed_files.ALIAS:
        raise ConfigError(f"EMBEDDING_MODEL is {e.model!r}, but the local embedding model is "
                          f"{embed_files.ALIAS!r}: unset EMBEDDING_MODEL, or set "
                          "EMBEDDING_BASE_URL to an endpoint that serves it")
    if e.dimensions not in (None, embed_files.DIMENSIONS):
        raise ConfigError(f"the local embedding model gives {embed_files.DIMENSIONS} "
                          f"dimensions, not EMBEDDING_DIMENSIONS={e.dimensions}: unset it")
