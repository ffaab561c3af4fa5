"""Benchmark (not a test): today's `ingest --estimate` (the ``remote`` profile, uncalibrated)
against what the last `benchmarks/cost/llm_cost.py` runs spent, cache off (issue 18: within ±25 %).

No LLM call, no Neo4j: the same BBC articles llm_cost.py indexed are chunked and estimated
again, so a profile change is checked against measured runs in seconds. The llm_cost run the
profile was fitted to (BBC-200) is in-sample; the others are not.

    .venv/bin/python -m benchmarks.cost.estimate_check [--articles 200 --articles 20]

Writes bench-results/estimate-check-bbc.json: per corpus size the estimated and actual chat
calls / prompt / completion tokens (embedding requests apart), the error (estimate - actual)
/ actual, and the estimate per stage.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, machine
from benchmarks.cost.llm_cost import copy_articles
from neo4j_retag.config import Settings
from neo4j_retag.index.estimate import estimate_ingest
from neo4j_retag.index.estimate_profile import FIGURES


def check(n: int) -> dict[str, Any]:
    actual = json.loads((RESULTS / f"llm_cost-{n}.json").read_text())["ours"]["cache_off"]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / f"bbc-{n}"
        copy_articles(corpus, n)
        settings = Settings(openai_base_url="http://127.0.0.1:9/v1", openai_model="bench",
                            estimate_profile="remote")
        est = estimate_ingest(settings, [corpus])
    chat = {k: v for k, v in est.stages.items() if k != "embed"}
    total = {f: round(sum(getattr(v, f) for v in chat.values())) for f in FIGURES}
    act = {"calls": actual["chat_calls"], "prompt_tokens": actual["prompt_tokens"],
           "completion_tokens": actual["completion_tokens"]}
    emb = est.stages.get("embed")
    return {"articles": n, "estimate": total, "actual": act,
            "error": {f: round((total[f] - act[f]) / act[f], 3) for f in FIGURES},
            "embed": {"estimate": {"requests": round(emb.calls) if emb else 0,
                                   "tokens": round(emb.prompt_tokens) if emb else 0},
                      "actual": {"requests": actual.get("embedding_requests"),
                                 "tokens": actual.get("embedding_tokens")}},
            "stages": {k: {f: round(getattr(v, f)) for f in FIGURES} for k, v in chat.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=int, action="append")
    args = ap.parse_args()
    rows = [check(n) for n in args.articles or [200, 20]]
    for r in rows:
        print(r["articles"], "estimate", r["estimate"], "actual", r["actual"], "error",
              r["error"])
    path = RESULTS / "estimate-check-bbc.json"
    path.write_text(json.dumps({"profile": "remote", "runs": rows, "machine": machine()},
                               indent=2))
    print("wrote", path)


if __name__ == "__main__":
    main()
