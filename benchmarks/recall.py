"""Benchmark (not a test): Recall@p of ReTAG's BM25 retrieval of community reports, with and
without LLM keyword expansion (Kim et al. 2025, Fig. 5), on a graph built from BBC News.

    .venv/bin/python benchmarks/recall.py [--level 1] [--judge category|llm] [--keywords-llm URL]

Relevant reports per question: ``category`` (default) = the reports whose entities mostly come
from articles of the question's BBC category (ground truth from the corpus layout, free);
``llm`` = an LLM judges every report at the level (prompts/judge_relevance.txt; the paper's
way, #questions x #reports calls - use a capable endpoint via OPENAI_BASE_URL).
Keywords come from ``--keywords-llm`` (an OpenAI-compatible base URL; default: the local
SmolLM2 server when it runs, else fakellm). The graph is the benchmark graph (ingest_bbc.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json

from common import RESULTS, SHARED, bench_settings, fakellm, with_llm
from ingest_bbc import ingest
from pydantic import BaseModel

from neo4j_retag.db import Graph
from neo4j_retag.errors import LLMError
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import GENERAL, Trace
from neo4j_retag.prompts import render
from neo4j_retag.query.retrieval import expand_keywords, levels, retrieve
from neo4j_retag.server import llm_local

QUESTIONS = {
    "business": "What were the major business and economic developments?",
    "entertainment": "What happened in film, music and television?",
    "politics": "What were the main political debates and who took part in them?",
    "sport": "Which sporting events and athletes were in the news, and why?",
    "tech": "How did technology companies and their products feature in the news?",
}
P_VALUES = (10, 25, 50, 100, 200)


class Judgement(BaseModel):
    relevant: bool = False


def llm_judged(graph: Graph, settings, level: int) -> dict[str, set[int]]:
    reports = graph.run("query/reports_at_level", scope=GENERAL, level=level)

    async def judge(llm: LLM, q: str, r: dict) -> bool:
        msgs = render(settings.prompts_dir, "query/judge_relevance", question=q,
                      report=r["full_content"] or "")
        try:
            return (await llm.structured(msgs, Judgement, stage="judge", max_tokens=20)).relevant
        except LLMError:
            return False

    async def all_(llm: LLM) -> dict[str, set[int]]:
        out = {}
        for cat, q in QUESTIONS.items():
            flags = await asyncio.gather(*(judge(llm, q, r) for r in reports))
            out[cat] = {r["id"] for r, f in zip(reports, flags, strict=True) if f}
        return out

    return with_llm(settings, Usage(), all_)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--judge", choices=["category", "llm"], default="category")
    ap.add_argument("--keywords-llm", default=None)
    args = ap.parse_args()
    with fakellm() as url:
        settings = bench_settings(url)
        kw_url = args.keywords_llm
        if kw_url is None:
            local = llm_local.status(settings)
            kw_url = local["base_url"] if local["ready"] else url
        kw_settings = settings.model_copy(update={"openai_base_url": kw_url,
                                                  "llm_concurrency": 1})
        with Graph(settings) as graph:
            if not levels(graph, GENERAL):
                ingest(settings, SHARED / "corpora" / "bbc-news")
            if args.judge == "category":
                cats = graph.run("query/report_categories", level=args.level)
                relevant = {c: {r["id"] for r in cats if r["category"] == c} for c in QUESTIONS}
            else:
                relevant = llm_judged(graph, settings, args.level)
            results = []
            for cat, q in QUESTIONS.items():
                kws = with_llm(kw_settings, Usage(), lambda llm, q=q: expand_keywords(
                    llm, kw_settings, q, "BBC News articles, 2004-2005", Trace()))
                row = {"category": cat, "question": q, "keywords": kws,
                       "relevant": len(relevant[cat])}
                for mode, words in (("question", []), ("question+keywords", kws)):
                    got = [r.id for r in retrieve(graph, GENERAL, args.level, q, words,
                                                     max(P_VALUES))]
                    for p in P_VALUES:
                        hit = len(set(got[:p]) & relevant[cat])
                        row[f"recall@{p} {mode}"] = round(hit / max(len(relevant[cat]), 1), 3)
                results.append(row)
    summary = {k: round(sum(r[k] for r in results) / len(results), 3)
               for k in results[0] if k.startswith("recall@")}
    out = {"level": args.level, "judge": args.judge, "keywords_llm": kw_url,
           "mean": summary, "per_question": results}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "recall.json").write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
