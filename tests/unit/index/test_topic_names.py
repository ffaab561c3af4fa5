"""Topic near-duplicates by spelling and by meaning-bearing words (issue 13)."""

from neo4j_retag.index.topic_names import Topic, content_words, dedupe, same_topic


def test_near_duplicates_by_meaning_are_merged():
    assert same_topic("Lantern Festival", "Lantern Festival Community")
    assert same_topic("The Harbour Plan", "Harbour plans")
    assert same_topic("Millbrook Lantern Festival", "Lantern Festival in Millbrook")
    assert same_topic("Harbour redevelopment plan", "Harbour Redevelopment")
    assert content_words("The Role of the Harbour Plans") == {"harbour", "plan"}


def test_distinct_topics_sharing_one_word_are_kept():
    assert not same_topic("Millbrook Rovers", "Millbrook Council")
    assert not same_topic("Harbour Plan", "Harbour Festival")
    assert not same_topic("Tech Start-up", "Football Club")


def test_dedupe_keeps_the_first_of_each_and_drops_placeholders():
    topics = [Topic(name=n) for n in ["Lantern Festival", "Harbour Plan",
                                      "Lantern Festival Community", "...", "Millbrook Rovers",
                                      "harbour plan", "Lumen Analytics Lab"]]
    assert [t.name for t in dedupe(topics, 8)] == [
        "Lantern Festival", "Harbour Plan", "Millbrook Rovers", "Lumen Analytics Lab"]
    assert len(dedupe(topics, 2)) == 2
