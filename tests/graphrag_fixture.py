"""GraphRAG interop: reading both parquet layouts, importing into Neo4j (idempotent, ids kept),
answering over the imported reports, and the import -> export -> import round trip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

# --- a small GraphRAG 2.x output, written with pyarrow in GraphRAG's column layout ----------

T = [f"{'t' * 3}{i}{'0' * 124}" for i in range(1, 5)]  # sha512-like text unit ids
D = ["d1" + "a" * 126, "d2" + "b" * 126]
E = {"SCROOGE": "e-scrooge", "MARLEY": "e-marley", "FEZZIWIG": "e-fezziwig",
     "LONDON": "e-london", "BOB CRATCHIT": "e-bob", "TINY TIM": "e-tim",
     "GHOST": "e-ghost", "BELLE": "e-belle"}  # the last two only in the broken fixture
TEXTS = ["Scrooge and Marley kept a counting-house. Marley was dead.",
         "Bob Cratchit worked for Scrooge and went home to Tiny Tim.",
         "Fezziwig gave a ball in London; young Scrooge danced.",
         "Tiny Tim blessed everyone, and Bob Cratchit smiled."]
RELS = [  # id, source, target, description, weight, text units
    ("r0", "SCROOGE", "MARLEY", "Scrooge and Marley were partners", 9.0, [T[0]]),
    ("r1", "SCROOGE", "FEZZIWIG", "Scrooge was Fezziwig's apprentice", 7.0, [T[2]]),
    ("r2", "LONDON", "FEZZIWIG", "Fezziwig's warehouse was in London", 4.0, [T[2]]),
    ("r3", "BOB CRATCHIT", "TINY TIM", "Bob Cratchit is Tiny Tim's father", 10.0, [T[1], T[3]]),
    ("r4", "SCROOGE", "BOB CRATCHIT", "Bob Cratchit is Scrooge's clerk", 6.0, [T[1]]),
]
ENTS = [  # title, type, description, text units
    ("SCROOGE", "PERSON", "A miser who learns generosity", [T[0], T[1], T[2]]),
    ("MARLEY", "PERSON", "Scrooge's dead partner", [T[0]]),
    ("FEZZIWIG", "PERSON", "Scrooge's kind old master", [T[2]]),
    ("LONDON", "GEO", "The city of the story", [T[2]]),
    ("BOB CRATCHIT", "PERSON", "Scrooge's clerk", [T[1], T[3]]),
    ("TINY TIM", "PERSON", "Bob Cratchit's ill son", [T[1], T[3]]),
]
COMMS = [  # community, level, parent, children, members, report title
    (0, 0, -1, [2, 3], ["SCROOGE", "MARLEY", "FEZZIWIG", "LONDON"], "Scrooge's business past"),
    (1, 0, -1, [], ["BOB CRATCHIT", "TINY TIM"], "The Cratchit family"),
    (2, 1, 0, [], ["SCROOGE", "MARLEY"], "Scrooge and Marley"),
    (3, 1, 0, [], ["FEZZIWIG", "LONDON"], "Fezziwig's London"),
]
DEGREE = {"SCROOGE": 3, "MARLEY": 1, "FEZZIWIG": 2, "LONDON": 1, "BOB CRATCHIT": 2, "TINY TIM": 1}


def _rels_in(members: list[str]) -> list[tuple]:
    return [r for r in RELS if r[1] in members and r[2] in members]


def fixture_tables(comms: list[tuple] = COMMS,
                   ents: list[tuple] = ENTS) -> dict[str, list[dict[str, Any]]]:
    """GraphRAG 2.x tables as rows (columns as in graphrag/data_model/schemas.py)."""
    docs = [{"id": D[0], "human_readable_id": 1, "title": "carol.txt",
             "text": TEXTS[0] + " " + TEXTS[1] + " " + TEXTS[2], "text_unit_ids": T[:3],
             "creation_date": "2024-11-05 10:00:00 +0000", "metadata": {"source": "gutenberg"}},
            {"id": D[1], "human_readable_id": 2, "title": "tim.txt", "text": TEXTS[3],
             "text_unit_ids": [T[3]], "creation_date": "2024-11-06 09:30:00 +0000",
             "metadata": {"source": "notes"}}]
    units = [{"id": T[i], "human_readable_id": i + 1, "text": TEXTS[i], "n_tokens": 12 + i,
              "document_ids": [D[0] if i < 3 else D[1]],
              "entity_ids": [E[t] for t, _, _, tu in ents if T[i] in tu],
              "relationship_ids": [r[0] for r in RELS if T[i] in r[5]],
              "covariate_ids": ["c0"] if i == 0 else []} for i in range(4)]
    ents = [{"id": E[t], "human_readable_id": i, "title": t, "type": ty, "description": de,
             "text_unit_ids": tu, "frequency": len(tu), "degree": DEGREE.get(t, 0), "x": 0.0,
             "y": 0.0} for i, (t, ty, de, tu) in enumerate(ents)]
    rels = [{"id": rid, "human_readable_id": i, "source": s, "target": t, "description": de,
             "weight": w, "combined_degree": DEGREE[s] + DEGREE[t], "text_unit_ids": tu}
            for i, (rid, s, t, de, w, tu) in enumerate(RELS)]
    comm_rows, reports = [], []
    for cid, level, parent, children, members, title in comms:
        inside = _rels_in(members)
        comm_rows.append({"id": f"uuid-c{cid}", "human_readable_id": cid, "community": cid,
                      "level": level, "parent": parent, "children": children,
                      "title": f"Community {cid}", "entity_ids": [E[m] for m in members],
                      "relationship_ids": sorted(r[0] for r in inside),
                      "text_unit_ids": sorted({u for r in inside for u in r[5]}),
                      "period": "2024-11-05", "size": len(members)})
        findings = [{"summary": f"{m} matters", "explanation": f"{m} is in {title}."}
                    for m in members[:2]]
        content = f"# {title}\n\nAbout {', '.join(members)}.\n\n" + "\n\n".join(
            f"## {f['summary']}\n\n{f['explanation']}" for f in findings)
        reports.append({"id": f"uuid-r{cid}", "human_readable_id": cid, "community": cid,
                        "level": level, "parent": parent, "children": children,
                        "title": title, "summary": f"About {', '.join(members)}.",
                        "full_content": content, "rank": 5.0 + cid,
                        "rating_explanation": "moderate impact", "findings": findings,
                        "full_content_json": json.dumps({"title": title, "findings": findings}),
                        "period": "2024-11-05", "size": len(members)})
    claims = [{"id": "c0", "human_readable_id": 0, "covariate_type": "claim", "type": "BUSINESS",
               "description": "Scrooge and Marley ran a counting-house", "subject_id": "SCROOGE",
               "object_id": "MARLEY", "status": "TRUE", "start_date": "1836-01-01T00:00:00",
               "end_date": "1843-12-24T00:00:00", "source_text": "kept a counting-house",
               "text_unit_id": T[0]}]
    return {"documents": docs, "text_units": units, "entities": ents, "relationships": rels,
            "communities": comm_rows, "community_reports": reports, "covariates": claims}


def write_fixture(folder: Path, layout: str = "v2") -> Path:
    """Write the fixture as GraphRAG would: ``v2`` (current names), ``v3`` (text_units.
    document_id, documents.raw_data), ``v1`` (create_final_* + create_final_nodes) or ``v0``
    (pre-1.0 columns)."""
    folder.mkdir(parents=True, exist_ok=True)
    tables = fixture_tables()
    if layout == "v3":
        for u in tables["text_units"]:
            u["document_id"] = u.pop("document_ids")[0]
        for d in tables["documents"]:
            d["raw_data"] = d.pop("metadata")
    if layout in ("v1", "v0"):
        tables = _legacy(tables, layout)
    for name, rows in tables.items():
        prefix = "create_final_" if layout in ("v1", "v0") else ""
        pq.write_table(pa.Table.from_pylist(rows), folder / f"{prefix}{name}.parquet")
    # files GraphRAG writes beside the tables, which the import ignores
    pq.write_table(pa.table({"id": ["e-scrooge"], "vector": [[0.1, 0.2]]}),
                   folder / "embeddings.entity.description.parquet")
    (folder / "stats.json").write_text("{}")
    return folder


# --- a broken GraphRAG 2.x output: every hierarchy defect the import repairs ---------------

BROKEN_ENTS = ENTS + [  # GHOST sits only in the dummy community -1, BELLE in no community
    ("GHOST", "PERSON", "The last of the three spirits", [T[3]]),
    ("BELLE", "PERSON", "Scrooge's former fiancee", [T[2]]),
]
BROKEN_COMMS = [  # community, level, parent, children, members, report title
    (-1, 0, -1, [], ["GHOST"], "Dummy community"),  # microsoft/graphrag#1422
    (0, 0, -1, [2, 3], ["SCROOGE", "MARLEY", "FEZZIWIG"], "Scrooge's business past"),
    (1, 0, -1, [], ["BOB CRATCHIT", "TINY TIM"], "The Cratchit family"),  # childless at 0
    (2, 1, 0, [4, 5], ["SCROOGE", "MARLEY"], "Scrooge and Marley"),
    # LONDON is missing from parent 0; MARLEY is in 2 as well; no children above level 2
    (3, 1, 0, [], ["FEZZIWIG", "LONDON", "MARLEY"], "Fezziwig's London"),
    (4, 2, 2, [], ["SCROOGE"], "Scrooge alone"),
    (5, 2, 2, [], ["MARLEY"], "Marley's ghost"),
]


def write_broken_fixture(folder: Path) -> Path:
    """A GraphRAG 2.x folder whose hierarchy is broken (see BROKEN_COMMS): a dummy ``-1`` row
    with a report, a child member missing from its parent, an entity in two communities of
    level 1, an entity in no community, childless communities above the deepest level."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in fixture_tables(BROKEN_COMMS, BROKEN_ENTS).items():
        pq.write_table(pa.Table.from_pylist(rows), folder / f"{name}.parquet")
    return folder


