import json

import pytest

from neo4j_retag.errors import LLMParseError
from neo4j_retag.index.extract import assemble, extract_text_unit
from neo4j_retag.index.extract_records import ExtractedClaim, GraphClaimsExtraction, grounded
from neo4j_retag.keys import entity_key
from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import TextUnit
from tests.conftest import make_settings


def test_entity_key_normalises():
    assert entity_key("APPLE") == entity_key(" apple ") == entity_key("Apple") == "apple"
    assert entity_key("Cafe\u0301") == entity_key("Café")
    assert len(entity_key("ha" * 5000)) == 200


def test_assemble_dedupes_and_creates_endpoints():
    res = GraphClaimsExtraction.model_validate({
        "entities": [{"name": "Scrooge", "type": "PERSON", "description": "A miser."},
                     {"name": "SCROOGE", "type": "person", "description": "Old."},
                     "Marley"],
        "relationships": [
            {"source": "Scrooge", "target": "Marley", "description": "partners", "strength": "8"},
            {"source": "marley", "target": "scrooge", "description": "dead partner"},
            {"source": "Scrooge", "target": "scrooge", "description": "self"},
            {"source": "Scrooge", "target": "Fezziwig", "description": "apprentice",
             "strength": 99}],
        "claims": [{"subject": "Scrooge", "status": "maybe", "description": "is mean"}]})
    text = "Scrooge was a miser. Marley was dead. Fezziwig danced."
    ex = assemble("c1", text, [res], ["person", "organization"])
    ents = {e["key"]: e for e in ex.entities}
    assert set(ents) == {"scrooge", "marley", "fezziwig"}
    assert ents["scrooge"]["type"] == "person"
    assert "A miser." in ents["scrooge"]["description"] and "Old." in ents["scrooge"]["description"]
    assert ents["fezziwig"]["type"] == "unknown"  # endpoint only named by a relationship
    assert ents["marley"]["context"] == "Marley was dead."
    rels = {(r["source_key"], r["target_key"]): r for r in ex.relationships}
    assert set(rels) == {("marley", "scrooge"), ("fezziwig", "scrooge")}  # no self-loop
    assert rels[("fezziwig", "scrooge")]["strength"] == 10
    assert ex.claims[0]["props"]["status"] == "SUSPECTED"


# --- claims that actually come out (issue 13) ----------------------------------------------

TEXT = ("The council granted Lumen Analytics the lease of the old library without a tender. "
        "Priya Natarajan warned that the cost had risen from 30 million to 45 million pounds.")


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url)


def _extract(settings, **kw):
    unit = TextUnit(id="c1", text=TEXT)
    return run_with_llm(settings, lambda llm: extract_text_unit(llm, settings, unit, glean=0,
                                                                claims=True, **kw))


def test_combined_schema_asks_for_a_claim_and_ungrounded_ones_are_dropped(dsettings, double):
    # what Qwen2.5-Coder gave under a grammar with no lower bound: "claims": []
    double.script["extract"] = lambda b: json.dumps({
        "entities": [{"name": "Lumen Analytics", "type": "organization", "description": "x"}],
        "relationships": [], "claims": [
            {"subject": "Company A", "type": "FRAUD", "description": "copied from the example",
             "source_quote": "Company A was fined for bid rigging"},
            {"subject": "Lumen Analytics", "type": "CONTRACT AWARD", "status": "TRUE",
             "source_quote": "the lease of the old library without a tender"}]})
    ex = _extract(dsettings)
    body = next(b for k, b in double.calls if k == "extract")
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["claims"]["minItems"] == 1 and double.count("claims") == 0
    assert [c["props"]["type"] for c in ex.claims] == ["CONTRACT AWARD"], ex.dropped


def test_empty_claims_from_the_combined_call_get_a_claims_call_of_their_own(dsettings, double):
    dsettings = dsettings.model_copy(update={"claims_call": "separate"})
    # what Qwen2.5-Coder gave under a grammar: "claims": [] for every text unit
    double.script["extract"] = lambda b: json.dumps({
        "entities": [{"name": "Lumen Analytics", "type": "organization", "description": "x"},
                     {"name": "Priya Natarajan", "type": "person", "description": "y"}],
        "relationships": [], "claims": []})
    double.script["claims"] = lambda b: json.dumps({"claims": [
        {"subject": "Lumen Analytics", "object": "Millbrook council", "type": "CONTRACT AWARD",
         "status": "TRUE", "description": "The lease was granted without a tender.",
         "source_quote": "granted Lumen Analytics the lease of the old library without a tender"},
        # made up to fill the schema's lower bound: not in the text, dropped
        {"subject": "Lumen Analytics", "type": "FRAUD", "status": "SUSPECTED",
         "description": "Lumen bribed the mayor.", "source_quote": "Lumen bribed the mayor"},
        {"subject": "NONE", "description": "nothing", "source_quote": "the council"}]})
    ex = _extract(dsettings)
    assert double.count("claims") == 1
    assert [c["props"]["type"] for c in ex.claims] == ["CONTRACT AWARD"], ex.dropped
    body = next(b for k, b in double.calls if k == "claims")
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["claims"]["minItems"] == 1
    assert "Lumen Analytics" in body["messages"][-1]["content"]  # the entities found
    # the graph call no longer asks for claims
    extract_body = next(b for k, b in double.calls if k == "extract")
    assert "Do not extract claims" in extract_body["messages"][0]["content"]


