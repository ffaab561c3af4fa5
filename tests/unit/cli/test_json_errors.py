"""`--json` always prints its JSON (issue 46 item 6): an error a command ends with is a JSON
object on stdout (error, kind, reason, exit_code) beside the one line on stderr; without
--json, stdout stays empty."""

import json

import click
from click.testing import CliRunner

from neo4j_retag.cli.common import Ctx, friendly
from neo4j_retag.cli.main import main
from neo4j_retag.errors import LLMError


def test_a_settings_error_under_json_is_json_on_stdout():
    out = CliRunner().invoke(main, ["ask", "Themes?", "--json"], env={"LAZY_BUDGET": "0"})
    assert out.exit_code == 2
    data = json.loads(out.stdout)
    assert data["exit_code"] == 2 and "LAZY_BUDGET" in data["error"]
    assert data["kind"] == "ConfigError" and "LAZY_BUDGET" in out.stderr
    plain = CliRunner().invoke(main, ["ask", "Themes?"], env={"LAZY_BUDGET": "0"})
    assert plain.exit_code == 2 and plain.stdout == ""


def test_an_overflow_under_json_names_the_setting_in_json():
    @click.command()
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_obj
    @friendly
    def cmd(obj, as_json):
        raise LLMError("map: the prompt is over the LLM's context window (256 tokens): raise "
                       "LLM_CTX (now 256) or lower MAP_CONTEXT_TOKENS", "context_length")

    out = CliRunner().invoke(cmd, ["--json"], obj=Ctx(debug=False))
    data = json.loads(out.stdout)
    assert out.exit_code == 1 and data["reason"] == "context_length"
    assert "LLM_CTX" in data["error"] and data["kind"] == "LLMError"
    assert len(out.stderr.strip().splitlines()) == 1
