"""CLI: `import graphrag DIR`, `export DIR`, `browse`; added to the main group by :func:`register`.

``cli.py`` imports this module at its bottom, so everything from ``cli`` is imported inside the
commands (never at module level) to keep the import cycle harmless.
"""

from __future__ import annotations

import functools
import itertools
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.table import Table

from .config import resource_dir

T = TypeVar("T")


def _friendly(fn: Callable[..., T]) -> Callable[..., T]:
    """cli.friendly (one-line errors), looked up when the command runs."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        from .cli import friendly
        return friendly(fn)(*args, **kwargs)

    return wrapper


@click.group("import")
def import_group() -> None:
    """Import an index built by another tool."""


@import_group.command("graphrag")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--replace", is_flag=True,
              help="delete the general-scope communities first (their ids would collide)")
@click.option("--json", "as_json", is_flag=True, help="print the import report as JSON")
@click.pass_obj
@_friendly
def import_graphrag_cmd(obj: Any, folder: Path, replace: bool, as_json: bool) -> None:
    """Import a Microsoft GraphRAG output FOLDER (documents, text_units, entities,
    relationships, communities, community_reports[, covariates] .parquet, or the older
    create_final_* files). Ids, levels and reports are kept; `ask` then answers over them."""
    from .cli import console
    from .db import Graph
    from .graphrag_import import import_graphrag

    with Graph(obj.settings) as graph:
        report = import_graphrag(graph, obj.settings, folder, replace=replace)
    if as_json:
        click.echo(report.model_dump_json(indent=2))
        return
    console.print(f"[bold]{report.folder}[/bold]: {report.layout} layout, {report.version}")
    files = Table("file", "rows", "columns used", "recomputed", "ignored", "absent",
                  title="GraphRAG files")
    for f in report.files:
        used = [f"{c} (as {f.renamed[c]})" if c in f.renamed else c for c in f.used]
        files.add_row(f.file, str(f.rows), ", ".join(used), ", ".join(f.derived) or "-",
                      ", ".join(f.ignored) or "-", ", ".join(f.missing) or "-")
    console.print(files)
    for name in report.missing_optional:
        console.print(f"[yellow]optional file absent:[/yellow] {name}")
    if report.ignored_files:
        console.print(f"[dim]ignored files: {', '.join(report.ignored_files)}[/dim]")
    counts = Table("imported", "count")
    for k, v in report.counts.items():
        counts.add_row(k, str(v))
    for lv in report.levels:
        counts.add_row(f"level {lv['level']}", f"{lv['communities']} communities, "
                                               f"{lv['reports']} reports")
    console.print(counts)
    for w in report.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)


@click.command("export")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@_friendly
def export(obj: Any, folder: Path, as_json: bool) -> None:
    """Write the graph to FOLDER as GraphRAG output parquet tables (GraphRAG 3.x columns, with
    the 2.x spellings document_ids / metadata too)."""
    from .cli import console
    from .db import Graph
    from .graphrag_export import export_graphrag

    with Graph(obj.settings) as graph:
        report = export_graphrag(graph, obj.settings, folder)
    if as_json:
        click.echo(report.model_dump_json(indent=2))
        return
    for name, rows in report.files.items():
        console.print(f"{folder / (name + '.parquet')}: {rows} rows")
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {note}")


def explore_queries() -> list[dict[str, Any]]:
    """The ready Browser queries: name, path, first comment line, `:param` lines, text."""
    out = []
    for path in sorted((resource_dir("cypher") / "explore").glob("*.cypher")):
        text = path.read_text()
        comments = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("//")]
        intro = " ".join(itertools.takewhile(lambda c: not c.startswith("Browser:"), comments))
        out.append({"name": path.stem, "path": path, "text": text,
                    "about": intro,
                    "params": [m for c in comments for m in re.findall(r":param [^;]+?(?=\s{2,}|$)",
                                                                     c)]})
    return out


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - loopback, fixed scheme
            return True
    except OSError:
        return False


@click.command("browse")
@click.option("--full", is_flag=True, help="print the text of every ready query")
@click.pass_obj
@_friendly
def browse(obj: Any, full: bool) -> None:
    """How to explore the graph in Neo4j Browser (or Bloom): URL, credentials, ready queries."""
    from .cli import console

    s = obj.settings
    explore = resource_dir("explore")
    if s.local_neo4j:
        url = f"http://127.0.0.1:{s.neo4j_http_port}/browser/"
        state = "" if _answers(url) else (
            "  [yellow](not answering: run `neo4j-retag neo4j start`)[/yellow]")
        console.print(f"[bold]Neo4j Browser[/bold]  {url}{state}")
    else:
        console.print(f"[bold]Neo4j Browser[/bold]  remote server ({s.neo4j_uri}): open its own "
                      "Browser (Aura: console -> Query), or https://browser.neo4j.io/ with the "
                      "connect URL below")
    console.print(f"connect URL    {s.bolt_uri}")
    console.print(f"username       {s.neo4j_username}")
    console.print(f"database       {s.neo4j_database}")
    if s.local_neo4j:
        pw = s.password_file
        if pw.exists():
            console.print(f"password       {pw.read_text().strip()}   (from {pw})", highlight=False)
        else:
            console.print(f"password       {pw} does not exist yet: run `neo4j-retag neo4j start`")
        if s.neo4j_password is not None:
            console.print("               NEO4J_PASSWORD is set too: the CLI uses that one")
    else:
        console.print("password       the NEO4J_PASSWORD you set (not printed)")
    console.print(f"style          drag {explore / 'style.grass'} onto the Browser window "
                  "(captions and colours per label)")
    console.print(f"Bloom          {explore / 'bloom-perspective.json'} (Perspective drawer -> "
                  "Import)")
    console.print("\n[bold]Ready queries[/bold] (set the parameter first, then paste the query):")
    for q in explore_queries():
        params = "   ".join(q["params"]) or "(no parameter)"
        console.print(f"  [cyan]{q['name']}[/cyan]  {q['about']}", highlight=False)
        console.print(f"      {params}", highlight=False)
        console.print(f"      {q['path']}", highlight=False)
        if full:
            console.print(q["text"], highlight=False, markup=False)


def register(main: click.Group) -> None:
    """Add `import`, `export` and `browse` to the main command group."""
    for cmd in (import_group, export, browse):
        main.add_command(cmd)


__all__ = ["register", "import_group", "export", "browse", "explore_queries"]
