"""The `ask` operation, one for every front end: `ask --json`, `POST /ask`, MCP's ``ask`` and
``eval`` take the same request (:func:`ask_model`, built from the method registry) and give
the same :class:`~neo4j_retag.model.Answer` (``Answer.as_dict()`` is the JSON)."""

from __future__ import annotations

import functools
import logging
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, create_model
from pydantic.fields import FieldInfo

from ..config import Settings
from ..db import Graph
from ..errors import InputError
from ..llm import LLM
from ..model import Answer, Options, Query, timed
from . import registry
from .citations import locate
from .contract import Method
from .refine import refine

MAX_QUESTION_CHARS = 4000


class AskRequest(BaseModel):
    """The fields every method takes; :func:`ask_model` adds each method's own options and
    names the methods. Bounds are the model's: a value out of them is a validation error
    (CLI exit 2, HTTP 422, MCP tool error), the same on every surface, and so is a field it
    does not know (a misspelt option is never dropped silently)."""

    model_config = ConfigDict(extra="forbid")
    # stripped first: a blank question would spend LLM calls answering nothing
    question: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                               max_length=MAX_QUESTION_CHARS)]
    method: str = "retag"
    level: int | None = Field(None, ge=0, description="community level (default "
                              "QUERY_LEVEL, or the deepest level if fewer)")
    response_type: str = Field("multiple paragraphs", max_length=200)
    answer: Literal["quote", "one-call", "map-reduce"] | None = Field(
        None, description="how the retrieved context becomes the answer: quote (the sources' "
        "sentences, no answer call), one-call or map-reduce (default ANSWER: the method's own)")
    refine: int = Field(0, ge=0, le=5, description="KGiRAG refinement rounds")

    def method_name(self) -> str:
        """The method to run: a method's flag turns the method it goes with into it (``global``
        with ``dynamic`` is ``global-dynamic``). Raises InputError for a flag with another
        method."""
        for m in registry.METHODS.values():
            if m.flag and getattr(self, m.flag, False):
                if self.method not in (m.flag_of, m.name):
                    raise InputError(f"--{m.flag} goes with --method {m.flag_of}")
                return m.name
        return self.method

    def query(self) -> Query:
        """The request as the methods take it: the common fields and every option given
        (each method reads its own: ``XOptions.of(query)``)."""
        given = {n: getattr(self, n) for n in options() if getattr(self, n) is not None}
        return Query(**self.model_dump(include=set(Query.model_fields) - {"options"}),
                     options=given_options()(**given))


def options() -> dict[str, list[tuple[str, FieldInfo]]]:
    """Every method option by name, with the methods that declare it (a name declared twice
    must have the same type and bounds; RuntimeError otherwise)."""
    out: dict[str, list[tuple[str, FieldInfo]]] = {}
    for name, m in registry.METHODS.items():
        for opt, f in m.options.model_fields.items():
            if (seen := out.setdefault(opt, [])) and _bounds(seen[0][1]) != _bounds(f):
                raise RuntimeError(f"option {opt!r}: {seen[0][0]} and {name} declare "
                                   "different types or bounds")
            seen.append((name, f))
    return out


def _bounds(f: FieldInfo) -> tuple[Any, ...]:
    """What two declarations of one option must agree on (help may differ)."""
    return f.annotation, f.metadata


def given_options() -> type[Options]:
    """Every method's options in one model (what a request gives, before the method that
    answers takes its own)."""
    return _options(tuple((n, id(m)) for n, m in registry.METHODS.items()))


@functools.cache
def _options(_state: tuple[tuple[str, int], ...]) -> type[Options]:
    return create_model("GivenOptions", __base__=Options, **{  # type: ignore[call-overload]
        name: (declared[0][1].annotation, declared[0][1]) for name, declared in options().items()})


def flags() -> dict[str, Method]:
    """The boolean flags methods declare (``dynamic``), with the method each selects."""
    return {m.flag: m for m in registry.METHODS.values() if m.flag}


def option_help(declared: list[tuple[str, FieldInfo]]) -> str:
    """One option's help: the declaring method's, or each method's when several declare it."""
    if len(declared) == 1:
        return f"{declared[0][1].description} ({declared[0][0]})"
    return "; ".join(f"{name}: {opt.description}" for name, opt in declared)


def methods_help() -> str:
    """Every registered method with its one-line help."""
    return "; ".join(f"{name}: {m.help}" for name, m in registry.METHODS.items())


def ask_model(default_method: str = "retag") -> type[AskRequest]:
    """The request model of `ask` for the methods registered now: ``method`` one of their
    names (an enum in the OpenAPI / MCP schema), each method option typed and bounded, each
    flag a boolean. Cached per registry state and default."""
    return _model(default_method, tuple((n, id(m)) for n, m in registry.METHODS.items()))


def ask_request(**fields: Any) -> AskRequest:
    """``ask_model()(**fields)``, a value out of bounds an InputError in one line (the
    field and pydantic's message) for callers without a validation layer of their own."""
    try:
        return ask_model()(**fields)
    except ValidationError as err:
        first = err.errors()[0]
        raise InputError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None


