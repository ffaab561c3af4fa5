"""Every word list of the package, each with its scope: which languages it covers and what
happens in the others. An entry is a word of a language, never a word of one corpus (no feast,
character or genre word): ``tests/unit/checks/test_language.py`` fails on an entry that occurs
in only one test corpus and is no plain word of the language.

Scope. Most lists are English only; some cover English and German; the language guesser's and
the name cleaner's cover more (said at each). A text in a language a list does not cover gets
the language-neutral part of each rule only: a sentence still ends at its punctuation, a name
is still a capitalised word, content words are still the longer words; so a check there is
weaker, and where a rule reads capitals as names it reads every German noun as one
(docs/architecture.md, "Checks", says what that does, measured on a German text).

Two lists live below this module, in the shared vocabulary that every layer (this one
included) imports and that cannot import upwards: the citation parser's dangling prepositions
(``citations.DANGLING``, English) and the chatter lead-ins (``text.strip_chatter``, English).
"""

from __future__ import annotations

import re

import regex

from ...text import WORD


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _either(words: frozenset[str]) -> str:
    """An alternation of ``words`` (longest first, so a phrase wins over its first word)."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


# --- sentences (checks.sentences) ----------------------------------------------------------
# English and German: abbreviations after which a full stop does not end a sentence ("Mr.
# Smith", "z. B. das"); in another language a sentence may end after one of its own
ABBREVIATIONS = _words("""
mr mrs ms dr st mt jr sr prof rev gen col capt lt sgt cpl no nos vs etc approx dept est
fig figs inc ltd co corp vol vols pp ed eds jan feb mar apr jun jul aug sep sept oct nov dec
e.g i.e cf al
bzw ca nr usw vgl ggf evtl inkl bspw z.b d.h u.a s.o s.u o.ä u.ä hr fr str abs
""")

# --- quotes (query.answer.quote) -------------------------------------------------------------
# German function words of more than 3 letters (the checks read only longer words)
GERMAN_FUNCTION_WORDS = _words("""
aber alle allem allen aller alles auch beim dass deine denn dessen diese diesem diesen dieser
dieses doch dort durch eine einem einen einer eines etwas euch gegen habe haben hatte hier
ihre ihrem ihren ihrer immer jede jedem jeden jeder jedes jene kann kein keine können mein
meine mich muss nach nicht noch oder ohne schon sehr sein seine seinem seinen seiner sich
sind soll sollen sondern über unter viel wann warum weil welche welchem welchen welcher
welches wenn werden wird wieder wurde wurden zwischen während wegen wofür worum womit
""")
# English and German: words that say nothing of what a sentence is about (of more than 3
# letters); a quote must share another word with the question. In another language its
# function words count as shared words.
FUNCTION_WORDS = GERMAN_FUNCTION_WORDS | _words("""
about above after again also been before being both could does doing down during each from
have having here into itself just more most much must only other over same should some such
than that their them then there these they this those through under until very were what
when where whether which while whom whose will with would your
""")
# English and German: words naming the corpus itself ("in the story", "across these
# articles", "in diesen Dokumenten"): they say what a question is about, not which sentence
# answers it; in another language they count as the question's words
CORPUS_WORDS = _words("""
story stories book books novel novels tale tales narrative narratives corpus document
documents text texts dataset article articles transcript transcripts episode episodes
dokument dokumente dokumenten text texte texten artikel artikeln buch buches bücher kapitel
korpus sammlung geschichte geschichten
""")
# English and German: a report's own guess, a model's, never a fact of the corpus (a source's
# own hedging is quoted as the source says it); in another language a guess is quoted
GUESS_WORDS = frozenset({
    "likely", "possibly", "presumably", "probably", "perhaps", "apparently", "may have",
    "might have", "wahrscheinlich", "vermutlich", "möglicherweise", "vielleicht",
    "anscheinend"})
GUESS = re.compile(rf"\b(?:{_either(GUESS_WORDS)})\b", re.I)

# --- degenerate replies (checks.degenerate, checks.degenerate_lists) --------------------------
# English and German: function words, which neither ground an answer nor make it ungrounded
# (content words: checks.degenerate, checks.grounding, checks.copies); in another language
# they are content words, on both sides (reply and context) alike, so a reply shares more
# with any context of its language
STOP_WORDS = GERMAN_FUNCTION_WORDS | _words("""
about above after again against also although among another around because been before being
below between both cannot could does doing down during each either else every from further
given have having here however into itself just made main make many more most much must
neither other others over same several should since some such than that their theirs them
themselves then there therefore these they this those though through thus under until upon
very were what when where whether which while whom whose will with within without would your
yours
""")
# English: the words every answer of this product uses about its data, not a subject of the
# corpus (the prompts are English: an answer in another language uses its own)
DATA_WORDS = _words("""
answer answers data based context corpus document documents question questions report reports
source sources text texts theme themes topic topics overall various include includes including
key important information provided mentioned discussed said says dataset
""")
# English: what a question restated as an answer may add and still say nothing ("The
# documents mention several challenges"); in another language a restated question is caught
# only when it repeats the question word for word
FILLER_WORDS = _words("""
a an the and or of in on at to is are was be it its do across prominently multiple feature
features number
""")
# English: the most frequent words, whose share tells an English reply from one in another
# language (a reply in another language than its context is not judged for grounding)
ENGLISH_MARKERS = _words("""
the a an and or of in on at to is are was were be been it its this that with for as by from
not no yes he she they his her their we you
""")
# English: what an open question starts with, which a bare yes or no cannot answer; a question
# in another language is never open to that rule
OPEN_QUESTION_WORDS = _words("what which who whom whose how why where when describe list name")
YES_NO = _words("yes no none nothing unknown maybe")  # English: a bare reply
# English: the model's own no-answer ("no answer was provided", "no information is given in
# the data"); another language's no-answer is judged as any reply
NO_ANSWER_NOUNS = _words("answer information data detail details")
NO_ANSWER_VERBS = _words("provided given found available")
BE_FORMS = _words("was were is are")
NO_ANSWER = re.compile(rf"\bno (?:{_either(NO_ANSWER_NOUNS)})\b[^.!?\n]{{0,40}}?\b(?:"
                       rf"{' |'.join(sorted(BE_FORMS))} |)(?:{_either(NO_ANSWER_VERBS)})\b",
                       re.I)
# English: a question that asks for figures, whose answer may well be "label: number" lines;
# in another language every question is taken to ask for none
FIGURE_QUESTIONS = frozenset({
    "how many", "how much", "how often", "how long", "score", "scores", "result", "results",
    "number", "numbers", "rate", "rates", "price", "prices", "cost", "costs", "fee", "fees",
    "percent", "percentage", "percentages", "vote", "votes", "year", "years", "date", "dates",
    "figure", "figures", "when", "total", "totals", "count", "counts"})
ASKS_FIGURES = re.compile(rf"\b(?:{_either(FIGURE_QUESTIONS)})\b", re.I)

# --- answer sentences held to what they copy (checks.copies) ----------------------------------
# English: "Scrooge's niece", "the firm's chief executive": a relation or role after a
# possessive name, so that the sentence is about another person than the name; in another
# language a relative given the name's place is not told from the name
ROLE_WORDS = _words("""
wife husband niece nephew sister sisters brother brothers son sons daughter daughters child
children father mother parent parents uncle aunt cousin cousins grandson granddaughter friend
friends partner fiance fiancé fiancee fiancée clerk employer employee employees servant
servants boss ceo chair chairman manager owner founder spokesperson spokesman spokeswoman
lawyer assistant colleague colleagues deputy rival widow family
""")
# English: the pronouns that say a sentence speaks of a woman or of a man (German "sie" and
# "ihr" are also "they" and "you": no German pronoun says it alone); in another language the
# check does not compare them
SHE_WORDS = _words("she her hers herself")
HE_WORDS = _words("he his him himself")
# English and German: prepositions that only ever lead a time ("during Christmas", "since
# January", "während der Messe"): a capitalised word after one says when, not whom a sentence
# is about. In another language a date or a feast counts as a name there.
TIME_PREPOSITIONS = _words("during throughout since until till während seit bis")

# --- noun-phrase concepts (index.concepts) ------------------------------------------------
# English: the words a concept never is (function words, reporting verbs, numbers in words,
# time words): they cut a phrase and never start a name at a sentence's start. In another
# language without a list below, a run of over 6 words gives its words.
CONCEPT_STOPWORDS = _words("""
a about above after again against ago all almost also although always am among an and another
any anyone anything are around as at away back be became because become been before being
below best better between both but by can cannot could did do does doing done down during each
either else enough even ever every few first for from further get gets getting give given go
goes going got had has have having he her here hers herself him himself his how however i if
in into is it its itself just last least less let like made make makes making many may me
might more most much must my myself near need never new next no nor not now of off often on
once one only or other others our ours ourselves out over own per perhaps put quite rather
really said same saw say saying says see seen several shall she should since so some someone
something still such take taken than that the their theirs them themselves then there these
they thing things this those though through thus till to told too took toward under until up
upon us use used very via was way we well went were what whatever when where whether which
while who whom whose why will with within without would yes yet you your yours yourself
year years time times people week weeks day days month months told added want wants wanted
think thought know known says mr mrs ms dr cent percent two three four five six seven eight
nine ten lot lots part including include includes according around expected set came come
comes look looked looking show shows showed believe believed believes tell telling asked
monday tuesday wednesday thursday friday saturday sunday january february march april june
july august september october november december
""")
# other languages' function words, by language: they cut phrase runs only (as name parts they
# stay: "Des Moines", "Los Angeles", "Le Mans"); a language with none here gives a long run's
# words
OTHER_FUNCTION_WORDS = {
    "de": "der die das den dem des ein eine einer und oder von zu mit auf für ist sind nicht auch",
    "fr": "le la les un une du et ou au aux est sont pas dans pour sur",
    "es": "el los las del y en por con",
    "it": "il lo gli della che non",
    "el": "και είναι στο στη στην στον στα σε με για από που θα να δεν ή του της των τον την το",
    "hi": "है हैं था थे थी ने की के का को में से पर और भी यह वह एक लिए तक कि जो हो गया गई कहा",
}
PHRASE_STOPWORDS = CONCEPT_STOPWORDS.union(*(v.split() for v in OTHER_FUNCTION_WORDS.values()))
# English, French, Spanish: the words that join a name's parts ("Bank of England", "Banco de
# España"); in another language a name is cut at its joining word
JOINERS = frozenset({"of", "de", "&"})

# --- eval: nuggets and claims (eval.nuggets, eval.nugget_scores) --------------------------------
# English: what a claim's support is not judged on; in another language the function words of
# 3 letters or more count as the claim's words
CLAIM_STOP_WORDS = _words("""
the and for are was were has have had its his her their they them this that these those with
from into onto over under about than then also not but who whom whose which what when where
why how all any each both more most other some such only own same can will would could should
may might must been being does did doing very just there here out off our ours your yours she
him hers one two
""")
# English: a nugget found under a negation within the three words before it is not matched
# ("was not cancelled"; a word ending in "n't" too: "wasn't"); in another language a negated
# nugget counts as matched
NEGATIONS = frozenset({"not", "never", "cannot", "no longer"})


# --- which language a text is in; names without their articles (index.concepts) --------------
# leading articles (and a name's particles) per language with a list: stripped from the start
# of a name in a text of that language ("Ο Γιώργος" -> "Γιώργος", "El Banco" in Spanish),
# never in another ("Los Angeles", "Le Mans", "Des Moines" in English text stay whole); a
# language without a list keeps a name's leading article
ARTICLES = {
    "en": "the",  # not "a"/"an": "A Coruña", "An Post"
    "de": "der die das den dem des ein eine einer einem einen",
    "fr": "le la les un une",
    "es": "el la los las un una",
    "it": "il lo gli la le i un uno una",
    "pt": "o a os as um uma",
    "nl": "de het een",
    "el": "ο η το οι τα τον την του της των τους τις ένας μια ένα",
}
ARTICLE_WORDS = {k: _words(v) for k, v in ARTICLES.items()}
# the function words that tell Latin-script languages apart (the most frequent, per language;
# a language is chosen when its words are at least 3 and the most frequent); a Latin-script
# text in another language is taken for English
LANGUAGE_MARKERS = {
    "en": "the and of to is was in that for with on are it",
    "de": "der die das und ist nicht mit den von zu ein eine auf sich des im",
    "fr": "le la les et est dans pour des une du que sur pas au qui",
    "es": "el la los las y en por con del una que es para se al",
    "it": "il gli della che non è per con una sono del nel alla di",
    "pt": "o os da do que não uma para com em das dos ao é",
    "nl": "de het een van en is niet op dat met voor zijn",
}
_MARKER_WORDS = {k: _words(v) for k, v in LANGUAGE_MARKERS.items()}
# any of the seven languages' most frequent words
LANGUAGE_WORDS = frozenset().union(*_MARKER_WORDS.values())
# Korean particles written on to the word before them (김민준은, 김민준이 -> 김민준), longest
# first; stripped only where two syllables or more stay (a name keeps its own last syllable)
KOREAN_PARTICLES = _words("""
에서는 에게서 으로는 에서 에게 한테 께서 으로 부터 까지 처럼 보다 이나 이라 라고 은 는 이 가 을 를
의 에 와 과 도 로 만 랑
""")
_JOSA = sorted(KOREAN_PARTICLES, key=lambda w: (-len(w), w))
_HANGUL = regex.compile(r"\p{Hangul}+")
_GREEK = regex.compile(r"\p{Greek}")
_LATIN = regex.compile(r"\p{Latin}")


def language(text: str) -> str | None:
    """The language of ``text`` among those with an article list (``ARTICLES``): Greek by its
    script, a Latin-script one by its function words (English when unsure); None for any
    other script."""
    if len(_GREEK.findall(text)) > len(_LATIN.findall(text)):
        return "el"
    if not _LATIN.search(text):
        return None
    counts = dict.fromkeys(_MARKER_WORDS, 0)
    for w in WORD.findall(text.casefold()):
        for lang, words in _MARKER_WORDS.items():
            counts[lang] += w in words
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] >= 3 and counts[best] > counts["en"] else "en"


def strip_particle(word: str) -> str:
    """A Hangul word without the particle written on to it (``김민준은`` -> ``김민준``);
    any other word as it is."""
    if not _HANGUL.fullmatch(word):
        return word
    for josa in _JOSA:
        if word.endswith(josa) and len(word) - len(josa) >= 2:
            return word[:-len(josa)]
    return word


def is_hangul(word: str) -> bool:
    return _HANGUL.fullmatch(word) is not None


def english_share(text: str) -> float:
    """The share of ``text``'s words that are ``ENGLISH_MARKERS`` (0.0 for no word)."""
    words = WORD.findall(text.casefold())
    return sum(w in ENGLISH_MARKERS for w in words) / len(words) if words else 0.0

# the words of the answer checks (checks.shape, checks.wrapping, checks.instructed)
from .answers import DIRECTIVE as DIRECTIVE  # noqa: E402
from .answers import REPORTED as REPORTED  # noqa: E402
from .answers import SENTENCE_EXTRA  # noqa: E402

SENTENCE_WORDS = FUNCTION_WORDS | LANGUAGE_WORDS | SENTENCE_EXTRA
