"""Whether a sentence names an entity, and a name as its text gives it (checks/mentions.py)."""

from neo4j_retag.checks.mentions import Mentions, grounded_name, lower_words, words

TEXT = ("Amit Yoran led the National Cyber Security Division. Mr Yoran's work on security "
        "was praised. Nokia said Skulls hits some Nokias. Scrooge's nephew came in.")


def test_a_sentence_names_an_entity_by_its_words_or_by_a_proper_word_of_its_own():
    common = lower_words(TEXT)
    yoran = Mentions("Amit Yoran", common)
    assert yoran("Mr Yoran's work on security was praised.")  # "Yoran" is his own word
    division = Mentions("US Department of Homeland Security", common)
    # "security" is written in lower case in the text: a common word, never his own
    assert not division("Mr Yoran's work on security was praised.")
    assert Mentions("Nokia Corporation", common)("Skulls hits some Nokias.")  # an ending
    assert Mentions("Ebenezer Scrooge", common)("Scrooge's nephew came in.")
    assert not Mentions("Tim", common)("Timber was cut.")  # whole short words only


def test_a_name_is_cut_to_the_words_its_text_gives_or_is_none():
    text_words, common = words(TEXT), lower_words(TEXT)
    assert grounded_name("Amit Yoran", text_words, common) == "Amit Yoran"
    assert grounded_name("Nokia Corporation of Finland", text_words, common) == "Nokia"
    assert grounded_name("Ebenezer Scrooge", text_words, common) == "Scrooge"
    assert grounded_name("Symantec", text_words, common) is None
    # a run of common words alone is no name
    assert grounded_name("security work", text_words, common) is None
