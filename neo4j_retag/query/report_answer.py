"""ReTAG's one-call answer (RETAG_DIRECT_TOKENS): the retrieved reports, best-ranked first, read
in one answer call instead of map-reduce.

Map-reduce exists because the reports a question needs exceed one context (Edge et al. 2024
§3.1.6); ReTAG's top-p retrieval (Kim et al. 2025 §3.4) often leaves a set that fits one. Then
the map step only rewrites the reports as a few scored points, and a small model loses most
of them on the way: with Qwen2.5-Coder-1.5B the map gave 5-10 points for 12 reports and the
reduce a one-paragraph answer (docs/evaluation.md). Read whole, the reports reach the answer
call itself, which cites them as local search cites its data, at one call instead of a map
call per batch and a reduce.
"""

from __future__ import annotations

from .. import events
from ..config import Settings
from ..llm import LLM, Subject
from ..model import Answer, Citation, ContextReport, Query, ReportRow, Trace, timed
from ..prompts import render
from ..stages import Stage
from ..tokens import count, truncate
from .citations import attribute, cited_sources
from .common import complete_or_note, no_answer_for
from .map_batches import report_table, room_in_window


def direct_budget(llm: LLM, settings: Settings, query: Query) -> int:
    """The tokens the reports may take in the one answer call: RETAG_DIRECT_TOKENS, less when
    the endpoint's known window (``map_batches.room_in_window``) holds less beside the answer
    prompt and its completion."""
    frame = render("query/report_answer", context="", question=query.question,
                   response_type=query.response_type)
    room = room_in_window(llm, settings, frame)
    budget = settings.query.retag_direct_tokens
    return budget if room is None else max(1, min(budget, room))


def fill(reports: list[ReportRow], budget: int, enc: str) -> tuple[list[ReportRow], int]:
    """The reports, in the order given (best-ranked first), whose table fits ``budget``
    tokens, and how many were left out; a first report over the budget alone is cut to it."""
    read: list[ReportRow] = []
    for i, r in enumerate(reports):
        if count(report_table([*read, r]), enc) <= budget:
            read.append(r)
            continue
        if not read:  # the best report alone is over the budget: its start is read
            # a few tokens kept free: a cut text joins the table's line as other tokens
            room = budget - count(report_table([r.model_copy(update={"full_content": ""})]), enc)
            read.append(r.model_copy(update={"full_content": truncate(
                r.full_content, max(1, room - 4), enc)}))
            continue
        return read, len(reports) - i
    return read, 0


async def answer_reports(llm: LLM, settings: Settings, query: Query, reports: list[ReportRow],
                         trace: Trace) -> Answer:
    """Answer ``query`` in one call (stage ``answer``, ``prompts/query/report_answer.txt``: the
    reduce step's instructions over the reports themselves) over ``reports`` (best-ranked first),
    as many as fit :func:`direct_budget`; the ones left out are a trace note. Citations: the
    reports the answer text cites, else each sentence attributed to the report it shares most
    words with (marked ``attributed``); ``sources``: every report read. Raises
    AnswerFailedError when the call fails (``common.complete_or_note``, required: no
    fallback would be an answer)."""
    budget = direct_budget(llm, settings, query)
    read, left = fill(reports, budget, settings.encoding)
    trace.reports_retrieved = len(reports)
    trace.context = [ContextReport(id=r.id, level=r.level, title=r.title, score=r.score,
                                   composed=r.composed) for r in read]
    trace.note(f"one answer call over {len(read)} of the {len(reports)} reports retrieved "
               f"(RETAG_DIRECT_TOKENS={settings.query.retag_direct_tokens}): no map-reduce")
    if left:
        trace.note(f"{left} of {len(reports)} reports retrieved did not fit the answer "
                   f"call's {budget} tokens (RETAG_DIRECT_TOKENS, or the endpoint's window): "
                   "not read")
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

    def citation(r: ReportRow, cited: bool = True, attributed: bool = False) -> Citation:
        return Citation(kind="report", id=r.id, title=r.title, level=r.level,
                        cited_in_answer=cited, attributed=attributed)

    valid = {f"Reports:{r.id}": citation(r) for r in read}
    text, cited = cited_sources(text, valid, trace)
    attributed = False
    if not cited and trace.no_answer is None:
        # the model wrote no marker: each sentence gets the report it shares most words with
        text, n = attribute(text, [(f"{r.title}\n{r.full_content}", [r.id]) for r in read])
        text, cited = cited_sources(text, valid, trace)
        attributed = bool(cited)
        if n:
            trace.note(f"the answer cited no report: {n} of its sentences were attributed to "
                       "the report each shares most words with")
    ids = {c.id for c in cited}
    for c in trace.context:
        c.cited = c.id in ids
    return Answer(answer=text,
                  citations=[c.model_copy(update={"attributed": attributed}) for c in cited],
                  sources=[citation(r, cited=r.id in ids) for r in read], trace=trace)
