"""Issue 60: `stats --json` gives the categories the endpoint's content filter flagged, not
counts alone: a text unit whose extraction Azure's filter blocked (two categories, one with a
severity in brackets) is counted under each, read back from the failed item's error in the
graph (real Neo4j + GDS, the scripted double)."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli.main import main
from tests.conftest import corpus, double_vars, ingest, neo4j_vars
from tests.llm_double import Raw, default_extract

pytestmark = pytest.mark.integration

BLOCKED = {"sexual": {"filtered": True, "severity": "low"},
           "jailbreak": {"filtered": True, "detected": True},
           "hate": {"filtered": False, "severity": "safe"}}


def test_stats_names_the_content_filter_categories(settings, graph, double, tmp_path):
    def extract(body):
        if "Chapter 1 ends" in body["messages"][-1]["content"]:  # one document's text unit
            return Raw({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                        "choices": [{"index": 0, "finish_reason": "content_filter",
                                     "message": {"role": "assistant", "content": ""},
                                     "content_filter_results": BLOCKED}]})
        return default_extract(body)
    double.script["extract"] = extract
    result = ingest(settings, graph, [corpus(tmp_path, 3)])
    failed = result.failures["text unit"]
    assert len(failed) == 1 and failed[0].reason == "content_filter"
    env = {**neo4j_vars(settings), **double_vars(settings)}
    out = CliRunner().invoke(main, ["stats", "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["text_units_failed"] == 1
    assert data["content_filter"] == {"jailbreak": 1, "sexual (low)": 1}
    text = CliRunner().invoke(main, ["stats"], env=env).output
    assert "blocked by the content filter: sexual (low)" in " ".join(text.split())
