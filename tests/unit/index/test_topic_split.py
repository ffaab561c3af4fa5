"""Which topics are split: those over RETAG_TOPIC_MAX_SHARE with text units to share out
(the split itself, on real Neo4j: tests/integration/index/test_topics.py)."""

import asyncio

from neo4j_retag.config import Settings
from neo4j_retag.index.topic_split import oversized, split_oversized


class Shares:
    def __init__(self, rows):
        self.rows = rows

    def run(self, name, **params):
        assert name == "index/topic_shares"
        return self.rows


ROWS = [{"name": "Everything", "share": 0.9, "units": 40},
        {"name": "Ghosts", "share": 0.3, "units": 10},
        {"name": "One unit", "share": 0.8, "units": 1}]  # nothing to share out


def test_only_a_topic_over_the_share_with_text_units_to_share_is_split():
    assert [r["name"] for r in oversized(Shares(ROWS), Settings())] == ["Everything"]
    wide = Settings(retag_topic_max_share=0.95)
    assert oversized(Shares(ROWS), wide) == []


def test_topic_split_off_asks_nothing():
    class NoGraph:
        def run(self, name, **params):
            raise AssertionError(f"{name} read with TOPIC_SPLIT=false")

    got = asyncio.run(split_oversized(NoGraph(), None, Settings(topic_split=False),
                                      [], ["Topic0"], 0, lambda *a: None, []))
    assert got == ([], ["Topic0"], [], [])
