"""Benchmark (not a test): what a model's community report adds over the report composed from
the descriptions, by community size (issue 18, item 2: ``REPORT_COMPOSE_MAX_ENTITIES``).

On a graph indexed already (the settings' Neo4j: NEO4J_BOLT_PORT etc., e.g. the sample corpus
ingested with the model measured), up to --per-size general communities of each size 1 ..
--max-size entities (one per distinct membership, lowest level first): the report the ingest
would ask the model for (its prompt, context and schema; LLM cache off) against the report
composed from the same descriptions (``index/report_reuse.composed_props``). Per community:

* ``description_words``: the distinct content words (over 3 letters, not stop words) of the
  names and descriptions of its entities, relationships and claims - all the composed report
  says;
* ``report_words``: the same of the model's report (title, summary, findings);
* ``added``: report words not among the description words (what the model brings: synthesis
  and framing, or invention), with the words themselves to read; ``kept``: the share of the
  description words the model's report keeps (what composing keeps is 1.0 by construction);
* tokens of both reports, and the call's prompt / completion tokens and seconds.

    NEO4J_BOLT_PORT=7710 LLM_PORT=8090 ... .venv/bin/python -m benchmarks.cost.compose_gain \\
        --local --name qwen2.5-coder-1.5b [--max-size 6 --per-size 3]

Writes bench-results/compose-gain-<name>.json. Nothing is written to the graph.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, endpoint_args, endpoint_values, machine, with_llm
from neo4j_retag import tokens
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.errors import LLMError
from neo4j_retag.index.report_reuse import composed_props
from neo4j_retag.index.reports import mixed_context, write_report
from neo4j_retag.llm import LLM, Usage

STOP = frozenset({
    "about", "above", "after", "again", "against", "also", "among", "because", "been",
    "before", "being", "below", "between", "both", "could", "does", "doing", "down",
    "during", "each", "from", "further", "have", "having", "here", "into", "itself",
    "just", "more", "most", "must", "only", "other", "over", "same", "should", "some",
    "such", "than", "that", "their", "theirs", "them", "then", "there", "these", "they",
    "this", "those", "through", "under", "until", "very", "were", "what", "when", "where",
    "which", "while", "whom", "with", "would", "your", "yours", "none", "unknown",
    "description", "descriptions", "entity", "entities", "relationship", "relationships",
    "claim", "claims", "community", "report"})


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z'-]+", text.casefold())
            if len(w) > 3 and w not in STOP}


def description_text(elements: dict[str, Any]) -> str:
    parts = [f"{e['name']} {e['description'] or ''}" for e in elements["entities"]]
    parts += [f"{r['source']} {r['target']} {r['description'] or ''}"
              for r in elements["relationships"]]
    parts += [f"{c['entity']} {c['type'] or ''} {c['description'] or ''}"
              for c in elements["claims"]]
    return "\n".join(parts)


def pick(graph: Graph, max_size: int, per_size: int) -> list[int]:
    rows = graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general'}) WHERE c.size <= $max "
        "RETURN c.id AS id, c.size AS size, c.membership AS membership "
        "ORDER BY c.size, c.level, c.id", max=max_size, database_=graph.database).records
    chosen: dict[int, list[int]] = {}
    seen: set[str] = set()
    for r in rows:
        if r["membership"] in seen or len(chosen.setdefault(r["size"], [])) >= per_size:
            continue
        seen.add(r["membership"])
        chosen[r["size"]].append(r["id"])
    return [i for size in sorted(chosen) for i in chosen[size]]


async def measure(llm: LLM, settings: Settings, graph: Graph, ids: list[int],
                  usage: Usage) -> list[dict[str, Any]]:
    enc = settings.encoding
    elements = {r["id"]: r for r in graph.run("index/community_elements", ids=ids)}
    out = []
    for cid in ids:
        el = elements[cid]
        composed = composed_props(el)
        desc = words(description_text(el))
        context = mixed_context(el, [], settings.index.report_context_tokens, enc)
        before = usage.stages.get("report")
        b = (before.prompt_tokens, before.completion_tokens) if before else (0, 0)
        t0 = time.perf_counter()
        row: dict[str, Any] = {"community": cid, "size": len(el["entities"]),
                               "relationships": len(el["relationships"]),
                               "claims": len(el["claims"]),
                               "description_words": len(desc),
                               "composed_tokens": tokens.count(composed["full_content"], enc)}
        try:
            report = await write_report(llm, settings, context)
        except LLMError as err:
            out.append({**row, "failed": err.reason})
            continue
        text = report.markdown()
        got = words(" ".join([report.title, report.summary]
                             + [f"{f.summary} {f.explanation}" for f in report.findings]))
        s = usage.stages["report"]
        out.append({**row, "report_words": len(got), "added": len(got - desc),
                    "added_share": round(len(got - desc) / len(got), 3) if got else 0.0,
                    "kept": round(len(got & desc) / len(desc), 3) if desc else 1.0,
                    "added_words": sorted(got - desc),
                    "report_tokens": tokens.count(text, enc),
                    "prompt_tokens": s.prompt_tokens - b[0],
                    "completion_tokens": s.completion_tokens - b[1],
                    "seconds": round(time.perf_counter() - t0, 1),
                    "report": text, "composed": composed["full_content"]})
    return out


def by_size(rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    sizes: dict[int, dict[str, Any]] = {}
    for size in sorted({r["size"] for r in rows}):
        ok = [r for r in rows if r["size"] == size and "failed" not in r]
        n = len(ok) or 1
        sizes[size] = {
            "communities": len([r for r in rows if r["size"] == size]), "reported": len(ok),
            "mean_added_share": round(sum(r["added_share"] for r in ok) / n, 3),
            "mean_added_words": round(sum(r["added"] for r in ok) / n, 1),
            "mean_kept": round(sum(r["kept"] for r in ok) / n, 3),
            "mean_composed_tokens": round(sum(r["composed_tokens"] for r in ok) / n),
            "mean_report_tokens": round(sum(r["report_tokens"] for r in ok) / n),
            "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in ok) / n),
            "mean_seconds": round(sum(r["seconds"] for r in ok) / n, 1)}
    return sizes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    endpoint_args(ap)
    ap.add_argument("--max-size", type=int, default=6)
    ap.add_argument("--per-size", type=int, default=3)
    ap.add_argument("--name", required=True)
    args = ap.parse_args()
    values = endpoint_values(args)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(llm_cache_dir=Path(tmp), **values)
        graph = Graph(settings)
        try:
            ids = pick(graph, args.max_size, args.per_size)
            usage = Usage()
            rows = with_llm(settings, usage,
                            lambda llm: measure(llm, settings, graph, ids, usage))
        finally:
            graph.close()
    out = {"model": settings.llm.model, "endpoint": settings.llm.endpoint,
           "max_size": args.max_size, "per_size": args.per_size,
           "compose_max_entities": settings.index.report_compose_max_entities,
           "by_size": by_size(rows), "communities": rows, "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"compose-gain-{args.name}.json"
    path.write_text(json.dumps(out, indent=2, ensure_ascii=False))
    print(json.dumps(out["by_size"], indent=2))
    print("wrote", path)


if __name__ == "__main__":
    main()
