"""Options a method does not use (--budget off lazy, --refine off retag/global) are said in
the trace, not silently dropped."""

import asyncio
from dataclasses import replace

from neo4j_retag import query
from neo4j_retag.model import Answer, Query, Trace
from neo4j_retag.query.ask import given_options, options


def _ask(monkeypatch, method, **kw):
    async def fake(graph, llm, settings, q):
        # an option the method does not take never reaches it: its own options only
        assert type(q.options) is query.METHODS[method].options, q
        assert getattr(q.options, "budget", None) is None or method == "lazy", q
        return Answer(answer="a", trace=Trace(method=method))
    # the registered declaration (its options) with a fake run
    monkeypatch.setitem(query.METHODS, method, replace(query.METHODS[method], run=fake))
    refine = kw.pop("refine_rounds", 0)
    return asyncio.run(query.answer(method, None, None, None, Query(
        question="q", options=given_options()(**kw)), refine_rounds=refine))


def test_budget_and_refine_on_a_method_that_ignores_them_are_noted(monkeypatch):
    a = _ask(monkeypatch, "rag", budget=5, refine_rounds=2)
    assert ("the budget option applies to lazy and lazy-quoted only: rag ignored it"
            in a.trace.notes)
    refinable = ", ".join(n for n, m in query.METHODS.items() if m.refinable)
    assert refinable.startswith("retag, retag-quoted, global")  # the registry's, as declared
    assert f"refinement applies to {refinable} only: the rag answer is not refined" \
        in a.trace.notes


def test_no_note_when_the_options_are_not_given(monkeypatch):
    assert _ask(monkeypatch, "rag").trace.notes == []
    assert _ask(monkeypatch, "lazy", budget=5).trace.notes == []
    assert _ask(monkeypatch, "rag", retrieval="vector").trace.notes == []


def test_an_option_several_methods_take_names_them_all(monkeypatch):
    a = _ask(monkeypatch, "ts", retrieval="vector")
    *most, last = [m for m, _ in options()["retrieval"]]
    assert {"retag", "retag-quoted", "rag"} <= {*most, last}  # every method declaring it
    assert a.trace.notes == [f"the retrieval option applies to {', '.join(most)} and {last} "
                             "only: ts ignored it"]
