"""The scripted test double routes every LLM call by the stage header it carries, never by the
prompt's wording: with every prompt reworded, each call still reaches its handler (issue 17)."""

import json
import re
import urllib.error
import urllib.request

import pytest

from neo4j_retag import prompts
from neo4j_retag.config import resource_dir
from neo4j_retag.index.elements import summarize_texts
from neo4j_retag.index.extract import extract_text_unit
from neo4j_retag.llm import LLM, run_with_llm
from neo4j_retag.model import ReportRow, TextUnit, Trace
from neo4j_retag.prompts import render
from neo4j_retag.query.answer.map_reduce import map_reduce
from neo4j_retag.stages import Stage
from tests.conftest import make_settings
from tests.llm_double import kind_of

TEXT = ("Scrooge kept the counting-house. Marley was dead. Scrooge and Marley were partners, "
        "and Fezziwig had taught Scrooge the trade.")
# a placeholder, an escaped dollar or a section marker: kept; everything else is wording
KEEP = re.compile(r"(\$\{\w+\}|\$\w+|\$\$|^<<\w+>>$)", re.M)


def reworded(tmp_path):
    """A copy of ``prompts/`` with the wording of every file changed (the case of every
    letter swapped): the placeholders and sections stay, no phrase of the original does."""
    src, dst = resource_dir("prompts"), tmp_path / "prompts"
    for f in src.rglob("*.txt"):
        out = dst / f.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        parts = KEEP.split(f.read_text())
        out.write_text("".join(p if i % 2 else p.swapcase() for i, p in enumerate(parts)))
    return dst


@pytest.fixture
def rsettings(tmp_path, double, monkeypatch):
    s = make_settings(tmp_path, {}, openai_base_url=double.base_url, claims_call="separate",
                      map_context_tokens=300)
    original = render("index/extract_graph", entity_types="x",
                      claims_instruction="", claims_shape="", focus="", text=TEXT)
    monkeypatch.setattr(prompts, "FOLDER", reworded(tmp_path))
    again = render("index/extract_graph", entity_types="x",
                   claims_instruction="", claims_shape="", focus="", text=TEXT)
    assert [m["role"] for m in again] == [m["role"] for m in original]
    assert all(a["content"] != o["content"] for a, o in zip(again, original, strict=True))
    return s


def test_reworded_index_prompts_still_reach_their_handlers(rsettings, double):
    rounds = iter([{"entities": [{"name": "Belle", "type": "person", "description": "x"}],
                    "relationships": []}, {"entities": [], "relationships": []}])
    double.script["glean"] = lambda b: json.dumps(next(rounds))
    double.script["loop"] = lambda b: "YES"

    async def go(llm):
        ex = await extract_text_unit(llm, rsettings, TextUnit(id="u1", text=TEXT), glean=2,
                                     claims=True)
        desc = await summarize_texts(llm, rsettings, "Scrooge", ["A miser.", "Old."], [])
        return ex, desc
    ex, desc = run_with_llm(rsettings, go)
    # extraction, a gleaning round, its continue question, a second round, the claims call
    assert [k for k, _ in double.calls] == ["extract", "glean", "loop", "glean", "claims",
                                            "summarize"]
    assert "belle" in {e["key"] for e in ex.entities} and desc == "A merged description."


def test_reworded_query_prompts_still_reach_their_handlers(rsettings, double):
    reports = [ReportRow(id=i, title=f"R{i}", full_content="Scrooge and Marley. " * 30)
               for i in range(4)]

    async def go():
        async with LLM(rsettings) as llm:
            return await map_reduce(llm, rsettings, "Who?", reports, Trace(method="global"))
    import asyncio
    answer = asyncio.run(go())
    kinds = [k for k, _ in double.calls]
    assert kinds[-1] == "reduce" and set(kinds[:-1]) == {"map"} and len(kinds) > 2
    assert answer.citations and answer.answer.startswith("The main themes")


def test_a_call_without_its_stage_fails_loudly(double):
    body = json.dumps({"model": "double", "messages": [{"role": "user", "content": "x"}]})
    for headers, why in (({}, "no X-Retag-Stage header"),
                         ({"X-Retag-Stage": "nonsense"}, "'nonsense' is no stage of "
                                                         "neo4j_retag.stages.Stage")):
        req = urllib.request.Request(f"{double.base_url}/chat/completions", body.encode(),
                                     {"Content-Type": "application/json", **headers})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=5)
        assert err.value.code == 400 and why in err.value.read().decode()
    assert double.count() == 0


@pytest.mark.parametrize("stage", list(Stage))
def test_the_double_answers_every_stage_of_the_table(stage, double):
    # a request of each shape the stage sends: free text, and JSON asking for a list
    shapes = [{"messages": [{"role": "user", "content": "x"}]},
              {"messages": [{"role": "user", "content": "x"}], "response_format": {
                  "json_schema": {"schema": {"properties": {"questions": {}}}}}}]
    for body in shapes:
        kind = kind_of(body, stage.value)
        assert kind in double.script or (stage.embeddings and kind == "embed"), (stage, kind)
