"""Issue 48 item 1 (extraction records): one validation of every record whichever mode
produced it - JSON schema, JSON object, GraphRAG tuples as a whole reply or inside our lists:
the same bounds, drop rules and counts; the tuple format's separators inside a field are its
text; a tuple with too few fields is dropped and counted."""

import json

import pytest

from neo4j_retag.index.extract import extract_text_unit
from neo4j_retag.index.extract_records import (
    OVER_CHARS,
    OVER_ITEMS,
    TUPLE_SALVAGED,
    ClaimsExtraction,
    GraphClaimsExtraction,
    GraphExtraction,
)
from neo4j_retag.index.tuples import TOO_FEW
from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import TextUnit
from tests.conftest import make_settings

TEXT = ("Marisol Quintero chairs the Lowfield Allotment Society. The society leases plot 9 "
        "from Brackmoor Council. Quintero signed the lease in 2019.")


def _settings(tmp_path, double, **kw):
    return make_settings(tmp_path, {}, **{"openai_base_url": double.base_url, "glean": 0,
                                          "extract_claims": False, "llm_max_retries": 1, **kw})


def _extract(settings, claims=False):
    unit = TextUnit(id="plot-9", text=TEXT)
    return run_with_llm(settings, lambda llm: extract_text_unit(llm, settings, unit, glean=0,
                                                                claims=claims))


def test_record_separators_inside_a_field_are_its_text():
    text = ('("entity"<|>LOWFIELD ALLOTMENT SOCIETY<|>ORGANIZATION<|>Plots ## 1-12 and the '
            'orchard (shared)<|COMPLETE|> is its motto)\n##\n'
            '("entity"<|>BRACKMOOR COUNCIL<|>ORGANIZATION<|>Landlord of plot #9 ##)\n##\n'
            '("relationship"<|>BRACKMOOR COUNCIL<|>LOWFIELD ALLOTMENT SOCIETY<|>leases ## '
            'plot 9<|>6)\n<|COMPLETE|>')
    got = GraphExtraction.model_validate(GraphExtraction.from_text(text))
    assert [e.description for e in got.entities] == [
        "Plots ## 1-12 and the orchard (shared)<|COMPLETE|> is its motto",
        "Landlord of plot #9 ##"]
    assert [(r.description, r.strength) for r in got.relationships] == [
        ("leases ## plot 9", 6.0)]
    assert got.dropped == {}


def test_separators_inside_a_field_of_a_tuple_in_our_json_list():
    got = GraphExtraction.model_validate({"entities": [
        '("entity"<|>PLOT 9<|>GEO<|>North end ## by the gate)',
        '("entity"<|>ORCHARD<|>GEO<|>Planted 1988 <|COMPLETE|> pears'],  # unclosed too
        "relationships": []})
    assert [e.description for e in got.entities] == [
        "North end ## by the gate", "Planted 1988"]
    assert got.dropped[TUPLE_SALVAGED] == 2


@pytest.mark.parametrize("tuple_, kind", [
    ('("entity"<|>MARISOL QUINTERO)', "entities"),
    ('("entity"<|>MARISOL QUINTERO<|>PERSON)', "entities"),
    ('("relationship"<|>MARISOL QUINTERO<|>BRACKMOOR COUNCIL)', "relationships"),
    ('("claim"<|>MARISOL QUINTERO<|>LEASE<|>SIGNING<|>TRUE)', "claims"),
])
def test_a_tuple_with_too_few_fields_is_dropped_and_counted(tuple_, kind):
    whole = GraphClaimsExtraction.from_text(tuple_ + "\n<|COMPLETE|>")
    got = GraphClaimsExtraction.model_validate(whole)
    assert not getattr(got, kind) and got.dropped == {TOO_FEW: 1}
    listed = GraphClaimsExtraction.model_validate({"entities": [tuple_], "relationships": [],
                                                   "claims": []})
    assert not listed.entities and not listed.relationships and not listed.claims
    assert listed.dropped == {TOO_FEW: 1}


def test_a_short_tuple_in_a_whole_reply_is_counted_on_its_text_unit(tmp_path, double):
    double.script["extract"] = lambda b: (
        '("entity"<|>MARISOL QUINTERO<|>PERSON<|>Chairs the society)##'
        '("entity"<|>PLOT 9)##'
        '("relationship"<|>MARISOL QUINTERO<|>LOWFIELD ALLOTMENT SOCIETY)<|COMPLETE|>')
    ex = _extract(_settings(tmp_path, double))
    assert {e["key"] for e in ex.entities} == {"marisol quintero"}
    assert ex.relationships == [] and ex.dropped == [TOO_FEW, TOO_FEW]


