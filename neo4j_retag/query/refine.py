"""Iterative answer refinement over the graph, after KGiRAG (knowledge-graph iterative RAG):
the LLM checks the draft answer, names what is missing with keywords, BM25 retrieves further
community reports for those keywords, and a new map-reduce over them plus the draft gives the
refined answer; it stops when the LLM calls the answer complete or after ``rounds``."""

from __future__ import annotations

from ..config import Settings
from ..db import Graph
from ..errors import LLMError
from ..llm import LLM
from ..model import Answer, RefinementRound, ReportRow, Trace
from ..prompts import render
from ..stages import Stage
from .answer.map_reduce import map_reduce
from .retrieval import Keywords, retrieve

DRAFT_ID = -1  # the draft answer joins map-reduce as a pseudo-report with this id


class Check(Keywords):
    complete: bool = False
    missing: str = ""


async def refine(graph: Graph, llm: LLM, settings: Settings, question: str, first: Answer, *,
                 rounds: int, top_p: int,
                 response_type: str = "multiple paragraphs",
                 ) -> tuple[Answer, list[RefinementRound]]:
    """Refine ``first`` (a retag or global answer) for up to ``rounds`` rounds; returns the
    final answer and what each round did. Why it stopped is noted in the final trace."""
    answer, history = first, []
    seen = {c.id for c in first.citations + first.sources}
    for _ in range(rounds):
        msgs = render("query/refine_check", question=question,
                      answer=answer.answer, max_keywords=8)
        try:
            check = await llm.structured(msgs, Check, stage=Stage.REFINE_CHECK, max_tokens=200)
        except LLMError as err:
            answer.trace.note(f"refinement check failed ({err}): the answer stays as it is")
            break
        if check.complete or not check.keywords:
            answer.trace.note("refinement: the LLM found the answer complete")
            break
        found = retrieve(graph, first.trace.scope, first.trace.level, check.missing,
                         check.keywords, top_p + len(seen))
        new = [r for r in found if r.id not in seen][:top_p]
        history.append(RefinementRound(missing=check.missing, keywords=check.keywords,
                             new_reports=len(new)))
        if not new:
            answer.trace.note("refinement: no new report for the missing keywords")
            break
        seen.update(r.id for r in new)
        # the draft joins the new reports as one more "report", so nothing already said is lost
        draft = ReportRow(id=DRAFT_ID, title="Draft answer", full_content=answer.answer)
        trace = Trace(method=f"{first.trace.method}+refine", scope=first.trace.scope,
                      topic=first.trace.topic, keywords=first.trace.keywords + check.keywords,
                      level=first.trace.level)
        # the draft's own [Data: Reports (...)] markers (its citations, no more) stay valid
        cited_before = [ReportRow(id=int(c.id), title=c.title, level=c.level, full_content="")
                        for c in answer.citations if c.kind == "report"]
        refined = await map_reduce(llm, settings, question, [draft, *new], trace, response_type,
                                   citable=cited_before)
        if not refined.answered:
            answer.trace.note("refinement gave no answer: the previous answer stays")
            break
        # the refined text's own citations; the draft's citations and sources stay as sources
        refined.citations = [c for c in refined.citations if c.id != DRAFT_ID]
        sources = {c.id: c for c in refined.sources if c.id != DRAFT_ID}
        for c in answer.citations + answer.sources:
            sources.setdefault(c.id, c.model_copy(update={"cited_in_answer": False}))
        refined.sources = list(sources.values())
        answer = refined
    return answer, history
