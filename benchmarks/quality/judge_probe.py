"""Probe (not a test): what can a small local model judge? A handful of hand-labelled
(question, community report) pairs from the imported GraphRAG index of A Christmas Carol
(run ``recall.py --graphrag-index ...`` first), judged with the paper's relevance prompt
(``query/judge_relevance``, yes/no) and the dynamic-selection rating prompt
(``query/rate_relevance``, 0-5) by the LLM at ``--llm`` (default: the local SmolLM2 server).

    .venv/bin/python -m benchmarks.quality.judge_probe [--llm URL] [--report-tokens 300]

Kept tiny on purpose: the shared 135M server answers at ~25 tokens/s.
"""

from __future__ import annotations

import argparse
import json

from benchmarks.common import RESULTS, bench_settings, with_llm
from neo4j_retag.db import Graph
from neo4j_retag.errors import LLMError
from neo4j_retag.llm import Usage
from neo4j_retag.model import Trace
from neo4j_retag.prompts import render
from neo4j_retag.query.common import reports_at_level
from neo4j_retag.query.dynamic import rate
from neo4j_retag.stages import Stage
from neo4j_retag.tokens import truncate

GHOSTS = "What role do the spirits and ghosts play in Scrooge's transformation?"
FAMILY = "How is family life, such as the Cratchits', portrayed in the story?"
PUBLISHING = "What is said about the book's publication, copyright and distribution?"
# (question, GraphRAG community number at level 1, relevant?) - labelled by hand from titles
PAIRS = [(GHOSTS, 56, True), (GHOSTS, 41, False), (FAMILY, 44, True), (FAMILY, 58, False),
         (PUBLISHING, 40, True), (PUBLISHING, 59, False)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", default="http://127.0.0.1:8088/v1")
    ap.add_argument("--report-tokens", type=int, default=300)
    args = ap.parse_args()
    # the local server's settings: grammar-enforced JSON with small bounds, one call at a time
    settings = bench_settings(args.llm).model_copy(update={
        "llm_concurrency": 1, "openai_model": "smollm2", "llm_timeout": 900.0,
        "llm_max_retries": 1, "llm_json_mode": "json_object", "llm_schema_max_items": 6,
        "llm_schema_max_chars": 150})
    from benchmarks.quality.recall import Judgement
    with Graph(settings) as graph:
        reports = {r.id: r for r in reports_at_level(graph, "general", 1)}
    rows = []
    for q, rid, label in PAIRS:
        r = reports[rid].model_copy(update={"full_content": truncate(
            reports[rid].full_content, args.report_tokens, settings.encoding)})

        async def judge(llm, q=q, r=r):
            msgs = render("query/judge_relevance", question=q,
                          report=r.full_content)
            try:
                yes = (await llm.structured(msgs, Judgement, stage=Stage.JUDGE,
                                            max_tokens=20)).relevant
            except LLMError as err:
                yes = f"failed: {err}"
            return yes, await rate(llm, settings, q, r, Trace())

        usage = Usage()
        relevant, rating = with_llm(settings, usage, judge)
        rows.append({"question": q, "report": rid, "title": r.title, "label": label,
                     "judged_relevant": relevant, "rating_0_5": rating,
                     "seconds": round(usage.total.seconds, 1)})
        print(json.dumps(rows[-1]), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "judge-probe.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
