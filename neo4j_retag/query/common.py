"""What every query method shares, so that no method file borrows from another: the no-answer
sentence, one LLM call with its failure noted, the context budget, one answer call over a
prepared context, a level's reports, and BM25 over an in-memory candidate set."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from .. import events
from ..config import Settings
from ..db import Graph
from ..errors import Failure, LLMError
from ..llm import LLM, Subject
from ..llm.reply import ReplyFault, blocked_line
from ..llm.stream import complete_streaming
from ..model import Query, ReportRow, Trace, timed
from ..prompts import Message, fragment, render
from ..refusal import Refusal
from ..stages import Stage
from ..text import TERM, strip_chatter
from ..tokens import count
from .retrieval import check_level


def note_once(trace: Trace, text: str, level: int = logging.INFO) -> None:
    """A trace note (and log record) unless the trace has it already: DRIFT's many local
    searches meet the same fallback."""
    if text not in trace.notes:
        trace.note(text, level)


def no_answer(settings: Settings) -> str:
    """The sentence an answer is when the data cannot answer (``prompts/query/no_answer.txt``)."""
    return fragment("query/no_answer")


def no_answer_for(settings: Settings, trace: Trace, why: str,
                  level: int = logging.INFO) -> str:
    """The no-answer sentence, ``why`` noted and kept as ``trace.no_answer``: the answer is
    then no answer (``Answer.answered`` False; `ask` exits non-zero), never passed off as
    one."""
    trace.no_answer = why
    note_once(trace, why, level)
    return no_answer(settings)


class AnswerFailedError(LLMError):
    """The step that writes the answer failed after its retries (blocked by a content filter,
    refused, unusable) or every rating call of dynamic selection failed: exit non-zero with
    the reason, never the canned no-answer sentence as if the data had no answer."""


def failed_answer(stage: Stage, err: LLMError, trace: Trace) -> AnswerFailedError:
    """The error for an answer step that failed with ``err``, noted in the trace."""
    msg = (blocked_line(err) if err.reason == "content_filter"
           else f"the {stage} call failed ({err.reason}): {err}")
    trace.note(msg)
    trace.failures.append(Failure.of(stage, err))
    return AnswerFailedError(f"{msg}: no answer (retry, or check the LLM with "
                             "`neo4j-retag doctor`)", err.reason)


async def complete_or_note(llm: LLM, messages: list[Message], stage: Stage, trace: Trace,
                           *, required: bool = False, subject: Subject | None = None,
                           reraise: tuple[str, ...] = (), max_tokens: int | None = None) -> str:
    """The completion's text without the model's chatter (lead-ins, wrappers; counted in
    ``trace.chatter_stripped``), or "" with the failure noted and recorded in
    ``trace.failures`` (item ``stage``). Raises AnswerFailedError when the endpoint's content
    filter blocked it, or on any failure when the call is ``required`` (the only answer call:
    no fallback would be an answer). A reply that is JSON or the prompt's own template
    (injected by a document), or degenerate (``checks.degenerate``: repeated lines, a looping
    phrase, the question echoed, nothing of ``subject``'s context), is retried, then the
    honest no-answer with a note and ``trace.no_answer`` set. Streamed piece by piece when
    someone listens to the question's events (`serve`). An LLMError whose reason is in
    ``reraise`` is raised for the caller to handle (the reduce step's context_length);
    ``max_tokens``: the completion cap (default LLM_MAX_TOKENS)."""
    sink = events.token_sink()

    def keep(fault: ReplyFault) -> None:  # every refused reply, a retried one too
        refused(trace, stage, fault)

    try:
        text = str(await (complete_streaming(llm, messages, stage=stage, on_token=sink,
                                             prose=True, subject=subject, on_refusal=keep,
                                             max_tokens=max_tokens)
                          if sink else llm.complete(messages, stage=stage, prose=True,
                                                    subject=subject, on_refusal=keep,
                                                    max_tokens=max_tokens)))
    except LLMError as err:
        if err.reason in reraise:
            raise
        if err.reason in ("invalid", "degenerate"):
            trace.failures.append(Failure.of(stage, err))
            what = "free-text answer" if err.reason == "invalid" else "usable answer"
            return no_answer_for(llm.settings, trace, f"the {stage} step gave no {what} "
                                 f"after its retries ({err})", logging.WARNING)
        if required or err.reason == "content_filter":
            raise failed_answer(stage, err, trace) from err
        trace.note(f"{stage} failed: {err}")
        trace.failures.append(Failure.of(stage, err))
        return ""
    text, changed = strip_chatter(text)
    trace.chatter_stripped += changed
    return text


def refused(trace: Trace, stage: Stage, err: LLMError) -> None:
    """``err``'s refused reply in ``trace.refusals`` (its rule, numbers and first 500
    characters), when an answer check refused it: a refusal a reader can judge, the one
    before a retry that was accepted too."""
    if isinstance(err, ReplyFault) and err.verdict is not None:
        v = err.verdict
        trace.refusals.append(Refusal.of(stage, v.rule, v.why, v.numbers, err.raw))


def fit(rows: list[list[Any]], budget: int, enc: str) -> list[list[Any]]:
    """The leading rows whose CSV lines fit ``budget`` tokens."""
    out, used = [], 0
    for r in rows:
        n = count(",".join(str(x) for x in r), enc) + 2
        if used + n > budget:
            break
        out.append(r)
        used += n
    return out


async def answer_from(llm: LLM, settings: Settings, query: Query, context: str,
                      trace: Trace) -> str:
    """One answer call over a prepared context (``prompts/query/rag_answer.txt``). Raises
    AnswerFailedError when it fails: the canned no-answer sentence is for an empty context."""
    msgs = render("query/rag_answer", context=context,
                  question=query.question, response_type=query.response_type)
    with timed(trace.seconds, "answer"):
        return await complete_or_note(llm, msgs, Stage.ANSWER, trace, required=True,
                                      subject=Subject(query.question, context))


def reports_at_level(graph: Graph, scope: str, level: int) -> list[ReportRow]:
    """Every report of ``scope`` at ``level``. Raises LevelError when there is none."""
    check_level(graph, scope, level)
    return [ReportRow.from_record(r)
            for r in graph.run("query/reports_at_level", scope=scope, level=level)]


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, combining marks and digits of any script: a
    Devanagari word is not cut at its vowel signs), for BM25 over texts held in memory."""
    return TERM.findall(text.casefold())


def bm25_order(query: str, texts: Sequence[str]) -> list[int]:
    """The positions of ``texts``, best BM25 match for ``query`` first; ties keep their
    order. For a candidate set already in hand (a few text units or claims): the Neo4j
    full-text index ranks the whole graph, this ranks what one query gathered.

    BM25+ (rank_bm25's ``BM25Plus``): its idf, ``log((N + 1) / n)``, stays positive as
    Lucene's does, where Okapi's gives 0 to a term in half of a small set and less to one in
    more, so that a unit sharing a common query word would rank below one sharing nothing.
    """
    docs = [words(t) for t in texts]
    if not any(docs):  # rank_bm25 divides by the mean length
        return list(range(len(texts)))
    from rank_bm25 import BM25Plus  # lazy: numpy behind it
    scores = BM25Plus(docs).get_scores(words(query))
    return sorted(range(len(texts)), key=lambda i: -scores[i])
