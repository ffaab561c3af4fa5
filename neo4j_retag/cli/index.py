"""CLI: `ingest`, `stats`, `topics build` (the indexing side)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .common import (
    WAIT_HELP,
    Ctx,
    ProgressBars,
    Table,
    console,
    dumps,
    friendly,
    print_failures,
    run_with_services,
    usage_table,
    waiting,
)

if TYPE_CHECKING:
    from ..index.results import IngestResult, TopicsResult
    from ..llm import Usage


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--glean", type=click.IntRange(0), default=None,
              help="gleaning rounds (default GLEAN, 0)")
@click.option("--no-claims", is_flag=True, help="do not extract claims")
@click.option("--lazy", is_flag=True, help="the lazy index (INDEX_METHOD=lazy): noun-phrase "
              "concepts and their communities, no LLM call; reports are built when a query "
              "needs them")
@click.option("--full", is_flag=True, help="the full index (INDEX_METHOD=full); on a graph "
              "holding a lazy index, turn it into the full one (every text unit is extracted)")
@click.option("--resume", is_flag=True,
              help="finish a previous run (pending text units, summaries, communities, reports); "
                   "PATHS may be omitted")
@click.option("--text-field", default=None, help="record field holding the text (.jsonl/.csv)")
@click.option("--no-topics", is_flag=True, help="skip ReTAG topic augmentation")
@click.option("--topic-mode", type=click.Choice(["communities", "assign", "reextract"]),
              help="how ReTAG's topics are built (default TOPIC_MODE; see `topics build`)")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.option("--quiet", is_flag=True,
              help="no progress (bars on a terminal, else one line per stage and every ~10 s)")
@click.option("--wait", is_flag=True, help=WAIT_HELP)
@click.option("--no-embeddings", is_flag=True, help="no embed stage (EMBEDDINGS=false): "
              "text units, entities and reports are not embedded; retrieval is BM25 only")
@click.option("--reembed", is_flag=True, help="drop every stored vector and embed again "
              "(after changing EMBEDDING_MODEL or EMBEDDING_DIMENSIONS)")
@click.option("--accept-skipped", is_flag=True, help="exit 0 although documents could not be "
              "read (encrypted, no text layer, corrupt): they are still listed and counted")
@click.option("--estimate", is_flag=True,
              help="print the expected LLM calls and tokens per stage (and a price with "
                   "LLM_PRICE_INPUT / LLM_PRICE_OUTPUT); calls no LLM, writes nothing")
@click.pass_obj
@friendly
def ingest(obj: Ctx, paths: tuple[Path, ...], glean: int | None, no_claims: bool, lazy: bool,
           full: bool, resume: bool,
           text_field: str | None, no_topics: bool, topic_mode: str | None, as_json: bool,
           quiet: bool, wait: bool, no_embeddings: bool, reembed: bool, accept_skipped: bool,
           estimate: bool) -> None:
    """Index PATHS (files or folders) into Neo4j: text units, entities, relationships, claims,
    hierarchical Leiden communities, community reports, then topics (Edge et al. 2024 §3.1;
    ReTAG §3.2.1). Rerunning is free and changes nothing; a killed run resumes."""
    from rich.console import Console

    from ..index.pipeline import run_ingest
    from ..llm import Usage
    from ..model import timed
    from ..ops.stats import collect

    if not paths and not resume:
        raise click.UsageError("give PATHS to ingest, or --resume")
    updates: dict[str, Any] = {}
    if glean is not None:
        updates["glean"] = glean
    if no_claims:
        updates["extract_claims"] = False
    if lazy and full:
        raise click.UsageError("--lazy and --full exclude each other")
    if lazy or full:
        updates["index_method"] = "lazy" if lazy else "full"
    if no_embeddings:
        updates["embeddings"] = False
    if topic_mode:  # the estimate models the topics this run builds
        updates["topic_mode"] = topic_mode
    if reembed and no_embeddings:
        raise click.UsageError("--reembed and --no-embeddings exclude each other")
    settings = waiting(obj.settings, wait).model_copy(update=updates)
    if estimate:
        from .estimate import print_estimate
        print_estimate(settings, list(paths), text_field,
                       not no_topics and settings.query.retag_topics, as_json)
        return
    usage = Usage()
    seconds: dict[str, float] = {}

    async def work(llm: Any, graph: Any) -> tuple[Any, dict[str, Any]]:
        from ..index.estimate import estimate_ingest, record_actual, record_estimate
        est = estimate_ingest(settings, list(paths), graph, text_field=text_field,
                              topics=not no_topics)
        if est.text_units:  # kept for `stats`: this run's estimate beside what it spent
            record_estimate(graph, est)
        # with --json, progress lines go to stderr so stdout stays one JSON document
        with ProgressBars(Console(stderr=True, quiet=as_json), quiet=quiet,
                          stream=sys.stderr if as_json else None,
                          interval=settings.progress_interval) as bars:
            result = await run_ingest(graph, llm, settings, paths, progress=bars,
                                      text_field=text_field, topics=not no_topics,
                                      topic_mode=topic_mode, reembed=reembed)
        if est.text_units:
            record_actual(graph, usage)
        return result, collect(graph)

    with timed(seconds, "total"):
        result, graph_stats = run_with_services(work, settings, usage)
    summary = {
        **result.model_dump(mode="json"),
        "graph": graph_stats, "llm": usage.as_dict(),
        "llm_total": usage.total.model_dump(), "seconds_total": round(seconds["total"], 2),
        "topics": result.topics.model_dump(mode="json")["topics"] if result.topics else None,
        "llm_faults": dict(sorted(usage.faults.items())), "failed_items": result.failed_items,
        "documents_unread": len(result.unread), "skips_accepted": accept_skipped,
    }
    if as_json:
        click.echo(dumps(summary))
    else:
        _print_ingest(summary, result, usage, accept_skipped)
    # each failed item is retried by the next run; documents not read fail the run unless
    # the user accepts them knowingly (--accept-skipped: still listed and counted)
    if result.failed_items - (len(result.unread) if accept_skipped else 0):
        sys.exit(3)


def _print_ingest(s: dict[str, Any], result: IngestResult, usage: Usage,
                  accept_skipped: bool = False) -> None:
    g = s["graph"]
    table = Table(title="neo4j-retag ingest")
    table.add_column("what")
    table.add_column("count", justify="right")
    for label, value in [
        ("documents read / new / replaced",
         f"{s['documents_read']} / {s['documents_new']} / {s['documents_replaced']}"),
        ("skipped inputs (by reason)", f"{len(s['skipped'])}" + (" ({})".format(", ".join(
            f"{k} {v}" for k, v in sorted(Counter(x["reason"] for x in s["skipped"]).items())))
            if s["skipped"] else "")),
        ("lost in reading (pages without text, hidden slides and shapes, unmapped glyphs, "
         "text units)",
         ", ".join(f"{k} {v}" for k, v in sorted(s["lossy"].items())) or "0"),
        ("text units (new / extracted now / failed)",
         f"{g['text_units']} ({s['text_units_new']} / {s['text_units_extracted']} / "
         f"{len(s['text_units_failed'])})"),
        ("extraction records dropped (or kept changed)", ", ".join(
            f"{k} {v}" for k, v in sorted(s["dropped_records"].items())) or "0"),
        ("element descriptions (updated / joined without a call / failed)",
         f"{s['elements_summarized']} / {s['descriptions_joined']} / "
         f"{len(s['summaries_failed'])}"),
        ("entities / relationships / claims / sentences (their evidence)",
         f"{g['entities']} / {g['relationships']} / {g['claims']} / {g.get('sentences', 0)}"),
        ("communities per level", ", ".join(f"L{lv['level']}: {lv['communities']}"
                                            for lv in g["levels"]) or "-"),
        ("community reports (failed)", f"{g['community_reports']} ({g['failed_reports']})"),
        ("report citations removed (ids not in the context) / findings dropped (not held by it)",
         f"{s['reports'].get('invalid_citations', 0)} / "
         f"{s['reports'].get('unsupported_findings', 0)}"),
        ("composed reports: findings or evidence sentences left out (REPORT_MAX_TOKENS)",
         s["reports"].get("left_out", 0)),
        ("reports of evidence: titles written / refused (members' names instead)",
         f"{s['reports'].get('titled', 0)} / {s['reports'].get('titles_refused', 0)}"),
        ("topics (items failed)", f"{g['topics']} ({len(s['topics_failed'])})"),
        ("embedded now: text units / entities / reports (failed)",
         f"{s['embeddings']['text_units']} / {s['embeddings']['entities']} / "
         f"{s['embeddings']['reports']} ({len(s['embeddings']['failures'])})"),
        ("LLM faults met (retried or repaired)", ", ".join(
            f"{k} {v}" for k, v in s["llm_faults"].items()) or "0"),
        ("outputs cleaned (chatter stripped; summary sentences unsupported, removed)", ", ".join(
            f"{k} {v}" for k, v in sorted(s["chatter_stripped"].items())) or "0"),
        ("seconds per stage", ", ".join(f"{k} {v:.1f}" for k, v in s["seconds"].items())),
    ]:
        table.add_row(label, str(value))
    console.print(table)
    for sk in result.skipped:
        console.print(f"[yellow]skipped[/yellow] {sk.item}: {sk.error}", highlight=False)
    for outcome in result.outcomes:
        console.print(f"[yellow]{outcome}[/yellow]")
    if result.unread and accept_skipped:
        console.print(f"[yellow]{len(result.unread)} document(s) could not be read[/yellow] "
                      "(listed above as skipped; accepted with --accept-skipped)",
                      highlight=False)
    elif result.unread:
        console.print(f"[red]{len(result.unread)} document(s) could not be read[/red] (listed "
                      "above as skipped): fix or remove them, then rerun, or accept them with "
                      "--accept-skipped (exit code 3)", highlight=False)
    print_failures(result.failures, "`neo4j-retag ingest --resume`")
    console.print(usage_table(usage))


@click.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def stats(obj: Ctx, as_json: bool) -> None:
    """Documents, text units, entities, relationships, claims, communities and reports per
    level and topic, failures, and the LLM tokens spent so far by stage."""
    from ..api.operations import OPERATIONS, Local
    from ..db import Graph
    with Graph(obj.settings) as graph:  # the operation GET /stats and MCP's tool run
        data = OPERATIONS["stats"].run(Local(graph), None).model_dump(mode="json")
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    table = Table("what", "count")
    for k, v in data.items():
        if not isinstance(v, list | dict) and k != "serve":  # serve: a `serve` process's
            table.add_row(k, str(v))
    for reason, n in data["dropped_records"].items():
        table.add_row(f"dropped records: {reason}", str(n))
    for category, n in data["content_filter"].items():
        table.add_row(f"blocked by the content filter: {category}", str(n))
    for lv in data["levels"]:
        table.add_row(f"level {lv['level']}", f"{lv['communities']} communities, "
                                              f"{lv['reports']} reports")
    for t in data["topic_subgraphs"]:
        table.add_row(f"topic {t['name']}", f"{t['entities']} entities, {t['communities']} "
                      f"communities, {t['reports']} reports ({t['reused']} reused)")
    console.print(table)
    if data.get("stale_reports"):
        console.print(f"[yellow]{data['stale_reports']} community reports are stale (documents "
                      "deleted since they were built) and left out of every answer: run "
                      "`neo4j-retag ingest --resume`[/yellow]")
    usage = Table("stage", "calls", "cached", "prompt tokens", "completion tokens")
    for u in data["llm_usage"]:
        usage.add_row(u["stage"], str(u["calls"]), str(u["cached"]), str(u["prompt_tokens"]),
                      str(u["completion_tokens"]))
    console.print(usage)
    if data.get("ingest_estimate"):
        est = Table("stage (last ingest)", "calls est. / actual", "prompt tokens est. / actual",
                    "completion tokens est. / actual")
        for e in data["ingest_estimate"]:
            est.add_row(e["stage"], *(f"{e[k]:,} / {e['actual_' + k] or 0:,}" for k in
                                      ("calls", "prompt_tokens", "completion_tokens")))
        console.print(est)


@click.group()
def topics() -> None:
    """ReTAG topic augmentation (Kim et al. 2025 §3.2.1)."""


@topics.command("build")
@click.option("--mode", type=click.Choice(["communities", "assign", "reextract"]),
              help="topics of the general graph's communities (no mining; a small model's "
              "default), or mined, their subgraphs by labelling text units (the default "
              "otherwise) or by re-extraction (the paper's); default TOPIC_MODE")
@click.option("--max-topics", type=click.IntRange(1), default=8)
@click.option("--json", "as_json", is_flag=True)
@click.option("--quiet", is_flag=True, help="no progress output")
@click.pass_obj
@friendly
def topics_build(obj: Ctx, mode: str | None, max_topics: int, as_json: bool,
                 quiet: bool) -> None:
    """Build topics, a corpus description, the topic subgraphs, their communities and reports."""
    from rich.console import Console

    from ..index.embed import embed_if_enabled
    from ..index.topics import build_topics
    from ..llm import Usage
    usage = Usage()

    async def work(llm: Any, graph: Any) -> TopicsResult:
        with ProgressBars(Console(stderr=True, quiet=as_json), quiet=quiet,
                          stream=sys.stderr if as_json else None,
                          interval=obj.settings.progress_interval) as bars:
            result = await build_topics(graph, llm, obj.settings, mode=mode,
                                        max_topics=max_topics, progress=bars)
            # the topic communities' reports get their vectors (hybrid retrieval in a topic)
            result.failed += (await embed_if_enabled(graph, llm, obj.settings, bars)).failures
            return result

    out = run_with_services(work, obj.settings, usage)
    if as_json:
        click.echo(dumps({**out.model_dump(mode="json"), "llm": usage.as_dict(),
                          "llm_faults": dict(sorted(usage.faults.items()))}))
        if out.failed:
            sys.exit(3)
        return
    console.print(f"[bold]corpus:[/bold] {out.corpus_description}")
    if out.mode == "communities":
        console.print(f"topics: {out.why}", highlight=False)
    table = Table("topic", "label", "entities", "communities", "reports")
    for t in out.counts:
        table.add_row(t.name, t.label, str(t.entities), str(t.communities), str(t.reports))
    console.print(table)
    for name in out.split_topics:
        console.print(f"[yellow]split topic[/yellow] {name}: it held most of the entities "
                      "(RETAG_TOPIC_MAX_SHARE): mined again into narrower topics",
                      highlight=False)
    for name in out.unsplit_topics:
        console.print(f"[yellow]unsplit topic[/yellow] {name}: it holds most of the entities "
                      "and the model gave no narrower topics: it is not offered to the "
                      "classifier (RETAG_TOPIC_MAX_SHARE)", highlight=False)
    for name in out.dropped_topics:
        console.print(f"[yellow]dropped topic[/yellow] {name}: no text unit concerns it",
                      highlight=False)
    uncovered = out.uncovered_root_communities
    console.print(f"root communities covered by no topic: {len(uncovered)}", highlight=False)
    for r in uncovered:
        console.print(f"  [yellow]uncovered[/yellow] community {r.id} ({r.size} "
                      f"entities): {r.title}", highlight=False)
    console.print(usage_table(usage))
    print_failures({"topic item": out.failed}, "`neo4j-retag topics build`")
    if out.failed:
        sys.exit(3)
