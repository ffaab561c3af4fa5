"""CLI: `documents list`, `documents delete`, `reset` (taking things out of the index)."""

from __future__ import annotations

import json
import sys
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
    waiting,
)

if TYPE_CHECKING:
    from ..db import Graph


@click.group()
def documents() -> None:
    """The ingested documents: list them, delete some."""


@documents.command("list")
@click.option("--json", "as_json", is_flag=True, help="print the documents as JSON")
@click.pass_obj
@friendly
def documents_list(obj: Ctx, as_json: bool) -> None:
    """Each document: id, title, path, text units (and how many hold an unreadable character),
    entities its text units mention (and how many only it mentions), what its reader could not
    read (pages without text, hidden slides and shapes, unmapped glyphs), when it was ingested."""
    from ..api.documents import list_documents
    from ..db import Graph
    with Graph(obj.settings) as graph:
        listed = list_documents(graph)  # the operation GET /documents and MCP's tool run
    if as_json:
        click.echo(json.dumps(listed.model_dump(mode="json"), indent=2))
        return
    rows = listed.documents
    table = Table("id", "title", "path", "text units (lossy)", "entities (only here)",
                  "not read", "ingested at", title=f"{len(rows)} documents")
    for r in rows:
        lost = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in r.lost if v)
        table.add_row(r.id[:12], r.title or "", r.path or "",
                      f"{r.text_units} ({r.text_units_lossy})",
                      f"{r.entities} ({r.entities_only_here})", lost or "-",
                      r.ingested_at or "")
    console.print(table)


@documents.command("delete")
@click.argument("refs", nargs=-1, required=True, metavar="ID|PATH...")
@click.option("--rebuild", is_flag=True,
              help="re-summarise changed descriptions and rebuild communities, reports and "
                   "topics now (otherwise the next `ingest` does)")
@click.option("--quiet", is_flag=True, help="no progress output")
@click.option("--json", "as_json", is_flag=True, help="print the outcome as JSON")
@click.option("--wait", is_flag=True, help=WAIT_HELP)
@click.pass_obj
@friendly
def documents_delete(obj: Ctx, refs: tuple[str, ...], rebuild: bool, quiet: bool,
                     as_json: bool, wait: bool) -> None:
    """Delete documents (by id, id prefix of 8+ characters, path or folder) with their text
    units, mentions and claims, and every entity and relationship no other document supports.
    Shared ones keep the remaining evidence (weights recomputed now, descriptions re-summarised
    where their set changed); communities, reports and topics are rebuilt by the next
    `ingest` (any PATHS, or --resume) or now with --rebuild."""
    from ..api.operations import Local
    from ..db import Graph
    from ..index.delete import delete_and_rebuild
    from ..llm import Usage
    settings = waiting(obj.settings, wait)  # the lock reads the graph's settings
    failed = False
    if rebuild:
        async def work(llm: Any, graph: Graph) -> dict[str, Any]:
            with ProgressBars(quiet=quiet, stream=sys.stderr if as_json else None,
                              interval=settings.progress_interval) as bars:
                return await delete_and_rebuild(graph, llm, settings, refs, progress=bars)

        out = run_with_services(work, settings, Usage())
        result = out["rebuild"]
        out["rebuild"] = {"text_units_failed": result.text_units_failed,
                          "failed_items": result.failed_items,
                          "elements_summarized": result.elements_summarized,
                          "communities_rebuilt": result.communities_rebuilt,
                          "reports": result.reports,
                          "topics": result.topics.topics if result.topics else None}
        failed = bool(result.failed_items)  # as `ingest`: any failed item exits 3
    else:
        from ..api.operations import OPERATIONS, parse
        delete = OPERATIONS["delete_documents"]  # as POST /documents/delete and MCP's tool
        with Graph(settings) as graph:
            out = delete.run(Local(graph), parse(delete, {"ids": list(refs)})).model_dump()
    if as_json:
        click.echo(dumps(out))
    else:
        for d in out["documents"]:
            console.print(f"deleted {d['id'][:12]} {d['path'] or d['title']}", highlight=False)
        console.print(f"{out['nodes_deleted']} nodes and {out['relationships_deleted']} "
                      f"relationships removed; {out['entities_to_resummarise']} entities and "
                      f"{out['relationships_to_resummarise']} relationships to re-summarise")
        if rebuild:
            rep = result.reports
            console.print(f"rebuilt: {result.elements_summarized} descriptions, communities "
                          f"{'rebuilt' if result.communities_rebuilt else 'unchanged'}, "
                          f"reports: {rep.ok} new, {rep.failed} failed, {rep.waiting} waiting")
            print_failures(result.failures, "`neo4j-retag ingest --resume`")
        else:
            console.print("communities, reports and topics are stale: run "
                          "`neo4j-retag ingest --resume` (or delete with --rebuild)")
    if failed:
        sys.exit(3)


@click.command()
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
@click.pass_obj
@friendly
def reset(obj: Ctx, yes: bool) -> None:
    """Empty the database: documents, graph, communities, topics, GDS projections, index
    metadata and LLM usage counters. The LLM response cache is kept (re-ingesting the same
    documents costs no LLM call)."""
    from ..db import Graph
    from ..ops.documents import reset as reset_graph
    settings = obj.settings
    if not yes:
        click.confirm(f"Delete everything in database {settings.neo4j.database!r} at "
                      f"{settings.neo4j.bolt_uri}?", abort=True)
    with Graph(settings) as graph:
        before = reset_graph(graph)
    console.print(f"emptied: {before['documents']} documents, {before['text_units']} text "
                  f"units, {before['entities']} entities, {before['relationships']} "
                  f"relationships, {before['communities']} communities, "
                  f"{before['projections']} GDS projections; LLM cache kept in "
                  f"{settings.cache_dir}", highlight=False)
