"""A streamed completion (llm.stream) against the scripted double: pieces as they come, the
same cache key as ``complete``, usage counted, and an unusable streamed reply asked again
without streaming after telling the listener to start over."""


from neo4j_retag.llm import LLM, Usage
from neo4j_retag.llm.stream import complete_streaming
from tests.llm_double import Fail, Reply

from .test_client import answers, settings_for

MSGS = [{"role": "user", "content": "Say something about Scrooge."}]


async def test_pieces_then_cached_like_complete(tmp_path, double):
    double.script["reduce"] = lambda b: "Scrooge learns to keep Christmas in his heart."
    usage, pieces = Usage(), []
    async with LLM(settings_for(tmp_path, double), usage) as llm:
        text = await complete_streaming(llm, MSGS, stage="reduce", on_token=pieces.append)
        assert text == "Scrooge learns to keep Christmas in his heart."
        assert len(pieces) == 8 and "".join(pieces) == text
        assert double.calls[-1][1]["stream"] is True
        st = usage.stages["reduce"]
        assert st.calls == 1 and st.completion_tokens > 0 and st.prompt_tokens > 0
        # the same request without streaming is a cache hit: same key as LLM.complete
        assert await llm.complete(MSGS, stage="reduce") == text
        assert usage.stages["reduce"].cached == 1 and double.count() == 1


async def test_an_unusable_stream_starts_over_without_streaming(tmp_path, double):
    double.script["reduce"] = answers(Reply("cut off in the mid", finish_reason="length"),
                                    "A whole answer.")
    pieces: list = []
    async with LLM(settings_for(tmp_path, double)) as llm:
        text = await complete_streaming(llm, MSGS, stage="reduce", on_token=pieces.append)
    assert text == "A whole answer."
    assert None in pieces and pieces[-1] == "A whole answer."
    assert [c[1].get("stream") for c in double.calls] == [True, None]


async def test_a_stream_without_a_finish_reason_is_never_the_answer(tmp_path, double):
    # a connection cut mid-answer: pieces arrive, then no finish reason
    double.script["reduce"] = answers(
        Reply("The council raised the docking fees and the", finish_reason=None),
        "A whole answer.")
    pieces: list = []
    usage = Usage()
    async with LLM(settings_for(tmp_path, double), usage) as llm:
        text = await complete_streaming(llm, MSGS, stage="reduce", on_token=pieces.append)
    assert text == "A whole answer."
    assert None in pieces and pieces[-1] == "A whole answer."  # the listener started over
    assert [c[1].get("stream") for c in double.calls] == [True, None]
    assert usage.faults.get("truncated") == 1
    # both requests reached the endpoint: the cut stream is a call too
    assert usage.stages["reduce"].calls == 2 == double.count()


async def test_every_streamed_attempt_is_counted(tmp_path, double):
    # the stream refused before any chunk (503), then asked again without streaming: a bare
    # refusal, then an answer. Each request shows in calls or failed, and the faults say why
    double.script["reduce"] = answers(
        Fail(503), Reply("I can't.", finish_reason="stop"), "Marley was dead, to begin with.")
    usage = Usage()
    async with LLM(settings_for(tmp_path, double, llm_answer_check=True), usage) as llm:
        text = await complete_streaming(llm, MSGS, stage="reduce", on_token=lambda t: None,
                                        prose=True)
    st = usage.stages["reduce"]
    assert text == "Marley was dead, to begin with."
    assert st.calls + st.failed == double.count() == 3, (double.count(), st)
    assert st.failed == 1 and usage.faults.get("http5xx") == 1
