"""CLI: `import graphrag DIR`, `export DIR`, `browse` (added to the main group by cli.main)."""

from __future__ import annotations

from pathlib import Path

import click

from .common import Ctx, Table, console, friendly


@click.group("import")
def import_group() -> None:
    """Import an index built by another tool."""


@import_group.command("graphrag")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--replace", is_flag=True,
              help="delete the general-scope communities first (their ids would collide)")
@click.option("--json", "as_json", is_flag=True, help="print the import report as JSON")
@click.pass_obj
@friendly
def import_graphrag_cmd(obj: Ctx, folder: Path, replace: bool, as_json: bool) -> None:
    """Import a Microsoft GraphRAG output FOLDER (documents, text_units, entities,
    relationships, communities, community_reports[, covariates] .parquet, or the older
    create_final_* files). Ids, levels and reports are kept; `ask` then answers over them.
    The community hierarchy is repaired as our ingest builds it, and each repair printed."""
    from ..interop.graphrag.importer import import_folder
    report = import_folder(obj.settings, folder, replace=replace)
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
    for r in report.repairs:  # defects of the folder in yellow, GraphRAG's usual shape plain
        colour = "yellow" if r.defect else "cyan"
        console.print(f"[{colour}]repaired ({r.kind}):[/{colour}] {r.message}", highlight=False)
    for w in report.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)


@click.command("export")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly
def export(obj: Ctx, folder: Path, as_json: bool) -> None:
    """Write the graph to FOLDER as GraphRAG output parquet tables (GraphRAG 3.x columns, with
    the 2.x spellings document_ids / metadata too)."""
    from ..interop.graphrag.exporter import export_folder
    report = export_folder(obj.settings, folder)
    if as_json:
        click.echo(report.model_dump_json(indent=2))
        return
    for name, rows in report.files.items():
        console.print(f"{folder / (name + '.parquet')}: {rows} rows")
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {note}")


@click.command("browse")
@click.option("--full", is_flag=True, help="print the text of every ready query")
@click.pass_obj
@friendly
def browse(obj: Ctx, full: bool) -> None:
    """How to explore the graph in Neo4j Browser (or Bloom): URL, credentials, ready queries."""
    from ..ops.browse import browser_answers, explore_dir, explore_queries
    s = obj.settings
    explore = explore_dir()
    if s.neo4j.local:
        url = f"http://127.0.0.1:{s.neo4j.http_port}/browser/"
        state = "" if browser_answers(url) else (
            "  [yellow](not answering: run `neo4j-retag neo4j start`)[/yellow]")
        console.print(f"[bold]Neo4j Browser[/bold]  {url}{state}")
    else:
        console.print(f"[bold]Neo4j Browser[/bold]  remote server ({s.neo4j.uri}): open its own "
                      "Browser (Aura: console -> Query), or https://browser.neo4j.io/ with the "
                      "connect URL below")
    console.print(f"connect URL    {s.neo4j.bolt_uri}")
    console.print(f"username       {s.neo4j.username}")
    console.print(f"database       {s.neo4j.database}")
    if s.neo4j.local:
        pw = s.password_file
        if pw.exists():
            console.print(f"password       {pw.read_text().strip()}   (from {pw})", highlight=False)
        else:
            console.print(f"password       {pw} does not exist yet: run `neo4j-retag neo4j start`")
        if s.neo4j.password is not None:
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
