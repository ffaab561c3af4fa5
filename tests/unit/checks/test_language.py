"""No corpus in the word lists (issue 58 item 6): every entry of ``checks.language`` is a word
of a language, never a word of one test corpus. An entry met in exactly one of the test corpora
(A Christmas Carol, BBC News, the podcast transcripts, the sample corpus) fails unless it is a
plain word in the reference list below; an entry met in none of them (a German word: the
corpora are English) or in two or more is a word of the language, not of one corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from neo4j_retag.checks import language
from neo4j_retag.index.documents import Document, read_path
from neo4j_retag.text import WORD
from tests.conftest import CORPORA, REQUIRE

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-corpus"
SHARED = ("christmas-carol", "bbc-news", "podcast-transcripts")
# plain English and German words that the lists hold and that only one test corpus happens to
# use: a word added here is a dictionary word of the kind its list is about, never a name, a
# feast or a title of one corpus
PLAIN = frozenset("""
abs al capt col corp dec ed figs gen hr i.e jan lt prof vs
august september october
aunt clerk colleague cousins daughters deputy fiancee grandson lawyer nephew niece rival
servants spokesman spokesperson spokeswoman
dataset documents narrative tale topics transcript transcripts
cent er hier ours percentage percentages prices prominently shall thus votes
""".split())  # noqa: SIM905 - a list reads worse


def _key(entry: str) -> str:
    return f" {' '.join(WORD.findall(entry.casefold()))} "


def entries() -> dict[str, set[str]]:
    """Every word-list entry of ``checks.language`` by its list's name: the public word sets,
    and the English row of the lists kept per language (the corpora are English:
    :func:`foreign`)."""
    out: dict[str, set[str]] = {}
    for name, value in vars(language).items():
        if name.startswith("_"):
            continue
        if isinstance(value, frozenset):
            out[name] = set(value)
        elif isinstance(value, dict) and "en" in value:
            row = value["en"]
            out[f"{name}['en']"] = set(row.split() if isinstance(row, str) else row)
    return out


def foreign() -> set[str]:
    """The function words the lists keep for languages other than English (the rows of the
    lists kept per language): met in one English corpus, such a word is a loan or a name's
    part, not that corpus's word."""
    out: set[str] = set()
    for name, value in vars(language).items():
        if not name.startswith("_") and isinstance(value, dict):
            for lang, row in value.items():
                if lang != "en":
                    out |= set(row.split() if isinstance(row, str) else row)
    return out


def suspects(lists: dict[str, set[str]], corpora: dict[str, str]) -> dict[str, list[str]]:
    """The entries met in exactly one corpus that are no plain word of English (``PLAIN``) or
    of another language (:func:`foreign`): ``"LIST: entry"`` -> the corpus it is met in."""
    plain = PLAIN | foreign()
    out = {}
    for name, words in lists.items():
        for entry in sorted(words):
            key = _key(entry)
            met = [c for c, text in corpora.items() if key.strip() and key in text]
            if len(met) == 1 and entry not in plain:
                out[f"{name}: {entry}"] = met
    return out


@pytest.fixture(scope="module")
def corpora() -> dict[str, str]:
    """Each test corpus's words, folded, one space apart (README files left out: they are
    about the corpus, not of it)."""
    missing = [c for c in SHARED if not (CORPORA / c).is_dir()]
    if missing:
        why = f"the shared corpora are absent ({', '.join(missing)} under {CORPORA}; CI has them)"
        if REQUIRE:
            pytest.fail(why)
        pytest.skip(why)
    out = {}
    for name, root in [*((c, CORPORA / c) for c in SHARED), ("sample-corpus", SAMPLE)]:
        texts = [d.text for d in read_path(root)
                 if isinstance(d, Document) and Path(d.path).name != "README.md"]
        assert texts, f"no text read from {root}"
        out[name] = _key(" ".join(texts))
    return out


def test_no_word_list_entry_is_a_word_of_one_corpus(corpora):
    lists = entries()
    assert len(lists) >= 20 and "CONCEPT_STOPWORDS" in lists and "ROLE_WORDS" in lists
    found = suspects(lists, corpora)
    assert not found, ("entries met in one test corpus only (a name, a feast or a genre word "
                       f"of that corpus? else a plain word: add it to PLAIN): {found}")


def test_a_word_of_one_corpus_is_caught(corpora):
    # the feast list the sentence check held until it read times from the text itself
    feasts = {"christmas", "eve", "easter", "whitsun", "whitsuntide", "michaelmas", "halloween",
              "yuletide", "new", "year"}
    assert suspects({"feasts": feasts}, corpora) == {"feasts: halloween": ["bbc-news"]}
    # the characters of one book
    assert set(suspects({"names": {"cratchit", "fezziwig", "marley", "the"}}, corpora)) == {
        "names: cratchit", "names: fezziwig", "names: marley"}