def _records(n):
    return [(f"Plot {i}", "geo", "Soil" + "-loam" * 400) for i in range(n)]


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "off"])
@pytest.mark.parametrize("shape", ["json", "tuples"])
def test_the_same_bounds_and_counts_whichever_mode_and_format(tmp_path, double, mode, shape):
    recs = _records(11)
    if shape == "json":
        reply = json.dumps({"entities": [{"name": n, "type": t, "description": d}
                                         for n, t, d in recs], "relationships": []})
    else:
        reply = "##\n".join(f'("entity"<|>{n}<|>{t}<|>{d})' for n, t, d in recs)
    double.script["extract"] = lambda b: reply
    settings = _settings(tmp_path, double, llm_json_mode=mode, llm_schema_max_items=4,
                         llm_schema_max_chars=300)
    ex = _extract(settings)
    assert [e["name"] for e in ex.entities] == ["Plot 0", "Plot 1", "Plot 2", "Plot 3"]
    assert {len(e["description"]) for e in ex.entities} == {300}
    assert sorted(ex.dropped) == sorted([OVER_ITEMS] * 7 + [OVER_CHARS] * 4)


def test_names_are_not_cut_by_the_text_bound():
    long = "Society for the Preservation of Allotments " * 10
    got = GraphExtraction.model_validate(
        {"entities": [{"name": long, "type": "organization", "description": "x" * 50}],
         "relationships": [{"source": long, "target": "Brackmoor", "description": "y" * 50}]},
        context={"max_items": 5, "max_chars": 20})
    assert got.entities[0].name == long and got.relationships[0].source == long
    assert len(got.entities[0].description) == 20 and got.dropped == {OVER_CHARS: 2}


def test_the_claims_call_drops_a_bad_claim_not_the_reply(tmp_path, double):
    double.script["claims"] = lambda b: json.dumps({"claims": [
        {"subject": "", "description": "no subject"}, 17,
        {"subject": "Marisol Quintero", "object": "Brackmoor Council", "type": "lease",
         "status": "TRUE", "description": "signed the lease",
         "source_quote": "Quintero signed the lease in 2019"}]})
    double.script["extract"] = lambda b: json.dumps({"entities": [
        {"name": "Marisol Quintero", "type": "person", "description": "chair"}],
        "relationships": []})
    settings = _settings(tmp_path, double, extract_claims=True, claims_call="separate")
    ex = _extract(settings, claims=True)
    assert [c["props"]["description"] for c in ex.claims] == ["signed the lease"]
    assert sorted(ex.dropped) == ["claim without a subject", "not a record"]
    assert "dropped" not in json.dumps(ClaimsExtraction.model_json_schema()["properties"])


def test_wrong_field_types_a_missing_list_and_a_strength_out_of_range_are_each_counted():
    # issue 60: an object where a description belongs was stored as its repr; a reply without
    # its relationships list, and a strength clamped, passed silently
    from neo4j_retag.index.extract_records import NO_LIST, STRENGTH_SET, WRONG_FIELDS
    got = GraphExtraction.model_validate({"entities": [
        {"name": "Vale Trust", "description": {"summary": "a trust"}},
        {"name": "Pier", "type": ["geo"]}, {"name": "Harbour", "type": "geo"}]})
    assert [e.name for e in got.entities] == ["Harbour"]
    assert got.dropped == {WRONG_FIELDS: 2, NO_LIST: 1}
    rels = GraphExtraction.model_validate({"entities": [], "relationships": [
        {"source": "A", "target": "B", "strength": 15},
        {"source": "A", "target": "C", "strength": "high"},
        {"source": "B", "target": "C", "strength": 7}]})
    assert [r.strength for r in rels.relationships] == [10.0, 5.0, 7.0]
    assert rels.dropped == {STRENGTH_SET: 2}
    # a reply in GraphRAG's tuples with no relationship tuple has none: no list left out
    tuples = GraphExtraction.from_text('("entity"|"Vale Trust"|"organization"|"a trust")')
    assert GraphExtraction.model_validate(tuples).dropped.get(NO_LIST) is None
