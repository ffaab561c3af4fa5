"""`eval --nuggets`: each answer scored against its question's nuggets (recall, where each was
found) and its claims checked against the text it cites (a precision proxy); the per-method
summary and its Markdown table. Plain data and one Neo4j read, no LLM.

A claim counts as *supported* when at least :data:`SUPPORT` of its content words (words of 3+
letters that are no stop word, and numbers) occur in the text of the reports and text units
the answer cites: a lexical proxy, not entailment (its stop words are English:
``checks.language.CLAIM_STOP_WORDS``). Only the citations the model wrote count: a
citation added by shared words (``attributed``, when the model wrote no marker) was chosen
for sharing the sentence's words, so counting it would score the attribution, not the answer.
"""

from __future__ import annotations

from ..checks.language import CLAIM_STOP_WORDS
from ..db import Graph
from .nuggets import Nugget, find, normalise
from .records import AnswerRecord, CostStats, NuggetHit, NuggetScore, NuggetStats
from .report import stats

SUPPORT = 0.6


def content_words(text: str) -> set[str]:
    """The words of ``text`` a claim's support is judged on (normalised as nuggets are)."""
    return {w for w in normalise(text).split()
            if w.isdigit() or (len(w) >= 3 and w not in CLAIM_STOP_WORDS)}


def supported(claim: str, cited_words: set[str]) -> bool:
    """Whether ``cited_words`` hold :data:`SUPPORT` or more of the claim's content words (a
    claim without any content word is not supported)."""
    words = content_words(claim)
    return bool(words) and len(words & cited_words) / len(words) >= SUPPORT


def cited_texts(graph: Graph, answers: list[AnswerRecord]) -> dict[tuple[str, str], str]:
    """The text of every report (its full content) and text unit the answers cite, by
    ``(kind, str(id))``; a cited id the graph does not hold is absent."""
    reports = {c.id for a in answers for c in a.citations if c.kind == "report"}
    units = {c.id for a in answers for c in a.citations if c.kind == "text_unit"}
    if not reports and not units:
        return {}
    rows = graph.run("eval/cited_texts", report_ids=sorted(reports, key=str),
                     text_unit_ids=sorted(str(u) for u in units))
    return {(r["kind"], str(r["id"])): r["text"] or "" for r in rows}


def score(rec: AnswerRecord, nuggets: list[Nugget], texts: dict[tuple[str, str], str],
          ) -> NuggetScore:
    """``rec``'s nugget recall with every nugget's hit, and its precision proxies."""
    answer = rec.answer or ""
    # the model's own citations only: an attributed one shares the sentence's words by design
    own = [c for c in rec.citations if not c.attributed]
    cited = " ".join(texts.get((c.kind, str(c.id)), "") for c in own)
    hits = []
    for n in nuggets:
        m = find(n, answer) if answer else None
        c = find(n, cited) if cited.strip() else None
        hits.append(NuggetHit(id=n.id, matched=m is not None and not m.negated,
                              alias=m.alias if m else None, sentence=m.sentence if m else None,
                              negated=m is not None and m.negated,
                              in_cited=(c is not None and not c.negated) if cited.strip()
                              else None))
    matched = sum(h.matched for h in hits)
    words = content_words(cited)
    claims = rec.claims
    return NuggetScore(total=len(hits), matched=matched,
                       recall=round(matched / len(hits), 3) if hits else 0.0, hits=hits,
                       citations=len(own), attributed=len(rec.citations) - len(own),
                       claims=None if claims is None else len(claims),
                       claims_supported=None if claims is None
                       else sum(supported(c, words) for c in claims))


def score_answers(graph: Graph, answers: list[AnswerRecord],
                  nuggets: dict[str, list[Nugget]]) -> None:
    """Fill ``nuggets`` of every answer whose question has nuggets (a failed answer scores
    recall 0: nothing lost, nothing faked)."""
    scored = [a for a in answers if a.question in nuggets]
    texts = cited_texts(graph, scored)
    for a in scored:
        a.nuggets = score(a, nuggets[a.question], texts)


def nugget_summary(answers: list[AnswerRecord], methods: list[str],
                   ) -> dict[str, NuggetStats] | None:
    """Per method: nugget recall, citations, claims and supported share of claims (answers
    with claims only), as ``stats``; None when no answer was scored."""
    if not any(a.nuggets for a in answers):
        return None
    out = {}
    for m in methods:
        ns = [a.nuggets for a in answers if a.method == m and a.nuggets is not None]
        with_claims = [n for n in ns if n.claims]
        similar = [n.recall_similar for n in ns if n.recall_similar is not None]
        out[m] = NuggetStats(
            recall=stats([n.recall for n in ns]), citations=stats([n.citations for n in ns]),
            claims=stats([n.claims for n in ns if n.claims is not None]),
            supported=stats([(n.claims_supported or 0) / (n.claims or 1)
                             for n in with_claims]),
            answers=len(ns), recall_similar=stats(similar) if similar else None)
    return out


def _f(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def nugget_table(summary: dict[str, NuggetStats], cost: dict[str, CostStats] | None = None,
                 ) -> str:
    """The Markdown table of :func:`nugget_summary` (means), with the cost columns when
    ``cost`` (``Scores.cost``) is given."""
    similar = any(s.recall_similar is not None for s in summary.values())
    head = ["method", "answers", "nugget recall"] + (["+ by embedding"] if similar else []) + [
        "citations / answer", "claims / answer", "claims supported"]
    if cost:
        head += ["LLM calls", "prompt tokens", "seconds"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m, s in summary.items():
        row = [m, str(s.answers), _f(s.recall.mean, ".2f")] + (
            [_f(s.recall_similar.mean if s.recall_similar else None, ".2f")] if similar
            else []) + [_f(s.citations.mean, ".1f"), _f(s.claims.mean, ".1f"),
               "-" if s.supported.mean is None else f"{100 * s.supported.mean:.0f}%"]
        if cost:
            c = cost[m]
            row += [_f(c.llm_calls.mean, ".1f"), _f(c.prompt_tokens.mean, ",.0f"),
                    _f(c.seconds.mean, ".2f")]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def question_table(answers: list[AnswerRecord], methods: list[str]) -> str:
    """Markdown: one row per question with nuggets, ``matched/total`` per method (``failed``
    for a failed answer), ``(+k)`` for k more matched by embedding, ``(k negated)`` for k
    found only under a negation."""
    cells: dict[str, dict[str, str]] = {}
    for a in answers:
        if a.nuggets is not None:
            n = a.nuggets
            more = ((n.matched_similar or 0) - n.matched if n.matched_similar is not None
                    else 0)
            negated = sum(h.negated for h in n.hits)
            cells.setdefault(a.question, {})[a.method] = (
                "failed" if a.error else f"{n.matched}/{n.total}"
                + (f" (+{more})" if more else "") + (f" ({negated} negated)" if negated else ""))
    lines = ["| question | " + " | ".join(methods) + " |", "|" + "---|" * (len(methods) + 1)]
    for q, row in cells.items():
        lines.append(f"| {q.replace('|', '/')} | "
                     + " | ".join(row.get(m, "-") for m in methods) + " |")
    return "\n".join(lines) + "\n"


def nugget_markdown(summary: dict[str, NuggetStats], cost: dict[str, CostStats],
                    answers: list[AnswerRecord], methods: list[str]) -> str:
    """``nuggets.md``: the per-method table (means) and the per-question one."""
    return ("## Nugget recall and cost per method (mean per answer)\n\n"
            + nugget_table(summary, cost)
            + "\n## Nuggets matched per question\n\n" + question_table(answers, methods))
