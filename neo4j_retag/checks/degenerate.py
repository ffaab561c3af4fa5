"""Free text that reads as an answer but is none: a degenerate reply.

Small local models at greedy decoding write fluent text that answers nothing. The quickstart's
SmolLM2-135M printed, for "What are the main themes of this corpus?" over four local news
stories: "Transcultural and global communication" and "The power of storytelling" (about no
story), "Data-Driven Decision Making" (one word of the data), and "The importance of the
importance score in a dataset" with 19 near-copies of that line. Each rule below names one
such kind; :func:`check` returns the first that holds as a :class:`Verdict` (the rule, why,
and the numbers behind it), and the LLM client treats it as an unusable reply
(``degenerate``): asked again once with a repetition penalty, then the item fails and the
caller gives the honest no-answer, the refused text kept in the trace.

Plain string work, no I/O. The thresholds are measured on the labelled set of 182 real Qwen and
SmolLM2 replies (benchmarks/quality/answer_checks/): none of its 158 good replies refused
(lists, numbered points under headings, quotes, a partly Chinese reply, yes/no and numeric
answers, wrong but on-topic answers) and its 24 bad ones caught. Fee lists, tables and French
answers are scripted unit cases (tests/unit/checks/test_degenerate.py): no run gave a real one.
"""

from __future__ import annotations

import re
from collections import Counter

from ..citations import MARKER
from ..text import TERM, WORD
from .degenerate_lists import _LIST_MARK, empty_items, repeated_labels, repeated_lines
from .language import (
    DATA_WORDS,
    FILLER_WORDS,
    NO_ANSWER,
    OPEN_QUESTION_WORDS,
    STOP_WORDS,
    YES_NO,
    english_share,
)
from .verdict import Subject, Verdict

NGRAM = 6
NGRAM_SHARE = 1 / 3  # one 6-gram covering more than this share of the words: a loop
REPEATED_SENTENCES = 0.3  # share of the words in sentences that repeat an earlier one
MIN_GROUNDED = 1 / 4  # share of an answer's own content words that its context must hold
MIN_CONTEXT_WORDS = 5  # a context with fewer content words cannot tell grounded from not
MIN_ENGLISH = 0.1  # share of English function words under which a reply is in another language

_WORD = WORD  # letters and combining marks of any script
_TOKEN = TERM  # words and numbers: list items differ by numbers
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# the words that neither ground an answer nor make it ungrounded (checks.language)
_STOP = STOP_WORDS | DATA_WORDS
# what a restated question may add and still say nothing: "The documents mention several
# challenges" to "What challenges do the documents mention?"
_FILLER = _STOP | FILLER_WORDS
# the map and reduce prompts' rating field: the data never holds it, so prose about it is
# about the prompt ("The importance score of 95 indicates ..."), not a label line before a
# point ("Importance Score: 80"); the prompts' own term (English as they are), no word list
_TEMPLATE_TERM = re.compile(r"importance scores?(?!\s*:)", re.I)


def _stem(word: str) -> str:
    # a crude stem: "communities" and "community", "plans" and "plan" meet; enough to tell
    # an answer about the data from one about nothing in it
    return word[:6] if len(word) > 6 else word.rstrip("s")


def content_words(text: str) -> set[str]:
    """Stems of the words of ``text`` over 3 letters that are not function words."""
    return {_stem(w) for w in _WORD.findall(text.casefold()) if len(w) > 3 and w not in _STOP}


def repeated_ngram(text: str) -> Verdict | None:
    """Whether ``text`` loops on one phrase: one 6-gram of words and numbers within a
    sentence whose occurrences cover more than a third of its (24 or more) words."""
    # numbers kept ("The fee for berth 4 is 4.50 EUR" and "... berth 5 is 4.20 EUR" differ),
    # and no 6-gram across a sentence end ("EUR per metre. The fee for" is a list's template)
    sents = [_TOKEN.findall(x.casefold()) for x in _SENTENCE.split(MARKER.sub(" ", text))]
    words = [w for x in sents for w in x]
    if len(words) < 4 * NGRAM:
        return None
    grams = Counter(tuple(x[i:i + NGRAM]) for x in sents for i in range(len(x) - NGRAM + 1))
    if not grams:
        return None
    gram, n = grams.most_common(1)[0]
    if n >= 3 and n * NGRAM > len(words) * NGRAM_SHARE:
        return Verdict("looping_phrase", f"the phrase {' '.join(gram)!r} makes up over a third "
                       f"of the text ({n} times)", {"times": n, "words": len(words),
                                                    "threshold": NGRAM_SHARE})
    return None


def repeated_sentences(text: str) -> Verdict | None:
    """Whether ``text`` loops on whole sentences: those (of 5 or more words) that repeat an
    earlier one word for word hold 30 % or more of its words (a list whose items end in one
    filler sentence stays under that)."""
    seen: set[str] = set()
    total = repeated = 0
    for s in _SENTENCE.split(MARKER.sub(" ", text)):
        norm = " ".join(_TOKEN.findall(_LIST_MARK.sub("", s).casefold()))
        n = len(norm.split())
        total += n
        if n >= 5 and norm in seen:
            repeated += n
        seen.add(norm)
    if total and repeated / total >= REPEATED_SENTENCES:
        return Verdict("repeated_sentences", f"{repeated} of its {total} words are in sentences "
                       "that repeat an earlier one", {"repeated_words": repeated,
                                                      "words": total,
                                                      "threshold": REPEATED_SENTENCES})
    return None


