"""Records of a selecting model tied to the sentences of their text unit (index/evidence.py,
index/extract_evidence.py): invented names dropped, names cut, unstated pairs dropped, each
counted; descriptions are the sentences."""

import json

from neo4j_retag.index.evidence import (
    CLAIM_UNSTATED,
    NO_EVIDENCE,
    NOT_NAMED,
    Grounder,
    assemble_selected,
)
from neo4j_retag.index.extract_evidence import (
    NOT_A_RECORD,
    EvidenceExtraction,
    messages,
    reply_model,
)
from neo4j_retag.index.extract_records import NO_ENDPOINT
from neo4j_retag.model import SourceSentence

SENTENCES = [SourceSentence(id=f"d-s{i:05d}", text=t) for i, t in enumerate([
    "A program called Skulls disables Nokia smartphones.",
    "F-Secure found the program on file-sharing networks.",
    "It replaces icons with skulls.",
    "Mikko Hypponen of F-Secure said the damage was limited."])]
TYPES = ["organization", "person", "geo", "event"]


def parse(reply: dict) -> EvidenceExtraction:
    return reply_model(tuple(TYPES), len(SENTENCES), True).model_validate(reply)


def test_the_reply_is_rows_of_names_types_and_numbers_any_bad_row_counted():
    got = parse({"entities": [["Skulls", "event", [1, "3"]], "prose", ["", "geo", [1]]],
                 "relationships": [["Skulls", "Nokia", 1]], "claims": [["Skulls", [3]]]})
    assert [(e.names, e.type, e.sentences) for e in got.entities] == [(["Skulls"], "event",
                                                                      [1, 3])]
    assert got.relationships[0].sentences == [1] and got.dropped == {NOT_A_RECORD: 2}
    # an endpoint that ignored the schema and wrote objects is read too
    objects = parse({"entities": [{"name": "Nokia", "type": "organization"}]})
    assert objects.entities[0].names == ["Nokia"]
    schema = reply_model(tuple(TYPES), 4, False).model_json_schema()
    assert set(schema["properties"]) == {"entities", "relationships"}
    row = schema["properties"]["entities"]["items"]["prefixItems"]
    assert row[1] == {"enum": TYPES} and row[2]["items"]["maximum"] == 4


def test_the_prompt_puts_the_fixed_part_first_and_numbers_the_sentences():
    system, user = messages(TYPES, SENTENCES, claims=True)
    assert "Skulls" not in system["content"]  # the instructions only
    assert user["content"].startswith("<text>\n[1] A program called Skulls")
    assert "[4] Mikko Hypponen" in user["content"]
    # the same fixed part for every text unit: a local server reuses its cache
    assert messages(TYPES, SENTENCES[:2], claims=True)[0] == system


def test_records_rest_on_sentences_that_name_them_and_the_rest_is_counted():
    reply = parse({
        "entities": [["Skulls", "event", [3]], ["Nokia Corporation of Finland",
                                               "organization", [1]],
                     ["Symantec", "organization", [2]], ["F-Secure", "organization", [2]]],
        "relationships": [["Skulls", "Nokia", [1]], ["Skulls", "Symantec", [2]],
                          ["Mikko Hypponen", "Nokia", [4]]],
        "claims": [["F-Secure", [4]], ["Nokia", [3]]]})
    ex = assemble_selected("u1", Grounder(SENTENCES, TYPES), [reply], TYPES)
    by_name = {e["name"]: e for e in ex.entities}
    # the name the text gives; an entity it never gives is not in the graph
    assert set(by_name) == {"Skulls", "Nokia", "F-Secure", "Mikko Hypponen"}
    # the cited sentence 3 ("It replaces icons with skulls") names it: kept, then by name
    assert by_name["Skulls"]["evidence"] == ["d-s00000", "d-s00002"]
    assert by_name["Nokia"]["description"] == "A program called Skulls disables Nokia smartphones."
    (rel,) = [r for r in ex.relationships if {r["source_key"], r["target_key"]} ==
              {"skulls", "nokia"}]
    assert rel["evidence"] == ["d-s00000"] and rel["description"] == SENTENCES[0].text
    # Hypponen and Nokia: no sentence names both, none adjacent: dropped
    assert all({r["source_key"], r["target_key"]} != {"mikko hypponen", "nokia"}
               for r in ex.relationships)
    (claim,) = ex.claims  # Nokia's sentence 3 does not name Nokia nor follow one that does
    assert claim["props"]["description"] == SENTENCES[3].text
    assert ex.dropped.count(NOT_NAMED) == 1 and ex.dropped.count(NO_ENDPOINT) == 1
    assert ex.dropped.count(NO_EVIDENCE) == 1 and ex.dropped.count(CLAIM_UNSTATED) == 1
    json.dumps(ex.model_dump())  # what the writer sends to Neo4j