@functools.cache
def _model(default_method: str, _state: tuple[tuple[str, int], ...]) -> type[AskRequest]:
    names = tuple(registry.METHODS)
    fields: dict[str, Any] = {
        "method": (Literal[names], Field(default_method,  # type: ignore[valid-type]
                                         description=methods_help()))}
    for name, declared in options().items():
        first = declared[0][1]
        fields[name] = (first.annotation, FieldInfo.merge_field_infos(
            first, description=option_help(declared)))
    refinable = ", ".join(n for n, m in registry.METHODS.items() if m.refinable)
    fields["refine"] = (int, Field(0, ge=0, le=5, description="iterative refinement rounds "
                                   f"(KGiRAG-style; {refinable})"))
    for flag, m in flags().items():
        fields[flag] = (bool, Field(False, description=f"with method {m.flag_of}: {m.name}, "
                                    f"{m.help}"))
    return create_model("AskRequest", __base__=AskRequest, **fields)


def _not_taken(query: Query, method: str) -> list[str]:
    """The method options given in ``query`` that ``method`` does not declare."""
    taken = registry.METHODS[method].options.model_fields
    return [name for name, value in query.options if value is not None and name not in taken]


def _ignored_options(query: Query, chosen: str, refine_rounds: int, answer: Answer) -> None:
    """An option the chosen method does not take is said in the trace, not dropped."""
    for name in _not_taken(query, chosen):
        *most, last = [m for m, _ in options()[name]]
        takers = f"{', '.join(most)} and {last}" if most else last
        answer.trace.note(f"the {name} option applies to {takers} only: {chosen} ignored it")
    if query.answer and not registry.METHODS[chosen].answers:
        answer.trace.note(f"the answer option applies to methods that read reports or text "
                          f"units: {chosen} answers its own way")
    if refine_rounds > 0 and not registry.METHODS[chosen].refinable:
        refinable = ", ".join(n for n, m in registry.METHODS.items() if m.refinable)
        answer.trace.note(f"refinement applies to {refinable} only: the {chosen} answer is "
                          "not refined")


async def answer(method: str, graph: Graph, llm: LLM, settings: Settings, query: Query, *,
                 refine_rounds: int = 0) -> Answer:
    """Answer ``query`` by ``method``, then refine it for up to ``refine_rounds`` rounds
    (KGiRAG-style, refinable methods only). Raises InputError for an unknown method or topic,
    LevelError when the level has no reports."""
    methods = registry.METHODS
    if method not in methods:
        raise InputError(f"unknown method {method!r}: use one of {', '.join(methods)}")
    given = query
    if method != "auto":  # an option the method does not take is not passed (auto: the
        # method it chooses takes what applies; the notes below say what was ignored)
        query = query.model_copy(update={"options": methods[method].options.of(query)})
    truncated = llm.usage.truncated if llm is not None else []
    cut = len(truncated)
    first = await registry.run_method(method, graph, llm, settings, query)
    for line in dict.fromkeys(truncated[cut:]):  # prompts the endpoint cut silently
        first.trace.note(line, logging.WARNING)
    chosen = first.trace.method if method == "auto" else method  # auto: what it chose
    _ignored_options(given, chosen, refine_rounds, first)
    if refine_rounds <= 0 or not methods[chosen].refinable:
        return locate(graph, first)
    final, rounds = await refine(graph, llm, settings, query.question, first,
                                 rounds=refine_rounds,
                                 top_p=getattr(query.options, "top_p", None)
                                 or settings.query.top_p,
                                 response_type=query.response_type)
    final.trace.refinement = rounds
    return locate(graph, final)


async def answer_question(graph: Graph, llm: LLM, settings: Settings,
                          request: AskRequest) -> Answer:
    """Answer ``request`` with ``llm`` (whose ``usage`` should be this question's alone: the
    trace's ``llm`` is that usage, the cost line). Raises InputError for an unknown method or
    topic or a misplaced flag, LevelError, LLMError (every map batch failed), ConfigError (the
    LLM unreachable)."""
    seconds: dict[str, float] = {}
    with timed(seconds, "total"):
        got = await answer(request.method_name(), graph, llm, settings, request.query(),
                           refine_rounds=request.refine)
    if settings.query.ask_method is None and request.method == settings.default_method:
        got.trace.note(f"{request.method}: the default method of LLM_CLASS="
                       f"{'small' if settings.llm.small else 'capable'} (ASK_METHOD unset)")
    got.trace.llm, got.trace.llm_stages = llm.usage.total, llm.usage.by_stage()
    got.trace.seconds["total"] = seconds["total"]
    return got


def trace_lines(answer: Answer) -> list[str]:
    """The answering method's part of the trace as `ask` prints it (its ``render``)."""
    m = registry.METHODS.get(answer.trace.method)
    return m.render(answer) if m is not None else []


def cost_line(answer: Answer) -> str:
    """The trace's cost in one line: LLM calls, tokens, seconds."""
    t, llm = answer.trace, answer.trace.llm
    return (f"{t.method}: {llm.calls} LLM calls (+{llm.cached} cached), {llm.prompt_tokens} "
            f"prompt + {llm.completion_tokens} completion tokens, "
            f"{t.seconds.get('total', 0):.1f} s")
