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
