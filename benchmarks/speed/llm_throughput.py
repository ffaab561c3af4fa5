"""Benchmark (not a test): the embedded model's throughput - prefill and decode tokens/s, seconds
per extraction call and per text unit - idle and beside a fixed background CPU load, per thread
count and server variant, every figure also a ratio to the model's physical limit.

    .venv/bin/python -m benchmarks.speed.llm_throughput [--model smollm2] [--threads 1,2]
        [--loads 0,2] [--corpora sample,bbc9] [--units N] [--variant NAME:KEY=V,KEY=V ...]
        [--class small] [--port 8121] [--label L]

For each thread count and background load (``--loads``: that many busy processes, started and
stopped by the benchmark), the local server is started on ``--port`` with a NEO4J_RETAG_HOME of
its own (never the shared server on 8088):

- **the limit**: a server without speculation; ``--limit-rounds`` raw requests of one ~500-token
  passage, no prompt cache, 128 tokens decoded whatever the model wants (``ignore_eos``): the
  prompt and decode tokens/s of llama.cpp's own ``timings`` - what one-token-at-a-time decoding
  on these cores gives at best;
- **each variant** (default: the settings as they are; ``--variant spec-off:LLM_SPECULATIVE=
  none`` for another, keys being environment names): the real extraction (``index.extract``,
  LLM_CLASS ``--class``, cache off) of every text unit of each corpus in turn, one call at a
  time; per call the wall seconds, tokens, llama.cpp's ``timings`` (prefill and decode tokens/s,
  prompt tokens taken from the cache, speculative drafts accepted) and the entity names found.

Ratios: a variant's prefill and decode tokens/s over the idle limit of the same threads; the
*efficiency* of a call, the seconds the idle limit needs for its tokens (no cache, no
speculation) over the seconds it took (above 1: the cache or the drafts beat the limit); under
load, decode over the same variant's idle decode; the entity names of each text unit against
the first variant's (Jaccard: the same output). Writes bench-results/llm_throughput[-L].json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai

from benchmarks.common import RESULTS, ROOT, SHARED, cpu_seconds, machine
from neo4j_retag.config import Settings
from neo4j_retag.index.documents import Document, read_file
from neo4j_retag.index.extract import extract_text_unit
from neo4j_retag.index.pipeline import text_units
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import TextUnit
from neo4j_retag.services import llm_local

BBC9 = ["tech/" + n for n in ("020", "055", "176", "186", "197", "270", "377", "400")]
CORPORA = {"sample": lambda: sorted((ROOT / "examples" / "sample-corpus").iterdir()),
           "bbc9": lambda: [SHARED / "corpora" / "bbc-news" / f"{n}.txt" for n in BBC9]}
DECODE = 128  # tokens of a limit request
SHOWN = ("unit", "seconds", "cpu_seconds", "prompt_tokens", "completion_tokens", "decode_tps",
         "cache_n", "draft_accepted")  # printed per call


def parse_variant(spec: str) -> tuple[str, dict[str, str]]:
    """``NAME:KEY=V,KEY=V`` (environment names) as (name, Settings keywords)."""
    name, _, rest = spec.partition(":")
    pairs = [p.split("=", 1) for p in rest.split(",") if p.strip()]
    return name, {k.strip().lower(): v.strip() for k, v in pairs}


def timings_row(body: dict[str, Any]) -> dict[str, Any]:
    """What one reply's llama.cpp ``timings`` say, or {} when it has none (another server)."""
    t = body.get("timings") or {}
    if not t:
        return {}
    return {"prompt_n": t.get("prompt_n"), "cache_n": t.get("cache_n", 0),
            "prefill_tps": t.get("prompt_per_second"), "decode_n": t.get("predicted_n"),
            "decode_tps": t.get("predicted_per_second"), "draft_n": t.get("draft_n", 0),
            "draft_accepted": t.get("draft_n_accepted", 0)}


def med(xs: list[float | None]) -> float | None:
    got = [x for x in xs if x is not None]
    return round(statistics.median(got), 2) if got else None


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def limit_seconds(prompt_tokens: int, completion_tokens: int,
                  limit: dict[str, Any]) -> float | None:
    """Seconds the limit needs for these tokens: every prompt token evaluated, every completion
    token decoded one by one."""
    if not limit.get("prefill_tps") or not limit.get("decode_tps"):
        return None
    return prompt_tokens / limit["prefill_tps"] + completion_tokens / limit["decode_tps"]


