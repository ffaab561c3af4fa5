"""Noun-phrase concepts without a model: names of people, places and organisations, and
recurring phrases; sentence-initial capitals and lists handled."""

from neo4j_retag.index.concepts import MAX_CONCEPTS, extract_concepts

TEXT = ("UK sportswear firm Umbro has posted a rise in annual profit after sales of replica "
        "England football kits. Umbro, which lost deals with Chelsea and Celtic, said the Bank "
        "of England was cautious. Sales rose in Ireland, Sweden and Norway. In January, Umbro "
        "signed Peter McGuigan's team. I'm told replica football kits did well; replica "
        "football kits are Umbro's business.")


def names(text):
    return {c.name for c in extract_concepts(text)}


def test_names_of_people_places_and_organisations():
    got = names(TEXT)
    assert {"Umbro", "Chelsea", "Celtic", "Bank of England", "Peter McGuigan", "Ireland",
            "Sweden", "Norway", "UK"} <= got


def test_no_position_capitals_lists_or_contractions():
    got = names(TEXT)
    assert not got & {"Sales", "In", "January", "I'm", "Ireland Sweden", "Chelsea and Celtic",
                      "January Umbro"}
    assert "Umbro's" not in got


def test_phrases_recur_or_have_several_words_and_names_rank_first():
    found = extract_concepts(TEXT)
    kinds = [c.kind for c in found]
    assert kinds == sorted(kinds)  # "name" < "phrase": every name before every phrase
    phrases = {c.key: c.count for c in found if c.kind == "phrase"}
    assert phrases.get("replica football kits") == 2
    assert all(" " in k or n > 1 for k, n in phrases.items())
    assert found[0].key == "umbro" and found[0].count == 4


def test_keys_are_case_folded_and_bounded():
    found = extract_concepts(" ".join(f"Company{i} Ltd met City{i}." for i in range(40)))
    assert len(found) == MAX_CONCEPTS
    assert all(c.key == c.key.casefold() for c in found)
    assert extract_concepts("") == []
