"""Nuggets matched by embedding (`eval --nugget-similarity`): only nuggets no alias found,
at the threshold or above, with the sentence that matched; a text that could not be
embedded is a failure and its nugget counts by alias only."""

import asyncio

import pytest

from neo4j_retag.errors import Failure
from neo4j_retag.eval.nugget_scores import nugget_summary, nugget_table, question_table
from neo4j_retag.eval.nugget_similarity import STAGE, cosines, match_similar, statements
from neo4j_retag.eval.nuggets import Nugget, find, sentences
from neo4j_retag.eval.records import AnswerRecord, NuggetHit, NuggetScore

Q = "What happens?"
NUGGETS = [Nugget(id="ghosts", text="spirits visit him", aliases=["spirits"]),
           Nugget(id="change", text="he becomes generous", aliases=["generosity"]),
           Nugget(id="belle", text="his lost love", aliases=["Belle"])]
GHOSTS = "Three spirits visit Scrooge during one long winter night."
FREELY = "He turns kind afterwards and gives freely to every poor neighbour."
END = "Everyone in the town celebrates together at the very end of the story."
ANSWER = f"{GHOSTS} [Data: Reports (1, 2)] {FREELY}\n**Love and loss**\n{END}"
# 2-d vectors: FREELY points where "he becomes generous" does; the rest elsewhere
VECTORS = {"spirits visit him": [1, 0], "he becomes generous": [0, 1], "his lost love": [1, 1],
           GHOSTS: [1, 0], FREELY: [0.2, 1], END: [1, -1]}


class FakeEmbedder:
    """What match_similar needs of an Embedder: ``embed_items`` (vectors by item, failures)."""

    def __init__(self, fail: str | None = None):
        self.fail, self.stages = fail, []

    async def embed_items(self, items, *, stage):
        self.stages.append(stage)
        out = {k: VECTORS[t] for k, t in items.items() if t != self.fail}
        return out, [Failure.of(k, "no usable reply") for k, t in items.items()
                     if t == self.fail]


def scored(answer: str = ANSWER) -> AnswerRecord:
    hits = []
    for n in NUGGETS:
        m = find(n, answer)
        hits.append(NuggetHit(id=n.id, matched=m is not None, alias=m.alias if m else None,
                              sentence=m.sentence if m else None))
    matched = sum(h.matched for h in hits)
    return AnswerRecord(question=Q, method="global", answer=answer, nuggets=NuggetScore(
        total=len(hits), matched=matched, recall=round(matched / len(hits), 3), hits=hits))


def test_sentences_split_on_stops_and_line_breaks():
    assert sentences("One. Two!\n\nThree? four") == ["One.", "Two!", "Three?", "four"]
    assert sentences("  \n\n ") == []


def test_statements_drop_data_references_and_headings():
    # "**Love and loss**" names a subject and states nothing: never matched by embedding
    assert statements(ANSWER) == [GHOSTS, FREELY, END]


def test_cosines():
    got = cosines([[1, 0], [0, 0]], [[2, 0], [0, 3], [1, 1]])
    assert got[0] == pytest.approx([1, 0, 2 ** -0.5]) and got[1] == [0, 0, 0]


def test_unmatched_nuggets_matched_by_embedding_at_the_threshold_by_their_nearest_sentence():
    rec, emb = scored(), FakeEmbedder()
    failures = asyncio.run(match_similar(emb, [rec], {Q: NUGGETS}, 0.95))
    assert not failures and emb.stages == [STAGE]
    hits = {h.id: h for h in rec.nuggets.hits}
    # found by its alias: untouched, no similarity computed
    assert hits["ghosts"].matched and hits["ghosts"].similarity is None
    # no alias in the answer, but "gives freely" is close to "he becomes generous"
    assert not hits["change"].matched and hits["change"].similar
    assert hits["change"].similarity == pytest.approx(0.981, abs=1e-3)
    assert hits["change"].sentence == FREELY
    # FREELY is at 0.83 of "his lost love" too, but nearer to "he becomes generous": it
    # speaks for that one only, and no sentence is nearest to "his lost love"
    assert not hits["belle"].similar and hits["belle"].similarity is None
    n = rec.nuggets
    assert (n.matched, n.recall, n.matched_similar, n.recall_similar) == (1, 0.333, 2, 0.667)


