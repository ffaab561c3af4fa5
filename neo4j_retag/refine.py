"""Iterative answer refinement over the graph, after KGiRAG (knowledge-graph iterative RAG):
the LLM checks the draft answer, names what is missing with keywords, BM25 retrieves further
community reports for those keywords, and a new map-reduce over them plus the draft gives the
refined answer; it stops when the LLM calls the answer complete or after ``rounds``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .config import Settings
from .db import Graph
from .llm import LLM, LLMError
from .prompts import render
from .retag import Keywords, retrieve
from .search import NO_ANSWER, Answer, Trace, map_reduce


class Check(Keywords):
    complete: bool = False
    missing: str = ""


class Round(BaseModel):
    missing: str
    keywords: list[str]
    new_reports: int


async def refine(graph: Graph, llm: LLM, settings: Settings, question: str, first: Answer, *,
                 rounds: int, top_p: int,
                 response_type: str = "multiple paragraphs") -> tuple[Answer, list[Round]]:
    """Refine ``first`` (a retag or global answer) for up to ``rounds`` rounds; returns the
    final answer (its trace extends the first one's) and what each round did."""
    answer, history = first, []
    seen = {c["id"] for c in first.citations}
    for _ in range(rounds):
        msgs = render(settings.prompts_dir, "refine_check", question=question,
                      answer=answer.answer, max_keywords=8)
        try:
            check = await llm.structured(msgs, Check, stage="refine_check", max_tokens=200)
        except LLMError:
            break
        if check.complete or not check.keywords:
            break
        found = retrieve(graph, first.trace.scope, first.trace.level, check.missing,
                         check.keywords, top_p + len(seen))
        new = [r for r in found if r["id"] not in seen][:top_p]
        history.append(Round(missing=check.missing, keywords=check.keywords,
                             new_reports=len(new)))
        if not new:
            break
        seen.update(r["id"] for r in new)
        # the draft joins the new reports as one more "report", so nothing already said is lost
        draft: dict[str, Any] = {"id": -1, "title": "Draft answer", "full_content": answer.answer}
        trace = Trace(method=f"{first.trace.method}+refine", scope=first.trace.scope,
                      topic=first.trace.topic, keywords=first.trace.keywords + check.keywords,
                      level=first.trace.level)
        refined = await map_reduce(llm, settings, question, [draft, *new], trace, response_type)
        if refined.answer == NO_ANSWER:
            break
        refined.citations = [c for c in refined.citations if c["id"] != -1] + [
            c for c in answer.citations if c["id"] not in {x["id"] for x in refined.citations}]
        answer = refined
    return answer, history
