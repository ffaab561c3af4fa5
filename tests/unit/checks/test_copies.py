"""Answer sentences held to the report sentences they copy (checks.copies): the
misattributed copies of Qwen2.5-Coder-1.5B's one-call answers on the Christmas Carol index
(docs/hand-check-retag-carol-direct.md), verbatim, are dropped; faithful copies, paraphrases
and sentences that copy nothing are kept."""

from neo4j_retag.checks.copies import SentenceCheck, drop_misattributed

# report 13 of the imported GPT-4o index, as the answer call read it (abridged)
R13 = ("report 13", "Fred's Christmas Gathering",
       "This community centers on the festive Christmas dinner hosted by Fred, Scrooge's "
       "nephew, and attended by a close-knit group of family and friends.\n"
       "## Fred as the central figure and host of the Christmas gathering\n"
       "His warmth, generosity, and good humor set the tone for the event, as he welcomes "
       "family and friends into his home and leads them in games, music, and toasts.\n"
       "## Scrooge's niece as a source of warmth and musical talent\n"
       "Scrooge's niece, Fred's wife, plays a significant role in the family gathering, "
       "contributing cheerfulness, earnestness, and musical skill. She is described as "
       "exceedingly pretty and lively, and her harp and piano performances add to the "
       "merriment of the occasion. Her interactions with her sisters and other guests further "
       "reinforce the sense of unity and joy at the gathering.")
R4 = ("report 4", "Scrooge and the spirits",
      "The community also includes charitable figures such as the portly gentlemen, who "
      "visit Scrooge to ask for donations for the poor.")


def test_the_hand_checks_misattributed_copies_are_dropped():
    check = SentenceCheck([R13, R4])
    # the niece's sentence with Fred as its subject
    assert "relative of fred" in check(
        "Fred is also a source of warmth and musical talent for the family gathering.")
    # her harp, his harp: a blend of two of her sentences
    assert "about a woman as if of a man" in check(
        "His presence adds cheerfulness, earnestness, and musical skill to the occasion, "
        "particularly his harp and piano performances add to the merriment of the event.")
    assert "about a woman as if of a man" in check(
        "Fred's interactions with his sisters and other guests further reinforce the sense "
        "of unity and joy at the gathering. [Data: Reports (13)]")
    # a quotation the reports do not hold ("portly gentlemen", not "a portly gentleman")
    assert 'quotes "a portly gentleman"' in check('He is described as "a portly gentleman".')
    # the question's own words may be quoted
    asked = SentenceCheck([R13, R4], 'Who is "a portly gentleman" in the story?')
    assert asked('He is described as "a portly gentleman".') is None


R22 = ("report 22", "Robinson Crusoe Story Community: Robin Crusoe, Friday, and the Parrot",
       "This community centers on the Robinson Crusoe story that Scrooge's younger self reads: "
       "Robin Crusoe, his man Friday and the Parrot.")


def test_a_report_title_given_a_name_no_report_holds_with_it_is_dropped():
    check = SentenceCheck([R13, R22])
    assert "puts cratchit in report 22's" in check(
        "The Cratchit family plays a central role in the Robinson Crusoe Story Community.")
    # a name a report gives with the title stays
    assert check("Scrooge reads of Friday in the Robinson Crusoe Story Community.") is None


R19 = ("report 19", "Millbrook Rovers",
       "# Millbrook Rovers\n\nMillbrook Rovers reached the county cup final. Lumen Analytics "
       "sponsors Millbrook Rovers and its academy.")
R17 = ("report 17", "Amara Okafor and the Lantern Festival",
       "Lumen Analytics pays for the lights of the Lantern Festival.")


def test_a_title_the_reports_text_uses_is_an_entity_name_and_the_title_rule_leaves_it():
    # seen on the Qwen-built sample index: this hedged, true sentence was dropped, and the
    # map-reduce answer it was became the no-answer
    check = SentenceCheck([R19, R17])
    assert check("Lumen Analytics sponsors Millbrook Rovers, but it is not clear whether this "
                 "sponsorship is linked to its sponsorship of the academy and to the Lantern "
                 "Festival.") is None


