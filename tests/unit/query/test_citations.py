from neo4j_retag.query.citations import attribute

SUPPORTS = [("Scrooge's niece plays the harp and piano at Fred's party.", [13]),
            ("Marley's ghost warns Scrooge of the three spirits to come.", [4])]


def test_attribute_marks_each_uncited_sentence_with_the_support_sharing_most_words():
    text, n = attribute("The niece plays the harp and piano. Marley's ghost warns Scrooge.",
                        SUPPORTS)
    assert n == 2
    assert text == ("The niece plays the harp and piano. [Data: Reports (13)] "
                    "Marley's ghost warns Scrooge. [Data: Reports (4)]")


def test_attribute_leaves_a_cited_sentence_and_still_marks_the_one_after_its_marker():
    # the marker written after the full stop is the first sentence's, not the second's
    text, n = attribute("The niece plays the harp. [Data: Reports (13)] Marley's ghost warns "
                        "Scrooge.", SUPPORTS)
    assert n == 1
    assert text.endswith("Marley's ghost warns Scrooge. [Data: Reports (4)]")


def test_a_sentence_sharing_under_two_content_words_is_not_attributed():
    text, n = attribute("Christmas comes once a year.", SUPPORTS)
    assert (text, n) == ("Christmas comes once a year.", 0)
