"""Importing a Microsoft GraphRAG output folder into the graph (:func:`import_graphrag`).

Reading is :mod:`.tables`, the rows to write come from
:func:`.plan.plan_import`; this module checks community ids and writes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from ...config import Settings
from ...db import Graph
from ...db.lock import index_lock
from ...errors import InputError
from ...model import GENERAL
from .plan import Plan, plan_import
from .repair import Repair
from .tables import ORIGIN, FileReport, Output, Row, read_output


class ImportReport(BaseModel):
    """What :func:`import_graphrag` read and wrote.

    ``layout``: ``graphrag`` (``entities.parquet`` ...) or ``graphrag-create_final`` (older
    names); ``version``: the GraphRAG release the columns point to; ``counts``: rows written
    per kind; ``levels``: per level of the general scope, communities / reports / memberships
    (after the repairs every level's memberships equal the entities clustered); ``repairs``:
    each change made to GraphRAG's community hierarchy (:mod:`.repair`: dummy rows dropped,
    nesting, one community per level, unclustered entities, childless branches carried down);
    ``warnings``: problems left as they are.
    """

    folder: str
    layout: str
    version: str
    files: list[FileReport]
    missing_optional: list[str] = []
    ignored_files: list[str] = []
    counts: dict[str, int] = {}
    levels: list[dict[str, int]] = []
    repairs: list[Repair] = []
    warnings: list[str] = []


def _check_ids(graph: Graph, plan: Plan) -> list[Row]:
    """Existing communities whose id an imported community would take over (a community the
    repair made counts as the same only if it stands for the same thing: ``repair_key``)."""
    ours = {c["id"]: (c["props"].get("graphrag_id"), c["props"].get("repair_key"))
            for c in plan.communities}
    return [row for row in graph.run("interop/import_existing_communities", ids=list(ours))
            if not (row["origin"] == ORIGIN and row["scope"] == GENERAL
                    and (row["graphrag_id"], row["repair_key"]) == ours[row["id"]])]


def import_graphrag(graph: Graph, settings: Settings, folder: Path, *,
                    replace: bool = False) -> ImportReport:
    """Import a Microsoft GraphRAG output folder (parquet) into the graph.

    GraphRAG's ``community`` numbers become ``Community.id`` because its reports cite them, so
    they must not collide with communities already in the graph: a clash raises InputError
    (``replace=True`` first deletes the general-scope communities; topic communities still
    clash, run ``topics build`` after the import instead). Afterwards the index is marked
    clean (``graph_dirty=false``: ``ingest --resume`` does not recluster) and topics stale
    (``topics_dirty=true``: ``topics build`` can run). The community hierarchy is repaired
    into the shape our ingest builds (:mod:`.repair`); communities the repair makes take ids
    above GraphRAG's largest number, and each repair is listed in the report.

    Raises FileNotFoundError / ValueError (naming the file or column) for an unusable folder;
    InputError while another run writes the index (:mod:`neo4j_retag.db.lock`).
    """
    out = read_output(folder)
    plan = plan_import(out, settings.encoding)
    with index_lock(graph, "GraphRAG import"):
        return _write(graph, plan, out, replace)


def _write(graph: Graph, plan: Plan, out: Output, replace: bool) -> ImportReport:
    clashes = [c for c in _check_ids(graph, plan) if not (replace and c["scope"] == GENERAL)]
    if clashes:
        where = Counter(f"{c['scope']}{' (' + str(c['origin']) + ')' if c['origin'] else ''}"
                        for c in clashes)
        fixes = []
        if any(c["scope"] == GENERAL for c in clashes):
            fixes.append("pass --replace to delete the general-scope communities first")
        if any(c["scope"] != GENERAL for c in clashes):
            fixes.append("topic communities hold some of them: import into an empty database, "
                         "then run `neo4j-retag topics build`")
        raise InputError(
            f"{len(clashes)} GraphRAG community ids are already used in this graph (ids "
            f"{[c['id'] for c in clashes[:8]]}, by scope {dict(where)}); GraphRAG's reports cite "
            f"these numbers, so they are kept: {'; '.join(fixes)}")
    if replace:
        graph.run("index/delete_communities", scope=GENERAL)
    graph.write("interop/import_documents", plan.documents)
    graph.write("interop/import_chunks", plan.chunks)
    graph.write("interop/import_next", plan.next)
    graph.write("interop/import_entities", plan.entities)
    graph.write("interop/import_mentions", plan.mentions)
    graph.write("interop/import_relationships", plan.relationships)
    graph.write("interop/import_claims", plan.claims)
    graph.write("interop/import_communities", plan.communities)
    graph.write("interop/import_parents", plan.parents)
    if not plan.has_degree:
        graph.run_batched("index/set_degrees")
    graph.run("index/set_index_meta", props={"graph_dirty": False, "topics_dirty": True})
    return ImportReport(
        folder=str(out.folder), layout=out.layout, version=out.version, files=out.files,
        missing_optional=out.missing_optional, ignored_files=out.ignored_files,
        counts=plan.counts(), levels=graph.run("interop/import_summary"), repairs=plan.repairs,
        warnings=plan.warnings)


def import_folder(settings: Settings, folder: Path, *, replace: bool = False) -> ImportReport:
    """:func:`import_graphrag` on a connection of its own (`neo4j-retag import graphrag`)."""
    with Graph(settings) as graph:
        return import_graphrag(graph, settings, folder, replace=replace)
