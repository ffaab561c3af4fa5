"""Benchmark (not a test): what gleaning and batched topic assignment carry (issue 18, item 5).

On the first N text units of a corpus (BBC: round-robin over its five categories, so the
units differ in subject; any other folder: its documents in name order), against any
OpenAI-compatible endpoint, LLM cache off:

1. Gleaning: the first extraction (the ingest's prompt and schema, claims as configured),
   then up to --glean gleaning rounds from that same reply once per --history: ``names`` (what
   index/extract.py sends: the conversation with only the names, types and endpoints found,
   ``found_turn``) and ``full`` (the whole replies again, as GraphRAG re-sends them); a reply
   with nothing, or one that fails, ends them - the YES/NO continue question between rounds
   is not asked: every round the model allows is measured. Per round: the distinct entities
   (by key) and relationships (by endpoint keys) it found that no earlier call of the unit
   found, and its prompt / completion tokens.
2. Topic assignment: the same topics, the same text units, labelled once per text unit
   (one per call, the index's) and --batch per call; per unit the label sets' agreement (exact,
   Jaccard) and the calls and prompt tokens of each. For BBC the topics are its five
   categories, so each label set is also checked against the article's own category.
   --topics FILE (JSON [{"name", "description"}]) for another corpus (default for a
   non-BBC folder: the topics a first `ingest` mined are not needed - a fixed list keeps the
   comparison about batching alone).

    # the embedded model (the local server on LLM_PORT, default 8088)
    .venv/bin/python -m benchmarks.cost.glean_assign_gain --local --units 6 --name smollm2
    # Qwen2.5-Coder-1.5B served by `neo4j-retag llm start` with LLM_MODEL_PATH=... (local too)
    .venv/bin/python -m benchmarks.cost.glean_assign_gain --local --units 6 \\
        --name qwen2.5-coder-1.5b
    # any endpoint
    .venv/bin/python -m benchmarks.cost.glean_assign_gain --base-url http://127.0.0.1:8204/v1 \\
        --model fake --units 6 --name fakellm

Writes bench-results/glean-assign-gain-<name>.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, SHARED, endpoint_args, endpoint_values, machine, with_llm
from neo4j_retag.config import Settings
from neo4j_retag.errors import LLMError
from neo4j_retag.index.documents import Document, read_path
from neo4j_retag.index.extract import found_turn, messages
from neo4j_retag.index.extract_records import GraphClaimsExtraction, GraphExtraction
from neo4j_retag.index.pipeline import text_units
from neo4j_retag.index.topic_assign import assign_text_units
from neo4j_retag.index.topic_names import Topic
from neo4j_retag.keys import entity_key
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import TextUnit, no_progress
from neo4j_retag.prompts import render
from neo4j_retag.stages import Stage

BBC = SHARED / "corpora" / "bbc-news"
BBC_TOPICS = {
    "business": Topic(name="Business and economy", description="companies, markets, trade, "
                      "jobs and the economy"),
    "entertainment": Topic(name="Film, music and TV", description="films, music, television, "
                           "awards and celebrities"),
    "politics": Topic(name="Politics and government", description="parties, elections, "
                      "ministers, parliament and policy"),
    "sport": Topic(name="Sport", description="football, rugby, tennis, athletics and other "
                   "competitions"),
    "tech": Topic(name="Technology", description="computers, the internet, phones, games "
                  "and gadgets"),
}


def units_of(corpus: Path, n: int, settings: Settings) -> list[tuple[TextUnit, str | None]]:
    """The first ``n`` text units, with the BBC category of each (None elsewhere)."""
    if corpus.resolve() == BBC.resolve():
        cats = sorted(d for d in corpus.iterdir() if d.is_dir())
        files = [sorted(d.glob("*.txt")) for d in cats]
        order = [(f[i], d.name) for i in range(n) for d, f in zip(cats, files, strict=True)
                 if i < len(f)]
    else:
        order = [(p, None) for p in sorted(corpus.rglob("*")) if p.is_file()]
    out: list[tuple[TextUnit, str | None]] = []
    for path, cat in order:
        for doc in read_path(path):
            if isinstance(doc, Document):
                out += [(u, cat) for u in text_units(doc, settings)]
        if len(out) >= n:
            break
    return out[:n]


def _keys(result: GraphExtraction) -> tuple[set[str], set[tuple[str, str]]]:
    ents = {entity_key(e.name) for e in result.entities if e.name.strip()}
    rels = {tuple(sorted((entity_key(r.source), entity_key(r.target))))
            for r in result.relationships if r.source.strip() and r.target.strip()}
    return ents, rels  # type: ignore[return-value]


async def glean_gain(llm: LLM, settings: Settings, unit: TextUnit, rounds: int,
                     usage: Usage, histories: list[str]) -> dict[str, Any]:
    """The first extraction of one text unit, then its gleaning rounds once per history
    (``names``: what index/extract.py sends, the names found; ``full``: the whole replies, as
    GraphRAG re-sends them), each from the same first reply: what each call found new."""
    claims = settings.index.extract_claims and settings.index.claims_call == "combined"
    model = GraphClaimsExtraction if claims else GraphExtraction
    msgs = messages(settings, unit.text, claims)

    def mark(kind: str) -> tuple[int, int, int]:
        s = usage.stages.get(kind)
        return (s.prompt_tokens, s.completion_tokens, s.calls) if s else (0, 0, 0)

    def record(calls: list[dict[str, Any]], seen: tuple[set[Any], set[Any]], kind: str,
               result: GraphExtraction | None, before: tuple[int, int, int]) -> None:
        s = usage.stages.get(kind)
        e, r = _keys(result) if result else (set(), set())
        calls.append({"call": kind, "entities": len(e), "relationships": len(r),
                      "new_entities": len(e - seen[0]), "new_relationships": len(r - seen[1]),
                      "prompt_tokens": (s.prompt_tokens if s else 0) - before[0],
                      "completion_tokens": (s.completion_tokens if s else 0) - before[1],
                      "calls": (s.calls if s else 0) - before[2],
                      "failed": result is None})
        seen[0].update(e)
        seen[1].update(r)

    first_calls: list[dict[str, Any]] = []
    seen0: tuple[set[Any], set[Any]] = (set(), set())
    before = mark("extract")
    try:
        first = await llm.structured(msgs, model, stage=Stage.EXTRACT)
    except LLMError:
        record(first_calls, seen0, "extract", None, before)
        return {"text_unit": unit.id, "calls": first_calls, "gleaning": {}}
    record(first_calls, seen0, "extract", first, before)
    gleaning: dict[str, list[dict[str, Any]]] = {}
    for how in histories:
        calls: list[dict[str, Any]] = []
        seen = (set(seen0[0]), set(seen0[1]))
        history = msgs + [found_turn(first, full=how == "full")]
        for _ in range(rounds):
            before = mark("glean")
            try:
                more = await llm.structured(history + render("index/extract_glean"), model,
                                            stage=Stage.GLEAN, attempts=1)
            except LLMError:
                record(calls, seen, "glean", None, before)
                break
            record(calls, seen, "glean", more, before)
            if not more.entities and not more.relationships:
                break  # as index/extract.py: nothing new ends gleaning
            history += render("index/extract_glean") + [found_turn(more, full=how == "full")]
        gleaning[how] = calls
    return {"text_unit": unit.id, "calls": first_calls, "gleaning": gleaning}


class Labels:
    """The graph writes assign_text_units makes, kept in memory."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def write(self, name: str, rows: list[dict[str, Any]], **_: Any) -> int:
        if name == "index/label_topic_chunks":
            self.rows.extend(rows)
        return len(rows)


