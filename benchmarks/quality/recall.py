"""Benchmark (not a test): Recall@p of ReTAG's retrieval of community reports - BM25, vector
and hybrid (reciprocal rank fusion; issue 19) - with and without LLM keyword expansion (Kim et
al. 2025, Fig. 5), on a graph built from BBC News - or on a real Microsoft GraphRAG index
(``--graphrag-index DIR``, imported into the benchmark graph first, its reports embedded),
where it also measures the prompt-token ratio retag/global per level (BM25 retrieval).

    .venv/bin/python -m benchmarks.quality.recall [--level 1] [--judge category|llm] \\
        [--keywords-llm URL]
    .venv/bin/python -m benchmarks.quality.recall \
        --graphrag-index ../shared/indexes/christmas-carol-graphrag [--labels FILE] \
        [--embed-url URL] [--keywords-llm URL] [--no-ratio]

On the GraphRAG index the relevant reports come from ``--labels`` (default
benchmarks/quality/recall_labels.json: labelled once, by the model and method the file
names, so that runs compare like with like; ``--judge llm`` judges again instead). Vectors come from
``--embed-url`` (default: the local model in process, EMBEDDING_BASE_URL=local), model
all-minilm-l6-v2; the question alone is embedded (keywords feed BM25).

Relevant reports per question: ``category`` (default) = the reports whose entities mostly come
from articles of the question's BBC category (ground truth from the corpus layout, free);
``llm`` = an LLM judges every report at the level (prompts/query/judge_relevance.txt; the paper's
way, #questions x #reports calls - use a capable endpoint via OPENAI_BASE_URL).
Keywords come from ``--keywords-llm`` (an OpenAI-compatible base URL; default: the local
SmolLM2 server when it runs, else fakellm); judgements from ``--judge-llm`` (default: fakellm,
which judges at random - a capable endpoint gives the paper's measurement). The graph is the
benchmark graph (ingest_bbc.py), or the imported GraphRAG index (the graph is emptied first).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from pydantic import BaseModel

from benchmarks.common import RESULTS, ROOT, SHARED, bench_settings, fakellm, ingest, with_llm
from neo4j_retag.db import Graph
from neo4j_retag.errors import ConfigError, LLMError
from neo4j_retag.index.embed import embed_if_enabled
from neo4j_retag.llm import LLM, Usage, embed_files
from neo4j_retag.llm.embeddings import Embedder
from neo4j_retag.model import GENERAL, Query, Trace
from neo4j_retag.prompts import render
from neo4j_retag.query import METHODS
from neo4j_retag.query.retag import RetagOptions
from neo4j_retag.query.retrieval import (
    expand_keywords,
    fuse_reports,
    levels,
    retrieve,
    retrieve_vector,
)
from neo4j_retag.services import llm_local
from neo4j_retag.stages import Stage
from neo4j_retag.tokens import truncate

QUESTIONS = {
    "business": "What were the major business and economic developments?",
    "entertainment": "What happened in film, music and television?",
    "politics": "What were the main political debates and who took part in them?",
    "sport": "Which sporting events and athletes were in the news, and why?",
    "tech": "How did technology companies and their products feature in the news?",
}
CAROL_QUESTIONS = {  # global questions over A Christmas Carol (the GraphRAG index's book)
    "ghosts": "What role do the spirits and ghosts play in Scrooge's transformation?",
    "family": "How is family life, such as the Cratchits', portrayed in the story?",
    "money": "What does the story say about money, business and charity?",
    "christmas": "How is Christmas celebrated by the different characters?",
    "publishing": "What is said about the book's publication, copyright and distribution?",
}
P_VALUES = (10, 25, 50, 100, 200)
SMALL_P_VALUES = (5, 10, 20, 40)  # a single book's index has tens of reports per level


class Judgement(BaseModel):
    relevant: bool = False


def llm_judged(graph: Graph, settings, level: int, questions: dict[str, str],
               report_tokens: int | None = None) -> dict[str, set[int]]:
    """Relevant report ids per question, judged by the LLM of ``settings`` (the paper's way:
    every report at the level, for every question). A failed judgement counts as not
    relevant."""
    reports = graph.run("query/reports_at_level", scope=GENERAL, level=level)

    async def judge(llm: LLM, q: str, r: dict) -> bool:
        text = r["full_content"] or ""
        if report_tokens:
            text = truncate(text, report_tokens, settings.encoding)
        msgs = render("query/judge_relevance", question=q, report=text)
        try:
            return (await llm.structured(msgs, Judgement, stage=Stage.JUDGE,
                                         max_tokens=20)).relevant
        except LLMError:
            return False

    async def all_(llm: LLM) -> dict[str, set[int]]:
        out = {}
        for cat, q in questions.items():
            flags = await asyncio.gather(*(judge(llm, q, r) for r in reports))
            out[cat] = {r["id"] for r, f in zip(reports, flags, strict=True) if f}
        return out

    return with_llm(settings, Usage(), all_)


def token_ratio(graph: Graph, settings, questions: dict[str, str],
                top_ps: tuple[int, ...]) -> list[dict]:
    """Prompt tokens of retag (at each top-p) and of global, per level, summed over the
    questions (ReTAG Tables 5-7): the ratio retag/global is what ReTAG saves."""
    rows = []
    for level in levels(graph, GENERAL):
        def tokens(method: str, top_p: int | None = None, level: int = level) -> int:
            usage = Usage()
            for q in questions.values():
                query = Query(question=q, level=level, options=RetagOptions(top_p=top_p))
                with_llm(settings, usage, lambda llm, query=query: METHODS[method](
                    graph, llm, settings, query))
            return usage.total.prompt_tokens
        glob = tokens("global")
        row = {"level": level, "reports": len(graph.run(
            "query/reports_at_level", scope=GENERAL, level=level)),
               "global_prompt_tokens": glob}
        for p in top_ps:
            row[f"retag@{p}_prompt_tokens"] = t = tokens("retag", p)
            row[f"ratio@{p}"] = round(t / glob, 3) if glob else None
        rows.append(row)
    return rows


def labelled(path) -> tuple[dict[str, str], dict[str, set[int]], int]:
    """Questions, relevant report ids per question and the level, from a labels file."""
    data = json.loads(Path(path).read_text())
    qs = data["questions"]
    return ({k: v["question"] for k, v in qs.items()},
            {k: set(v["relevant"]) for k, v in qs.items()}, data["level"])


def embed_settings(settings, url: str | None):
    """``settings`` with embeddings at ``url`` (default: the local model in process)."""
    return settings.model_copy(update={"embeddings": True, "embedding_base_url": url or "local",
                                       "embedding_model": embed_files.ALIAS})


def rankings(graph: Graph, settings, level: int, question: str, keywords: list[str],
             vector: list[float], n: int) -> dict[str, list[int]]:
    """Report ids best first by bm25, vector and hybrid, for the question alone and with the
    keywords (vector embeds the question alone: the same in both)."""
    near = retrieve_vector(graph, GENERAL, level, vector, n)
    out = {}
    for mode, words in (("question", []), ("question+keywords", keywords)):
        bm25 = retrieve(graph, GENERAL, level, question, words, n)
        out[f"bm25 {mode}"] = [r.id for r in bm25]
        out[f"vector {mode}"] = [r.id for r in near]
        out[f"hybrid {mode}"] = [r.id for r in fuse_reports(bm25, near)[:n]]
    return out


def import_index(graph: Graph, settings, folder) -> dict:
    """The GraphRAG output folder, imported into the emptied benchmark graph."""
    from benchmarks.common import wipe
    from neo4j_retag.interop.graphrag.importer import import_graphrag
    wipe(graph)
    report = import_graphrag(graph, settings, folder)
    return {"folder": str(folder), "counts": report.counts, "levels": report.levels}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--judge", choices=["category", "llm", "labels"], default=None)
    ap.add_argument("--keywords-llm", default=None)
    ap.add_argument("--graphrag-index", default=None, help="a GraphRAG output folder to import")
    ap.add_argument("--labels", default=str(ROOT / "benchmarks" / "recall_labels.json"),
                    help="relevance labels of the GraphRAG index (judge labels)")
    ap.add_argument("--embed-url", default=None, help="embeddings endpoint (default: the "
                    "local model in process)")
    ap.add_argument("--no-ratio", action="store_true", help="skip the retag/global token ratio")
    ap.add_argument("--judge-llm", default=None, help="base URL judging relevance (llm judge)")
    ap.add_argument("--report-tokens", type=int, default=None,
                    help="truncate reports to this many tokens for the judge (small models)")
    args = ap.parse_args()
    judge = args.judge or ("labels" if args.graphrag_index else "category")
    questions, p_values, imported, ratios, embedded = QUESTIONS, P_VALUES, None, None, None
    with fakellm() as url:
        settings = bench_settings(url, retrieval="bm25", embeddings=False)
        esettings = embed_settings(settings, args.embed_url)
        judge_settings = settings.model_copy(update={"openai_base_url": args.judge_llm or url})
        kw_url = args.keywords_llm
        if kw_url is None:
            local = llm_local.status(settings)
            kw_url = local["base_url"] if local["ready"] else url
        kw_settings = settings.model_copy(update={"openai_base_url": kw_url,
                                                  "llm_concurrency": 1})
        with Graph(settings) as graph:
            if args.graphrag_index:
                imported = import_index(graph, settings, args.graphrag_index)
                questions, p_values = CAROL_QUESTIONS, SMALL_P_VALUES
            elif not levels(graph, GENERAL):
                ingest(settings, SHARED / "corpora" / "bbc-news")
            embedded = with_llm(esettings, Usage(), lambda llm: embed_if_enabled(
                graph, llm, esettings)).model_dump()
            if judge == "labels":
                questions, relevant, args.level = labelled(args.labels)
            elif judge == "category":
                cats = graph.run("query/report_categories", level=args.level)
                relevant = {c: {r["id"] for r in cats if r["category"] == c} for c in QUESTIONS}
            else:
                relevant = llm_judged(graph, judge_settings, args.level, questions,
                                      args.report_tokens)
            if args.graphrag_index and not args.no_ratio:
                ratios = token_ratio(graph, settings, questions, (5, 10, 20))

            async def question_vectors(llm: LLM) -> list[list[float]]:
                return await Embedder.of(llm).embed(list(questions.values()))
            vectors = with_llm(esettings, Usage(), question_vectors)
            results, missing = [], {}
            for (cat, q), vector in zip(questions.items(), vectors, strict=True):
                corpus = ("A Christmas Carol by Charles Dickens" if args.graphrag_index
                          else "BBC News articles, 2004-2005")
                try:
                    kws = with_llm(kw_settings, Usage(), lambda llm, q=q, c=corpus:
                                   expand_keywords(llm, kw_settings, q, c, Trace()))
                except ConfigError as err:  # the keyword model went away: said in the row
                    kws, missing[cat] = [], str(err)
                row = {"category": cat, "question": q, "keywords": kws,
                       "relevant": len(relevant[cat])}
                ranked = rankings(graph, settings, args.level, q, kws, vector, max(p_values))
                for name, got in ranked.items():
                    for p in p_values:
                        hit = len(set(got[:p]) & relevant[cat])
                        row[f"recall@{p} {name}"] = round(hit / max(len(relevant[cat]), 1), 3)
                results.append(row)
    summary = {k: round(sum(r[k] for r in results) / len(results), 3)
               for k in results[0] if k.startswith("recall@")}
    out = {"level": args.level, "judge": judge, "keywords_llm": kw_url,
           "judge_llm": args.judge_llm or "fakellm", "embedding": {
               "url": esettings.embedding.endpoint(esettings.llm),
               "model": esettings.embedding.model, "embedded": embedded},
           "mean": summary, "per_question": results}
    if judge == "labels":
        out["labels"] = str(args.labels)
    if missing:
        out["keywords_failed"] = missing
    if imported:
        out |= {"graphrag_index": imported, "token_ratio_retag_global": ratios}
    RESULTS.mkdir(exist_ok=True)
    name = "recall-graphrag.json" if imported else "recall.json"
    (RESULTS / name).write_text(json.dumps(out, indent=2, default=str))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
