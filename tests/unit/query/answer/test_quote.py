"""The quoted answer (ANSWER=quote): the sources' sentences that match the question best,
quoted and cited, within the word budget; no LLM call. (Candidates read from the graph:
tests/integration/query/test_quoted.py.)"""

from neo4j_retag.model import ReportRow
from neo4j_retag.query.answer.quote import Quote, citations, pick, render, report_quotes, sentences


def quotes(report, rank=0):
    return report_quotes(report, rank)

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
    got = [(q.heading, q.text) for q in quotes(CRATCHITS)]
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
    assert pick("Who warns him?", ["chains"], cands, 1)[0].ref == 7


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
    text = render([cands[3], cands[0], cands[2]])
    assert text.split("\n") == [
        "- **Tiny Tim's role**: Tiny Tim, the youngest son of Bob Cratchit, is ill. Mr. "
        "Scrooge's generosity saves Tiny Tim in the end. [Data: Reports (3)]",
        "- This community centers on the Cratchit family and their modest home. "
        "[Data: Reports (3)]"]
    assert [(c.kind, c.id) for c in citations([cands[3], cands[0]])] == [("report", 3)]


def _source(text, heading, group, rank, order, unit, position):
    return Quote(text, heading, group, rank, order, "Sources", unit, f"{unit}.txt", True,
                 ("doc", position))


def test_source_sentences_are_cited_by_their_text_units_and_a_theme_question_covers_reports():
    a1 = _source("Skulls disables Nokia smartphones.", "Skulls", "report 1", 0, 0, "u1", 4)
    a2 = _source("F-Secure found the program on file-sharing networks.", "Skulls", "report 1",
                 0, 1, "u2", 9)
    b1 = _source("Spam rose to 80% of all e-mail in the year.", "Spam", "report 2", 1, 0, "u3", 2)
    # a question about the whole corpus shares no word: nothing without cover, and with it
    # the reports in turns, each its first sentence first
    assert pick("What are the main threats?", [], [a1, a2, b1], 200) == []
    got = pick("What are the main threats?", [], [a1, a2, b1], 200, cover=True)
    assert got == [a1, b1, a2]
    # a word shared goes first, whatever the order
    assert pick("Who found the program?", [], [a1, a2, b1], 200, cover=True)[0] == a2
    text = render(got)
    assert text.split("\n") == [
        "- **Skulls**: Skulls disables Nokia smartphones. F-Secure found the program on "
        "file-sharing networks. [Data: Sources (u1, u2)]",
        "- **Spam**: Spam rose to 80% of all e-mail in the year. [Data: Sources (u3)]"]
    cited = citations(got)
    assert [(c.kind, c.id, c.location) for c in cited] == [  # in order of first quote
        ("text_unit", "u1", "u1.txt"), ("text_unit", "u3", "u3.txt"),
        ("text_unit", "u2", "u2.txt")]
    # the budget holds in turns too: the first is always taken
    assert pick("What are the main threats?", [], [a1, a2, b1], 1, cover=True) == [a1]