def _legacy(tables: dict[str, list[dict[str, Any]]], layout: str) -> dict[str, list[dict]]:
    nodes = []
    for cid, level, _, _, members, _ in COMMS:
        nodes += [{"id": E[m], "human_readable_id": 0, "title": m, "community": cid,
                   "level": level, "degree": DEGREE[m], "x": 0.0, "y": 0.0} for m in members]
    for e in tables["entities"]:
        del e["degree"], e["frequency"], e["x"], e["y"]
    for d in tables["documents"]:
        d["attributes"] = d.pop("metadata")
    for r in tables["community_reports"]:
        r["rank_explanation"] = r.pop("rating_explanation")
        del r["children"]
    for c in tables["communities"]:
        del c["children"]
    if layout == "v0":
        for e in tables["entities"]:
            e["name"] = e.pop("title")
            e["description_embedding"] = [0.1, 0.2]
        for d in tables["documents"]:
            d["raw_content"] = d.pop("text")
        for r in tables["relationships"]:
            r["rank"] = r.pop("combined_degree")
        for c in tables["communities"]:
            c["id"] = str(c.pop("community"))
            c["raw_community"] = c["id"]
            del c["parent"], c["entity_ids"], c["human_readable_id"]
        for r in tables["community_reports"]:
            r["community"] = str(r["community"])
            del r["parent"]
        for n in nodes:
            n["community"] = str(n["community"])
    tables["nodes"] = nodes
    return tables


# --- reading and planning (no database) --------------------------------------------------



# --- a GraphRAG 2.x output whose children leave members of their parent out ---------------

UNCOVERED_COMMS = [  # community, level, parent, children, members, report title
    (0, 0, -1, [2], ["SCROOGE", "MARLEY", "FEZZIWIG", "LONDON"], "Scrooge's business past"),
    (1, 0, -1, [], ["BOB CRATCHIT", "TINY TIM"], "The Cratchit family"),
    # FEZZIWIG and LONDON, members of 0, are in none of its children
    (2, 1, 0, [], ["SCROOGE", "MARLEY"], "Scrooge and Marley"),
]


def write_uncovered_fixture(folder: Path) -> Path:
    """A GraphRAG 2.x folder (see UNCOVERED_COMMS) where two members of community 0 are in
    none of its children, and community 1's report says level 1 where the communities
    table says 0."""
    folder.mkdir(parents=True, exist_ok=True)
    tables = fixture_tables(UNCOVERED_COMMS)
    next(r for r in tables["community_reports"] if r["community"] == 1)["level"] = 1
    for name, rows in tables.items():
        pq.write_table(pa.Table.from_pylist(rows), folder / f"{name}.parquet")
    return folder
