"""The `neo4j-retag` command line: services, ingest, topics, ask, eval, stats, doctor.

Each command parses its options, makes one library call and prints the result.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from ..errors import ConfigError
from ..llm import Usage
from ..model import Answer, Query, timed
from ..query import METHODS
from .common import Ctx, ProgressBars, console, friendly, run_with_services, usage_table
from .interop import browse, export, import_group


@click.group()
@click.option("--debug", is_flag=True, help="show full tracebacks")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """GraphRAG + ReTAG global sensemaking over a corpus, on Neo4j + Graph Data Science."""
    ctx.obj = Ctx(debug)
    # fallbacks log a warning to stderr (and land in traces); --debug shows every record
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


@main.command("config")
@click.pass_obj
@friendly
def config_cmd(obj: Ctx) -> None:
    """Show the effective settings (secrets masked)."""
    table = Table("setting", "value")
    for k, v in obj.settings.masked().items():
        table.add_row(k, v)
    console.print(table)


# --- services ---------------------------------------------------------------------------

def _service_group(name: str, doc: str, module: str, remote_setting: str) -> click.Group:
    """`neo4j-retag <name> start|stop|status` for one local service module in .server."""

    def service() -> Any:
        import importlib
        return importlib.import_module(f"neo4j_retag.server.{module}")

    group = click.Group(name, help=doc)

    @group.command("start")
    @click.pass_obj
    @friendly
    def start(obj: Ctx) -> None:
        """Start it (fetching what it needs first) and wait until it answers."""
        remote = getattr(obj.settings, remote_setting.lower())
        if remote:
            raise ConfigError(f"{remote_setting} is set ({remote}): nothing to start")
        console.print_json(data=service().start(obj.settings), default=str)

    @group.command("stop")
    @click.pass_obj
    @friendly
    def stop(obj: Ctx) -> None:
        """Stop it cleanly."""
        console.print("stopped" if service().stop(obj.settings) else "not running")

    @group.command("status")
    @click.pass_obj
    @friendly
    def status(obj: Ctx) -> None:
        """What runs where."""
        console.print_json(data=service().status(obj.settings), default=str)

    main.add_command(group)
    return group


neo4j = _service_group(
    "neo4j", "The local Neo4j 5 + GDS server (fetched from Maven Central, run with Java 17).",
    "neo4j_local", "NEO4J_URI")
_service_group("llm", "The local OpenAI-compatible LLM server (llama.cpp + "
               "SmolLM2-135M-Instruct).", "llm_local", "OPENAI_BASE_URL")


@neo4j.command("install")
@click.pass_obj
@friendly
def neo4j_install(obj: Ctx) -> None:
    """Fetch Neo4j, Browser and GDS from Maven Central into the cache (idempotent)."""
    from ..server import neo4j_local
    console.print(f"installed in {neo4j_local.install(obj.settings)}")


@main.command()
@click.pass_obj
@friendly
def up(obj: Ctx) -> None:
    """Start whatever local services the settings need (Neo4j + GDS, the LLM)."""
    from ..server import llm_local, neo4j_local
    if obj.settings.local_neo4j:
        info = neo4j_local.start(obj.settings)
        console.print(f"Neo4j + GDS: {info.get('bolt_uri')}  Browser: {info.get('browser_url')}")
    if obj.settings.local_llm:
        info = llm_local.start(obj.settings)
        console.print(f"LLM: {info.get('base_url')}  model: {info.get('model')}")


@main.command()
@click.pass_obj
@friendly
def down(obj: Ctx) -> None:
    """Stop the local services."""
    from ..server import llm_local, neo4j_local
    llm_local.stop(obj.settings)
    neo4j_local.stop(obj.settings)
    console.print("stopped")


@main.command()
@click.pass_obj
@friendly
def doctor(obj: Ctx) -> None:
    """Check Neo4j, GDS, indexes, the LLM endpoint and the tokenizer; non-zero exit on failure."""
    from ..ops.doctor import run_checks
    checks = run_checks(obj.settings)
    table = Table("check", "ok", "detail")
    for c in checks:
        table.add_row(c.name, "[green]yes[/green]" if c.ok else "[red]NO[/red]",
                      c.detail if c.ok else f"{c.detail}\n[yellow]fix:[/yellow] {c.fix}")
    console.print(table)
    if not all(c.ok for c in checks):
        sys.exit(1)


# --- the pipeline -----------------------------------------------------------------------

@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--glean", type=int, default=None, help="gleaning rounds (default 1)")
@click.option("--no-claims", is_flag=True, help="do not extract claims")
@click.option("--resume", is_flag=True,
              help="finish a previous run (pending text units, summaries, communities, reports); "
                   "PATHS may be omitted")
@click.option("--text-field", default=None, help="record field holding the text (.jsonl/.csv)")
@click.option("--no-topics", is_flag=True, help="skip ReTAG topic augmentation")
@click.option("--topic-mode", type=click.Choice(["assign", "reextract"]), default="assign")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.pass_obj
@friendly
def ingest(obj: Ctx, paths: tuple[Path, ...], glean: int | None, no_claims: bool, resume: bool,
           text_field: str | None, no_topics: bool, topic_mode: str, as_json: bool) -> None:
    """Index PATHS (files or folders) into Neo4j: text units, entities, relationships, claims,
    hierarchical Leiden communities, community reports, then topics (Edge et al. 2024 §3.1;
    ReTAG §3.2.1). Rerunning is free and changes nothing; a killed run resumes."""
    from ..index.pipeline import run_ingest
    from ..ops.stats import collect

    if not paths and not resume:
        raise click.UsageError("give PATHS to ingest, or --resume")
    updates: dict[str, Any] = {}
    if glean is not None:
        updates["glean"] = glean
    if no_claims:
        updates["extract_claims"] = False
    settings = obj.settings.model_copy(update=updates)
    usage = Usage()
    seconds: dict[str, float] = {}

    async def work(llm: Any, graph: Any) -> tuple[Any, dict[str, Any]]:
        with ProgressBars(Console(stderr=True, quiet=as_json)) as bars:
            result = await run_ingest(settings, list(paths), llm, graph, progress=bars,
                                      text_field=text_field, topics=not no_topics,
                                      topic_mode=topic_mode)
        return result, collect(graph)

    with timed(seconds, "total"):
        result, graph_stats = run_with_services(work, settings, usage)
    summary = {
        **{k: v for k, v in vars(result).items()},
        "graph": graph_stats, "llm": usage.as_dict(),
        "llm_total": vars(usage.total), "seconds_total": round(seconds["total"], 2),
        "topics": result.topics["topics"] if result.topics else None,
    }
    if as_json:
        click.echo(json.dumps(summary, default=str, indent=2))
    else:
        _print_ingest(summary, usage)
    if result.text_units_failed:
        sys.exit(3)


def _print_ingest(s: dict[str, Any], usage: Usage) -> None:
    g = s["graph"]
    table = Table(title="neo4j-retag ingest")
    table.add_column("what")
    table.add_column("count", justify="right")
    for label, value in [
        ("documents read / new / replaced",
         f"{s['documents_read']} / {s['documents_new']} / {s['documents_replaced']}"),
        ("skipped inputs", len(s["skipped"])),
        ("text units (new / extracted now / failed)",
         f"{g['text_units']} ({s['text_units_new']} / {s['text_units_extracted']} / "
         f"{len(s['text_units_failed'])})"),
        ("entities", g["entities"]), ("relationships", g["relationships"]),
        ("claims", g["claims"]),
        ("communities per level", ", ".join(f"L{lv['level']}: {lv['communities']}"
                                            for lv in g["levels"]) or "-"),
        ("community reports (failed)", f"{g['community_reports']} ({g['failed_reports']})"),
        ("topics", g["topics"]),
        ("seconds per stage", ", ".join(f"{k} {v:.1f}" for k, v in s["seconds"].items())),
    ]:
        table.add_row(label, str(value))
    console.print(table)
    for sk in s["skipped"]:
        console.print(f"[yellow]skipped[/yellow] {sk['path']}: {sk['reason']}")
    for f in s["text_units_failed"]:
        console.print(f"[red]failed text unit[/red] {f['id']}: {f['error']}")
    console.print(usage_table(usage))


@main.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def stats(obj: Ctx, as_json: bool) -> None:
    """Documents, text units, entities, relationships, claims, communities and reports per
    level and topic, failures, and the LLM tokens spent so far by stage."""
    from ..ops.stats import read_stats
    data = read_stats(obj.settings)
    if as_json:
        click.echo(json.dumps(data, default=str, indent=2))
        return
    table = Table("what", "count")
    for k, v in data.items():
        if not isinstance(v, list):
            table.add_row(k, str(v))
    for lv in data["levels"]:
        table.add_row(f"level {lv['level']}", f"{lv['communities']} communities, "
                                              f"{lv['reports']} reports")
    for t in data["topic_subgraphs"]:
        table.add_row(f"topic {t['name']}", f"{t['entities']} entities, {t['communities']} "
                                            f"communities, {t['reports']} reports")
    console.print(table)
    usage = Table("stage", "calls", "cached", "prompt tokens", "completion tokens")
    for u in data["llm_usage"]:
        usage.add_row(u["stage"], str(u["calls"]), str(u["cached"]), str(u["prompt_tokens"]),
                      str(u["completion_tokens"]))
    console.print(usage)


@main.group()
def topics() -> None:
    """ReTAG topic augmentation (Kim et al. 2025 §3.2.1)."""


@topics.command("build")
@click.option("--mode", type=click.Choice(["assign", "reextract"]), default="assign",
              help="topic subgraphs by labelling text units (cheap) or re-extraction (paper)")
@click.option("--max-topics", type=int, default=8)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def topics_build(obj: Ctx, mode: str, max_topics: int, as_json: bool) -> None:
    """Mine topics and a corpus description, build topic subgraphs, communities and reports."""
    from ..index.topics import build_topics
    usage = Usage()
    out = run_with_services(lambda llm, graph: build_topics(graph, llm, obj.settings, mode=mode,
                                                            max_topics=max_topics),
                            obj.settings, usage)
    out["llm"] = usage.as_dict()
    if as_json:
        click.echo(json.dumps(out, default=str, indent=2))
        return
    console.print(f"[bold]corpus:[/bold] {out['corpus_description']}")
    table = Table("topic", "label", "entities", "communities", "reports")
    for t in out["counts"]:
        table.add_row(t["name"], t["label"], str(t["entities"]), str(t["communities"]),
                      str(t["reports"]))
    console.print(table)
    console.print(usage_table(usage))


@main.command()
@click.argument("question")
@click.option("--method", type=click.Choice(list(METHODS)),
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


@main.command("eval")
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
    from ..query.evaluate import run_eval
    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    if len(chosen) < 2 or any(m not in METHODS for m in chosen):
        raise click.UsageError(f"--methods: two or more of {', '.join(METHODS)}")
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


for _cmd in (import_group, export, browse):
    main.add_command(_cmd)

if __name__ == "__main__":
    main()
