"""`ask`'s request, built from the method registry: a method declared once shows in the CLI's
choices and options, the HTTP request model and its OpenAPI, the MCP tool's schema and the
page; its option reaches the method; its trace part prints through its own render."""

from __future__ import annotations

import asyncio
import re
from typing import Literal

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from neo4j_retag import query
from neo4j_retag.cli import main
from neo4j_retag.config import Group, Settings, env
from neo4j_retag.errors import ConfigError, InputError
from neo4j_retag.model import Answer, LLMCost, Routing, Trace
from neo4j_retag.query.ask import answer, ask_model, ask_request, cost_line, trace_lines
from neo4j_retag.query.contract import Method, Options, option, variant


class EchoOptions(Options):
    colour: Literal["red", "blue"] | None = option("a colour to repeat")
    depth: int | None = option("how deep", ge=2, le=7)
    loud: bool | None = option("shout it")


class EchoSettings(Group):
    """The fake method's own settings."""

    colour: str = env("ECHO_COLOUR", "none", "the colour without --colour")


async def _echo(graph, llm, settings, q):
    trace = Trace(method="echo")
    opts = EchoOptions.of(q)
    trace.routing = Routing(kind="specific", method="echo",
                            reason=opts.colour or settings.method(EchoSettings).colour)
    loud = {None: "", True: "!", False: "."}[opts.loud]
    return Answer(answer=f"echo {q.question}{loud}", trace=trace)


ECHO = Method("echo", _echo, "repeats the question (a test method)", options=EchoOptions,
              settings=EchoSettings, trace_part="routing",
              render=lambda a: [f"echo part: {a.trace.routing.reason}"])


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
    assert "[2<=x<=7]" in text and "--loud / --no-loud" in text
    bad = CliRunner().invoke(main, ["ask", "q", "--method", "echo", "--depth", "9"])
    assert bad.exit_code == 2 and "9 is not in the range 2<=x<=7" in bad.output


def test_the_option_reaches_the_method_typed_and_its_part_prints(echo):
    req = ask_model()(question="q", method="echo", colour="red", loud=False)
    got = asyncio.run(answer(req.method_name(), None, None, Settings(), req.query()))
    assert trace_lines(got) == ["echo part: red"] and got.answer == "echo q."
    assert got.as_dict()["trace"]["routing"]["reason"] == "red"
    # not given: the method reads its own setting, given by its flat name
    got = asyncio.run(answer("echo", None, None, Settings(echo_colour="green"),
                             ask_model()(question="q").query()))
    assert trace_lines(got) == ["echo part: green"] and got.answer == "echo q"
    # an option the chosen method does not take is said in the trace, not dropped
    other = asyncio.run(answer("echo", None, None, Settings(),
                               ask_model()(question="q", budget=5).query()))
    assert ("the budget option applies to lazy and lazy-quoted only: echo ignored it"
            in other.trace.notes)


def test_a_method_s_settings_come_from_the_environment_under_the_flat_ones(monkeypatch):
    monkeypatch.setenv("ECHO_COLOUR", "amber")
    s = Settings()
    assert s.method(EchoSettings).colour == "amber"
    assert s.model_copy(update={"echo_colour": "teal"}).method(EchoSettings).colour == "teal"
    assert s.method(EchoSettings).colour == "amber"  # the copy's value is the copy's
    monkeypatch.setenv("LAZY_BUDGET", "0")
    from neo4j_retag.query.lazy import LazySettings
    with pytest.raises(ConfigError, match=r"^invalid setting LAZY_BUDGET: .*greater than"):
        Settings().method(LazySettings)


def test_an_unknown_field_is_refused_not_dropped():
    with pytest.raises(InputError, match=r"^topp: Extra inputs are not permitted$"):
        ask_request(question="q", method="retag", topp=5)


def test_a_variant_runs_its_base_with_settings_under_its_own_name(echo, monkeypatch):
    seen = {}

    async def base(graph, llm, settings, q):
        seen["topics"] = settings.query.retag_topics
        return Answer(answer="a", trace=Trace(method="base"))

    async def base_echo(graph, llm, settings, q):
        seen["colour"] = settings.method(EchoSettings).colour
        seen["depth"] = EchoOptions.of(q).depth
        return await base(graph, llm, settings, q)

    arm = variant(Method("base", base_echo, "b", options=EchoOptions, settings=EchoSettings),
                  "base-arm", "an arm", module=__name__, without=("depth",),
                  retag_topics=False, echo_colour="plum")
    assert arm.module == __name__ and arm.settings is EchoSettings
    assert set(arm.options.model_fields) == {"colour", "loud"}
    monkeypatch.setitem(query.METHODS, "base-arm", arm)
    got = asyncio.run(answer("base-arm", None, None, Settings(), ask_model()(
        question="q", depth=3).query()))
    # its settings set, the option it does not take not passed to its base, and said
    assert seen == {"topics": False, "colour": "plum", "depth": None}
    assert got.trace.method == "base-arm"
    assert "the depth option applies to echo only: base-arm ignored it" in got.trace.notes


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
