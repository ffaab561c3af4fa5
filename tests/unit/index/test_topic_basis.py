"""Incremental topics (issue 18): the rule that keeps the last build's topics or mines again
(index/topic_basis.py), exact on planted bases."""

from neo4j_retag.index.topic_basis import Basis, Stored, change, keep_reason
from neo4j_retag.index.topic_names import Topic

TOPICS = [(Topic(name="Rail", description="trains"), "Topic0")]


def _stored(entities: int, mode: str = "assign", max_topics: int = 8, topics=TOPICS) -> Stored:
    return Stored(topics=topics, corpus="news",
                  basis=Basis(level=0, entities=entities).props(mode, max_topics))


def test_change_counts_new_and_gone_entities():
    then = Basis(level=0, entities=1000).props("assign", 8)
    assert change(then, Basis(0, entities=1000, marked=1000)) == 0
    assert change(then, Basis(0, entities=1005, marked=1000)) == 5 / 1005  # 5 new
    assert change(then, Basis(0, entities=990, marked=990)) == 10 / 1000  # 10 gone
    # 20 gone, 30 new: both count
    assert change(then, Basis(0, entities=1010, marked=980)) == 50 / 1010
    assert change(Basis(0).props("assign", 8), Basis(0)) == 1.0


def test_topics_kept_below_the_share_mined_again_above_it():
    last = _stored(1000)
    keep, why = keep_reason(last, Basis(0, 1050, 1000), "assign", 8, 0.1)
    assert keep and "4.8%" in why and "topics kept" in why  # 50 / 1050
    keep, why = keep_reason(last, Basis(0, 1050, 900), "assign", 8, 0.1)
    assert not keep and "23.8%" in why and "mined again" in why  # (150 + 100) / 1050


def test_no_basis_other_mode_or_max_topics_mine_again():
    now = Basis(0, 1000, 1000)
    assert not keep_reason(Stored(TOPICS, "", None), now, "assign", 8, 0.1)[0]
    assert not keep_reason(_stored(1000, topics=[]), now, "assign", 8, 0.1)[0]
    assert not keep_reason(_stored(1000), now, "reextract", 8, 0.1)[0]
    assert not keep_reason(_stored(1000), now, "assign", 5, 0.1)[0]
    assert not keep_reason(_stored(1000, mode="reextract"), now, "assign", 8, 0.1)[0]
    assert keep_reason(_stored(1000), now, "assign", 8, 0.0)[0]  # unchanged
    # the ingest summary prints the reason as the outcome: it says what was done
    assert keep_reason(Stored(TOPICS, "", None), now, "assign", 8, 0.1)[1] \
        == "topics mined (none were, or the last mining failed)"
    assert keep_reason(_stored(1000), now, "reextract", 8, 0.1)[1].startswith("topics mined")
    assert keep_reason(_stored(1000), now, "assign", 5, 0.1)[1].startswith("topics mined")
