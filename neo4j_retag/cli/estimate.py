"""CLI: `ingest PATH --estimate`, the bill before the run. No LLM is called and
nothing is written; a reachable graph only tells which documents are indexed already."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..config import Settings
from ..errors import ConfigError
from ..stages import Stage
from .common import Table, console


def print_estimate(settings: Settings, paths: list[Path], text_field: str | None,
                   topics: bool, as_json: bool) -> None:
    from ..db import Graph
    from ..index.estimate import estimate_ingest

    if not paths:
        raise click.UsageError("give PATHS to estimate")
    note = ""
    try:
        with Graph(settings) as graph:
            est = estimate_ingest(settings, paths, graph, text_field=text_field, topics=topics)
    except ConfigError as err:  # no graph to ask: every document counts as new
        note = f"the graph is not reachable ({err}): every document counted as new"
        est = estimate_ingest(settings, paths, None, text_field=text_field, topics=topics)
    price = est.price(settings.llm.price_input, settings.llm.price_output)
    total = est.total
    if as_json:
        click.echo(json.dumps({
            "documents": est.documents, "documents_indexed_already": est.documents_known,
            "text_units": est.text_units, "text_unit_tokens": est.text_unit_tokens,
            "profile": est.profile, "calibrated": est.calibrated, "upgrade": est.upgrade,
            "stages": est.as_dict(),
            "profile_stages": est.as_dict(raw=True),
            "total": {"calls": total.calls, "prompt_tokens": total.prompt_tokens,
                      "completion_tokens": total.completion_tokens},
            "cached_text_units": est.cached_units, "notes": est.notes,
            "price": price, "note": note or None}, indent=2))
        return
    table = Table(title=f"neo4j-retag ingest --estimate ({est.text_units} text units of "
                        f"{est.documents} documents: the lazy index made full)" if est.upgrade
                  else f"neo4j-retag ingest --estimate ({est.text_units} new text units of "
                       f"{est.documents - est.documents_known} new documents; "
                       f"{est.documents_known} indexed already)")
    for col in ("stage", "LLM calls", "prompt tokens", "completion tokens"):
        table.add_column(col, justify="left" if col == "stage" else "right")
    for name, s in est.stages.items():
        table.add_row(name, f"{s.calls:,}", f"{s.prompt_tokens:,}", f"{s.completion_tokens:,}")
    table.add_row("total", f"{total.calls:,}", f"{total.prompt_tokens:,}",
                  f"{total.completion_tokens:,}")
    console.print(table)
    if price is not None:
        console.print(f"price: {price:.2f} (LLM_PRICE_INPUT {settings.llm.price_input} / "
                      f"LLM_PRICE_OUTPUT {settings.llm.price_output} per million tokens)")
    if Stage.EMBED in est.stages:
        console.print("embed: embeddings requests and input tokens (EMBEDDING_MODEL; not in "
                      "the price: another model, priced apart)")
    console.print(f"ratios measured for a {est.profile} model (ESTIMATE_PROFILE; "
                  "docs/benchmarks.md, What an index costs)"
                  + ("; calibrated by the last ingest's actual figures"
                     if est.calibrated else ""))
    if est.cached_units:
        console.print(f"response cache: {est.cached_units} of {est.text_units} text units' "
                      "extraction replies are cached (free); the LLM stages are scaled to the "
                      "rest")
    for n in est.notes:
        console.print(f"[yellow]note:[/yellow] {n}")
    if note:
        console.print(f"[yellow]{note}[/yellow]")
