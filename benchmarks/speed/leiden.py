"""Benchmark (not a test): the communities stage on a graph of the papers' size.

ReTAG's news graph has 18,673 entities and 35,350 relationships (Kim et al. 2025, Table 1).
This builds a synthetic entity graph of that order with community structure - networkx's
Gaussian random partition graph (groups of ``--mean-group`` entities on average; an entity's
neighbours are in its own group with probability p_in, elsewhere with p_out) - writes it into
Neo4j through the same path as ``ingest`` (documents and text units, then
``index.elements.write_extractions``: :Entity / :RELATED with weights, MENTIONS, extracted
marks), then times the communities stage exactly as ``ingest`` runs it
(``index.pipeline.rebuild_communities``: hierarchical Leiden with intermediate communities,
level repair, oversized-leaf splitting, carry-down, writing the :Community hierarchy).
Target: communities stage < 10 s (2 cores). With ``--repeat`` the stage runs again on the same
graph: the first run builds the hierarchy, later ones replace it (deleting the old one first,
as a re-ingest does); the median of all runs is reported besides each.

    .venv/bin/python -m benchmarks.speed.leiden [--entities 20000] [--relationships 45000] \\
        [--repeat 1]

Needs the `bench` extra (networkx). Starts (if needed) and EMPTIES the benchmark Neo4j
(common.bench_settings). Writes bench-results/leiden.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from collections import Counter

import networkx as nx

from benchmarks.common import RESULTS, bench_settings, fakellm, machine, wipe
from neo4j_retag.db import Graph
from neo4j_retag.index.elements import write_extractions
from neo4j_retag.index.extract import TextUnitExtraction
from neo4j_retag.index.pipeline import rebuild_communities
from neo4j_retag.ops.stats import collect

RELATIONSHIPS_PER_TEXT_UNIT = 16  # about what a BBC text unit yields (3,704 / 255)
TEXT_UNITS_PER_DOCUMENT = 8
WRITE_BATCH = 256  # text units per transaction, as index.elements.ExtractionWriter


def synthetic_graph(entities: int, relationships: int, mean_group: int, seed: int) -> nx.Graph:
    """A graph with planted groups: ~``entities`` nodes, ~``relationships`` edges, 80% of
    them inside groups (sizes normal around ``mean_group``, sd mean_group/3)."""
    # expected intra edges: n * (s - 1) / 2 * p_in; inter: n * (n - s) / 2 * p_out
    intra, inter = 0.8 * relationships, 0.2 * relationships
    p_in = min(1.0, 2 * intra / (entities * (mean_group - 1)))
    p_out = 2 * inter / (entities * (entities - mean_group))
    return nx.gaussian_random_partition_graph(entities, mean_group, mean_group / 3 * mean_group,
                                              p_in, p_out, seed=seed)


def text_units(g: nx.Graph) -> list[TextUnitExtraction]:
    """The edges in groups of RELATIONSHIPS_PER_TEXT_UNIT, as one text unit's extraction each
    (isolated entities get a text unit of their own)."""
    def key(n: int) -> str:
        return f"ENTITY {n:06d}"

    def entity(n: int) -> dict[str, str]:
        t = ("organization", "person", "geo", "event")[n % 4]
        return {"key": key(n), "name": f"Entity {n:06d}", "type": t,
                "description": f"Entity {n} of group {g.nodes[n]['block']}.", "context": ""}

    edges = sorted(tuple(sorted(e)) for e in g.edges())
    units = []
    for i in range(0, len(edges), RELATIONSHIPS_PER_TEXT_UNIT):
        part = edges[i:i + RELATIONSHIPS_PER_TEXT_UNIT]
        nodes = sorted({n for e in part for n in e})
        rels = [{"source_key": key(a), "target_key": key(b), "strength": float(1 + (a + b) % 10),
                 "description": f"Entity {a} and entity {b} appear together."} for a, b in part]
        units.append(TextUnitExtraction(text_unit_id=f"synthetic-{len(units):07d}",
                                        entities=[entity(n) for n in nodes],
                                        relationships=rels, claims=[]))
    for n in sorted(n for n in g.nodes if g.degree(n) == 0):
        units.append(TextUnitExtraction(text_unit_id=f"synthetic-{len(units):07d}",
                                        entities=[entity(n)], relationships=[], claims=[]))
    return units


def write_graph(graph: Graph, units: list[TextUnitExtraction]) -> float:
    """Documents and text units, then the extractions in batches; returns seconds."""
    t0 = time.perf_counter()
    docs = []
    for i in range(0, len(units), TEXT_UNITS_PER_DOCUMENT):
        chunk_ids = [u.text_unit_id for u in units[i:i + TEXT_UNITS_PER_DOCUMENT]]
        doc_id = hashlib.sha256("|".join(chunk_ids).encode()).hexdigest()
        docs.append({"id": doc_id, "title": f"synthetic {i}", "path": f"synthetic/{i}.txt",
                     "metadata": {}, "chunks": [
                         {"id": c, "text": "", "index": j, "n_tokens": 0,
                          "prev_id": chunk_ids[j - 1] if j else None}
                         for j, c in enumerate(chunk_ids)]})
    graph.write("index/upsert_documents", docs)
    for i in range(0, len(units), WRITE_BATCH):
        write_extractions(graph, units[i:i + WRITE_BATCH])
    return time.perf_counter() - t0


def run(settings, args) -> dict:
    g = synthetic_graph(args.entities, args.relationships, args.mean_group, args.seed)
    units = text_units(g)
    with Graph(settings) as graph:
        wipe(graph)
        graph.ensure_schema()
        write_s = write_graph(graph, units)
        stats = collect(graph)
        mentions = sum(len(u.entities) for u in units)
        elements = stats["text_units"] + stats["entities"] + stats["relationships"] + mentions
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            communities = rebuild_communities(graph, settings)
            runs.append(time.perf_counter() - t0)
        stats = collect(graph)
    levels = [(lv["level"], lv["communities"]) for lv in stats["levels"]]
    sizes = Counter(len(b) for b in g.graph["partition"])
    return {
        "generator": "networkx.gaussian_random_partition_graph",
        "planted_groups": len(g.graph["partition"]),
        "planted_group_size_median": statistics.median(sorted(sizes.elements())),
        "entities": stats["entities"], "relationships": stats["relationships"],
        "text_units": stats["text_units"],
        "graph_elements_written": elements, "write_seconds": round(write_s, 2),
        "write_rate_elements_per_s": round(elements / write_s),
        "communities": communities, "levels": levels,
        "max_cluster_size": settings.index.max_cluster_size,
        "communities_seconds": [round(s, 2) for s in runs],
        "communities_seconds_median": round(statistics.median(runs), 2),
        "machine": machine(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entities", type=int, default=20_000)
    ap.add_argument("--relationships", type=int, default=45_000)
    ap.add_argument("--mean-group", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=1, help="communities stage runs (median)")
    args = ap.parse_args()
    with fakellm() as url:  # no LLM call is made; bench_settings wants a base URL
        out = run(bench_settings(url), args)
    print(json.dumps(out, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "leiden.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
