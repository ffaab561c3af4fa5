"""Incremental topics (issue 18): the rule that keeps the last build's topics or mines again
(index/topic_basis.py), exact on planted bases."""

from neo4j_retag.index.topic_basis import Basis, Stored, change, keep_reason
from neo4j_retag.index.topic_names import Topic

TOPICS = [(Topic(name="Rail", description="trains"), "Topic0")]


def _stored(reports: dict[str, int], mode: str = "assign", max_topics: int = 8,
            topics=TOPICS) -> Stored:
    return Stored(topics=topics, corpus="news",
                  basis=Basis(level=0, reports=reports).props(mode, max_topics))


def test_change_counts_added_and_gone_text_by_report_key():
    before = Basis(level=0, reports={"a": 600, "b": 300, "c": 100}).props("assign", 8)
    assert change(before, Basis(level=0, reports={"a": 600, "b": 300, "c": 100})) == 0
    # one report rewritten (its key changes): its old and new text both count
    assert change(before, Basis(level=1, reports={"a": 600, "b": 300, "d": 120})) == (
        (120 + 100) / 1020)
    # a report gone
    assert change(before, Basis(level=0, reports={"a": 600, "b": 300})) == 100 / 1000
    assert change(Basis(level=0).props("assign", 8), Basis(level=0)) == 1.0


def test_topics_kept_below_the_share_mined_again_above_it():
    last = _stored({"a": 900, "b": 100})
    keep, why = keep_reason(last, Basis(0, {"a": 900, "b": 100, "n": 50}), "assign", 8, 0.1)
    assert keep and "4.8%" in why  # 50 / 1050
    keep, why = keep_reason(last, Basis(0, {"a": 900, "n": 150}), "assign", 8, 0.1)
    assert not keep and "23.8%" in why and "mined again" in why  # (150 + 100) / 1050


def test_no_basis_other_mode_or_max_topics_mine_again():
    now = Basis(0, {"a": 900, "b": 100})
    assert not keep_reason(Stored(TOPICS, "", None), now, "assign", 8, 0.1)[0]
    assert not keep_reason(_stored({"a": 900, "b": 100}, topics=[]), now, "assign", 8, 0.1)[0]
    assert not keep_reason(_stored({"a": 900, "b": 100}), now, "reextract", 8, 0.1)[0]
    assert not keep_reason(_stored({"a": 900, "b": 100}), now, "assign", 5, 0.1)[0]
    assert not keep_reason(_stored({"a": 900, "b": 100}, mode="reextract"), now, "assign", 8,
                           0.1)[0]
    assert keep_reason(_stored({"a": 900, "b": 100}), now, "assign", 8, 0.0)[0]  # unchanged
