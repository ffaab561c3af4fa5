"""ReTAG's extract answer (RETAG_EXTRACT_WORDS): the retrieved reports' sentences that match the
question best, quoted and cited, within the word budget; no LLM call."""

from neo4j_retag.citations import parse
from neo4j_retag.model import Query, ReportRow, Trace
from neo4j_retag.query.answer.quote import extract_answer, pick, quotes, render_quotes, sentences
from tests.conftest import make_settings

CRATCHITS = ReportRow(id=3, title="The Cratchit Family", level=0, full_content="""\
# The Cratchit Family

This community centers on the Cratchit family and their modest home. It is warm.

## The Cratchit family as the core of the community.

Despite living in poverty, the family is characterized by strong bonds and a joyful spirit \
[Data: Entities (8, 9, +more); Relationships (8, 10)]. Bob is the patriarch.

## Tiny Tim's role

Tiny Tim, the youngest son of Bob Cratchit, is ill. Mr. Scrooge's generosity saves Tiny Tim \
in the end [Data: Entities (43)].
""")
MARLEY = ReportRow(id=7, title="Marley's Ghost", level=0, full_content="""\
# Marley's Ghost

## The warning

Marley's Ghost warns Scrooge of the chains he is forging in life. Three spirits will follow.
""")


def test_a_report_is_cut_into_its_sentences_under_their_finding_without_references():
    got = [(q.finding, q.text) for q in quotes(CRATCHITS)]
    assert got == [
        ("", "This community centers on the Cratchit family and their modest home."),
        ("The Cratchit family as the core of the community",  # its full stop dropped
         "Despite living in poverty, the family is characterized by strong bonds and a joyful "
         "spirit."),  # the data reference gone, and the space it left before the stop
        ("Tiny Tim's role", "Tiny Tim, the youngest son of Bob Cratchit, is ill."),
        ("Tiny Tim's role", "Mr. Scrooge's generosity saves Tiny Tim in the end."),
    ]  # "It is warm." and "Bob is the patriarch.": fragments under 5 words


def test_a_title_or_an_initial_does_not_end_a_sentence():
    assert sentences("He met Mr. Fezziwig there. Then he left.") == [
        "He met Mr. Fezziwig there.", "Then he left."]
    assert sentences("Illustrated by J. Leech in 1843. It sold.") == [
        "Illustrated by J. Leech in 1843.", "It sold."]
    assert sentences("It ended in 1843. A new one began.") == [
        "It ended in 1843.", "A new one began."]


def test_a_reports_guess_and_a_sentence_cut_off_are_never_quoted():
    # a report cut at RETAG_REPORT_TOKENS ends mid-sentence; a guess is not a fact of the corpus
    cut = ReportRow(id=9, title="The Party", level=0, full_content="""\
# The Party

## The plump sister

The plump sister, likely Fred's sister, blushes at Topper's attention. Topper plays the \
plump sister at blind man's buff. The party plays games until the plump sister""")
    got = {q.text: q.quotable for q in quotes(cut)}
    assert got == {"The plump sister, likely Fred's sister, blushes at Topper's attention.": False,
                   "Topper plays the plump sister at blind man's buff.": True,
                   "The party plays games until the plump sister": False}
    picked = pick("What does the plump sister do?", [], quotes(cut), 160)
    assert [q.text for q in picked] == ["Topper plays the plump sister at blind man's buff."]
    # a report that ends whole keeps its last sentence; "may" alone is no guess
    whole = quotes(ReportRow(id=9, title="", full_content="The party may go on until late."))
    assert [q.quotable for q in whole] == [True]


def test_the_best_matches_are_picked_within_the_words_headings_counted_once():
    cands = quotes(CRATCHITS) + quotes(MARLEY)
    best = pick("What saves Tiny Tim?", [], cands, 1)  # the first is always taken
    assert [q.text for q in best] == ["Mr. Scrooge's generosity saves Tiny Tim in the end."]
    # 9 words + 3 of the heading, then 10 more under the same heading: 22
    two = pick("What saves Tiny Tim?", [], cands, 22)
    assert {q.text for q in two} == {"Mr. Scrooge's generosity saves Tiny Tim in the end.",
                                     "Tiny Tim, the youngest son of Bob Cratchit, is ill."}
    assert len(pick("What saves Tiny Tim?", [], cands, 21)) == 1
    # keywords reach what the question's words do not
    assert pick("Who warns him?", ["chains"], cands, 1)[0].report == 7


