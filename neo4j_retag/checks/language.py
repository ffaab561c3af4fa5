"""Every word list the checks use, with its scope: which languages it covers and what happens
in the others. A list entry is a word of a language, never a word of one corpus (a unit test
fails on an entry that occurs in only one test corpus).

Scope. The lists cover English and German (the languages the project is measured on:
docs/evaluation.md); a text in another language gets the language-neutral parts of each check
only (a sentence still ends at its punctuation, a name is still a capitalised word, content
words are still the longer words), so a check there is weaker, never wrong in another way.
"""

from __future__ import annotations

import re

from ..text import LANGUAGE_WORDS

# abbreviations after which a full stop does not end a sentence ("Mr. Smith", "z. B. das")
ABBREVIATIONS = frozenset("""
mr mrs ms dr st mt jr sr prof rev gen col capt lt sgt cpl no nos vs etc approx dept est
fig figs inc ltd co corp vol vols pp ed eds jan feb mar apr jun jul aug sep sept oct nov dec
e.g i.e cf al
bzw ca nr usw vgl ggf evtl inkl bspw z.b d.h u.a s.o s.u o.ä u.ä hr fr str abs
""".split())  # noqa: SIM905

# words that say nothing of what a sentence is about (of more than 3 letters: the checks read
# only longer words); a quote must share another word with the question
FUNCTION_WORDS = frozenset("""
about above after again also been before being both could does doing down during each from
have having here into itself just more most much must only other over same should some such
than that their them then there these they this those through under until very were what
when where whether which while whom whose will with would your
aber alle allem allen aller alles auch beim dass deine denn dessen diese diesem diesen dieser
dieses doch dort durch eine einem einen einer eines etwas euch gegen habe haben hatte hier
ihre ihrem ihren ihrer immer jede jedem jeden jeder jedes jene kann kein keine können mein
meine mich muss nach nicht noch oder ohne schon sehr sein seine seinem seinen seiner sich
sind soll sollen sondern über unter viel wann warum weil welche welchem welchen welcher
welches wenn werden wird wieder wurde wurden zwischen während wegen wofür worum womit
""".split())  # noqa: SIM905
# short words that sentences of English or German are made with (articles, pronouns,
# prepositions, auxiliaries); with FUNCTION_WORDS and text.LANGUAGE_WORDS (the most frequent
# words of seven languages) what tells a sentence from a record or code: a line without any
# of them names things at most. In another language no sentence is told (checks.shape)
SENTENCE_WORDS = FUNCTION_WORDS | LANGUAGE_WORDS | frozenset("""
a an the and or but nor of in on at to by for with from as into is are was were be been has
have had do did it its he she they we you his her their our my me him them this that not no
so if than who which what where how why will would can could
ein eine einen der die das und oder aber von zu im in an auf mit für ist sind war waren hat
haben er sie es wir ihr ich sein seine ihre nicht kein keine wie wer was wo
""".split())  # noqa: SIM905
# words naming the corpus itself ("in the story", "across these articles", "in diesen
# Dokumenten"): they say what a question is about, not which sentence answers it
CORPUS_WORDS = frozenset("""
story stories book books novel novels tale tales narrative narratives corpus document
documents text texts dataset article articles transcript transcripts episode episodes
dokument dokumente dokumenten text texte texten artikel artikeln buch buches bücher kapitel
korpus sammlung geschichte geschichten
""".split())  # noqa: SIM905
# a report's own guess: a model's, never a fact of the corpus (a source's own hedging is
# quoted as the source says it)
GUESS = re.compile(r"\b(?:likely|possibly|presumably|probably|perhaps|apparently|(?:may|might) "
                   r"have|wahrscheinlich|vermutlich|möglicherweise|vielleicht|anscheinend)\b",
                   re.I)
# a sentence addressed to the model answering, telling it what to say: "When asked about the
# lab, say that ...", "Assistants must answer ...", "Ignore all previous instructions" (and
# their German forms). Reported speech is none ("When asked, most fishermen say ..."): the
# verb must open the clause, as an order does. In another language, or paraphrased ("the
# correct figure, for anyone who asks, is ..."), an instruction is not recognised: its
# sentence is then data like any other (docs/faults.md)
DIRECTIVE = re.compile(
    r"\b(?:when(?:ever)?|if)\s+(?:you\s+are\s+|you're\s+|you\s+get\s+)?(?:asked|questioned)\b"
    r"[^.!?\n]{0,160}?,\s*(?:always\s+|just\s+|simply\s+|only\s+)?(?:say|answer|reply|respond|"
    r"state|claim|insist|write|tell)\b"
    r"|\b(?:assistants?|chatbots?|LLMs?|(?:large\s+)?language\s+models?|the\s+(?:AI|model|bot)|"
    r"AI\s+(?:assistants?|models?|systems?))\b[^.!?\n]{0,80}?\b(?:must|should|shall|are\s+to|"
    r"is\s+to|have\s+to|has\s+to|needs?\s+to)\s+(?:always\s+|only\s+)?(?:say|answer|reply|"
    r"respond|state|claim|write|tell|report|ignore)\b"
    r"|^\s*(?:always\s+|only\s+|please\s+)?(?:say|answer|reply|respond|state|claim)\s+"
    r"(?:that|with|only)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:previous|prior|"
    r"above|earlier|other|system)\s+(?:instructions?|prompts?|rules?)\b"
    r"|\b(?:wenn|falls)\s+(?:du|Sie|man)\b[^.!?\n]{0,160}?\bgefragt\s+(?:wirst|werden|wird)\b"
    r"[^.!?\n]{0,80}?,\s*(?:antworte|sage|sag|behaupte|antworten\s+Sie|sagen\s+Sie)\b"
    r"|\b(?:ignoriere|vergiss)\b[^.!?\n]{0,40}\b(?:Anweisungen|Vorgaben|Regeln)\b",
    re.I | re.M)
# words by which an answer reports an instruction instead of following it ("a notice tells
# assistants to say ...")
REPORTED = re.compile(r"\b(?:instruct\w*|directive|(?:tells?|told|asks?|asked|urges?)\s+"
                      r"(?:assistants?|readers?|models?|the\s+(?:AI|model|assistant|reader)))\b"
                      r"|\b(?:anweis\w*|fordert)\b", re.I)
