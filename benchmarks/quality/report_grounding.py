"""Benchmark (not a test, no LLM call): how many findings of community reports written by a
capable model the report grounding check (neo4j_retag/checks/grounding.py) would drop,
per threshold - its false drops, since such findings come from their context.

Each report's context is rebuilt as the index builds one (index/reports.py ``mixed_context``
at REPORT_CONTEXT_TOKENS) from the graph at the settings' Neo4j, e.g. the imported Christmas
Carol index (GPT-4o reports):

    neo4j-retag import graphrag ../shared/indexes/christmas-carol-graphrag
    .venv/bin/python -m benchmarks.quality.report_grounding --name carol-gpt4o

Writes bench-results/report-grounding-NAME.json. The imported reports were written by
GraphRAG from its own context (entities, relationships, claims at its own budget), close to
but not the same as ours: a finding dropped here is an upper bound of the check's false drops.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from benchmarks.common import RESULTS
from neo4j_retag.checks.grounding import MIN_FINDING_GROUNDED, FindingCheck
from neo4j_retag.community_report import CommunityReport
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.index.reports import mixed_context
from neo4j_retag.model import GENERAL

THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("--tokens", type=int, default=None,
                    help="context budget (default REPORT_CONTEXT_TOKENS)")
    args = ap.parse_args()
    settings = Settings()
    budget = args.tokens or settings.index.report_context_tokens
    findings, dropped = 0, Counter[float]()
    names_only, examples = 0, []
    with Graph(settings) as graph:
        rows = {r["id"]: r for r in graph.run("index/report_findings", scope=GENERAL)}
        ids = sorted(rows)
        for start in range(0, len(ids), 200):
            batch = ids[start:start + 200]
            elements = {r["id"]: r for r in graph.run("index/community_elements", ids=batch)}
            children: dict[int, list] = {i: [] for i in batch}
            for row in graph.run("index/community_children", ids=batch):
                children[row["parent"]].append(row)
            for cid in batch:
                rec = rows[cid]
                report = CommunityReport(title=rec["title"] or "",
                                         findings=json.loads(rec["findings"]))
                context = mixed_context(elements[cid], children[cid], budget,
                                        settings.encoding)
                findings += len(report.findings)
                for t in THRESHOLDS:
                    _, out = report.grounded(FindingCheck(context, t))
                    dropped[t] += len(out)
                    if t == MIN_FINDING_GROUNDED:
                        names_only += sum(1 for line in out if "names not in it" in line)
                        examples += out[:1] if len(examples) < 25 else []
    result = {"name": args.name, "context_tokens": budget, "findings": findings,
              "dropped": {str(t): dropped[t] for t in THRESHOLDS},
              "dropped_share": {str(t): round(dropped[t] / max(findings, 1), 4)
                                for t in THRESHOLDS},
              "threshold": MIN_FINDING_GROUNDED, "dropped_with_missing_names": names_only,
              "examples": examples}
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"report-grounding-{args.name}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