def echoed_question(text: str, question: str) -> Verdict | None:
    """Whether ``text`` is the question given back: the question alone (after a list mark or
    a "Question:" label), or every word of it (4 or more) one of the question's but for
    filler ("several", "the"). A yes, a no or a number of its own is an answer ("Yes, the
    fees were raised in March." to "Were the fees raised in March?"), and so is an answer
    under the question restated as its first line."""
    if not question.strip() or not text.strip():
        return None
    asked = _TOKEN.findall(question.casefold())
    alone = _TOKEN.findall(re.sub(r"^\W*(?:question\s*:)?", "", MARKER.sub(" ", text).strip(),
                                  flags=re.I).casefold())
    if alone == asked:
        return Verdict("echo", "the question echoed back, not an answer",
                       {"words": len(alone), "words_not_in_question": 0})
    words = _TOKEN.findall(MARKER.sub(" ", text).casefold())
    asked_stems = {_stem(w) for w in asked}
    extra = [w for w in words if _stem(w) not in asked_stems and w not in _FILLER]
    if len(words) >= 4 and not extra:  # "Fred." to "Is it Fred or Bob?" answers
        return Verdict("echo", "the question echoed back, not an answer",
                       {"words": len(words), "words_not_in_question": 0})
    return None


def bare_word(text: str, question: str) -> Verdict | None:
    """Whether ``text`` is a lone "yes", "no" or "none" to an open question (what, who,
    how ...), which it cannot answer."""
    words = _WORD.findall(MARKER.sub(" ", text).casefold())
    asked = _WORD.findall(question.casefold())[:1]
    if 0 < len(words) <= 2 and set(words) <= YES_NO and asked and asked[0] in OPEN_QUESTION_WORDS:
        return Verdict("bare_word", f"{text.strip()!r} to an open question, not an answer",
                       {"words": len(words)})
    return None


def template_subject(text: str, question: str) -> Verdict | None:
    """Whether ``text`` is about the prompt's own rating field: two or more sentences speak
    of "the importance score" (a question that asks about it excepted)."""
    n = len(_TEMPLATE_TERM.findall(text))
    if n >= 2 and not _TEMPLATE_TERM.search(question):
        return Verdict("template_subject", "about the prompt's importance scores, not the data "
                       f"({n} mentions)", {"mentions": n})
    return None


def ungrounded(text: str, subject: Subject) -> Verdict | None:
    """Whether ``text`` is about nothing in its context: of its content words (but the
    question's that the context lacks), none - or, with 3 or more, under a quarter - occur
    in the context (one of 5 or more content words: less is too little to judge by). Not
    judged when the reply is in another language than its context (its words cannot meet)."""
    context = content_words(subject.context)
    # the question's words tell nothing either way unless the context holds them too
    own = content_words(text) - (content_words(subject.question) - context)
    if len(context) < MIN_CONTEXT_WORDS or not own:
        return None  # too little to judge by
    if len(_WORD.findall(text)) >= 5 and english_share(text) < MIN_ENGLISH <= english_share(
            subject.context):
        return None  # another language than the context's
    shared = own & context
    if not shared or (len(own) >= 3 and len(shared) / len(own) < MIN_GROUNDED):
        return Verdict("ungrounded", f"about nothing in its context ({len(shared)} of its "
                       f"{len(own)} content words occur there)",
                       {"content_words": len(own), "in_context": len(shared),
                        "threshold": MIN_GROUNDED})
    return None


def says_no_answer(text: str) -> Verdict | None:
    """Whether ``text`` is a short reply (20 words or fewer) saying that no answer or
    information was given or found ("No, no answer was provided to this question."): the
    model's own no-answer, which the product says in its own words."""
    words = _WORD.findall(MARKER.sub(" ", text))
    if len(words) <= 20 and NO_ANSWER.search(text):
        return Verdict("non_answer", "says no answer or information was given, not an answer",
                       {"words": len(words)})
    return None


def check(text: str, subject: Subject | None = None) -> Verdict | None:
    """Why the free text ``text`` is no answer, as a Verdict, or None: repeated lines,
    near-copies or one label leading most items, one phrase or whole sentences looping, a
    short reply saying no answer was given, the question echoed back, a bare
    yes/no to an open question, or nothing in common with ``subject``'s context. Never
    raises."""
    subject = subject or Subject()
    return (repeated_lines(text) or repeated_labels(text) or repeated_ngram(text)
            or repeated_sentences(text) or says_no_answer(text)
            or echoed_question(text, subject.question) or bare_word(text, subject.question)
            or empty_items(text, subject.question) or template_subject(text, subject.question)
            or ungrounded(text, subject))


def degenerate(text: str, subject: Subject | None = None) -> str | None:
    """:func:`check`'s one-line reason, or None."""
    verdict = check(text, subject)
    return verdict.why if verdict else None
