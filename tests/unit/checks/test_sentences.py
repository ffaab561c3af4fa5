"""A document cut into its sentences (checks/sentences.py): whole, in order, each with its span;
an answer's line cut into sentences, a citation marker kept with the sentence it follows."""

from neo4j_retag.checks.sentences import MAX_CHARS, answer_sentences, sentence_spans, split


def test_sentences_end_at_their_marks_not_after_titles_initials_or_lower_case():
    assert split("He met Mr. Fezziwig there. Then he left.") == [
        "He met Mr. Fezziwig there.", "Then he left."]
    assert split("Illustrated by J. Leech in 1843. It sold.") == [
        "Illustrated by J. Leech in 1843.", "It sold."]
    assert split("Er sagte z. B. das Haus. Dann ging er.") == [
        "Er sagte z. B. das Haus.", "Dann ging er."]
    assert split("It grew 2.4% in 2004... and then fell. 'Yes!' she said.") == [
        "It grew 2.4% in 2004... and then fell.", "'Yes!' she said."]
    assert split("今日は晴れ。明日は雨！") == ["今日は晴れ。", "明日は雨！"]


def test_a_hard_wrapped_paragraph_is_one_text_and_a_line_of_its_own_starts_a_sentence():
    text = ("Umbro profits lifted by Euro 2004\n\nUK sportswear firm Umbro has posted\n"
            "a 16% rise in profits. Sales rose too\n- first item of a list\n"
            "**Host:** Welcome back.\n## A heading\nProse again.")
    assert split(text) == [
        "Umbro profits lifted by Euro 2004",
        "UK sportswear firm Umbro has posted a 16% rise in profits.",
        "Sales rose too", "- first item of a list", "**Host:** Welcome back.",
        "## A heading", "Prose again."]


def test_spans_cover_the_text_in_order_and_a_run_without_a_stop_is_cut():
    text = "One. Two three.\n\n" + "word, " * 300
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans[:2]] == ["One.", "Two three."]
    assert all(b - a <= MAX_CHARS for a, b in spans)
    assert all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))


def test_a_marker_after_a_full_stop_stays_with_the_sentence_it_cites():
    line = "Fred's wife plays the harp. [Data: Reports (13)] Marley warns Scrooge of spirits."
    assert answer_sentences(line) == ["Fred's wife plays the harp. [Data: Reports (13)]",
                                      "Marley warns Scrooge of spirits."]
    assert answer_sentences("") == []


def test_an_abbreviation_after_a_long_run_without_a_stop_is_still_one():
    # the word before a dot is looked for near it: far into a sentence, "Mr." and an initial
    # still do not end it, and a run of lower-case continuations stays one sentence
    long = "and then the talks went on " * 18  # far past the look-back, under MAX_CHARS
    text = f"The board met {long}until Mr. Lind and J. Okafor signed. They left."
    assert split(text) == [f"The board met {long}until Mr. Lind and J. Okafor signed."
                           .replace("  ", " ").strip(), "They left."]
    run_on = "Scrooge 1 " + "appears in the text. " * 900
    assert all(len(x) <= MAX_CHARS for x in split(run_on))
