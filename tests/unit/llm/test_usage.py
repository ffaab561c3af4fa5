"""The cost per stage: one `LLMCost` each, summed into the total, read off as a difference."""

from neo4j_retag.llm import Usage
from neo4j_retag.model import LLMCost
from neo4j_retag.stages import Stage


def test_total_sums_every_stage_and_by_stage_is_a_copy():
    usage = Usage()
    usage.stage("map").calls += 2
    usage.stage("map").prompt_tokens += 100
    usage.stage("reduce").cached += 1
    usage.stage("reduce").seconds += 0.25
    total = usage.total
    assert total == LLMCost(calls=2, cached=1, prompt_tokens=100, seconds=0.25)
    kept = usage.by_stage()
    usage.stage("map").calls += 1  # later calls change neither what was read nor the copy
    assert total.calls == 2 and kept["map"].calls == 2 and list(kept) == ["map", "reduce"]
    assert usage.as_dict()["map"] == {"calls": 3, "cached": 0, "failed": 0,
                                      "prompt_tokens": 100, "completion_tokens": 0,
                                      "seconds": 0.0}


def test_a_difference_is_what_was_spent_between_two_readings():
    before = LLMCost(calls=1, prompt_tokens=10, seconds=0.1)
    after = LLMCost(calls=4, cached=2, failed=1, prompt_tokens=70, completion_tokens=9,
                    seconds=0.4)
    assert after - before == LLMCost(calls=3, cached=2, failed=1, prompt_tokens=60,
                                     completion_tokens=9, seconds=0.3)
    assert before + (after - before) == after


def test_two_contexts_on_one_client_count_their_calls_apart(tmp_path, double):
    """Two questions at once on one shared client (serve's question loop, eval's run): each
    `counting` context holds its own calls, tokens and embeddings; the client's own account
    holds only the calls made outside any context."""
    import asyncio

    from neo4j_retag.config import Settings
    from neo4j_retag.llm import LLM, counting
    from neo4j_retag.llm.embeddings import Embedder

    settings = Settings(llm_cache_dir=tmp_path / "cache", openai_model="double",
                        openai_base_url=double.base_url, llm_cache=False)

    async def question(llm: LLM, n: int) -> Usage:
        with counting() as usage:
            # the tasks a question starts (its map batches) count in its account too
            await asyncio.gather(*(llm.complete([{"role": "user", "content": f"q{n} {i}"}],
                                     stage=Stage.DOCTOR) for i in range(n)))
            await Embedder.of(llm).embed([f"question {n}"])
            assert llm.usage is usage
            return usage

    async def go() -> tuple[Usage, Usage, Usage]:
        async with LLM(settings) as llm:
            a, b = await asyncio.gather(question(llm, 2), question(llm, 5))
            await llm.complete([{"role": "user", "content": "outside"}], stage=Stage.DOCTOR)
            return a, b, llm.usage

    a, b, own = asyncio.run(go())
    assert a.stages["doctor"].calls == 2 and b.stages["doctor"].calls == 5
    assert a.total.prompt_tokens > 0 and b.total.prompt_tokens > a.total.prompt_tokens
    assert set(a.stages) == set(b.stages) and len(a.stages) == 2  # doctor and the embedding
    assert own.total.calls == 1 and set(own.stages) == {"doctor"}
    assert double.count() == 2 + 5 + 1 + 2  # every call made once, embeddings included