def test_combined_mode_makes_one_call(dsettings, double):
    assert dsettings.index.claims_call == "combined"
    ex = _extract(dsettings)
    assert double.count("claims") == 0 and double.count("extract") == 1
    assert ex.claims  # the double's combined claim, grounded in the text


def test_a_failed_claims_call_fails_the_text_unit(dsettings, double):
    double.script["claims"] = lambda b: "no json at all"
    with pytest.raises(LLMParseError):
        _extract(dsettings.model_copy(update={"claims_call": "separate"}))


def test_grounding():
    ok = ExtractedClaim(subject="Priya Natarajan", source_quote="the cost had risen from 30 "
                        "million to 45 million pounds")
    assert grounded(ok, TEXT)
    assert grounded(ExtractedClaim(subject="Priya Natarajan"), TEXT)  # no quote: the subject
    assert not grounded(ExtractedClaim(subject="Elena Varga"), TEXT)
    assert not grounded(ExtractedClaim(subject="none", source_quote="the council"), TEXT)


def test_bad_records_are_dropped_and_counted_the_good_ones_kept():
    """Issue 9 item 3: a null source, an empty name, tuples mixed with prose."""
    raw = {"entities": [{"name": "Alice", "type": "person"}, {"name": ""}, {"name": None},
                        'Here are the entities I found: ("entity"<|>Bob<|>person)',
                        ["Carol", "person", "a tuple"], "Bob"],
           "relationships": [{"source": None, "target": "Alice"},
                             {"source": "Alice", "target": "Bob", "description": "know"},
                             ["Alice", "Bob", "tuple"], {"source": "", "target": "Bob"}],
           "claims": [{"subject": "", "description": "x"},
                      {"subject": "Alice", "description": "did it"}]}
    g = GraphClaimsExtraction.model_validate(raw)
    # the GraphRAG tuple after the prose is read (issue 21), but it has two fields where an
    # entity has three: dropped and counted (issue 48), not an entity without a description
    assert [e.name for e in g.entities] == ["Alice", "Bob"]
    assert [(r.source, r.target) for r in g.relationships] == [("Alice", "Bob")]
    assert len(g.claims) == 1
    assert g.dropped == {"entity without a name": 2, "not a record": 2,
                         "tuple record with too few fields": 1,
                         "relationship without a source or target": 2,
                         "claim without a subject": 1}
    assert "dropped" not in GraphClaimsExtraction.model_json_schema()["properties"]
    ex = assemble("c1", "Alice knows Bob.", [g], ["person"])
    assert len(ex.entities) == 2 and len(ex.relationships) == 1 and len(ex.dropped) == 8


def test_a_list_field_given_as_prose_is_one_dropped_record():
    from neo4j_retag.index.extract_records import GraphExtraction
    g = GraphExtraction.model_validate({"entities": [{"name": "A"}],
                                        "relationships": "none found in this text"})
    assert len(g.entities) == 1 and g.relationships == []
    assert g.dropped == {"not a record": 1}


def test_tuple_salvage_keeps_a_separator_in_a_description_and_counts_an_unclosed_record():
    # issue 32: a `<|>` inside a description cut it silently; a record missing its `)`
    # swallowed the next one uncounted
    from neo4j_retag.index.extract_records import GraphExtraction
    from neo4j_retag.index.tuples import JOINED, UNCLOSED
    text = ('("entity"<|>HARBOUR BOARD<|>ORGANIZATION<|>Runs the port <|> and the quay)##'
            '("entity"<|>ANNA<|>PERSON<|>The harbour master##'
            '("entity"<|>OTTO<|>PERSON<|>A pilot)##'
            '("relationship"<|>ANNA<|>OTTO<|>Work together <|> daily<|>7)<|COMPLETE|>')
    ex = GraphExtraction.model_validate(GraphExtraction.from_text(text))
    by_name = {e.name: e.description for e in ex.entities}
    assert by_name["HARBOUR BOARD"] == "Runs the port <|> and the quay"
    assert by_name["ANNA"] == "The harbour master" and by_name["OTTO"] == "A pilot"
    rel = ex.relationships[0]
    assert rel.description == "Work together <|> daily" and rel.strength == 7
    assert ex.dropped[JOINED] == 2 and ex.dropped[UNCLOSED] == 1
