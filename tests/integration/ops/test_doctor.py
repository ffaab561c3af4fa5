"""`neo4j-retag doctor` on the real Neo4j + GDS, with the LLM double and with a dead endpoint."""

import pytest

from neo4j_retag.ops.doctor import run_checks

pytestmark = pytest.mark.integration


def test_all_green_with_a_working_stack(settings, graph):
    checks = {c.name: c for c in run_checks(settings)}
    assert all(c.ok for c in checks.values()), [c for c in checks.values() if not c.ok]
    assert "GDS 2." in checks["Graph Data Science"].detail
    assert "json_schema" in checks["JSON-schema output"].detail


def test_dead_llm_says_how_to_fix(settings, graph):
    dead = settings.model_copy(update={"openai_base_url": "http://127.0.0.1:9/v1"})
    checks = {c.name: c for c in run_checks(dead)}
    assert not checks["LLM endpoint"].ok
    assert "OPENAI_BASE_URL" in checks["LLM endpoint"].fix + checks["LLM endpoint"].detail
    assert checks["Neo4j reachable"].ok


def test_sessions_mode_checks_its_settings_not_the_plugin(settings, graph):
    sessions = settings.model_copy(update={"gds_mode": "sessions"})
    gds = {c.name: c for c in run_checks(sessions)}["Graph Data Science"]
    assert not gds.ok and "AURA_API_CLIENT_ID" in gds.detail
