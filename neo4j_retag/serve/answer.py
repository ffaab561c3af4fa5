"""One answer function for every front end: `ask --json`, `POST /ask` and MCP's `ask` take
the same fields (:class:`AskRequest`) and give the same JSON (``Answer.as_dict()``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from ..config import Settings
from ..db import Graph
from ..errors import InputError
from ..llm import LLM
from ..model import Answer, Query, timed
from ..query import answer as answer_by

MAX_QUESTION_CHARS = 4000


class AskRequest(BaseModel):
    """The options of `neo4j-retag ask`, as fields."""

    # stripped first: a blank question would spend LLM calls answering nothing
    question: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                               max_length=MAX_QUESTION_CHARS)]
    method: str = Field("retag", description="retag, global, global-dynamic, local, drift, rag, "
                        "ts, lazy or auto (one classification call picks retag/global or local)")
    level: int | None = Field(None, ge=0, description="community level (default QUERY_LEVEL)")
    # bounded: a top_p near 2**62 overflowed inside Neo4j's vector search (a 500)
    top_p: int | None = Field(None, ge=1, le=10_000,
                              description="reports retrieved by BM25 (retag)")
    topic: str | None = Field(None, description="force a topic instead of classifying")
    response_type: str = Field("multiple paragraphs", max_length=200)
    refine: int = Field(0, ge=0, le=5, description="KGiRAG refinement rounds (retag, global)")
    dynamic: bool = Field(False, description="with method global: dynamic community selection")
    budget: int | None = Field(None, ge=1, le=10_000, description="lazy: relevance tests "
                               "(default LAZY_BUDGET)")
    retrieval: Literal["bm25", "vector", "hybrid"] | None = Field(
        None, description="rag: text units by BM25 (default), embedding, or both fused; "
        "retag: its reports likewise (default RETRIEVAL)")

    def method_name(self) -> str:
        """The method to run: ``global`` with ``dynamic`` is ``global-dynamic``.
        Raises InputError when ``dynamic`` goes with another method."""
        if not self.dynamic:
            return self.method
        if self.method not in ("global", "global-dynamic"):
            raise InputError("--dynamic goes with --method global")
        return "global-dynamic"

    def query(self) -> Query:
        return Query(question=self.question, level=self.level, top_p=self.top_p,
                     topic=self.topic, response_type=self.response_type, budget=self.budget,
                     retrieval=self.retrieval)


async def answer_question(graph: Graph, llm: LLM, settings: Settings,
                          request: AskRequest) -> Answer:
    """Answer ``request`` with ``llm`` (whose ``usage`` should be this question's alone: the
    trace's ``llm`` is that usage, the cost line). Raises InputError for an unknown method or
    topic, LevelError, LLMError (every map batch failed), ConfigError (the LLM unreachable)."""
    seconds: dict[str, float] = {}
    with timed(seconds, "total"):
        answer = await answer_by(request.method_name(), graph, llm, settings, request.query(),
                                 refine_rounds=request.refine)
    answer.trace.llm, answer.trace.llm_stages = llm.usage.total, llm.usage.by_stage()
    answer.trace.seconds["total"] = seconds["total"]
    return answer


def cost_line(answer: Answer) -> str:
    """The trace's cost in one line: LLM calls, tokens, seconds."""
    t, llm = answer.trace, answer.trace.llm
    return (f"{t.method}: {llm.calls} LLM calls (+{llm.cached} cached), {llm.prompt_tokens} "
            f"prompt + {llm.completion_tokens} completion tokens, "
            f"{t.seconds.get('total', 0):.1f} s")
