"""Terminal tables (rich) of `eval` scores - the same numbers as the PNG charts - and of the
context reports of an `ask` trace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from ..model import ContextReport

if TYPE_CHECKING:
    from ..eval.records import Scores, Stats, Tally


def _ms(s: Stats, fmt: str = ".1f") -> str:
    return "-" if s.mean is None else f"{s.mean:{fmt}} ± {s.std or 0:{fmt}}"


def print_scores(console: Console, result: Scores) -> None:
    """Win-rate matrices per criterion, claim metrics, judge agreement, cost per method, and
    the nugget scores when there are some."""
    methods = result.methods
    console.print(f"{len(result.questions)} questions, level {result.level}, "
                  f"methods {', '.join(methods)}")
    for c in result.criteria:
        t = Table(*["row vs column"] + methods, title=f"{c}: win rate of row (%)")
        for r in methods:
            cells = [result.win_matrix[c][r][k] for k in methods]
            t.add_row(r, *("-" if v is None else f"{100 * v:.0f}" for v in cells))
        console.print(t)
    t = Table("method", "claims", *(f"clusters τ={x}" for x in result.taus),
              title="Claim-based metrics per answer (mean ± std)")
    for m in methods:
        cl = result.claims[m]
        t.add_row(m, _ms(cl.claims), *(_ms(cl.clusters[x]) for x in result.taus))
    console.print(t)
    ag = result.agreement

    def rate(a: Tally) -> str:
        return "-" if a.rate is None else f"{100 * a.rate:.0f}% of {a.pairs}"

    console.print("judge agrees with claim counts (comprehensiveness): "
                  f"{rate(ag.comprehensiveness)}; with cluster counts (diversity): "
                  + ", ".join(f"τ={k} {rate(v)}" for k, v in ag.diversity.items()))
    t = Table("method", "prompt tokens", "LLM calls", "seconds",
              title="Cost per answer (mean ± std)")
    for m in methods:
        co = result.cost[m]
        t.add_row(m, _ms(co.prompt_tokens, ".0f"), _ms(co.llm_calls), _ms(co.seconds, ".2f"))
    console.print(t)
    if result.nuggets:
        similar = any(n.recall_similar for n in result.nuggets.values())
        t = Table("method", "answers", "nugget recall",
                  *(["+ by embedding"] if similar else []), "citations", "claims",
                  "claims supported", title="Nuggets per answer (mean ± std)")
        for m in methods:
            n = result.nuggets[m]
            more = [_ms(n.recall_similar, ".2f") if n.recall_similar else "-"] if similar else []
            t.add_row(m, str(n.answers), _ms(n.recall, ".2f"), *more, _ms(n.citations),
                      _ms(n.claims), _ms(n.supported, ".2f"))
        console.print(t)


def context_table(context: list[ContextReport], top: int = 5) -> Table:
    """The best ``top`` reports that reached map-reduce (by rating, then BM25 score)."""
    best = sorted(context, key=lambda c: (-(c.rating or 0), -(c.score or 0), str(c.id)))[:top]
    t = Table("id", "level", "title", "BM25", "rating", "cited",
              title=f"Context: top {len(best)} of {len(context)} reports that reached map")
    for c in best:
        t.add_row(str(c.id), "-" if c.level is None else str(c.level), c.title[:60],
                  "-" if c.score is None else f"{c.score:.2f}",
                  "-" if c.rating is None else f"{c.rating:g}", "yes" if c.cited else "")
    return t
