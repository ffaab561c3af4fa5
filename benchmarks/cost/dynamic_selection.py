"""Benchmark (not a test): GraphRAG's dynamic community selection alone, on the index of the
environment's Neo4j: how many reports it rates, with how many LLM calls and prompt tokens in
how many seconds, and what it selects (the reports map-reduce would then read, per level, and
their tokens), without the map-reduce.

    # the imported Carol index (`neo4j-retag import graphrag ...` into NEO4J_DATA), fakellm
    # (rates every report relevant: the walk's whole cost):
    .venv/bin/python -m benchmarks.cost.dynamic_selection --fakellm --name carol-fakellm
    # the environment's LLM (the local server by default), reports rated by their summaries:
    LLM_CACHE=false DYNAMIC_USE_SUMMARY=true \\
        .venv/bin/python -m benchmarks.cost.dynamic_selection --name carol-qwen-summary

Writes bench-results/dynamic-selection-NAME.json. Run it against another checkout's code
(``cd OTHER && python /path/to/benchmarks/cost/dynamic_selection.py``) to measure a change.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter

from benchmarks.common import RESULTS, fakellm, machine
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import Trace
from neo4j_retag.query.dynamic import DynamicSettings, select_reports
from neo4j_retag.tokens import count

QUESTION = "What are the main themes of the story?"


async def measure(settings: Settings, question: str) -> dict:
    trace = Trace(method="global-dynamic")
    with Graph(settings) as graph:
        async with LLM(settings, Usage()) as llm:
            t0 = time.perf_counter()
            reports, ratings = await select_reports(graph, llm, settings, question, trace)
            seconds = round(time.perf_counter() - t0, 1)
    sel = trace.selection
    enc = settings.encoding
    tokens = sum(count(r.full_content, enc) for r in reports)
    return {
        "question": question, "seconds": seconds,
        "threshold": settings.method(DynamicSettings).threshold,
        "use_summary": settings.method(DynamicSettings).use_summary,
        "rated": sel.rated if sel else 0, "reused": getattr(sel, "reused", None),
        "relevant": len(reports), "failures": sel.failures if sel else 0,
        "rating_calls": sel.cost.calls if sel else 0,
        "rating_prompt_tokens": sel.cost.prompt_tokens if sel else 0,
        "rating_completion_tokens": sel.cost.completion_tokens if sel else 0,
        "ratings": Counter(str(v) for v in ratings.values()),
        "selected_by_level": Counter(str(r.level) for r in reports),
        "selected_report_tokens": tokens,
        "map_context_tokens": settings.query.map_context_tokens,
        "map_batches_at_least": -(-tokens // settings.query.map_context_tokens),
        "notes": trace.notes,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", required=True, help="bench-results/dynamic-selection-NAME.json")
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--fakellm", action="store_true",
                    help="fakellm (every report relevant) instead of the environment's LLM")
    args = ap.parse_args()
    if args.fakellm:
        with fakellm() as url:
            settings = Settings(openai_base_url=url, openai_model="bench", llm_cache=False,
                                llm_concurrency=16)
            result = asyncio.run(measure(settings, args.question))
    else:
        settings = Settings()
        result = asyncio.run(measure(settings, args.question))
    result.update(name=args.name, model=settings.llm.model, fakellm=args.fakellm,
                  machine=machine())
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"dynamic-selection-{args.name}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "notes"}, indent=2))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
