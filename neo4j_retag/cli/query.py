"""CLI: `ask` and `eval` (the query side)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

import click

from ..errors import ConfigError
from ..eval.nuggets import DEFAULT_SIMILARITY
from ..stages import Stage
from .common import Ctx, ProgressBars, console, err_console, friendly, run_with_services

if TYPE_CHECKING:
    from ..model import Answer


def _methods() -> list[str]:
    from ..query import METHODS
    return list(METHODS)


def _click_option(name: str, field: Any) -> click.Option:
    """A click option from a field of `ask`'s request model: its type, bounds and help."""
    ann = field.annotation
    optional = type(None) in get_args(ann)  # X | None: the option may be left out
    if optional:
        ann = next(a for a in get_args(ann) if a is not type(None))
    bound = {k: getattr(m, k) for m in field.metadata for k in ("ge", "le") if hasattr(m, k)}
    flag = "--" + name.replace("_", "-")
    if ann is bool and optional:  # a method's yes/no option: either, or its setting
        return click.Option([f"{flag}/--no-{flag[2:]}"], default=None, help=field.description)
    if ann is bool:
        return click.Option([flag], is_flag=True, help=field.description)
    kind: Any = str
    if get_origin(ann) is Literal:
        kind = click.Choice(get_args(ann))
    elif ann is int:
        kind = click.IntRange(bound.get("ge"), bound.get("le")) if bound else int
    default = None if name == "method" else field.default  # method: ASK_METHOD
    return click.Option([flag], type=kind, default=default, help=field.description,
                        show_default=isinstance(default, str))


