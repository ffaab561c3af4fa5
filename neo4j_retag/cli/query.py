"""CLI: `ask` and `eval` (the query side)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .common import Ctx, Table, console, friendly, run_with_services


def _methods() -> list[str]:
    from ..query import METHODS
    return list(METHODS)


class MethodChoice(click.Choice):
    """``--method``'s choices, the names in ``query.METHODS``, read only when `ask` parses or
    shows its options: the query side imports the LLM and Neo4j clients."""

    def __init__(self) -> None:
        super().__init__([])

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return tuple(_methods())

    @choices.setter
    def choices(self, value: Any) -> None:
        pass


@click.command()
@click.argument("question")
@click.option("--method", type=MethodChoice(),
              default="retag", help="retag (default), global (GraphRAG), or the baselines: "
              "local search, rag (BM25 over text units), ts (map-reduce over text units)")
@click.option("--level", type=int, default=None,
              help="community level (default QUERY_LEVEL, or the deepest level if fewer)")
@click.option("--top-p", type=int, default=None, help="reports retrieved by BM25 (retag)")
@click.option("--topic", default=None, help="force a topic instead of classifying")
@click.option("--response-type", default="multiple paragraphs")
@click.option("--refine", "refine_rounds", type=int, default=0,
              help="iterative refinement rounds (KGiRAG-style; retag and global)")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def ask(obj: Ctx, question: str, method: str, level: int | None, top_p: int | None,
        topic: str | None, response_type: str, refine_rounds: int, as_json: bool) -> None:
    """Answer a global question: ReTAG (classify topic, expand keywords, BM25 top-p, map-reduce)
    or GraphRAG's global map-reduce over every report at a level."""
    from ..llm import Usage
    from ..model import Answer, Query, timed
    from ..query import answer as answer_by
    settings = obj.settings
    usage = Usage()
    seconds: dict[str, float] = {}
    query = Query(question=question, level=level, top_p=top_p, topic=topic,
                  response_type=response_type)
    with timed(seconds, "total"):
        answer: Answer = run_with_services(
            lambda llm, graph: answer_by(method, graph, llm, settings, query,
                                         refine_rounds=refine_rounds), settings, usage)
    answer.trace.llm = {"stages": usage.as_dict(), **vars(usage.total)}
    answer.trace.seconds["total"] = seconds["total"]
    if as_json:
        click.echo(json.dumps(answer.as_dict(), default=str, indent=2))
        return
    console.print(answer.answer, highlight=False)
    tr = answer.trace
    console.print()
    console.print(f"[dim]method {tr.method} | topic {tr.topic} | scope {tr.scope} | level "
                  f"{tr.level} | keywords {', '.join(tr.keywords) or '-'}[/dim]")
    console.print(f"[dim]reports retrieved {tr.reports_retrieved} | map batches {tr.map_batches}"
                  f" (parse failures {tr.map_parse_failures}) | points {tr.points_total}, "
                  f"zero {tr.points_zero}, in reduce {tr.points_in_reduce} | cited "
                  f"{[c.id for c in answer.citations]}[/dim]")
    t = usage.total
    console.print(f"[dim]LLM calls {t.calls} (+{t.cached} cached) | prompt tokens "
                  f"{t.prompt_tokens} | completion tokens {t.completion_tokens} | seconds "
                  f"{tr.seconds}[/dim]")
    for i, r in enumerate(tr.refinement, 1):
        console.print(f"[dim]refinement {i}: missing {r.missing!r}, keywords "
                      f"{r.keywords}, {r.new_reports} new reports[/dim]")
    for note in tr.notes:
        console.print(f"[yellow]note:[/yellow] {note}")


@click.command("eval")
@click.argument("questions_file", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--generate", type=int, default=None, help="generate N questions instead")
@click.option("--methods", default="retag,global", help="comma-separated, 2 or more")
@click.option("--level", type=int, default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def eval_cmd(obj: Ctx, questions_file: Path | None, generate: int | None, methods: str,
             level: int | None, as_json: bool) -> None:
    """Compare methods head to head with an LLM judge on comprehensiveness, diversity,
    empowerment and directness (Edge et al. 2024 §3.3; ReTAG §4). QUESTIONS_FILE has one
    question per line."""
    from ..llm import Usage
    from ..query.evaluate import run_eval
    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    if len(chosen) < 2 or any(m not in _methods() for m in chosen):
        raise click.UsageError(f"--methods: two or more of {', '.join(_methods())}")
    if not questions_file and not generate:
        raise click.UsageError("give QUESTIONS_FILE or --generate N")
    questions = ([q.strip() for q in questions_file.read_text().splitlines() if q.strip()]
                 if questions_file else None)
    usage = Usage()
    out = run_with_services(
        lambda llm, graph: run_eval(graph, llm, obj.settings, chosen, questions=questions,
                                    generate=generate, level=level), obj.settings, usage)
    if as_json:
        click.echo(json.dumps(out, default=str, indent=2))
        return
    table = Table("A", "B", "criterion", "win rate of A")
    for r in out["win_rates"]:
        table.add_row(r["a"], r["b"], r["criterion"], f"{r['win_rate']:.2f}")
    console.print(f"{len(out['questions'])} questions, level {out['level']}")
    console.print(table)
