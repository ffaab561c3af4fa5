"""`--method auto`'s decision measured (not a test): the 20 hand-written questions of
``auto_questions.json`` (10 global, 10 specific, over examples/sample-corpus) classified by
the LLM at ``--llm`` (default: the local server, the embedded SmolLM2-135M) with the corpus
description and topics written in that file; a confusion table, accuracy and seconds per call.

    .venv/bin/python -m benchmarks.quality.auto_route [--llm URL] [--model NAME] [--label L]

Any model works: serve a GGUF with `LLM_MODEL_PATH=... neo4j-retag llm start` and run again
with ``--label qwen2.5-coder-1.5b``. No Neo4j is needed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.common import RESULTS, machine
from neo4j_retag.config import Settings
from neo4j_retag.llm import Usage, run_with_llm
from neo4j_retag.model import Trace
from neo4j_retag.query.auto import method_for, route

QUESTIONS = Path(__file__).with_name("auto_questions.json")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", default=None, help="OpenAI-compatible base URL (default: local)")
    ap.add_argument("--model", default=None, help="model name at that endpoint")
    ap.add_argument("--label", default="smollm2-135m")
    args = ap.parse_args()
    data = json.loads(QUESTIONS.read_text())
    extra = {"openai_base_url": args.llm} if args.llm else {}
    if args.model:
        extra["openai_model"] = args.model
    settings = Settings(llm_cache=False, llm_timeout=900.0, llm_concurrency=1, **extra)
    topics = [{"name": t["name"], "description": t["description"]} for t in data["topics"]]
    rows = []
    for item in data["questions"]:
        usage, trace = Usage(), Trace(method="auto")
        t0 = time.perf_counter()
        kind, reason = run_with_llm(settings, lambda llm, q=item["question"], t=trace: route(
            llm, settings, q, topics, data["corpus_description"], t), usage)
        rows.append({"question": item["question"], "label": item["kind"], "chosen": kind,
                     "method": method_for(kind, True), "reason": reason, "notes": trace.notes,
                     "seconds": round(time.perf_counter() - t0, 2),
                     "prompt_tokens": usage.total.prompt_tokens})
        print(json.dumps(rows[-1]), flush=True)
    confusion = {lab: {ch: sum(1 for r in rows if r["label"] == lab and r["chosen"] == ch)
                       for ch in ("global", "specific")} for lab in ("global", "specific")}
    out = {"label": args.label, "model": settings.llm.model, "base_url": settings.llm.endpoint,
           "confusion": confusion, "failed_calls": sum(1 for r in rows if r["notes"]),
           "accuracy": sum(r["label"] == r["chosen"] for r in rows) / len(rows),
           "seconds_per_call": round(sum(r["seconds"] for r in rows) / len(rows), 2),
           "machine": machine(), "rows": rows}
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"auto-route-{args.label}.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
