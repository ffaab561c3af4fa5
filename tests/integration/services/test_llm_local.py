"""The local LLM server (started by `neo4j-retag llm start`) answers a schema-constrained chat.

Runs against an already running server at ``Settings().llm_base_url``; skipped when nothing
answers there (failed instead with ``RETAG_TEST_REQUIRE=1``).

llama-cpp-python 0.3.36 enforces a JSON schema only in the form
``{"type": "json_object", "schema": {...}}`` (a GBNF grammar built from the schema). OpenAI's
``{"type": "json_schema", ...}`` is rejected (HTTP 500, request validation error).
"""

from __future__ import annotations

import json
import os
import urllib.request

import pytest

from neo4j_retag.config import Settings

pytestmark = pytest.mark.llm

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 40},
        "country": {"type": "string", "maxLength": 40},
        "population": {"type": "integer"},
    },
    "required": ["city", "country", "population"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def settings() -> Settings:
    s = Settings()
    try:
        with urllib.request.urlopen(f"{s.llm.endpoint.rstrip('/')}/models", timeout=5):
            pass
    except OSError as exc:
        msg = f"no LLM server at {s.llm.endpoint} ({exc}); run `neo4j-retag llm start`"
        if os.environ.get("RETAG_TEST_REQUIRE") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return s


def test_chat_completion_follows_json_schema(settings: Settings) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=settings.llm.endpoint, api_key="x", timeout=300, max_retries=0)
    resp = client.chat.completions.create(
        model=settings.llm.model,
        messages=[
            {"role": "system", "content": "Answer with one JSON object only."},
            {"role": "user", "content": "Give the city, country and population of Tokyo."},
        ],
        temperature=0,
        max_tokens=120,
        response_format={"type": "json_object", "schema": SCHEMA},  # type: ignore[arg-type, typeddict-item]
    )
    content = resp.choices[0].message.content or ""
    # the schema grammar lets raw control characters into strings: parse non-strictly
    data = json.loads(content, strict=False)
    assert set(SCHEMA["required"]) <= set(data)  # type: ignore[arg-type]
    assert isinstance(data["population"], int)
    assert resp.choices[0].finish_reason == "stop"
    assert resp.usage is not None and resp.usage.prompt_tokens > 0
    assert resp.usage.completion_tokens > 0
