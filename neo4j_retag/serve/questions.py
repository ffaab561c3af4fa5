"""What answers questions: the Neo4j driver, one LLM client per question loop (all under one
LLM call limit) and the loops themselves (:mod:`.worker`). `serve` runs it in question
processes of its own (:mod:`.procs`), or in its own process with ``SERVE_PROCESSES=0``. Each
question counts its LLM calls in an account of its own (``llm.counting``: by context, the
loop's client shared), so its trace's cost is its own."""

from __future__ import annotations

import asyncio
import functools
import json

from ..config import Settings
from ..db import Graph
from ..llm import LLM, counting
from ..model import Answer
from ..ops.stats import record_usage_or_warn
from ..query.ask import AskRequest, answer_question
from .limit import SharedLimit
from .worker import Worker, cancel_others

QUESTIONS_PER_CALL = 2  # question slots per LLM call slot (see Service)


class QuestionRunner:
    """``slots`` questions at once on loops of their own, at most ``calls`` LLM calls at once
    among them. Open with :meth:`start` (on the loop that will call :meth:`ask`), close with
    :meth:`stop`. ``graph``: a driver to share (else one of its own, failing fast)."""

    def __init__(self, settings: Settings, slots: int, calls: int,
                 graph: Graph | None = None) -> None:
        self.settings = settings
        self.calls = SharedLimit(calls)
        self.worker = Worker(slots)
        self.llms: list[LLM] = []  # one per question loop, the LLM call limit shared
        self.graph, self._own_graph = graph, graph is None

    async def start(self) -> None:
        if self.graph is None:
            self.graph = await asyncio.to_thread(
                functools.partial(Graph, fail_fast=True), self.settings)
        embeds = SharedLimit(1 if self.settings.embedding.local(self.settings.llm)
                             else self.calls.limit)
        for _ in self.worker.loops:
            llm = LLM(self.settings)  # used on its question loop only (its connections)
            llm.semaphore, llm.embedding.semaphore = self.calls, embeds  # type: ignore[assignment]
            # made now, not on a loop's first question: an openai client loads the CA
            # certificates (tens of ms holding the GIL), which would stall every other client
            if not llm.embedding.local:  # the local model has no client
                llm.embedding.client  # noqa: B018
            self.llms.append(llm)
        self.worker.start()

    async def stop(self) -> None:
        if self.llms and self.worker.started:
            await self.worker.each(self._close)
        else:  # never started: nothing runs on the loops
            for llm in self.llms:
                await llm.close()
        self.worker.stop()
        if self._own_graph and self.graph is not None:
            self.graph.__exit__(None, None, None)

    async def _close(self, i: int) -> None:
        await cancel_others()  # the questions still under way first: they use the client
        await self.llms[i].close()

    async def ask(self, request: AskRequest) -> Answer:
        """Answer ``request`` on the least busy question loop. Raises DatabaseUnreachable (a
        ConfigError) within seconds while Neo4j is down, and what ``answer_question`` raises."""
        return await self.worker.run(self._answer(request))

    async def ask_json(self, request: AskRequest) -> str:
        """:meth:`ask`, the answer as `ask --json`'s JSON, encoded on the question's own loop
        (an answer's trace takes a while to encode). Raises as :meth:`ask`."""
        return await self.worker.run(self._answer_json(request))

    async def _answer_json(self, request: AskRequest) -> str:
        answer = await self._answer(request)
        return json.dumps(answer.as_dict(), default=str, ensure_ascii=False, separators=(",", ":"))

    async def _answer(self, request: AskRequest) -> Answer:
        assert self.llms and self.graph is not None, "the question runner is not started"
        with counting() as usage:  # this question's calls only, on the loop's shared client
            try:
                return await answer_question(self.graph, self.llms[self.worker.index()],
                                             self.settings, request)
            finally:
                await asyncio.to_thread(record_usage_or_warn, self.graph, usage)
