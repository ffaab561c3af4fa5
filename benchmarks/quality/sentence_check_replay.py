"""Benchmark (not a test, no LLM call): the answer sentence check (neo4j_retag/checks/
copies.py) replayed over saved answers - which sentences it would drop, and why -
to set beside a hand check of the same answers (its catches and its false drops).

Each answer's reports are the ones its call read (``trace.context``), taken from the graph at
the settings' Neo4j (the imported Christmas Carol index for the Carol answer files) and cut to
``--report-tokens`` as ReTAG's RETAG_REPORT_TOKENS cut them (0: whole, as global search reads
them):

    .venv/bin/python -m benchmarks.quality.sentence_check_replay --name carol-direct \\
        --report-tokens 600 bench-results/nuggets-carol-qwen-retag-general-p25-cut600-direct.json

Writes bench-results/sentence-check-NAME.json: per file and method, sentences and dropped,
and every dropped sentence with its reason. Answers whose trace already holds
``sentences_dropped`` were checked when answered: their dropped sentences are listed as such.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.common import RESULTS
from neo4j_retag.checks.copies import drop_misattributed, report_sources
from neo4j_retag.checks.sentences import answer_sentences
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.eval.records import AnswerRecord
from neo4j_retag.model import ReportRow
from neo4j_retag.tokens import truncate


def replay(graph: Graph, answers: list[AnswerRecord], report_tokens: int,
           enc: str) -> dict:
    """The check over ``answers`` (those with an answer and reports in their trace)."""
    out: dict = {"answers": 0, "sentences": 0, "dropped": 0, "examples": []}
    for a in answers:
        if not a.answer or a.trace is None or not a.trace.context:
            continue
        ids = [c.id for c in a.trace.context]
        titles = {c.id: c.title for c in a.trace.context}
        rows = graph.run("eval/cited_texts", report_ids=ids, text_unit_ids=[])
        reports = [ReportRow(id=r["id"], title=titles.get(r["id"], ""), level=0,
                             full_content=truncate(r["text"] or "", report_tokens, enc)
                             if report_tokens else r["text"] or "") for r in rows]
        _, dropped = drop_misattributed(a.answer, report_sources(reports), a.question)
        out["answers"] += 1
        out["sentences"] += sum(len(answer_sentences(line)) for line in a.answer.split("\n"))
        out["dropped"] += len(dropped)
        out["examples"] += [{"question": a.question, "sentence": d.sentence, "why": d.reason}
                            for d in dropped]
        out["examples"] += [{"question": a.question, "dropped_when_answered": s}
                            for s in a.trace.sentences_dropped]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path, help="bench-results/nuggets-*.json")
    ap.add_argument("--name", required=True, help="bench-results/sentence-check-NAME.json")
    ap.add_argument("--report-tokens", type=int, default=0,
                    help="each report as read: its first N tokens (0 = whole)")
    args = ap.parse_args()
    settings = Settings()
    result: dict = {"report_tokens": args.report_tokens, "files": {}}
    with Graph(settings) as graph:
        for path in args.files:
            data = json.loads(path.read_text(encoding="utf-8"))
            answers = [AnswerRecord.model_validate(a) for a in data["answers"]]
            by_method = {m: replay(graph, [a for a in answers if a.method == m],
                                   args.report_tokens, settings.encoding)
                         for m in dict.fromkeys(a.method for a in answers)}
            result["files"][path.name] = by_method
            for m, r in by_method.items():
                print(f"{path.name} {m}: {r['answers']} answers, {r['sentences']} sentences, "
                      f"{r['dropped']} dropped")
    out = RESULTS / f"sentence-check-{args.name}.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