async def assign(llm: LLM, settings: Settings, topics: list[Topic], units: list[TextUnit],
                 batch: int) -> tuple[dict[str, set[str]], int]:
    labels, failed = Labels(), []
    await assign_text_units(labels, llm, settings, topics, no_progress, failed,  # type: ignore[arg-type]
                            units, batch)
    out: dict[str, set[str]] = {u.id: set() for u in units}
    for r in labels.rows:
        out[r["chunk_id"]].add(r["topic"])
    return out, len(failed)


def agreement(a: dict[str, set[str]], b: dict[str, set[str]]) -> dict[str, float]:
    ids = list(a)
    jac = [len(a[i] & b[i]) / len(a[i] | b[i]) if a[i] | b[i] else 1.0 for i in ids]
    return {"exact": round(sum(a[i] == b[i] for i in ids) / len(ids), 3),
            "mean_jaccard": round(sum(jac) / len(jac), 3)}


async def measure(llm: LLM, settings: Settings, units: list[tuple[TextUnit, str | None]],
                  topics: list[Topic], rounds: int, batch: int, usage: Usage,
                  histories: list[str]) -> dict[str, Any]:
    plain = [u for u, _ in units]
    gleaning = [await glean_gain(llm, settings, u, rounds, usage, histories) for u in plain]
    runs: dict[int, Any] = {}
    for size in (1, batch):
        before = usage.stages.get("topic_assign")
        b = (before.calls, before.prompt_tokens) if before else (0, 0)
        labels, failed = await assign(llm, settings, topics, plain, size)
        after = usage.stages["topic_assign"]
        runs[size] = {"labels": {k: sorted(v) for k, v in labels.items()}, "failed": failed,
                      "calls": after.calls - b[0], "prompt_tokens": after.prompt_tokens - b[1]}
    gold = {u.id: BBC_TOPICS[c].name for u, c in units if c}
    for r in runs.values():
        if gold:
            r["own_category_labelled"] = round(sum(
                gold[i] in r["labels"][i] for i in gold) / len(gold), 3)
    a1 = {k: set(v) for k, v in runs[1]["labels"].items()}
    ab = {k: set(v) for k, v in runs[batch]["labels"].items()}
    return {"gleaning": gleaning, "assignment": {"batch_1": runs[1], f"batch_{batch}":
                                                 runs[batch], "agreement": agreement(a1, ab)}}


