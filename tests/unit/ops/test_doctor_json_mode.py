"""Issue 60: `doctor` says when the JSON-schema mode fell back (an endpoint refusing
``json_schema`` -> ``json_object``, refusing that too -> ``off``), with the endpoint's words and
LLM_JSON_MODE, in the run that learnt it and in every later one; not when the mode is set."""

import asyncio

import pytest

from neo4j_retag.ops.doctor import _llm
from tests.conftest import make_settings
from tests.llm_double import DEFAULTS, Fail

SCHEMA_REFUSED = {"error": {"message": "'response_format.type' json_schema is not supported "
                                       "by this model", "param": "response_format",
                            "type": "invalid_request_error"}}


def _refusing_json_schema(b):
    if (b.get("response_format") or {}).get("type") == "json_schema":
        raise Fail(400, SCHEMA_REFUSED)
    if '{"ok": true}' in b["messages"][-1]["content"]:  # the JSON check, in any mode
        return '{"ok": true}'
    return DEFAULTS["text"](b)


def _json_check(settings):
    return {c.name: c for c in asyncio.run(_llm(settings))}["JSON-schema output"]


def test_a_fallback_to_json_object_is_said_with_its_setting(tmp_path, double):
    double.script["text"] = _refusing_json_schema
    settings = make_settings(tmp_path, {}, openai_base_url=double.base_url,
                             llm_json_mode="auto")
    for _ in range(2):  # the run that met the refusal, and a later one that read it back
        check = _json_check(settings)
        assert check.ok and check.detail.startswith("response_format json_object honoured; "
                                                    "JSON mode fell back to json_object")
        assert "refused response_format json_schema (" in check.detail
        assert "json_schema is not supported by this model" in check.detail
        assert "LLM_JSON_MODE" in check.detail and "endpoint-capabilities.json" in check.detail
    assert sum(1 for k, _ in double.calls if k == "text") >= 3


@pytest.mark.parametrize("mode", ["json_object", "off"])
def test_a_mode_set_by_hand_is_no_fallback(tmp_path, double, mode):
    double.script["text"] = _refusing_json_schema
    auto = make_settings(tmp_path, {}, openai_base_url=double.base_url, llm_json_mode="auto")
    _json_check(auto)  # the refusal is remembered ...
    check = _json_check(auto.model_copy(update={"llm_json_mode": mode}))
    assert check.ok and "fell back" not in check.detail  # ... but the setting decides
