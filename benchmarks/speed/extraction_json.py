"""Benchmark (not a test): seconds per extraction call and JSON validity of a model, with
grammar-constrained JSON (``LLM_JSON_MODE=json_object`` + a bounded schema, llama.cpp style)
vs prompt-only JSON (``LLM_JSON_MODE=off``) read by the tolerant parser.

    .venv/bin/python -m benchmarks.speed.extraction_json [--base-url URL] [--model NAME]
        [--label smollm2-135m] [--calls 3] [--modes json_object,off] [--max-tokens 512]
        [--server-log ~/.cache/neo4j-retag/llm/llm.log]

Any OpenAI-compatible endpoint (default: the local server on 8088). Each call is the real
extraction prompt (prompts/index/extract_graph.txt, no claims) on one short passage; no cache,
no retry. Per mode: mean/median seconds per call, completion tokens, ``strict_json`` (the raw
text is one JSON value), ``valid`` (the tolerant parser + the extraction schema accept it) and
entities found. Writes bench-results/extraction_json_<label>.json.

On a SHARED server the wall-clock seconds include waiting for other clients' requests (the
llama.cpp server runs one at a time). ``--server-log ~/.cache/neo4j-retag/llm/llm.log`` adds
``server_seconds``: llama.cpp's own "total time" of the request that completed just before our
response arrived (the server is serial, so that one is ours), i.e. the time without queueing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmarks.common import RESULTS
from neo4j_retag.config import LOCAL_LLM_BUDGETS, Settings
from neo4j_retag.errors import LLMError
from neo4j_retag.index.extract import messages
from neo4j_retag.index.extract_records import GraphExtraction
from neo4j_retag.llm import LLM, Usage, bound_schema, parse_json, response_format
from neo4j_retag.llm.reply import ReplyFault
from neo4j_retag.stages import Stage

PASSAGES = [
    "Scrooge and Marley were partners in a counting-house in London. Marley died seven "
    "years ago, and Scrooge was his sole executor and his sole mourner.",
    "Bob Cratchit, the clerk of Scrooge, earned fifteen shillings a week. On Christmas Eve he "
    "went home to Camden Town, to his wife and to Tiny Tim.",
    "Fezziwig, a merchant, gave a Christmas ball for his apprentices. Young Scrooge danced "
    "there with Belle, who later released him because he loved gold more than her.",
    "Apple launched a new iPod in London on Tuesday. Steve Jobs said the device would change "
    "how Britons listen to music, while Sony promised a rival player.",
]


_TOTAL = re.compile(r"total time =\s+([\d.]+) ms")
_DONE = re.compile(r'"POST /v1/chat/completions HTTP/1.1" 200')


def server_seconds(log: Path | None, offset: int) -> float | None:
    """llama.cpp's "total time" of the last request completed in ``log`` after ``offset``."""
    if log is None:
        return None
    with log.open("rb") as f:
        f.seek(offset)
        lines = f.read().decode("utf-8", "replace").splitlines()
    total: float | None = None
    last: float | None = None
    for ln in lines:
        if m := _TOTAL.search(ln):
            total = float(m.group(1)) / 1000
        elif _DONE.search(ln) and total is not None:
            last, total = round(total, 2), None
    return last


async def one_call(llm: LLM, settings: Settings, mode: str, text: str,
                   log: Path | None = None) -> dict[str, Any]:
    schema = GraphExtraction.model_json_schema()
    if mode == "json_object":
        schema = bound_schema(schema, settings.llm.schema_max_items,
                              settings.llm.schema_max_chars)
    fmt = response_format(mode, "GraphExtraction", schema)
    before = llm.usage.stage("extract").completion_tokens
    offset = log.stat().st_size if log else 0
    t0 = time.perf_counter()
    try:
        raw = await llm.complete(messages(settings, text, claims=False), stage=Stage.EXTRACT,
                                 response_format=fmt)
    except LLMError as err:
        return {"seconds": round(time.perf_counter() - t0, 2), "error": str(err)[:200],
                "strict_json": False, "valid": False, "entities": 0, "completion_tokens": 0}
    seconds = time.perf_counter() - t0
    try:
        json.loads(raw)
        strict = True
    except ValueError:
        strict = False
    try:
        entities = len(GraphExtraction.model_validate(parse_json(raw)).entities)
        valid = True
    except (ValueError, ValidationError, ReplyFault):  # e.g. truncated JSON
        entities, valid = 0, False
    return {"seconds": round(seconds, 2), "server_seconds": server_seconds(log, offset),
            "strict_json": strict, "valid": valid,
            "entities": entities,
            "completion_tokens": llm.usage.stage("extract").completion_tokens - before,
            "raw_head": raw[:160]}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"label": args.label, "base_url": args.base_url, "model": args.model,
                           "calls": args.calls, "max_tokens": args.max_tokens, "modes": {}}
    for mode in args.modes.split(","):
        settings = Settings(openai_base_url=args.base_url, openai_model=args.model,
                            llm_json_mode=mode, llm_cache=False, llm_max_retries=0,
                            llm_max_tokens=args.max_tokens, llm_concurrency=1,
                            llm_schema_max_items=LOCAL_LLM_BUDGETS["llm"]["schema_max_items"],
                            llm_schema_max_chars=LOCAL_LLM_BUDGETS["llm"]["schema_max_chars"])
        async with LLM(settings, Usage()) as llm:
            rows = [await one_call(llm, settings, mode, PASSAGES[i % len(PASSAGES)],
                                   args.server_log)
                    for i in range(args.calls)]
        secs = [r["seconds"] for r in rows]
        server = [r["server_seconds"] for r in rows if r.get("server_seconds") is not None]
        out["modes"][mode] = {
            "seconds_mean": round(statistics.mean(secs), 2),
            "seconds_median": round(statistics.median(secs), 2),
            "server_seconds_mean": round(statistics.mean(server), 2) if server else None,
            "strict_json": f"{sum(r['strict_json'] for r in rows)}/{len(rows)}",
            "valid": f"{sum(r['valid'] for r in rows)}/{len(rows)}",
            "entities_mean": round(statistics.mean(r["entities"] for r in rows), 1),
            "completion_tokens_mean": round(statistics.mean(r["completion_tokens"]
                                                            for r in rows), 1),
            "calls": rows,
        }
        print(mode, {k: v for k, v in out["modes"][mode].items() if k != "calls"}, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", default="http://127.0.0.1:8088/v1")
    ap.add_argument("--model", default="smollm2", help="model name sent to the endpoint")
    ap.add_argument("--label", default="smollm2-135m", help="names the result file")
    ap.add_argument("--calls", type=int, default=3, help="extraction calls per mode")
    ap.add_argument("--modes", default="json_object,off")
    ap.add_argument("--max-tokens", type=int, default=512, help="completion tokens per call")
    ap.add_argument("--server-log", type=Path, default=None,
                    help="the llama.cpp server's log, for its own per-request time")
    args = ap.parse_args()
    result = asyncio.run(run(args))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"extraction_json_{args.label}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
