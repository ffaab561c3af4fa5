"""Exploring in Neo4j Browser / Bloom: the GraSS style and the Bloom perspective checked against
what Browser's parser and Bloom's documentation accept, then Browser itself in headless
Chromium against the local test server: log in, load the style, run a ready explore query on an
imported GraphRAG graph, check the graph renders with the style's colours."""

from __future__ import annotations

import json
import re
from pathlib import Path

from neo4j_retag.config import REPO_ROOT

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
COMMUNITY_COLOUR = "#F79767"  # node.Community in explore/style.grass
ENTITY_COLOUR = "#4C8EDA"
LABELS = {"Entity", "Community", "Topic", "Document", "Chunk", "Claim", "Meta", "Sentence"}
REL_TYPES = {"RELATED", "IN_COMMUNITY", "PARENT_OF", "OF_TOPIC", "MENTIONS", "PART_OF", "NEXT",
             "HAS_CLAIM", "ABOUT", "HAS_SENTENCE", "EVIDENCE"}
PROPS = {"Entity": {"key", "name", "type", "description", "degree"},
         "Community": {"id", "scope", "level", "size", "title", "summary", "rating",
                       "full_content"},
         "Topic": {"name", "label", "description"},
         "Document": {"id", "title", "path", "created_at"},
         "Chunk": {"id", "index", "n_tokens", "text", "document_id", "location", "page", "pages",
                   "slide", "heading"},
         "Claim": {"type", "status", "subject", "object", "description"}, "Meta": {"id"},
         "Sentence": {"id", "text", "index", "location", "page", "document_id"}}


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """Neo4j Browser's GraSS parser (src/shared/services/grassUtils.ts, parseGrassCSS), in
    Python: the file must mean to this what it means to Browser (it has no comment syntax)."""
    rules: dict[str, str] = {}
    in_string = in_props = in_binding = False
    keyword = props = ""
    for c in text:
        skip = True
        if c == "{":
            if in_string:
                skip = False
            elif in_props:
                in_binding = True
            else:
                in_props = True
        elif c == "}":
            if in_string:
                skip = False
            elif in_binding:
                in_binding = False
            else:
                in_props = False
                rules[keyword] = props
                keyword = props = ""
        elif c in "'\"":
            in_string = not in_string
        else:
            skip = False
        if skip:
            continue
        if in_props:
            props += c
        elif not c.isspace():
            keyword += c
    out: dict[str, dict[str, str]] = {}
    for selector, body in rules.items():
        out[selector] = {}
        for decl in body.split(";"):
            kv = decl.split(":")
            if len(kv) == 2:
                out[selector][kv[0].strip()] = kv[1].strip()
    return out


def test_style_grass_parses_as_browser_parses_it():
    text = (REPO_ROOT / "explore" / "style.grass").read_text()
    rules = parse_grass(text)
    declared = len(re.findall(r"^\s+[a-z-]+:", text, re.M))
    assert sum(len(r) for r in rules.values()) == declared  # no declaration lost
    nodes = {s.split(".", 1)[1] for s in rules if s.startswith("node.")}
    assert nodes >= LABELS
    assert {s.split(".", 1)[1] for s in rules if s.startswith("relationship.")} == REL_TYPES
    colours = {rules[f"node.{lb}"]["color"] for lb in LABELS}
    assert len(colours) == len(LABELS)  # every label tells itself apart
    assert rules["node.Community"]["color"] == COMMUNITY_COLOUR
    assert rules["node.Entity"]["color"] == ENTITY_COLOUR
    for label in LABELS:
        caption = rules[f"node.{label}"]["caption"]
        assert re.fullmatch(r"\{(\w+)\}", caption) and caption[1:-1] in PROPS[label], label
    order = list(rules)
    assert max(order.index(s) for s in rules if s.startswith("node.Topic") and s[10:].isdigit()) \
        < order.index("node.Entity")  # an entity with a topic label keeps the Entity look


BLOOM_TYPES = {"string", "integer", "float", "boolean", "date", "time", "dateTime", "localDate",
               "localDateTime"}  # Bloom user guide, "Search phrases for advanced queries"


def test_bloom_perspective_matches_the_documented_elements_and_the_queries():
    p = json.loads((REPO_ROOT / "explore" / "bloom-perspective.json").read_text())
    assert {lb for c in p["categories"] for lb in c["labels"]} <= LABELS
    for c in p["categories"]:
        label = c["labels"][0]
        assert set(c["caption"]) | set(c["properties"]) <= PROPS[label], c["name"]
        assert re.fullmatch(r"#[0-9A-F]{6}", c["style"]["color"])
        for rule in c["styleRules"]:
            assert rule["property"] in PROPS[label] and rule["dataType"] in BLOOM_TYPES
    community = next(c for c in p["categories"] if c["name"] == "Community")
    assert [r["value"] for r in community["styleRules"]] == [0, 1, 2, 3]  # colour by level
    assert {r["name"] for r in p["relationshipTypes"]} == REL_TYPES
    files = set()
    for phrase in p["searchPhrases"]:
        path = REPO_ROOT / phrase["file"]
        files.add(path.name)
        body = "\n".join(ln for ln in path.read_text().splitlines()
                         if not ln.startswith("//")).strip()
        assert phrase["cypher"] == body, phrase["file"]  # in sync with cypher/explore
        params = set(re.findall(r"\$(\w+)", body))
        assert {x["name"] for x in phrase["parameters"]} == params
        for x in phrase["parameters"]:
            assert f"${x['name']}" in phrase["phrase"] and x["dataType"] in BLOOM_TYPES
            assert x["suggestions"]["type"] in {"none", "label-key", "cypher"}
    assert files == {f.name for f in (REPO_ROOT / "cypher" / "explore").glob("*.cypher")}