def test_faithful_copies_paraphrases_and_new_wording_are_kept():
    check = SentenceCheck([R13, R4])
    assert check("His warmth, generosity, and good humor set the tone for the event, as he "
                 "welcomes family and friends into his home.") is None  # Fred's own sentence
    assert check("Scrooge's niece plays the harp and piano, adding to the merriment of the "
                 "occasion.") is None
    assert check("Fred's wife, Scrooge's niece, brings cheerfulness, earnestness and musical "
                 "skill to the family gathering.") is None
    assert check("Fred hosts a Christmas dinner for family and friends.") is None
    assert check("Scrooge learns that kindness matters more than money.") is None  # no copy
    assert check('The charity collectors are "the portly gentlemen" of the story.') is None


def test_dropping_keeps_the_other_sentences_and_each_sentences_own_marker():
    text = ("Fred hosts the Christmas dinner. [Data: Reports (13)] Fred is also a source of "
            "warmth and musical talent for the family gathering. [Data: Reports (13)]\n"
            "- Fred's interactions with his sisters and other guests further reinforce the "
            "sense of unity and joy at the gathering.\n- Scrooge changes.")
    kept, dropped = drop_misattributed(text, [R13])
    assert kept == "Fred hosts the Christmas dinner. [Data: Reports (13)]\n- Scrooge changes."
    assert [d.sentence[:30] for d in dropped] == ["Fred is also a source of warmt",
                                                  "- Fred's interactions with his"]
    # a numbered point whose only sentence is dropped leaves no bare "2." behind
    kept, _ = drop_misattributed("1. Fred hosts the dinner.\n2. Fred is also a source of "
                                 "warmth and musical talent for the family gathering.", [R13])
    assert kept == "1. Fred hosts the dinner."


R3 = ("report 3", "The Cratchit Family and Their Christmas Community",
      "Bob Cratchit is Scrooge's clerk. Despite living in poverty, the family is characterized "
      "by strong bonds, mutual support, and a joyful spirit, especially during Christmas.")


def test_a_feast_is_not_whom_a_copied_sentence_is_about():
    # seen on the held-out Carol set: this supported sentence was dropped as a copy "about
    # christmas with cratchit in its place"
    check = SentenceCheck([R3, R13])
    assert check("The Cratchit family is described as living in poverty but characterized by "
                 "strong bonds, mutual support, and a joyful spirit.") is None
    # a copy given to another person is still dropped
    assert "relative of fred" in check(
        "Fred is also a source of warmth and musical talent for the family gathering.")


def test_a_capitalised_word_after_a_time_preposition_is_when_not_whom():
    # no feast in a list: "since January" says when; the copy's own name is the report's
    # subject's place, and the report sentence names no one else
    prices = ("report 5", "The harbour",
              "Prices at the harbour have risen by a third since January, the fishermen's "
              "cooperative says. Mayor Elena Varga backs the plan.")
    check = SentenceCheck([prices])
    assert check("Prices at the Millbrook harbour have risen by a third, the fishermen's "
                 "cooperative says.") is None
    # a name that is also a weekday stays a name where no time preposition leads it
    boat = ("report 6", "The island",
            "The boat is built by Friday, who learns to sail and to fish from his master.")
    assert "about friday with xury in its place" in SentenceCheck([boat])(
        "The boat is built by Xury, who learns to sail and to fish from his master.")
    # a possessive after a time preposition says whose, and its name stays one
    years = ("report 8", "Belle", "Belle leaves him during Scrooge's years at the counting "
             "house, tired of his greed for gold.")
    assert "about scrooge with marley in its place" in SentenceCheck([years])(
        "Belle leaves him during Marley's years at the counting house, tired of his greed "
        "for gold.")