class AskCommand(click.Command):
    """`ask`, whose options are built from the query registry when it parses or shows them
    (``query.ask.ask_model``): importing the registry loads the LLM and Neo4j clients, which
    other commands (and `--help`) must not pay for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fixed = list(self.params)  # QUESTION and --json

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        from ..query.ask import ask_model
        fields = ask_model().model_fields  # cached: rebuilt only when the registry changed
        made = [_click_option(n, f) for n, f in fields.items() if n != "question"]
        made[0].help = ("default ASK_METHOD (retag; the embedded model's: "
                        f"docs/evaluation.md); {made[0].help}")
        self.params = [self.fixed[0], *made, *self.fixed[1:]]
        return super().get_params(ctx)


@click.command(cls=AskCommand)
@click.argument("question")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def ask(obj: Ctx, question: str, as_json: bool, **given: Any) -> None:
    """Answer a global question: ReTAG (classify topic, expand keywords, BM25 top-p, map-reduce)
    or GraphRAG's global map-reduce over every report at a level, or any method below (its
    options are said; an option another method takes is noted in the trace)."""
    from pydantic import ValidationError

    from ..errors import InputError
    from ..llm import Usage
    from ..query.ask import answer_question, ask_model, trace_lines
    from ..query.registry import check_settings
    from .eval_view import context_table
    settings = obj.settings
    check_settings(settings)  # every method's own: one out of bounds is exit 2, before a call
    method = given.pop("method") or settings.default_method
    if method not in _methods():
        raise ConfigError(f"ASK_METHOD={method!r} is no query method: one of "
                          f"{', '.join(_methods())}")
    usage = Usage()
    try:
        request = ask_model()(question=question, method=method,
                              **{k: v for k, v in given.items() if v is not None})
        request.method_name()
    except ValidationError as err:
        first = err.errors()[0]
        raise click.UsageError(f"{first['loc'][0]}: {first['msg']}") from err
    except InputError as err:  # a flag with another method
        raise click.UsageError(str(err)) from err
    answer: Answer = run_with_services(
        lambda llm, graph: answer_question(graph, llm, settings, request), settings, usage)
    if as_json:
        click.echo(json.dumps(answer.as_dict(), default=str, indent=2))
        _exit_status(answer, obj.debug)
        return
    console.print(answer.answer, highlight=False)
    if answer.sources:
        # what the map points rested on, apart from the answer text's own citations
        console.print(f"\nSources: {sources_line(answer)}", highlight=False, markup=False)
    tr = answer.trace
    console.print()
    for line in trace_lines(answer):  # the answering method's own part (its contract)
        console.print(line, style="dim", highlight=False, markup=False)
    t = usage.total
    secs = ", ".join(f"{k} {v:.1f}" for k, v in tr.seconds.items())
    console.print(f"[dim]LLM calls {t.calls} (+{t.cached} cached) | prompt tokens "
                  f"{t.prompt_tokens} | completion tokens {t.completion_tokens} | seconds: "
                  f"{secs}[/dim]")
    if (part := tr.llm_stages.get(Stage.REDUCE_PARTIAL)) is not None:  # the hierarchical reduce
        console.print(f"[dim]partial reduces {part.calls} (+{part.cached} cached) | prompt "
                      f"tokens {part.prompt_tokens}: the map points exceeded the window[/dim]")
    for i, r in enumerate(tr.refinement, 1):
        console.print(f"[dim]refinement {i}: missing {r.missing!r}, keywords "
                      f"{r.keywords}, {r.new_reports} new reports[/dim]")
    if tr.context:
        console.print(context_table(tr.context))
    for note in tr.notes:
        console.print(f"[yellow]note:[/yellow] {note}")
    _exit_status(answer, obj.debug)


def _exit_status(answer: Answer, debug: bool = False) -> None:
    """Each step that failed (a map batch, a DRIFT step, an embedding) and each reply the
    answer checks refused (one line; its text too with ``debug``) on stderr; exit 1 with
    one line when the answer is the no-answer sentence (a script must not take it for an
    answer), else exit 3 when a step failed (an answer from part of its context is not a
    clean success)."""
    from rich.markup import escape
    for failure in answer.trace.failures:
        err_console.print(f"[yellow]failed:[/yellow] {escape(failure.line())}",
                          highlight=False)
    for r in answer.trace.refusals:
        err_console.print(f"[yellow]refused:[/yellow] {escape(r.line())}", highlight=False,
                          soft_wrap=True)
        if debug:
            err_console.print(r.text, highlight=False, markup=False)
    if not answer.answered:
        err_console.print(f"no answer: {answer.trace.no_answer}", highlight=False,
                          markup=False)
        sys.exit(1)
    if answer.trace.failures:
        sys.exit(3)


def sources_line(answer: Answer) -> str:
    """The sources as one line: ``report 3 (Title), text unit ab12-00001 (report.pdf p. 7),
    ...`` (a text unit's location, else its title); those the answer text does not cite
    itself are marked ``- not cited``."""
    parts = []
    for c in answer.sources:
        kind = "report" if c.kind == "report" else "text unit"
        label = c.location or c.title if c.kind == "text_unit" else c.title
        title = f" ({label})" if label else ""
        parts.append(f"{kind} {c.id}{title}" + ("" if c.cited_in_answer else " - not cited"))
    return "; ".join(parts)


@click.command("eval")
@click.argument("questions_file", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--generate", is_flag=True,
              help="generate questions: personas -> tasks -> questions (Edge et al. §3.3)")
@click.option("--personas", type=click.IntRange(1), default=5, help="K user personas")
@click.option("--tasks", type=click.IntRange(1), default=5, help="N tasks per persona")
@click.option("--questions", type=click.IntRange(1), default=5, help="M questions per task")
@click.option("--methods", default="retag,global", help="comma-separated, 2 or more; a "
              "method's options as name@option=value (retag@top_p=12)")
@click.option("--level", type=int, default=None)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="output folder (default eval-results/<timestamp>)")
@click.option("--nuggets", "nuggets_file", type=click.Path(exists=True, dir_okay=False,
              path_type=Path), default=None,
              help="a nuggets JSON file: nugget recall per answer (judge-free); its questions "
              "are asked when QUESTIONS_FILE is not given")
@click.option("--nugget-similarity", "similarity", type=click.FloatRange(0, 1), default=None,
              is_flag=False, flag_value=DEFAULT_SIMILARITY,
              help="with --nuggets: a nugget no alias matched also counts when its text's "
              f"cosine to a sentence of the answer is at least this (alone: "
              f"{DEFAULT_SIMILARITY}, set for all-minilm-l6-v2); embedding calls")
@click.option("--judge/--no-judge", default=True,
              help="--no-judge: claim metrics and cost only, no judge calls (2 per question, "
              "pair of methods and criterion)")
@click.option("--resume", is_flag=True, help="keep the answers and verdicts --out holds for "
              "the same question, method and settings; ask only the others (both files are "
              "written as each one ends)")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def eval_cmd(obj: Ctx, questions_file: Path | None, generate: bool, personas: int, tasks: int,
             questions: int, methods: str, level: int | None, out: Path | None,
             nuggets_file: Path | None, similarity: float | None, judge: bool, resume: bool,
             as_json: bool) -> None:
    """Compare methods: LLM-judge win rates head to head on comprehensiveness, diversity,
    empowerment and directness (Edge et al. 2024 §3.3; ReTAG §4), claim-based
    comprehensiveness and diversity (Edge et al. 2025), cost; writes questions, answers,
    scores.json and PNG charts to --out. QUESTIONS_FILE: questions.json or one question per
    line. --nuggets FILE: nugget recall, citations and supported claims per answer (nuggets.md,
    nuggets.png); FILE's questions are asked when QUESTIONS_FILE is omitted or is FILE;
    --nugget-similarity adds nuggets matched by embedding (the embedding endpoint).
    --methods takes a method's options as name@option=value (retag@top_p=12, lazy@budget=50
    or lazy@50; several: retag@top_p=12@retrieval=bm25), each arm its own method in the
    results; --resume --out DIR finishes a stopped run.
    Exits 3 when some answer, claim extraction or
    verdict failed (listed)."""
    from rich.markup import escape

    from ..errors import InputError
    from ..eval.nuggets import read_nuggets
    from ..eval.questions import EvalQuestion, read_questions
    from ..eval.run import method_spec, run_eval
    from ..llm import Usage
    from .eval_view import print_scores
    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    try:
        for m in chosen:
            method_spec(m)
    except InputError as err:
        raise click.UsageError(str(err)) from None
    if not chosen or (judge and len(chosen) < 2):
        raise click.UsageError(f"--methods: two or more of {', '.join(_methods())} "
                               "(one is enough with --no-judge)")
    if similarity is not None and not nuggets_file:
        raise click.UsageError("--nugget-similarity scores nuggets: give --nuggets FILE")
    if generate and nuggets_file:
        raise click.UsageError("--nuggets asks its own questions: not with --generate")
    if resume and out is None:
        raise click.UsageError("--resume keeps the answers saved in --out: give --out")
    if bool(questions_file or nuggets_file) == generate:
        raise click.UsageError("give QUESTIONS_FILE, --nuggets or --generate")
    nset = read_nuggets(nuggets_file) if nuggets_file else None
    if nset and (questions_file is None or questions_file.resolve() == nuggets_file.resolve()):
        qs = [EvalQuestion(question=q.question) for q in nset.questions]
    else:
        qs = read_questions(questions_file) if questions_file else None
    # every question of a questions file must have its nuggets (InputError names the nearest)
    nuggets = nset.for_questions([q.question for q in qs]) if nset and qs else None
    out = out or Path("eval-results") / time.strftime("%Y%m%d-%H%M%S")
    usage = Usage()
    with ProgressBars(err_console, stream=sys.stderr if as_json else None) as bars:
        result = run_with_services(
            lambda llm, graph: run_eval(graph, llm, obj.settings, chosen, questions=qs,
                                        generate=(personas, tasks, questions), level=level,
                                        out=out, progress=bars, judged=judge,
                                        nuggets=nuggets,
                                        similarity=similarity, resume=resume),
            obj.settings, usage)
    for note in result.notes:  # what --resume kept and asked again
        err_console.print(note, highlight=False, markup=False)
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        print_scores(console, result)
        console.print(f"written to {out}/: " + ", ".join(Path(f).name for f in result.files))
    for failure in result.failures:
        err_console.print(f"[yellow]failed:[/yellow] {escape(failure.line())}",
                          highlight=False)
    if result.failures:
        sys.exit(3)