def test_a_text_that_could_not_be_embedded_fails_and_counts_by_alias_only():
    rec = scored()
    failures = asyncio.run(match_similar(FakeEmbedder(fail="he becomes generous"), [rec],
                                         {Q: NUGGETS}, 0.5))
    assert [f.item for f in failures] == [f"nugget {Q!r}: change"]
    hits = {h.id: h for h in rec.nuggets.hits}
    assert not hits["change"].similar and hits["change"].similarity is None
    # the others are still matched by embedding: without "change", FREELY is nearest to
    # "his lost love" (0.83 >= 0.5)
    assert hits["belle"].similar
    assert rec.nuggets.matched_similar == 2


def test_a_failed_answer_stays_at_zero():
    rec = AnswerRecord(question=Q, method="rag", answer=None, nuggets=NuggetScore(
        total=3, matched=0, recall=0.0, hits=[NuggetHit(id=n.id, matched=False)
                                              for n in NUGGETS]))
    assert asyncio.run(match_similar(FakeEmbedder(), [rec], {Q: NUGGETS}, 0.1)) == []
    assert rec.nuggets.recall_similar == 0.0


def test_tables_show_the_embedding_column_only_when_it_ran():
    plain, similar = scored(), scored()
    plain.method = "rag"
    asyncio.run(match_similar(FakeEmbedder(), [similar], {Q: NUGGETS}, 0.9))
    summary = nugget_summary([similar], ["global"])
    assert summary["global"].recall_similar.mean == 0.667
    table = nugget_table(summary)
    assert "+ by embedding" in table and "| global | 1 | 0.33 | 0.67 |" in table
    assert "1/3 (+1)" in question_table([similar], ["global"])
    assert "+ by embedding" not in nugget_table(nugget_summary([plain], ["rag"]))


def test_below_the_threshold_the_similarity_is_kept_but_nothing_matched():
    rec = scored()
    asyncio.run(match_similar(FakeEmbedder(), [rec], {Q: NUGGETS}, 0.99))
    change = next(h for h in rec.nuggets.hits if h.id == "change")
    assert not change.similar and change.similarity == pytest.approx(0.981, abs=1e-3)
    assert change.sentence is None and rec.nuggets.recall_similar == rec.nuggets.recall


def test_scoring_again_replaces_the_last_runs_matches():
    rec = scored()
    asyncio.run(match_similar(FakeEmbedder(), [rec], {Q: NUGGETS}, 0.5))
    asyncio.run(match_similar(FakeEmbedder(), [rec], {Q: NUGGETS}, 0.99))
    change = next(h for h in rec.nuggets.hits if h.id == "change")
    assert not change.similar and change.sentence is None
    assert rec.nuggets.matched_similar == rec.nuggets.matched == 1


def test_two_answers_to_one_question_keep_their_own_sentences():
    first, second = scored(), scored(f"{GHOSTS} {END}")  # the second never gives freely
    asyncio.run(match_similar(FakeEmbedder(), [first, second], {Q: NUGGETS}, 0.9))
    assert [a.nuggets.matched_similar for a in (first, second)] == [2, 1]


def test_the_threshold_is_compared_with_the_exact_cosine():
    rec = scored()
    asyncio.run(match_similar(FakeEmbedder(), [rec], {Q: NUGGETS}, 0.9806))  # cosine 0.98058
    change = next(h for h in rec.nuggets.hits if h.id == "change")
    assert change.similarity == 0.981 and not change.similar  # shown rounded, compared exact
