"""The command line: one-line errors naming the setting to fix, masked secrets, stats keys,
and a killed `ingest` that resumes to the same graph without repeating an LLM call."""

import subprocess
import sys

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main


def cli(args, env):
    return CliRunner().invoke(main, args, env=env)


def test_config_masks_the_api_key():
    out = cli(["config"], {"OPENAI_API_KEY": "sk-very-secret-123"})
    assert out.exit_code == 0
    assert "sk-very-secret-123" not in out.output and "********" in out.output


def test_bad_neo4j_uri_is_one_line_naming_the_setting():
    out = cli(["stats"], {"NEO4J_URI": "bolt://127.0.0.1:1", "NEO4J_PASSWORD": "x"})
    assert out.exit_code == 2
    assert "NEO4J_URI" in out.output and "Traceback" not in out.output
    assert len(out.output.strip().splitlines()) <= 2



def test_browse_for_a_remote_server_prints_no_password():
    from neo4j_retag.cli import main
    out = CliRunner().invoke(main, ["browse"], env={
        "NEO4J_URI": "neo4j+s://abcd.databases.neo4j.io", "NEO4J_PASSWORD": "s3cret-pw"})
    assert out.exit_code == 0, out.output
    assert "s3cret-pw" not in out.output and "neo4j+s://abcd.databases.neo4j.io" in out.output
    assert "NEO4J_PASSWORD" in out.output


def test_cli_module_imports_no_heavy_client():
    """`neo4j-retag --help` stays fast: the openai and neo4j clients, pyarrow and rich load
    only when a command runs (benchmarks/speed/cli_latency.py measures the time)."""
    code = ("import sys, neo4j_retag.cli; "
            "print(sorted(m for m in ('openai', 'neo4j', 'pyarrow', 'rich', 'graphdatascience', "
            "'tiktoken') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_ask_help_lists_every_registered_method():
    from click.testing import CliRunner

    from neo4j_retag.cli import main
    from neo4j_retag.query import METHODS
    out = CliRunner().invoke(main, ["ask", "--help"], terminal_width=400)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    for name, m in METHODS.items():
        assert f"{name}: {m.help}" in text, name
    refinable = ", ".join(n for n, m in METHODS.items() if m.refinable)
    assert refinable.startswith("retag, retag-quoted, global")
    assert "global-dynamic" in text and f"(KGiRAG-style; {refinable})" in text
    assert "default ASK_METHOD" in text


def test_an_unknown_ask_method_setting_is_one_line_naming_it():
    out = cli(["ask", "themes?"], {"ASK_METHOD": "retagg"})  # before any service is reached
    assert out.exit_code == 2
    assert ("ASK_METHOD='retagg' is no query method: one of retag, retag-quoted, global"
            in out.output)


@pytest.mark.parametrize("args", [["ingest", ".", "--glean", "-1"],
                                  ["topics", "build", "--max-topics", "0"],
                                  ["serve", "--port", "0"]])
def test_out_of_range_numbers_are_usage_errors(args):
    out = CliRunner().invoke(main, args)  # refused before any service is reached
    assert out.exit_code == 2 and "Invalid value" in out.output, out.output


def test_python_dash_m_runs_the_cli():
    for module in ("neo4j_retag", "neo4j_retag.cli"):
        out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                             text=True)
        assert out.returncode == 0 and "Commands:" in out.stdout, out.stderr


def test_doctor_tells_a_fix_once(monkeypatch):
    from neo4j_retag.ops import doctor
    monkeypatch.setattr(doctor, "run_checks", lambda s: [
        doctor.Check("Neo4j reachable", False, "cannot connect: run `neo4j-retag neo4j start`",
                     "`neo4j-retag neo4j start`"),
        doctor.Check("LLM endpoint", False, "refused", "check OPENAI_BASE_URL")])
    out = cli(["doctor"], {})
    assert out.exit_code == 1
    assert out.output.count("neo4j-retag neo4j start") == 1  # was the detail and a "fix:"
    assert "check OPENAI_BASE_URL" in out.output


def test_doctor_tells_a_busy_machine_and_its_fix_without_failing(monkeypatch):
    from neo4j_retag.ops import doctor
    monkeypatch.setattr(doctor, "run_checks", lambda s: [
        doctor.Check("LLM endpoint", True, "answers"),
        doctor.Check("machine load", True, "2 cores, load average 5.0", "set LLM_THREADS=1",
                     warn=True)])
    out = cli(["doctor"], {})
    assert out.exit_code == 0  # a busy machine is slow, not broken
    assert "slow" in out.output and "set LLM_THREADS=1" in out.output


def _refused_answer():
    from neo4j_retag.model import Answer, Trace
    from neo4j_retag.refusal import Refusal
    trace = Trace(method="retag", no_answer="the reduce step gave no usable answer")
    trace.refusals.append(Refusal.of("reduce", "ungrounded", "about nothing in its context "
                                     "(6 of its 25 content words occur there)",
                                     {"content_words": 25, "in_context": 6},
                                     "The power of storytelling " * 40))
    return Answer(answer="I am sorry but I am unable to answer.", trace=trace)


@pytest.mark.parametrize("debug", [False, True])
def test_ask_prints_one_line_per_refusal_and_the_text_with_debug(monkeypatch, debug):
    # issue 45: a refused reply stays visible; `--json` carries answered false and it too
    import json

    from neo4j_retag.cli import query
    monkeypatch.setattr(query, "run_with_services", lambda fn, settings, usage:
                        _refused_answer())
    for extra in ([], ["--json"]):
        out = CliRunner().invoke(main, (["--debug"] if debug else []) + ["ask", "q?"] + extra)
        assert out.exit_code == 1, out.output
        lines = [ln for ln in out.stderr.splitlines() if ln.startswith("refused:")]
        assert lines == ["refused: reduce refused (ungrounded): about nothing in its context "
                         "(6 of its 25 content words occur there) [content_words 25, "
                         "in_context 6]"]
        assert ("The power of storytelling" in out.stderr) is debug
        if extra:
            body = json.loads(out.stdout)
            assert body["answered"] is False
            assert len(body["trace"]["refusals"][0]["text"]) == 500


def test_eval_with_a_question_no_nugget_question_matches_fails_naming_the_nearest(tmp_path):
    # issue 45: a questions file that differs from the nuggets file gave no nugget table,
    # no warning and exit 0; case and "?" differences match, anything else is an error
    import json
    nuggets = tmp_path / "nuggets.json"
    nuggets.write_text(json.dumps([{"question": "Who is Fred?",
                                    "nuggets": [{"id": "a", "text": "nephew"}]}]))
    questions = tmp_path / "questions.txt"
    questions.write_text("Who was Fred\n")
    out = CliRunner().invoke(main, ["eval", str(questions), "--nuggets", str(nuggets),
                                    "--methods", "rag", "--no-judge"])
    assert out.exit_code != 0 and "Traceback" not in out.output
    assert "nearest nugget question is 'Who is Fred?'" in out.output
