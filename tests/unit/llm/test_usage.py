"""The cost per stage: one `LLMCost` each, summed into the total, read off as a difference."""

from neo4j_retag.llm import Usage
from neo4j_retag.model import LLMCost


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
