"""`ask`'s request, built from the method registry: a method declared once shows in the CLI's
choices and options, the HTTP request model and its OpenAPI, the MCP tool's schema and the
page; its option reaches the method; its trace part prints through its own render."""

from __future__ import annotations

import asyncio
import re

import pytest
from click.testing import CliRunner
from pydantic import BaseModel, ValidationError

from neo4j_retag import query
from neo4j_retag.cli import main
from neo4j_retag.errors import InputError
from neo4j_retag.model import Answer, LLMCost, Trace
from neo4j_retag.query.ask import answer, ask_model, ask_request, cost_line, trace_lines
from neo4j_retag.query.contract import Method, Option, variant


class Echo(BaseModel):
    """The fake method's own trace part."""

    colour: str


async def _echo(graph, llm, settings, q):
    trace = Trace(method="echo")
    trace.parts["echo"] = Echo(colour=q.colour or "none")
    return Answer(answer=f"echo {q.question}", trace=trace)


ECHO = Method("echo", _echo, "repeats the question (a test method)",
              options=(Option("colour", str, "a colour to repeat",
                              choices=("red", "blue")),
                       Option("depth", int, "how deep", ge=2, le=7)),
              trace_part="echo", render=lambda a: [f"echo part: {a.trace.parts['echo'].colour}"])


@pytest.fixture
def echo(monkeypatch):
    monkeypatch.setitem(query.METHODS, "echo", ECHO)
    return ECHO


def test_a_registered_method_is_a_cli_choice_with_its_options(echo):
    out = CliRunner().invoke(main, ["ask", "--help"], terminal_width=400)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert re.search(r"--method \[[^\]]*\|echo[|\]]", text), text
    assert "echo: repeats the question (a test method)" in text
    assert "--colour [red|blue]" in text and "--depth INTEGER RANGE" in text
    assert "[2<=x<=7]" in text
    bad = CliRunner().invoke(main, ["ask", "q", "--method", "echo", "--depth", "9"])
    assert bad.exit_code == 2 and "9 is not in the range 2<=x<=7" in bad.output


def test_the_option_reaches_the_method_and_its_part_prints_and_dumps_flat(echo):
    req = ask_model()(question="q", method="echo", colour="red")
    got = asyncio.run(answer(req.method_name(), None, None, None, req.query()))
    assert trace_lines(got) == ["echo part: red"]
    assert got.as_dict()["trace"]["echo"] == {"colour": "red"}  # beside the other parts
    # an option the chosen method does not take is said in the trace, not dropped
    other = asyncio.run(answer("echo", None, None, None,
                               ask_model()(question="q", budget=5).query()))
    assert ("the budget option applies to lazy and lazy-quoted only: echo ignored it"
            in other.trace.notes)


def test_an_unknown_field_is_refused_not_dropped():
    with pytest.raises(InputError, match=r"^topp: Extra inputs are not permitted$"):
        ask_request(question="q", method="retag", topp=5)


def test_a_variant_runs_its_base_with_settings_under_its_own_name(echo):
    seen = {}

    async def base(graph, llm, settings, q):
        seen["topics"] = settings.query.retag_topics
        return Answer(answer="a", trace=Trace(method="base"))

    from neo4j_retag.config import Settings
    arm = variant(Method("base", base, "b", settings=("retag_topics",)), "base-arm", "an arm",
                  module=__name__, retag_topics=False)
    got = asyncio.run(arm(None, None, Settings(), None))
    assert seen == {"topics": False} and got.trace.method == "base-arm"
    assert arm.module == __name__ and arm.settings == ("retag_topics",)


def test_ask_request():
    model = ask_model()
    assert model(question="q", method="global", dynamic=True).method_name() == \
        "global-dynamic"
    with pytest.raises(InputError, match="--dynamic goes with --method global"):
        model(question="q", method="retag", dynamic=True).method_name()
    with pytest.raises(ValidationError, match="at least 1 character"):
        model(question="   \n")  # a blank question is no question (CLI exit 2, HTTP 422)
    assert model(question="  Who?  ").question == "Who?"
    with pytest.raises(InputError, match="^budget: Input should be less than or equal to"):
        ask_request(question="q", method="lazy", budget=10_001)  # eval's lazy@N
    line = cost_line(Answer(answer="a", trace=Trace(method="retag", seconds={"total": 2.5},
                     llm=LLMCost(calls=3, cached=1, prompt_tokens=900, completion_tokens=80))))
    assert line == "retag: 3 LLM calls (+1 cached), 900 prompt + 80 completion tokens, 2.5 s"


def test_ask_prints_the_answering_methods_part_through_its_render(echo, monkeypatch):
    from neo4j_retag.cli import query as cli_query
    monkeypatch.setattr(cli_query, "run_with_services", lambda fn, settings, usage:
                        asyncio.run(_echo(None, None, None, ask_model()(
                            question="q", colour="blue").query())))
    out = CliRunner().invoke(main, ["ask", "q", "--method", "echo", "--colour", "blue"])
    assert out.exit_code == 0, out.output
    assert "echo part: blue" in out.output and "reports retrieved" not in out.output
