"""`neo4j-retag eval`: the evaluation of Edge et al. 2024 (§3.3) and ReTAG (§4), with the
claim-based metrics of Edge et al. 2025.

Questions (given, or generated activity-centred: personas -> tasks -> questions), answered by
every method with per-answer cost accounting; each answer's factual claims extracted and
clustered (comprehensiveness, diversity); every pair of methods judged head to head on each
criterion in both orders; the judge's agreement with the claim metrics; all written to an
output folder (questions, answers with traces, scores.json, PNG charts).

A failed answer, claim extraction or verdict fails that item only: it is listed in
``failures`` as a `Failure` (and a verdict counts as a tie), never dropped silently.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from pathlib import Path
from typing import Any

from ..config import Settings
from ..db import Graph
from ..errors import Failure, InputError, LLMError, RetagError
from ..llm import LLM, Usage, counting
from ..llm.embeddings import Embedder
from ..model import Progress, no_progress
from ..query import METHODS
from ..query.ask import answer_question, ask_request
from ..query.common import no_answer
from ..query.registry import check_settings
from ..query.retrieval import query_level
from . import require_extra
from .claims import claim_metrics, extract_claims
from .judge import criteria, judge
from .nugget_scores import nugget_markdown, nugget_summary, score_answers
from .nugget_similarity import STAGE as NUGGET_EMBED
from .nugget_similarity import match_similar
from .nuggets import Nugget
from .questions import EvalQuestion, generate_questions, read_questions, write_questions
from .records import AnswerRecord, AnswerSummary, EvalResult, Judgement, Scores
from .report import scores, write_folder
from .saved import SavedRun, answer_settings, kept_answers, kept_judgements, read_saved

__all__ = ["criteria", "judge", "method_spec", "run_eval"]
log = logging.getLogger(__name__)


def method_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """An arm of `eval --methods`: ``"retag@top_p=12@retrieval=bm25"`` -> ``("retag", {"top_p":
    12, "retrieval": "bm25"})``, a method of ``query.METHODS`` and options it declares (or
    ``answer``, the answerer), read by their types and bounds; a method of one option may give
    its value alone (``lazy@50`` is ``lazy@budget=50``). The spec as written is the arm's
    method in the results. Raises InputError in one line: an unknown method or option, a
    value of the wrong type or out of bounds (naming the bound)."""
    name, *given = spec.split("@")
    if name not in METHODS:
        raise InputError(f"--methods: unknown method {spec!r} (one of {', '.join(METHODS)})")
    declared = list(METHODS[name].options.model_fields)
    takes = [*declared, "answer"] if METHODS[name].answers else declared
    options: dict[str, Any] = {}
    for part in given:
        key, eq, value = part.partition("=")
        if not eq and len(declared) == 1:
            key, value = declared[0], part
        elif not eq or key not in takes:
            raise InputError(f"--methods: {spec!r}: {name} takes no option {key!r} (its "
                             f"options: {', '.join(takes) or 'none'}; as "
                             f"{name}@option=value)")
        options[key] = value
    try:
        request = ask_request(question="q", method=name, **options)
    except InputError as err:
        raise InputError(f"--methods: {spec!r}: {err}") from None
    return name, {k: getattr(request, k) for k in options}


async def _answer(graph: Graph, llm: LLM, settings: Settings, method: str, q: str,
                  level: int) -> AnswerRecord:
    """One answer with its own LLM accounting and wall time; a failure is recorded in it."""
    inner = Usage()
    t0 = time.perf_counter()
    rec = AnswerRecord(question=q, method=method)
    name, options = method_spec(method)
    try:
        with counting(inner):  # this answer's calls only, on the run's client
            a = await answer_question(graph, llm, settings, ask_request(
                question=q, method=name, level=level, **options))
        rec.answer, rec.citations, rec.trace = a.answer, a.citations, a.trace
        rec.sources = a.sources
    except RetagError as err:
        # a LevelError or InputError is no LLM failure: its class is the reason
        rec.error = Failure.of(f"answer by {method} to {q!r}", err,
                               None if isinstance(err, LLMError) else type(err).__name__)
    rec.seconds = round(time.perf_counter() - t0, 3)
    rec.llm, rec.llm_stages = inner.total, inner.by_stage()
    return rec


async def _claims(llm: LLM, settings: Settings, rec: AnswerRecord) -> None:
    """Fill the record's claims and metrics, or its ``claims_error`` (a kept record that has
    its metrics already is left as it is)."""
    if rec.answer is None or rec.metrics is not None:
        return
    if rec.answer.strip() == no_answer(settings):  # "the data cannot answer": no claim
        rec.claims, rec.metrics = [], claim_metrics([])
        return
    try:
        claims = await extract_claims(llm, settings, rec.question, rec.answer)
    except LLMError as err:
        rec.claims_error = Failure.of(f"claims of {rec.method}'s answer to {rec.question!r}",
                                      err)
        return
    rec.claims = claims
    rec.metrics = await asyncio.to_thread(claim_metrics, claims)


async def evaluate(graph: Graph, llm: LLM, settings: Settings, questions: list[str],
                   methods: list[str], level: int, progress: Progress = no_progress,
                   judged: bool = True, nuggets: dict[str, list[Nugget]] | None = None,
                   similarity: float | None = None, saved: SavedRun | None = None,
                   ) -> tuple[Scores, list[AnswerRecord], list[Judgement]]:
    """Answers, claims, judgements (none when not ``judged``: the claim metrics and cost
    only, without the judge's 2 calls per question, pair of methods and criterion), nugget
    scores of the questions in ``nuggets`` (with ``similarity``, also matched by embedding
    at that cosine: eval/nugget_similarity.py) and the aggregated scores. An answer or a
    verdict ``saved`` keeps (from an earlier run: eval/saved.py) is used instead of asking
    again; each new answer (with every answer so far, the kept ones not yet reached too), the
    claims and each new verdict are saved as they end."""
    saved = saved or SavedRun()
    key = answer_settings(settings, level)
    pending = {(r.question, r.method): r for r in saved.answers}
    answers = []
    progress("answers", 0, len(questions) * len(methods))
    for q in questions:
        for m in methods:  # one at a time: per-answer seconds and usage stay comparable
            rec = pending.pop((q, m), None)
            if rec is None:
                rec = await _answer(graph, llm, settings, m, q, level)
                rec.settings = key
                saved.save_answers([*answers, rec, *pending.values()])
            answers.append(rec)
            progress("answers", 1)
    failures = [r.error for r in answers if r.error]

    progress("claims", 0, len(answers))

    async def claims_of(rec: AnswerRecord) -> None:
        await _claims(llm, settings, rec)
        progress("claims", 1)

    await asyncio.gather(*(claims_of(r) for r in answers))
    saved.save_answers(answers)  # with their claims
    failures += [r.claims_error for r in answers if r.claims_error]
    if nuggets:
        await asyncio.to_thread(score_answers, graph, answers, nuggets)
        if similarity is not None:
            progress("nugget embeddings", 0, None)
            failures += await match_similar(Embedder.of(llm), answers, nuggets, similarity)
            progress("nugget embeddings", 1, 1)

    text = {(r.question, r.method): r.answer for r in answers}
    crit = list(criteria(settings)) if judged else []
    jobs = [(q, a, b, c) for a, b in itertools.combinations(methods, 2) for c in crit
            for q in questions if text[(q, a)] is not None and text[(q, b)] is not None]
    progress("judgements", 0, len(jobs))

    # as many judgements at once as the LLM takes calls (each is two calls, run together):
    # all of them at once would queue every first call before any second one, and progress
    # would stand at 0 for half the stage
    running = asyncio.Semaphore(max(1, settings.llm.parallel))
    reused = {(j.question, j.a, j.b, j.criterion): j for j in saved.judgements}
    done: list[Judgement] = list(reused.values())

    async def one(q: str, a: str, b: str, c: str) -> Judgement:
        if (j := reused.get((q, a, b, c))) is None:
            failed: list[Failure] = []
            async with running:
                s = await judge(llm, settings, q, c, text[(q, a)] or "", text[(q, b)] or "",
                                failed)
            failures.extend(failed)
            j = Judgement(question=q, a=a, b=b, criterion=c, score=s, failed=bool(failed))
            done.append(j)
            saved.save_judgements(done)
        progress("judgements", 1)
        return j

    judgements = list(await asyncio.gather(*(one(*j) for j in jobs)))
    result = scores(methods, crit, level, questions, answers, judgements, failures)
    result.nuggets = nugget_summary(answers, methods)
    result.nugget_similarity = similarity if nuggets else None
    return result, answers, judgements


async def run_eval(graph: Graph, llm: LLM, settings: Settings, methods: list[str], *,
                   questions: list[EvalQuestion] | None = None,
                   generate: tuple[int, int, int] | None = None, level: int | None = None,
                   out: Path | None = None, progress: Progress = no_progress,
                   judged: bool = True, nuggets: dict[str, list[Nugget]] | None = None,
                   similarity: float | None = None, resume: bool = False) -> EvalResult:
    """`neo4j-retag eval`: ``questions``, or ``generate = (personas, tasks, questions per
    task)`` of them from the corpus description, answered by every method at ``level``
    (default QUERY_LEVEL, clamped), measured and judged (not when ``judged`` is False: claim
    metrics and cost only); answers to a question of ``nuggets`` ({question: nuggets}) get
    nugget recall and its precision proxies (`eval --nuggets`; with ``similarity``, nuggets
    matched by embedding too: `--nugget-similarity`). A method is a name of
    ``query.METHODS``, with options set as ``name@option=value`` (:func:`method_spec`: each
    arm its own method in the results). The folder ``out`` gets
    questions.json/.txt, answers.json, judgements.json, scores.json, the PNG charts, and with
    nuggets nuggets.md and nuggets.png; answers.json and judgements.json are written after
    every answer and verdict. With ``resume`` (`eval --resume`), the answers ``out`` holds for
    the same question, method and settings (eval/saved.py) and the verdicts on two kept answers
    that did not fail are kept, not asked again, and generated questions are read back from
    ``out``/questions.json.

    Returns the scores with the files written, every answer in short, how many answers were kept
    and the resume's notes (what was kept and asked again). Raises InputError for an unknown
    method, fewer than two when judged (one is enough without the judge), ``resume`` without
    ``out``, an unreadable answers.json, or no questions; LLMError when no question could be
    generated; ConfigError when the ``[eval]`` extra is not installed or, with ``similarity``,
    the embedding endpoint is unusable (all before any answer).
    """
    for m in methods:
        method_spec(m)
    check_settings(settings)  # every method's own, before any call
    if not methods or (judged and len(methods) < 2):
        raise InputError(f"--methods: two or more of {', '.join(METHODS)} "
                         "(one is enough with --no-judge)")
    if resume and out is None:
        raise InputError("--resume keeps the answers saved in --out: give --out")
    require_extra()  # before any LLM call: the metrics and charts come last
    lvl = query_level(graph, settings, level)
    gen_failures: list[Failure] = []
    notes: list[str] = []
    if questions is None and resume and out is not None and (out / "questions.json").exists():
        questions = read_questions(out / "questions.json")  # generated once, paid once
        notes.append(f"--resume: the {len(questions)} questions of {out}/questions.json kept")
    if questions is None:
        corpus = graph.run("query/corpus")[0]["description"] or ""
        k, n, m = generate or (5, 5, 5)
        questions, gen_failures = await generate_questions(llm, settings, corpus, personas=k,
                                                           tasks=n, questions=m)
    questions = list({q.question: q for q in questions}.values())  # each asked once
    if not questions:
        raise InputError("no evaluation questions given")
    if similarity is not None and nuggets:  # an endpoint that is down fails now, not after
        await Embedder.of(llm).probe(NUGGET_EMBED)  # hours of answers (ConfigError, LLMError)
    texts = [q.question for q in questions]
    saved = SavedRun(out)
    if resume and out is not None:
        saved.answers, left = kept_answers(read_saved(out / "answers.json"),
                                           answer_settings(settings, lvl), methods, texts)
        saved.judgements = kept_judgements(read_saved(out / "judgements.json"), saved.answers)
        notes += [f"--resume: {len(saved.answers)} saved answers and "
                  f"{len(saved.judgements)} verdicts kept from {out}/", *left]
    for note in notes:
        log.info(note)
    files: list[Path] = []
    if out is not None:
        files += write_questions(out, questions)  # first: a long run's questions are kept
    result, answers, judgements = await evaluate(
        graph, llm, settings, texts, methods, lvl, progress, judged, nuggets, similarity,
        saved)
    result.failures = gen_failures + result.failures
    if out is not None:
        files += await asyncio.to_thread(write_folder, out, result, answers, judgements)
        if result.nuggets:
            md = out / "nuggets.md"
            md.write_text(nugget_markdown(result.nuggets, result.cost, answers, methods))
            files.append(md)
    return EvalResult(**dict(result), files=[str(f) for f in files],
                      resumed=len(saved.answers),
                      notes=notes,
                      answers=[AnswerSummary(question=r.question, method=r.method,
                                             answer=r.answer, error=r.error) for r in answers])