def jaccard(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    return 1.0 if not sa and not sb else round(len(sa & sb) / len(sa | sb), 3)


def summarise(calls: list[dict[str, Any]], limit: dict[str, Any]) -> dict[str, Any]:
    """One variant's extraction calls on one corpus, with the ratios to ``limit`` (the idle
    limit of the same threads)."""
    ok = [c for c in calls if "error" not in c]
    units = {c["unit"] for c in calls}
    seconds = sum(c["seconds"] for c in ok)
    prefill = med([c.get("prefill_tps") for c in ok])
    decode = med([c.get("decode_tps") for c in ok])
    at_limit = [limit_seconds(c["prompt_tokens"], c["completion_tokens"], limit) for c in ok]
    drafted = sum(c.get("draft_n") or 0 for c in ok)
    return {
        "calls": len(calls), "failed": len(calls) - len(ok), "text_units": len(units),
        "seconds_per_call": med([c["seconds"] for c in ok]),
        "cpu_seconds_per_call": med([c.get("cpu_seconds") for c in ok]),
        "seconds_per_text_unit": round(seconds / max(1, len(units)), 2),
        "prompt_tokens_per_call": med([c["prompt_tokens"] for c in ok]),
        "cached_prompt_tokens_per_call": med([c.get("cache_n") for c in ok]),
        "completion_tokens_per_call": med([c["completion_tokens"] for c in ok]),
        "prefill_tps": prefill, "decode_tps": decode,
        "prefill_ratio": ratio(prefill, limit.get("prefill_tps")),
        "decode_ratio": ratio(decode, limit.get("decode_tps")),
        "efficiency": ratio(sum(s for s in at_limit if s is not None), seconds)
        if all(s is not None for s in at_limit) and ok else None,
        "draft_acceptance": ratio(sum(c.get("draft_accepted") or 0 for c in ok), drafted),
        "entities_per_call": med([len(c["entities"]) for c in ok]),
    }


def agreement(calls: list[dict[str, Any]], base: list[dict[str, Any]]) -> float | None:
    """Mean Jaccard of each text unit's entity names against ``base``'s for the same unit."""
    theirs = {c["unit"]: c["entities"] for c in base if "error" not in c}
    scores = [jaccard(c["entities"], theirs[c["unit"]]) for c in calls
              if "error" not in c and c["unit"] in theirs]
    return round(statistics.mean(scores), 3) if scores else None


@contextmanager
def background(n: int) -> Iterator[None]:
    """``n`` busy processes (one core's worth of work each) while inside."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        if procs:
            time.sleep(2)  # let the scheduler spread them before anything is measured
        yield
    finally:
        for p in procs:
            p.terminate()
            p.wait()


@contextmanager
def server(settings: Settings) -> Iterator[None]:
    llm_local.start(settings, timeout=600)
    try:
        yield
    finally:
        llm_local.stop(settings)


def limit(base_url: str, passage: str, rounds: int) -> dict[str, Any]:
    """The limit on a running server: ``rounds`` raw requests, medians of their timings."""
    rows = []
    for _ in range(rounds):
        r = httpx.post(f"{base_url}/chat/completions", timeout=600, json={
            "messages": [{"role": "user", "content": f"{passage}\n\nContinue this text."}],
            "max_tokens": DECODE, "temperature": 0, "ignore_eos": True, "cache_prompt": False})
        rows.append(timings_row(r.raise_for_status().json()))
    return {"rounds": rows, "prefill_tps": med([r.get("prefill_tps") for r in rows]),
            "decode_tps": med([r.get("decode_tps") for r in rows]),
            "prompt_tokens": med([r.get("prompt_n") for r in rows])}


def corpus_units(name: str, settings: Settings, most: int | None) -> list[TextUnit]:
    units = []
    for f in CORPORA[name]():
        for doc in read_file(f):
            if isinstance(doc, Document):
                units += [u for u, _ in text_units(doc, settings)]
    return units[:most] if most else units


async def extract_all(settings: Settings, units: list[TextUnit]) -> list[dict[str, Any]]:
    """Each text unit extracted in turn; each call's reply timings caught on the wire, and the
    server's CPU seconds (what other load disturbs least)."""
    pid = llm_local.status(settings)["pid"]
    replies: list[dict[str, Any]] = []

    async def keep(response: httpx.Response) -> None:
        if response.request.url.path.endswith("/chat/completions"):
            await response.aread()
            replies.append(timings_row(response.json()) if response.is_success else {})

    out = []
    async with LLM(settings, Usage()) as llm:
        await llm.client.close()
        llm.client = openai.AsyncOpenAI(
            base_url=settings.llm.endpoint, api_key="local", max_retries=0,
            timeout=settings.llm.timeout,
            http_client=httpx.AsyncClient(timeout=settings.llm.timeout,
                                          event_hooks={"response": [keep]}))
        for u in units:
            before, usage, cpu0 = len(replies), llm.usage.total, cpu_seconds(pid)
            t0 = time.perf_counter()
            row: dict[str, Any] = {"unit": u.id}
            try:
                ex = await extract_text_unit(llm, settings, u, glean=settings.index.glean,
                                             claims=settings.index.extract_claims)
                row["entities"] = sorted(e["key"] for e in ex.entities)
            except Exception as err:  # noqa: BLE001 - a benchmark records, never stops
                row.update(error=f"{type(err).__name__}: {err}"[:200], entities=[])
            row["seconds"] = round(time.perf_counter() - t0, 2)
            cpu = cpu_seconds(pid)
            row["cpu_seconds"] = round(cpu - cpu0, 2) if cpu is not None and cpu0 is not None \
                else None
            spent = llm.usage.total - usage
            row.update(prompt_tokens=spent.prompt_tokens, completion_tokens=spent.completion_tokens,
                       llm_calls=spent.calls, llm_failed=spent.failed)
            for t in replies[before:]:  # the unit's calls (a retry or a claims call too)
                for k, v in t.items():
                    row[k] = v if k.endswith("tps") else (row.get(k) or 0) + (v or 0)
            out.append(row)
            print(json.dumps({k: row.get(k) for k in SHOWN}), flush=True)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    variants = [parse_variant(v) for v in args.variant] or [("default", {})]
    results: list[dict[str, Any]] = []
    # the fetched model of the user's home: each server below has a home of its own
    gguf = (llm_local.model_path(Settings(openai_base_url=None, llm_model=args.model))
            if args.model != "smollm2" else None)
    with tempfile.TemporaryDirectory(prefix="llm-throughput-") as tmp:
        def settings(threads: int, name: str, extra: dict[str, str]) -> Settings:
            return Settings(openai_base_url=None, neo4j_retag_home=Path(tmp) / name,
                            llm_port=args.port, llm_model=args.model, llm_model_path=gguf,
                            llm_threads=threads, llm_class=args.llm_class, llm_cache=False,
                            **extra)

        passage = " ".join(corpus_units("bbc9", settings(1, "x", {}), 1)[0].text.split()[:380])
        for threads in args.threads:
            for load in args.loads:
                with background(load):
                    s = settings(threads, "limit", {"llm_speculative": "none"})
                    with server(s):
                        lim = limit(s.llm.endpoint, passage, args.limit_rounds)
                    row: dict[str, Any] = {"threads": threads, "load": load, "limit": lim,
                                           "machine": machine(), "variants": {}}
                    for name, extra in variants:
                        s = settings(threads, name, extra)
                        with server(s):
                            row["variants"][name] = {c: asyncio.run(extract_all(
                                s, corpus_units(c, s, args.units))) for c in args.corpora}
                results.append(row)
    return {"model": args.model, "class": args.llm_class, "corpora": args.corpora,
            "variants": dict(variants), "runs": results, "summary": summary(results)}


def summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per threads, load, variant and corpus: ``summarise`` against the idle limit of the same
    threads, decode under load against idle, and the output against the first variant's."""
    idle = {r["threads"]: r for r in runs if r["load"] == 0}
    out = []
    for r in runs:
        ref = idle.get(r["threads"], r)
        first = next(iter(r["variants"].values()))
        for name, corpora in r["variants"].items():
            for corpus, calls in corpora.items():
                row = {"threads": r["threads"], "load": r["load"], "variant": name,
                       "corpus": corpus, "limit": {k: r["limit"][k] for k in
                                                   ("prefill_tps", "decode_tps")},
                       **summarise(calls, ref["limit"]),
                       "same_entities_as_first_variant": agreement(calls, first[corpus])}
                if r is not ref and name in ref["variants"]:
                    base = summarise(ref["variants"][name][corpus], ref["limit"])
                    row["decode_vs_idle"] = ratio(row["decode_tps"], base["decode_tps"])
                    row["seconds_vs_idle"] = ratio(row["seconds_per_text_unit"],
                                                   base["seconds_per_text_unit"])
                out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-1.5b",
                    choices=["qwen2.5-coder-1.5b", "smollm2"])
    ap.add_argument("--class", dest="llm_class", default="small", choices=["small", "capable"])
    ap.add_argument("--threads", default="1,2", type=lambda v: [int(x) for x in v.split(",")])
    ap.add_argument("--loads", default="0,2", type=lambda v: [int(x) for x in v.split(",")],
                    help="busy background processes, one run per value")
    ap.add_argument("--corpora", default="sample,bbc9", type=lambda v: v.split(","))
    ap.add_argument("--units", type=int, help="at most this many text units per corpus")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME:KEY=V,KEY=V server settings by environment name")
    ap.add_argument("--limit-rounds", type=int, default=3)
    ap.add_argument("--port", type=int, default=8121, help="never the shared 8088")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    if args.port == 8088:
        ap.error("8088 is the shared server's port")
    result = run(args)
    print(json.dumps(result["summary"], indent=2))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / (f"llm_throughput-{args.label}.json" if args.label
                      else "llm_throughput.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
