"""Issue 21 kind 8: runaway names capped with a hash of the full name (two long names that
share their first 200 characters stay two entities, counted with the text unit named), every
dropped record counted by reason (self-loops, ungrounded claims), GraphRAG tuple records
salvaged - as a whole reply or as strings in our lists."""

import json
import logging

import pytest

from neo4j_retag.index.extract import assemble, extract_text_unit
from neo4j_retag.index.extract_records import (
    NAME_CAPPED,
    NOT_A_RECORD,
    SELF_LOOP,
    TUPLE_SALVAGED,
    UNGROUNDED,
    GraphClaimsExtraction,
    GraphExtraction,
)
from neo4j_retag.keys import MAX_KEY_CHARS, entity_key
from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import TextUnit
from tests.conftest import make_settings

TEXT = "The Vale Trust funds the old pier. The harbour master rebuilt the pier in 1990."
LONG = "The Most Honourable and Ancient Guild of Harbour Pilots, Lightermen and " * 40


def test_two_long_names_sharing_their_start_stay_two(caplog):
    a, b = LONG + "of Eastport", LONG + "of Westport"
    res = GraphExtraction.model_validate({
        "entities": [{"name": a, "type": "organization"}, {"name": b, "type": "organization"}],
        "relationships": [{"source": a, "target": "Vale Trust", "strength": 9},
                          {"source": b, "target": "Vale Trust", "strength": 2}]})
    with caplog.at_level(logging.WARNING):
        ex = assemble("unit-7", TEXT, [res], ["organization"])
    keys = {e["key"] for e in ex.entities}
    assert len(keys) == 3 and entity_key(a) != entity_key(b)
    assert all(len(k) <= MAX_KEY_CHARS for k in keys)
    long_ents = [e for e in ex.entities if e["key"] != "vale trust"]
    assert all(len(e["name"]) <= MAX_KEY_CHARS and " #" in e["name"] for e in long_ents)
    assert sorted(r["strength"] for r in ex.relationships) == [2, 9]  # no merge lost one
    assert ex.dropped.count(NAME_CAPPED) == 2
    assert "unit-7" in caplog.text and "capped" in caplog.text


def test_every_dropped_record_counted_by_reason():
    res = GraphClaimsExtraction.model_validate({
        "entities": [{"name": "Vale Trust"}, 42],
        "relationships": [{"source": "Vale Trust", "target": "vale trust"},
                          {"source": "Pier", "target": "Vale Trust", "strength": 3},
                          {"source": "pier", "target": "VALE TRUST", "strength": 8}],
        "claims": [{"subject": "Vale Trust", "description": "sold the moon",
                    "source_quote": "the trust sold the moon to Venus traders"}]})
    ex = assemble("u", TEXT, [res], ["organization"])
    assert sorted(ex.dropped) == sorted([NOT_A_RECORD, SELF_LOOP, UNGROUNDED])
    assert [r["strength"] for r in ex.relationships] == [8]  # the same pair: the stronger


TUPLES = ('("entity"<|>VALE TRUST<|>ORGANIZATION<|>A charity (est. 1901) funding the pier)\n'
          '##\n("entity"<|>PIER<|>GEO<|>The old pier)\n##\n'
          '("relationship"<|>VALE TRUST<|>PIER<|>The Vale Trust funds the pier<|>8)\n'
          '<|COMPLETE|>')


def test_tuples_inside_our_json_lists_are_salvaged():
    res = GraphExtraction.model_validate({
        "entities": ['("entity"<|>VALE TRUST<|>ORGANIZATION<|>A charity)',
                     '("relationship"<|>VALE TRUST<|>PIER<|>funds<|>7)'],
        "relationships": TUPLES})
    names = sorted(e.name for e in res.entities)
    assert names == ["PIER", "VALE TRUST", "VALE TRUST"]
    assert sorted((r.source, r.target, r.strength) for r in res.relationships) == [
        ("VALE TRUST", "PIER", 7.0), ("VALE TRUST", "PIER", 8.0)]
    assert res.dropped == {TUPLE_SALVAGED: 5}


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url, glean=0,
                         extract_claims=False)


def test_a_whole_reply_in_tuple_format_keeps_its_text_unit(dsettings, double):
    double.script["extract"] = lambda b: TUPLES
    unit = TextUnit(id="u1", text=TEXT)
    ex = run_with_llm(dsettings, lambda llm: extract_text_unit(llm, dsettings, unit,
                                                              glean=0, claims=False))
    assert {e["key"] for e in ex.entities} == {"vale trust", "pier"}
    assert ex.relationships[0]["strength"] == 8 and double.count("extract") == 1
    assert json.loads(json.dumps(ex.dropped)) == []
