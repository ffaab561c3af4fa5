"""Typed stage results: each failed item a `Failure` ({item, reason, error} in JSON), counts
derived from the lists, and topic mining reading a failed reduce from a typed trace field."""

import asyncio

from neo4j_retag.community_report import ReportCounts
from neo4j_retag.errors import Failure, LLMError
from neo4j_retag.index import topics
from neo4j_retag.index.results import IngestResult
from neo4j_retag.llm.reply import ReplyFault
from neo4j_retag.model import Answer, Trace


def test_ingest_result_json_has_one_failure_shape_and_derived_counts():
    res = IngestResult(
        text_units_failed=[Failure.of("doc-00001", ReplyFault("truncated", "cut"))],
        summaries_failed=[Failure.of("Scrooge", LLMError("summarize: timed out", "timeout"))],
        reports=ReportCounts(ok=2, failures=[Failure.of("report 7", LLMError("x"))]),
        skipped=[Failure(item="a.bin", reason="binary", error="binary file"),
                 Failure(item="b.pdf", reason="encrypted", error="encrypted PDF")])
    data = res.model_dump(mode="json")
    assert data["text_units_failed"] == [
        {"item": "doc-00001", "reason": "truncated", "error": "truncated: cut"}]
    assert data["summaries_failed"][0]["reason"] == "timeout"
    assert data["reports"]["failed"] == 1 and data["reports"]["failures"][0]["item"] == "report 7"
    assert data["skipped"][0] == {"item": "a.bin", "reason": "binary", "error": "binary file"}
    # a file that is no document is listed only; a document not read counts as failed
    assert [f.item for f in res.unread] == ["b.pdf"]
    assert res.failed_items == 4
    assert list(res.failures) == ["text unit", "summary", "community", "topic item", "embedding"]


def test_topic_mining_fails_an_answer_whose_reduce_failed(monkeypatch):
    """A failed reduce is read from `Trace.failures`, not from the wording of a note; the two
    mining answers share one map pass, whose failures are one item."""
    def trace_with(*failures: Failure) -> Trace:
        t = Trace(map_batches=2)
        t.failures.extend(failures)
        t.note("the words of this note do not matter")
        return t

    reduce_failed = Failure.of("reduce", LLMError("reduce: LLM call failed", "http500"))
    traces = [trace_with(reduce_failed), trace_with()]

    async def answers(*args, **kwargs):
        return [Answer(answer="points", trace=traces[0]),
                Answer(answer="corpus", trace=traces[1])]

    monkeypatch.setattr(topics, "global_answers", answers)
    failed: list[Failure] = []
    text = asyncio.run(topics._global(None, None, None, 0, failed))
    assert text == ("points", "corpus") and [f.item for f in failed] == ["topic question L0"]
    assert "reduce (http500)" in failed[0].error
    traces[0].failures.clear()  # the same answers without the failure: nothing failed
    failed.clear()
    asyncio.run(topics._global(None, None, None, 0, failed))
    assert failed == []
    for t in traces:  # a failed map batch: one item for both answers
        t.map_failures = 1
    asyncio.run(topics._global(None, None, None, 0, failed))
    assert [f.item for f in failed] == ["topic questions L0"]
