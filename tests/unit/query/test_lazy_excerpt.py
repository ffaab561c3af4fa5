"""A relevance test reads a text unit's sentences that best match the question, in order,
within LAZY_TEST_TOKENS; a unit that fits is read whole."""

from __future__ import annotations

from neo4j_retag.query.lazy_excerpt import GAP, excerpt
from neo4j_retag.tokens import count

TEXT = ("The town held a winter fair. Stalls sold hot cider and gloves. "
        "The mayor promised to rebuild the old harbour. A ferry to Port Alder would follow. "
        "Children sang carols in the square. The harbour plan needs the council's vote.")


def test_a_text_that_fits_is_read_whole():
    assert excerpt(TEXT, "harbour", 0, "cl100k_base") == TEXT
    assert excerpt(TEXT, "harbour", 500, "cl100k_base") == TEXT


def test_the_best_sentences_in_their_order_within_the_budget():
    got = excerpt(TEXT, "What about the harbour plan?", 25, "cl100k_base")
    assert count(got, "cl100k_base") <= 25 + 4  # the gap marks
    assert "harbour plan needs" in got and "rebuild the old harbour" in got
    assert "cider" not in got and "carols" not in got
    assert got.index("rebuild") < got.index("plan needs")  # the unit's order
    assert GAP in got  # sentences between them were left out


def test_no_sentence_fitting_gives_the_budget_of_the_best_one():
    got = excerpt(TEXT, "ferry Port Alder", 3, "cl100k_base")
    assert count(got, "cl100k_base") <= 3 and got.strip()