def summary(res: dict[str, Any], rounds: int) -> dict[str, Any]:
    first = [u["calls"][0] for u in res["gleaning"] if u["calls"]]
    out: dict[str, Any] = {"first_extraction": {
        "units": len(first), "entities": sum(c["new_entities"] for c in first),
        "relationships": sum(c["new_relationships"] for c in first),
        "prompt_tokens": sum(c["prompt_tokens"] for c in first),
        "completion_tokens": sum(c["completion_tokens"] for c in first)}}
    hows = sorted({h for u in res["gleaning"] for h in u["gleaning"]})
    for how in hows:
        per_round = []
        for i in range(rounds):
            calls = [u["gleaning"][how][i] for u in res["gleaning"]
                     if len(u["gleaning"].get(how, [])) > i]
            per_round.append({
                "round": i + 1, "units": len(calls),
                "failed": sum(c["failed"] for c in calls),
                "new_entities": sum(c["new_entities"] for c in calls),
                "new_relationships": sum(c["new_relationships"] for c in calls),
                "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
                "completion_tokens": sum(c["completion_tokens"] for c in calls)})
        out[f"gleaning_rounds_{how}_history"] = per_round
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    endpoint_args(ap)
    ap.add_argument("--corpus", type=Path, default=BBC)
    ap.add_argument("--units", type=int, default=6)
    ap.add_argument("--glean", type=int, default=2, help="gleaning rounds per text unit")
    ap.add_argument("--batch", type=int, default=4, help="text units per assignment call")
    ap.add_argument("--topics", type=Path, default=None)
    ap.add_argument("--history", default="names,full",
                    help="gleaning histories to compare: names (the ingest's), full (GraphRAG's)")
    ap.add_argument("--name", required=True)
    args = ap.parse_args()
    histories = [h for h in args.history.split(",") if h]
    values = endpoint_values(args)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(llm_cache_dir=Path(tmp), **values)
        units = units_of(args.corpus, args.units, settings)
        if args.topics:
            topics = [Topic.model_validate(t) for t in json.loads(args.topics.read_text())]
        elif all(c for _, c in units):
            topics = list(BBC_TOPICS.values())
        else:
            raise SystemExit("--topics FILE is needed for a corpus other than BBC")
        usage = Usage()
        res = with_llm(settings, usage, lambda llm: measure(
            llm, settings, units, topics, args.glean, args.batch, usage, histories))
    out = {"corpus": str(args.corpus), "endpoint": settings.llm.endpoint,
           "model": settings.llm.model, "local": settings.llm.local, "units": len(units),
           "glean_rounds": args.glean, "batch": args.batch, "histories": histories,
           "topics": [t.model_dump() for t in topics], "summary": summary(res, args.glean),
           "agreement": res["assignment"]["agreement"], **res, "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"glean-assign-gain-{args.name}.json"
    path.write_text(json.dumps(out, indent=2, default=str))
    a = res["assignment"]
    print(json.dumps({"summary": out["summary"], "agreement": out["agreement"],
                      "batch_1": {k: a["batch_1"].get(k) for k in
                                  ("calls", "prompt_tokens", "failed", "own_category_labelled")},
                      f"batch_{args.batch}": {k: a[f"batch_{args.batch}"].get(k) for k in
                                              ("calls", "prompt_tokens", "failed",
                                               "own_category_labelled")}}, indent=2))
    print("wrote", path)


if __name__ == "__main__":
    main()
