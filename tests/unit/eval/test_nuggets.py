"""Nugget matching: one test per rule, the file shapes, and the scoring of an answer."""

import json

import pytest

from neo4j_retag.errors import InputError
from neo4j_retag.eval.nugget_scores import (
    content_words,
    nugget_summary,
    nugget_table,
    question_table,
    score,
    supported,
)
from neo4j_retag.eval.nuggets import Nugget, alias_in, find, normalise, read_nuggets
from neo4j_retag.eval.records import AnswerRecord
from neo4j_retag.model import Citation


def test_unicode_compatibility_forms_are_folded():
    assert alias_in("file", "the ﬁle was lost")  # ligature fi
    assert alias_in("ABC 123", "ＡＢＣ　１２３")  # full-width letters, digits and space


def test_case_is_folded():
    assert alias_in("straße", "STRASSE")
    assert alias_in("Tiny Tim", "tiny TIM")


def test_accents_are_dropped():
    assert alias_in("Perez", "Pérez scored") and alias_in("Pérez", "perez scored")


def test_punctuation_apostrophes_and_dashes_are_word_breaks():
    assert alias_in("Scrooge", "Scrooge’s counting-house")
    assert alias_in("counting house", "Scrooge’s counting-house")
    assert alias_in("Tiny Tim's crutch", "Tiny Tim’s crutch")
    assert alias_in("well known", "a well-known — and loved — man")
    assert not alias_in("email", "send an e-mail")  # hyphen removal is not a join


def test_digit_groups_are_joined():
    assert alias_in("1000", "1,000 jobs") and alias_in("1,000,000", "1000000 users")
    assert alias_in("£45m", "a cost of 45m pounds")  # the currency sign is punctuation
    assert not alias_in("45", "450 homes")


def test_aliases_match_whole_words_only():
    assert not alias_in("Tim", "Timber yard")
    assert not alias_in("art", "the startup")
    assert alias_in("Tim", "Bob and Tim.")


def test_an_all_of_alias_needs_every_part_within_one_sentence():
    # issue 45: A and B in unrelated sentences are no match
    assert alias_in("Marley + chains", "Marley appears in chains. He groans.")
    assert not alias_in("Marley + chains", "Marley appears. He wears chains.")
    assert not alias_in("Marley + chains", "Marley appears.")
    n = Nugget(id="m", text="Marley's chains", aliases=["Marley + chains"])
    assert find(n, "Marley appears.\nThe chains rattle.") is None


def test_citation_markers_are_removed_before_matching():
    # issue 45: "2" inside [Data: Reports (2)] in an answer that says berth 6
    n = Nugget(id="berth", text="berth 2", aliases=["2"])
    assert find(n, "The ferry uses berth 6 [Data: Reports (2)].") is None
    assert find(n, "The ferry uses berth 2 [Data: Reports (6)].") is not None
    assert not alias_in("Reports", "Berth 6 [Data: Reports (2, 3)].")


@pytest.mark.parametrize("text", [
    "The festival was not cancelled.", "It was never cancelled.",
    "The match is no longer cancelled.", "The match wasn't cancelled at all.",
    "They did not, in the end, cancel it. It was not really cancelled."])
def test_a_nugget_found_only_under_a_negation_does_not_count(text):
    n = Nugget(id="c", text="the match was cancelled", aliases=["cancelled"])
    m = find(n, text)
    assert m is not None and m.negated
    s = score(AnswerRecord(question="Q?", method="rag", answer=text), [n], {})
    assert s.matched == 0 and s.hits[0].negated and not s.hits[0].matched
    assert "(1 negated)" in question_table([AnswerRecord(question="Q?", method="rag",
                                                         answer=text, nuggets=s)], ["rag"])


def test_a_negation_far_before_or_an_unnegated_occurrence_still_counts():
    n = Nugget(id="c", text="the match was cancelled", aliases=["cancelled"])
    for text in ["Not a surprise to anyone at all: the match was cancelled.",
                 "Some said it was not cancelled; in fact it was cancelled."]:
        m = find(n, text)
        assert m is not None and not m.negated, text


def test_questions_must_match_nugget_questions_or_name_the_nearest(tmp_path):
    # issue 45: case and "?" differences match; anything else is an error, never dropped
    nset = read_nuggets(_write(tmp_path, [
        {"question": "Who is Fred?", "nuggets": [{"id": "a", "text": "nephew"}]},
        {"question": "What does Marley want?", "nuggets": [{"id": "b", "text": "warn"}]}]))
    got = nset.for_questions(["who is fred", "WHAT does Marley  want?"])
    assert list(got) == ["who is fred", "WHAT does Marley  want?"]
    assert got["who is fred"][0].id == "a"
    with pytest.raises(InputError, match="nearest nugget question is 'Who is Fred\\?'"):
        nset.for_questions(["Who was Fred?"])


def test_a_nugget_without_aliases_matches_its_text():
    n = Nugget(id="n1", text="Amara Okafor", aliases=[])
    assert find(n, "Goals by Amara Okafor.") is not None
    assert find(Nugget(id="n2", text="x", aliases=["", "  "]), "x y") is not None


