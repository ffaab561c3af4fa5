from neo4j_retag.index.extract import GraphClaimsExtraction, assemble
from neo4j_retag.model import entity_key


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


def test_bad_records_are_dropped_and_counted_the_good_ones_kept():
    """Issue 9 item 3: a null source, an empty name, tuples mixed with prose."""
    from neo4j_retag.index.extract import GraphClaimsExtraction, assemble
    raw = {"entities": [{"name": "Alice", "type": "person"}, {"name": ""}, {"name": None},
                        'Here are the entities I found: ("entity"<|>Bob<|>person)',
                        ["Carol", "person", "a tuple"], "Bob"],
           "relationships": [{"source": None, "target": "Alice"},
                             {"source": "Alice", "target": "Bob", "description": "know"},
                             ["Alice", "Bob", "tuple"], {"source": "", "target": "Bob"}],
           "claims": [{"subject": "", "description": "x"},
                      {"subject": "Alice", "description": "did it"}]}
    g = GraphClaimsExtraction.model_validate(raw)
    assert [e.name for e in g.entities] == ["Alice", "Bob"]
    assert [(r.source, r.target) for r in g.relationships] == [("Alice", "Bob")]
    assert len(g.claims) == 1
    assert g.dropped == {"entity without a name": 2, "not a record": 3,
                         "relationship without a source or target": 2,
                         "claim without a subject": 1}
    assert "dropped" not in GraphClaimsExtraction.model_json_schema()["properties"]
    ex = assemble("c1", "Alice knows Bob.", [g], ["person"])
    assert len(ex.entities) == 2 and len(ex.relationships) == 1 and len(ex.dropped) == 8


def test_a_list_field_given_as_prose_is_one_dropped_record():
    from neo4j_retag.index.extract import GraphExtraction
    g = GraphExtraction.model_validate({"entities": [{"name": "A"}],
                                        "relationships": "none found in this text"})
    assert len(g.entities) == 1 and g.relationships == []
    assert g.dropped == {"not a record": 1}
