"""`ingest` in a script or CI log (stdout not a terminal: click's CliRunner) prints one line
per stage start and end and periodic lines with done/total, rate and ETA; --quiet none."""

import json
import re
import time

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main

pytestmark = pytest.mark.integration
LINE = re.compile(r"^\[progress \d\d:\d\d:\d\d\] (.+)$", re.M)


def env_for(settings, double, tmp_path):
    env = ({"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
            "NEO4J_DATA": str(settings.neo4j_data_dir)} if not settings.neo4j.uri else
           {"NEO4J_URI": settings.neo4j.uri, "NEO4J_PASSWORD": settings.neo4j_auth()[1]})
    return {**env, "OPENAI_BASE_URL": double.base_url, "OPENAI_MODEL": "double",
            "LLM_JSON_MODE": "json_schema", "LLM_CACHE_DIR": str(tmp_path / "cache"),
            "GLEAN": "0", "PROGRESS_INTERVAL": "0.2"}


def test_ingest_prints_progress_lines_when_not_on_a_terminal(settings, graph, double,
                                                             tmp_path):
    fn = double.script["extract"]
    double.script["extract"] = lambda b: (time.sleep(0.5), fn(b))[1]  # a slow stage
    for i, text in enumerate(["Scrooge met Marley.", "Cratchit met Belle.", "Tim met Fred."]):
        (tmp_path / f"d{i}.txt").write_text(text)
    out = CliRunner().invoke(main, ["ingest", *(str(tmp_path / f"d{i}.txt") for i in range(3)),
                                    "--no-topics"], env=env_for(settings, double, tmp_path))
    assert out.exit_code == 0, out.output
    lines = LINE.findall(out.stdout)
    assert lines[0] == "documents loaded: start"
    assert any(re.fullmatch(r"documents loaded: done, 3/3 \(100%\), [\d.]+/s in [\d.]+s", ln)
               for ln in lines), lines
    assert "text units extracted: start (3 to do)" in lines
    periodic = [ln for ln in lines if re.fullmatch(
        r"text units extracted: \d/3 \(\d+%\), [\d.]+/s, ETA (\d\d:\d\d:\d\d|unknown)", ln)]
    assert periodic, lines  # ~1.5 s of extraction at 0.2 s intervals
    order = [next(i for i, ln in enumerate(lines) if ln.startswith(s)) for s in (
        "text units extracted: done, 3/3", "communities (Leiden): start",
        "communities (Leiden): done", "community reports: start", "community reports: done")]
    assert order == sorted(order), lines
    assert "neo4j-retag ingest" in out.stdout  # the summary table follows


def test_quiet_and_json_keep_stdout_clean(settings, graph, double, tmp_path):
    (tmp_path / "a.txt").write_text("Scrooge met Marley.")
    env = env_for(settings, double, tmp_path)
    out = CliRunner().invoke(main, ["ingest", str(tmp_path / "a.txt"), "--no-topics",
                                    "--quiet"], env=env)
    assert out.exit_code == 0 and not LINE.search(out.output)
    (tmp_path / "b.txt").write_text("Cratchit met Belle.")
    out = CliRunner().invoke(main, ["ingest", str(tmp_path / "b.txt"), "--no-topics",
                                    "--json"], env=env)
    assert out.exit_code == 0
    assert json.loads(out.stdout)["documents_new"] == 1  # stdout: one JSON document
    assert "text units extracted: start" in out.stderr  # the lines went to stderr