def test_a_sentence_sharing_no_word_with_the_question_is_never_picked():
    assert pick("Quantum chromodynamics?", [], quotes(CRATCHITS), 1000) == []
    # function words are no shared word; the word a sensemaking question asks for is
    themes = ReportRow(id=1, title="Christmas", full_content="# Christmas\n\nIts themes are "
                       "redemption, generosity and social responsibility.")
    assert pick("What are these about?", [], quotes(themes), 1000) == []
    assert len(pick("What are the main themes?", [], quotes(themes), 1000)) == 1


def test_words_naming_the_corpus_do_not_rank_a_quote():
    cands = quotes(ReportRow(id=5, title="Topper", full_content="# Topper\n\nMr. Topper is a "
                             "bachelor in the story. Fred's party plays games of blind man's "
                             "buff."))
    # "story" alone would rank the short Topper sentence first
    got = pick("What games are played in the story?", ["story"], cands, 1)
    assert [q.text for q in got] == ["Fred's party plays games of blind man's buff."]
    # a question with no other word keeps its words
    assert len(pick("What is the story?", [], cands, 1000)) == 1


def test_quotes_are_grouped_by_finding_in_the_report_order_and_cited():
    cands = quotes(CRATCHITS)
    text = render_quotes([cands[3], cands[0], cands[2]])
    assert text.split("\n") == [
        "- **Tiny Tim's role**: Tiny Tim, the youngest son of Bob Cratchit, is ill. Mr. "
        "Scrooge's generosity saves Tiny Tim in the end. [Data: Reports (3)]",
        "- This community centers on the Cratchit family and their modest home. "
        "[Data: Reports (3)]"]


def test_the_answer_is_quoted_text_cited_with_no_llm_call(tmp_path):
    s = make_settings(tmp_path, {"retag_extract_words": 40})
    trace = Trace(method="retag", level=0, keywords=["chains", "warning"])
    answer = extract_answer(s, Query(question="What does Marley's Ghost warn of?"),
                            [CRATCHITS, MARLEY], trace)
    assert answer is not None and answer.answered
    assert answer.answer.startswith("- **The warning**: Marley's Ghost warns Scrooge of the "
                                    "chains he is forging in life.")
    # every sentence of the answer is a report's own
    report_text = " ".join(q.text for r in (CRATCHITS, MARLEY) for q in quotes(r))
    for line in answer.answer.split("\n"):
        body = line.split("**: ")[-1].removeprefix("- ").rsplit(" [Data:", 1)[0]
        for sent in sentences(body):
            assert sent in report_text
    cited = {i for _, i in parse(answer.answer)}
    assert cited <= {3, 7} and 7 in cited
    assert [c.id for c in answer.citations] == sorted(cited)
    assert [(c.id, c.cited_in_answer) for c in answer.sources] == [(3, 3 in cited), (7, True)]
    assert trace.llm.calls == 0 and "answer" in trace.seconds
    assert any("community reports retrieved (RETAG_EXTRACT_WORDS=40; 0 = a model writes the "
               "answer): no answer call" in n for n in trace.notes)


def test_nothing_to_quote_is_none_said_and_no_reports_the_no_answer(tmp_path):
    s = make_settings(tmp_path, {"retag_extract_words": 40})
    trace = Trace(method="retag", level=0)
    # nothing shares a word: the caller has a model write the answer, with the note
    assert extract_answer(s, Query(question="Quantum chromodynamics?"), [CRATCHITS], trace) is None
    assert trace.no_answer is None and trace.notes == [
        "no sentence of the 1 community reports retrieved shares a word with the question or its "
        "keywords: nothing to quote (RETAG_EXTRACT_WORDS), a model writes the answer"]
    empty = extract_answer(s, Query(question="Who?"), [], Trace(method="retag", level=0))
    assert empty is not None and not empty.answered
    assert empty.trace.no_answer == "no community reports to answer from"