def test_normalise_shape():
    assert normalise("  Hello,  WORLD!! ") == " hello world "
    assert normalise("") == "  "  # empty text never holds a (non-empty) alias
    assert not alias_in("", "anything") and not alias_in(" + ", "anything")


def test_find_says_which_alias_and_sentence():
    n = Nugget(id="cost", text="cost rose to 45 million", aliases=["£45 million", "45m"])
    m = find(n, "The plan is big. It now costs 45m pounds! Votes follow.")
    assert m is not None and m.alias == "45m" and m.sentence == "It now costs 45m pounds!"
    assert find(n, "It is cheap.") is None


def _write(tmp_path, data):
    p = tmp_path / "n.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


QS = [{"question": "Q1?", "nuggets": [{"id": "a", "text": "A", "aliases": ["alpha"]}]}]


def test_read_nuggets_accepts_both_shapes(tmp_path):
    assert read_nuggets(_write(tmp_path, QS)).questions[0].nuggets[0].aliases == ["alpha"]
    s = read_nuggets(_write(tmp_path, {"note": "written first", "questions": QS}))
    assert s.note == "written first" and s.by_question()["Q1?"][0].id == "a"


@pytest.mark.parametrize("data, message", [
    ([], "no questions"),
    ([{"question": "Q?", "nuggets": []}], "has no nuggets"),
    ([{"question": "Q?", "nuggets": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}],
     "repeats a nugget id"),
    ([{"nuggets": []}], "question"),
    ({"questions": "no"}, "questions"),
])
def test_read_nuggets_rejects_bad_files(tmp_path, data, message):
    with pytest.raises(InputError, match=message):
        read_nuggets(_write(tmp_path, data))


def test_read_nuggets_rejects_invalid_json(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable JSON"):
        read_nuggets(p)


def test_claim_support_is_a_share_of_content_words():
    cited = content_words("Scrooge sends a prize turkey to the Cratchit family.")
    assert supported("Scrooge sends the Cratchits a turkey", cited)  # 3 of 4 words >= 0.6
    assert not supported("Scrooge buys a goose for Bob", cited)  # 1 of 4
    assert supported("Scrooge sends a turkey to the Cratchit family", cited)
    assert not supported("the and of", cited)  # no content word


NUGGETS = [Nugget(id="okafor", text="Okafor scored", aliases=["Okafor"]),
           Nugget(id="final", text="final in May", aliases=["May + final"]),
           Nugget(id="byrne", text="Declan Byrne", aliases=["Byrne"])]


def test_score_gives_recall_hits_and_precision_proxies():
    rec = AnswerRecord(question="Q?", method="global",
                       answer="Okafor scored twice. The final is in May [Data: Reports (1)].",
                       citations=[Citation(kind="report", id=1)],
                       claims=["Okafor scored twice", "The final is in May", "Rovers won cups"])
    texts = {("report", "1"): "Amara Okafor scored both goals; the final is played in May."}
    s = score(rec, NUGGETS, texts)
    assert (s.matched, s.total, s.recall, s.citations) == (2, 3, 0.667, 1)
    assert [h.matched for h in s.hits] == [True, True, False]
    assert s.hits[0].sentence == "Okafor scored twice."
    assert [h.in_cited for h in s.hits] == [True, True, False]
    assert (s.claims, s.claims_supported) == (3, 2)


def test_only_the_models_own_citations_support_claims():
    # an attributed citation was chosen for sharing the sentence's words: it cannot count
    texts = {("report", "1"): "Amara Okafor scored both goals; the final is played in May."}
    rec = AnswerRecord(question="Q?", method="retag",
                       answer="Okafor scored twice [Data: Reports (1)].",
                       citations=[Citation(kind="report", id=1, attributed=True)],
                       claims=["Okafor scored twice"])
    s = score(rec, NUGGETS, texts)
    assert (s.citations, s.attributed, s.claims_supported) == (0, 1, 0)
    assert all(h.in_cited is None for h in s.hits)
    rec.citations = [Citation(kind="report", id=1)]
    s = score(rec, NUGGETS, texts)
    assert (s.citations, s.attributed, s.claims_supported) == (1, 0, 1)


def test_a_failed_answer_scores_zero_and_is_reported():
    rec = AnswerRecord(question="Q?", method="rag", answer=None)
    s = score(rec, NUGGETS, {})
    assert s.recall == 0 and s.claims is None and all(h.in_cited is None for h in s.hits)
    ok = AnswerRecord(question="Q?", method="global", answer="Byrne")
    ok.nuggets = score(ok, NUGGETS, {})
    rec.nuggets = s
    summary = nugget_summary([ok, rec], ["global", "rag"])
    assert summary["global"].recall.mean == 0.333 and summary["rag"].recall.mean == 0
    assert "| global | 1 | 0.33 |" in nugget_table(summary)
    rec.error = None
    table = question_table([ok, rec], ["global", "rag"])
    assert "| Q? | 1/3 | 0/3 |" in table
    assert nugget_summary([AnswerRecord(question="Q?", method="x")], ["x"]) is None
