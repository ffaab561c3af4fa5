"""Issue 21 kind 2: every structured reply held to the schema we send - wrong field names are
invalid (retried with the error, then the item fails), overlong lists and text cut at the
documented caps and counted; schemas valid for strict providers; JSON mode switched off by an
endpoint's 400s is said in `doctor`."""

import asyncio
import json

import pytest

from neo4j_retag.community_report import CommunityReport
from neo4j_retag.errors import LLMError
from neo4j_retag.index.extract import extract_text_unit
from neo4j_retag.index.extract_records import (
    OVER_CHARS,
    OVER_ITEMS,
    GraphClaimsExtraction,
    GraphExtraction,
)
from neo4j_retag.llm import LLM, Usage, run_with_llm
from neo4j_retag.llm.schema import MAX_FIELD_CHARS, schema_of
from neo4j_retag.model import TextUnit
from neo4j_retag.ops.doctor import _llm
from neo4j_retag.query.answer.map_reduce import map_model
from tests.conftest import make_settings
from tests.llm_double import Fail

TEXT = "The Vale Trust funds the old pier. The harbour master rebuilt the pier in 1990."


def _settings(tmp_path, double, **kw):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url, glean=0,
                         extract_claims=False, llm_max_retries=2, **kw)


def _extract(settings, usage=None):
    unit = TextUnit(id="u1", text=TEXT)
    return run_with_llm(settings, lambda llm: extract_text_unit(llm, settings, unit, glean=0,
                                                                claims=False), usage)


@pytest.mark.parametrize("reply, field", [
    ({"entities": [{"name": "Vale Trust", "kind": "org"}], "relationships": []}, "kind"),
    ({"result": "The Vale Trust funds the pier."}, "result"),
])
def test_wrong_field_names_are_invalid_retried_with_the_error_then_fail(tmp_path, double,
                                                                        reply, field):
    double.script["extract"] = lambda b: json.dumps(reply)
    with pytest.raises(LLMError) as e:
        _extract(_settings(tmp_path, double))
    assert e.value.reason == "invalid" and f"unexpected field {field!r}" in str(e.value)
    calls = [b for k, b in double.calls if k == "extract"]
    assert len(calls) == 3 and f"unexpected field '{field}'" in calls[-1]["messages"][0]["content"]


@pytest.mark.parametrize("mode", ["json_object", "json_schema"])
def test_overlong_lists_and_text_cut_at_the_bounds_and_counted_in_any_mode(tmp_path, double,
                                                                           mode):
    # issue 48: the bounds were applied to json_object replies only (a grammar's), and counted
    # as one fault per list; now per record, in `dropped`, whichever mode
    ents = [{"name": f"Pier {i}", "type": "geo", "description": "d" * 5000} for i in range(40)]
    double.script["extract"] = lambda b: json.dumps({"entities": ents, "relationships": []})
    settings = _settings(tmp_path, double, llm_json_mode=mode)
    ex = _extract(settings, Usage())
    sent = next(b for k, b in double.calls if k == "extract")["response_format"]
    cap_items, cap_chars = settings.llm.schema_max_items, settings.llm.schema_max_chars
    if mode == "json_object":  # the bounds are sent too: a grammar holds the model to them
        assert sent["schema"]["properties"]["entities"]["maxItems"] == cap_items
    assert len(ex.entities) == cap_items
    assert {len(e["description"]) for e in ex.entities} == {cap_chars}
    assert ex.dropped.count(OVER_ITEMS) == 40 - cap_items
    assert ex.dropped.count(OVER_CHARS) == cap_items


def test_a_3mb_description_is_cut_in_any_json_mode(tmp_path, double):
    double.script["extract"] = lambda b: json.dumps({"entities": [
        {"name": "Vale Trust", "type": "organization", "description": "x" * 3_000_000}],
        "relationships": []})
    settings = _settings(tmp_path, double)
    ex = _extract(settings)  # json_schema: no maxLength sent
    assert len(ex.entities[0]["description"]) == settings.llm.schema_max_chars < MAX_FIELD_CHARS
    assert ex.dropped == [OVER_CHARS]


@pytest.mark.parametrize("mode", ["json_object", "json_schema"])
def test_the_20000_character_cut_is_counted_with_the_other_cuts(tmp_path, double, mode):
    # LLM_SCHEMA_MAX_CHARS over MAX_FIELD_CHARS: the field was cut at 20,000 characters before
    # the records' own check saw it, and counted nowhere that the ingest summary shows
    double.script["extract"] = lambda b: json.dumps({"entities": [
        {"name": "Vale Trust", "type": "organization", "description": "x" * 25_000},
        {"name": "Harbour", "type": "geo", "description": "y" * 500}], "relationships": []})
    settings = _settings(tmp_path, double, llm_json_mode=mode, llm_schema_max_chars=100_000)
    ex = _extract(settings)
    assert [len(e["description"]) for e in ex.entities] == [MAX_FIELD_CHARS, 500]
    assert ex.dropped == [OVER_CHARS]


def _objects(schema):
    if isinstance(schema, dict):
        if schema.get("type") == "object" and "properties" in schema:
            yield schema
        for v in schema.values():
            yield from _objects(v)
    elif isinstance(schema, list):
        for v in schema:
            yield from _objects(v)


@pytest.mark.parametrize("model", [GraphExtraction, GraphClaimsExtraction, CommunityReport,
                                   map_model((1, 2))])
def test_schemas_are_valid_for_strict_providers(model):
    objs = list(_objects(schema_of(model)))
    assert objs and all(o["additionalProperties"] is False
                        and o["required"] == list(o["properties"]) for o in objs)


def test_json_mode_switched_off_by_400s_is_said_in_doctor(tmp_path, double):
    def text(b):
        if b.get("response_format"):
            raise Fail(400, {"error": {"message": "Invalid schema for response_format "
                                       "'Ping': additionalProperties is not supported",
                                       "param": "response_format"}})
        return '{"ok": true}' if "ok" in b["messages"][-1]["content"] else "OK"
    double.script["text"] = text
    settings = make_settings(tmp_path, {}, openai_base_url=double.base_url,
                             llm_json_mode="auto")
    checks = {c.name: c for c in asyncio.run(_llm(settings))}
    check = checks["JSON-schema output"]
    assert not check.ok and "JSON mode fell back to off" in check.detail
    assert "refused response_format json_schema (" in check.detail
    assert "; then json_object (" in check.detail
    assert "Invalid schema" in check.detail and "LLM_JSON_MODE" in check.detail
    # a later run reads it back: the mode stays off, and says why
    llm = LLM(settings, Usage())
    assert llm.json_mode == "off" and "Invalid schema" in llm.caps.describe()
    asyncio.run(llm.close())
