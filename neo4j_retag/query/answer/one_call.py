"""The one-call answer (``ANSWER=one-call``): the retrieved reports, best-ranked first, read in
one answer call instead of map-reduce (and local search's and rag's answer over their tables).

Map-reduce exists because the reports a question needs exceed one context (Edge et al. 2024
§3.1.6); ReTAG's top-p retrieval (Kim et al. 2025 §3.4) often leaves a set that fits one. Then
the map step only rewrites the reports as a few scored points, and a small model loses most
of them on the way: with Qwen2.5-Coder-1.5B the map gave 5-10 points for 12 reports and the
reduce a one-paragraph answer (docs/evaluation.md). Read whole, the reports reach the answer
call itself, which cites them as local search cites its data, at one call instead of a map
call per batch and a reduce.
"""

from __future__ import annotations

from ... import events
from ...config import Settings
from ...llm import LLM, Subject
from ...model import Answer, Citation, ContextReport, Query, ReportRow, Trace, timed
from ...prompts import render
from ...stages import Stage
from ...tokens import count, count_recurring, truncate
from ..citations import cite_or_attribute
from ..common import complete_or_note, no_answer_for
from .map_batches import report_table, room_in_window
from .sentence_check import check_sentences


def direct_budget(llm: LLM, settings: Settings, query: Query) -> int:
    """The tokens the reports may take in the one answer call: ONE_CALL_TOKENS, less when
    the endpoint's known window (``map_batches.room_in_window``) holds less beside the answer
    prompt and its completion."""
    frame = render("query/report_answer", context="", question=query.question,
                   response_type=query.response_type)
    room = room_in_window(llm, settings, frame)
    budget = settings.query.one_call_tokens
    return budget if room is None else max(1, min(budget, room))


def fill(reports: list[ReportRow], budget: int, enc: str) -> tuple[list[ReportRow], int]:
    """The reports, in the order given (best-ranked first), whose table fits ``budget``
    tokens, and how many were left out; a first report over the budget alone is cut to it.
    Rows are counted one at a time (``count_recurring``), as ``map_batches.batches`` does:
    the table is never recounted per report."""
    read: list[ReportRow] = []
    empty = count(report_table([]), enc)
    used = empty
    for i, r in enumerate(reports):
        n = count_recurring(report_table([r]), enc) - empty
        if used + n <= budget:
            read.append(r)
            used += n
            continue
        if not read:  # the best report alone is over the budget: its start is read
            # a few tokens kept free: a cut text joins the table's line as other tokens
            room = budget - count(report_table([r.model_copy(update={"full_content": ""})]), enc)
            cut = r.model_copy(update={"full_content": truncate(r.full_content, max(1, room - 4),
                                                               enc)})
            read.append(cut)
            used += count(report_table([cut]), enc) - empty
            continue
        return read, len(reports) - i
    return read, 0


async def answer_reports(llm: LLM, settings: Settings, query: Query, reports: list[ReportRow],
                         trace: Trace) -> Answer:
    """Answer ``query`` in one call (stage ``answer``, ``prompts/query/report_answer.txt``: the
    reduce step's instructions over the reports themselves) over ``reports`` (best-ranked first),
    as many as fit :func:`direct_budget`; the ones left out are a trace note. A sentence that
    copies a report sentence about another subject is dropped (``sentence_check``,
    ANSWER_SENTENCE_CHECK). Citations: the reports the answer text cites, else each sentence
    attributed to the report it shares most words with (marked ``attributed``); ``sources``:
    every report read. Raises AnswerFailedError when the call fails (``common.complete_or_note``,
    required: no fallback would be an answer)."""
    budget = direct_budget(llm, settings, query)
    read, left = fill(reports, budget, settings.encoding)
    trace.reports_retrieved = len(reports)
    trace.context = [ContextReport(id=r.id, level=r.level, title=r.title, score=r.score,
                                   composed=r.composed) for r in read]
    trace.note(f"one answer call over {len(read)} of the {len(reports)} reports retrieved "
               f"(ONE_CALL_TOKENS={settings.query.one_call_tokens}): no map-reduce")
    if left:
        trace.note(f"{left} of {len(reports)} reports retrieved did not fit the answer "
                   f"call's {budget} tokens (ONE_CALL_TOKENS, or the endpoint's window): not read")
    events.emit("retrieved", reports=len(read), method=trace.method, level=trace.level)
    if not read:
        return Answer(answer=no_answer_for(settings, trace, "no community reports to answer "
                                           "from"), trace=trace)
    context = report_table(read)
    msgs = render("query/report_answer", context=context, question=query.question,
                  response_type=query.response_type)
    with timed(trace.seconds, "answer"):
        text = await complete_or_note(llm, msgs, Stage.ANSWER, trace, required=True,
                                      subject=Subject(query.question, context))

    def citation(r: ReportRow, cited: bool = True) -> Citation:
        return Citation(kind="report", id=r.id, title=r.title, level=r.level,
                        cited_in_answer=cited)

    if trace.no_answer is None:
        text = check_sentences(text, query.question, read, settings, trace)
    valid = {f"Reports:{r.id}": citation(r) for r in read}
    text, cited = cite_or_attribute(
        text, valid, [(f"{r.title}\n{r.full_content}", [r.id]) for r in read], trace)
    ids = {c.id for c in cited}
    for c in trace.context:
        c.cited = c.id in ids
    return Answer(answer=text, citations=cited,
                  sources=[citation(r, cited=r.id in ids) for r in read], trace=trace)


async def answer_from(llm: LLM, settings: Settings, query: Query, context: str,
                      trace: Trace) -> str:
    """One answer call over a prepared context (``prompts/query/rag_answer.txt``: local
    search's and rag's tables). Raises AnswerFailedError when it fails: the canned
    no-answer sentence is for an empty context."""
    msgs = render("query/rag_answer", context=context,
                  question=query.question, response_type=query.response_type)
    with timed(trace.seconds, "answer"):
        return await complete_or_note(llm, msgs, Stage.ANSWER, trace, required=True,
                                      subject=Subject(query.question, context))
