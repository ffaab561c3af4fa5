"""The papers' head-to-head LLM-judge evaluation, on the real Neo4j with the LLM double."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.query.evaluate import judge

pytestmark = pytest.mark.integration


def test_judge_is_order_balanced(settings, double):
    async def go():
        llm = LLM(settings, Usage())
        try:
            return (await judge(llm, settings, "q", "diversity", "a long answer " * 5, "short"),
                    await judge(llm, settings, "q", "diversity", "short", "a long answer " * 5))
        finally:
            await llm.close()
    import asyncio
    assert asyncio.run(go()) == (1.0, 0.0)  # the double prefers the longer answer, both orders


def test_eval_cli_generates_questions_and_reports_win_rates(indexed, graph, double):
    env = {"OPENAI_BASE_URL": indexed.llm_base_url, "OPENAI_MODEL": "double",
           "LLM_JSON_MODE": "json_schema", "LLM_CACHE_DIR": str(indexed.cache_dir)}
    if indexed.neo4j_uri:
        env |= {"NEO4J_URI": indexed.neo4j_uri, "NEO4J_PASSWORD": indexed.neo4j_auth()[1]}
    else:
        env |= {"NEO4J_BOLT_PORT": str(indexed.neo4j_bolt_port),
                "NEO4J_DATA": str(indexed.neo4j_data_dir)}
    out = CliRunner().invoke(main, ["eval", "--generate", "2", "--methods", "global,ts,rag",
                                    "--level", "0", "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["questions"] == ["What are the themes?", "Who matters most?"]
    assert len(data["win_rates"]) == 3 * 4  # 3 pairs x 4 criteria
    assert all(0 <= r["win_rate"] <= 1 for r in data["win_rates"])
    assert len(data["answers"]) == 2 * 3
