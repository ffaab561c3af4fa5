"""What a reader or an agent looks at beside the answers: the corpus description, the topics,
community reports (BM25 search, one report with its findings and entities), a text unit."""

from __future__ import annotations

import json
from typing import Any

from ..db import Graph, Record
from ..errors import NotFoundError
from ..model import GENERAL
from ..query.retrieval import lucene_query

MAX_K = 50
MAX_ENTITIES = 50


def corpus_description(graph: Graph) -> str:
    return graph.run("query/corpus")[0]["description"] or ""


def list_topics(graph: Graph) -> list[Record]:
    """The topics that have a subgraph: ``name``, ``description``, ``label``."""
    return [{k: t[k] for k in ("name", "description", "label")}
            for t in graph.run("query/topics")]


def search_reports(graph: Graph, query: str, k: int = 10) -> list[Record]:
    """The ``k`` best community reports of the whole graph by BM25 (any level): ``id``,
    ``title``, ``summary``, ``level``, ``score``."""
    q = lucene_query(query)
    if not q:
        return []
    return graph.run("serve/search_reports", query=q, scope=GENERAL,
                     k=max(1, min(k, MAX_K)))


def get_report(graph: Graph, report_id: int) -> Record:
    """One report: title, summary, level, rating, findings (summary, explanation) and its
    entities (name, type, description; the best connected first). Raises NotFoundError."""
    rows = graph.run("serve/report", id=report_id, max_entities=MAX_ENTITIES)
    if not rows:
        raise NotFoundError(f"no community report {report_id}")
    report = dict(rows[0])
    report["findings"] = _findings(report.get("findings"))
    return report


def get_text_unit(graph: Graph, unit_id: str) -> Record:
    """One text unit with its document's id, title and path. Raises NotFoundError."""
    rows = graph.run("serve/text_unit", id=unit_id)
    if not rows:
        raise NotFoundError(f"no text unit {unit_id}")
    return rows[0]


def _findings(value: Any) -> list[dict[str, str]]:
    """Findings as stored (a JSON string; an imported graph may hold a list)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [{"summary": value, "explanation": ""}]
    return [f for f in value or [] if isinstance(f, dict)]
