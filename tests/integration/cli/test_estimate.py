"""`ingest PATH --estimate` (issue 18): no LLM call, nothing written, the bill per stage; after
an ingest, `stats` shows the estimate beside what the run spent."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from tests.conftest import double_vars, neo4j_vars

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-corpus"


@pytest.mark.integration
def test_estimate_calls_no_llm_writes_nothing_and_stats_compares(settings, graph, double,
                                                                tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE, corpus)
    env = {**double_vars(settings), **neo4j_vars(settings), "LLM_PRICE_INPUT": "2.5",
           "LLM_PRICE_OUTPUT": "10"}
    out = CliRunner().invoke(main, ["ingest", str(corpus), "--estimate", "--json"], env=env)
    assert out.exit_code == 0, out.output
    est = json.loads(out.stdout)
    assert double.count() == 0  # no LLM call at all
    assert graph.run("ops/stats")[0]["documents"] == 0  # nothing written
    assert est["text_units"] > 0 and est["stages"]["extract"]["calls"] == est["text_units"]
    # the embed stage (issue 19): every text unit's tokens, batched requests, priced apart
    emb = est["stages"]["embed"]
    assert emb["prompt_tokens"] > est["text_unit_tokens"] and emb["completion_tokens"] == 0
    assert emb["calls"] >= 2
    chat = {k: sum(s[k] for n, s in est["stages"].items() if n != "embed")
            for k in ("prompt_tokens", "completion_tokens")}
    assert est["price"] == pytest.approx(
        (chat["prompt_tokens"] * 2.5 + chat["completion_tokens"] * 10) / 1e6)
    out = CliRunner().invoke(main, ["ingest", str(corpus), "--no-topics"], env=env)
    assert out.exit_code == 0, out.output
    stats = json.loads(CliRunner().invoke(main, ["stats", "--json"], env=env).stdout)
    rows = {r["stage"]: r for r in stats["ingest_estimate"]}
    assert rows["extract"]["calls"] == rows["extract"]["actual_calls"] == est["text_units"]
    assert rows["report"]["actual_calls"] == double.count("report")
    assert rows["embed"]["actual_calls"] == double.count("embed") > 0
    # a second estimate of the same folder: everything is indexed already, nothing to pay
    out = CliRunner().invoke(main, ["ingest", str(corpus), "--estimate", "--json"], env=env)
    again = json.loads(out.stdout)
    assert again["documents_indexed_already"] == again["documents"] and again["total"][
        "calls"] == 0
