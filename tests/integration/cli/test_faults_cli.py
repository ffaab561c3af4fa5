"""Issue 9 item 5 at the command line: the summary always, exit 3 while an item is failed,
a wrong --text-field named with the fields found, `ask` failing when every map batch did."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from tests.conftest import corpus

pytestmark = pytest.mark.integration


def env_for(settings, double, tmp_path):
    env = {"OPENAI_BASE_URL": double.base_url, "OPENAI_MODEL": "double",
           "LLM_JSON_MODE": "json_schema", "LLM_CACHE_DIR": str(tmp_path / "cache"),
           "LLM_MAX_RETRIES": "1"}
    if settings.neo4j.uri:
        return env | {"NEO4J_URI": settings.neo4j.uri, "NEO4J_PASSWORD": settings.neo4j_auth()[1]}
    return env | {"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
                  "NEO4J_DATA": str(settings.neo4j_data_dir)}


def cli(args, env):
    return CliRunner().invoke(main, args, env=env)


def test_ingest_prints_its_summary_and_exits_3_until_nothing_is_failed(settings, graph, double,
                                                                       tmp_path):
    folder = corpus(tmp_path, 3)
    env = env_for(settings, double, tmp_path)
    original = double.script["extract"]
    double.script["extract"] = lambda b: ("I'm sorry, I can't help with that."
                                          if "Chapter 1 ends" in b["messages"][-1]["content"]
                                          else original(b))
    out = cli(["ingest", str(folder), "--no-topics", "--json"], env)
    assert out.exit_code == 3, out.output
    summary = json.loads(out.stdout)
    assert [f["reason"] for f in summary["text_units_failed"]] == ["unparseable"]
    assert summary["failed_items"] == 1 and summary["llm_faults"]["unparseable"] == 2
    out = cli(["ingest", str(folder), "--no-topics"], env)  # the table, still exit 3
    assert out.exit_code == 3 and "failed text unit" in out.output and "exit code" in out.output
    double.script["extract"] = original
    out = cli(["ingest", "--resume", "--no-topics", "--json"], env)
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["text_units_extracted"] == 1


def test_nothing_extracted_is_a_plain_outcome_not_run_ingest_first(settings, graph, double,
                                                                   tmp_path):
    (tmp_path / "empty").mkdir()
    env = env_for(settings, double, tmp_path)
    out = cli(["ingest", str(tmp_path / "empty")], env)  # no file to read: a user error
    assert out.exit_code == 1 and "nothing to ingest in" in out.output, out.output
    assert "Traceback" not in out.output and double.count() == 0
    (tmp_path / "empty" / "blank.txt").write_text("  \n")  # read, skipped as empty
    out = cli(["ingest", str(tmp_path / "empty")], env)
    assert out.exit_code == 0, out.output
    assert "no entities extracted (the replies named none): communities, reports and topics " \
        "skipped" in " ".join(out.output.split())
    assert "run `neo4j-retag ingest` first" not in out.output


def test_wrong_text_field_names_the_fields_found(settings, graph, double, tmp_path):
    f = tmp_path / "rows.csv"
    f.write_text("title,body\nA,Scrooge met Marley.\n")
    out = cli(["ingest", str(f), "--text-field", "content"], env_for(settings, double, tmp_path))
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "'content'" in out.output and "body, title" in out.output


def test_ask_fails_when_every_map_batch_is_unparseable(settings, graph, double, tmp_path):
    env = env_for(settings, double, tmp_path)
    assert cli(["ingest", str(corpus(tmp_path, 2)), "--no-topics"], env).exit_code == 0
    double.script["map"] = lambda b: "Some thoughts, in prose only."
    out = cli(["ask", "What are the themes?", "--method", "global", "--level", "0"], env)
    assert out.exit_code == 1 and "map batches gave no usable points" in out.output
    assert "unable to answer" not in out.output.lower()
