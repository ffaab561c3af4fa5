"""The word lists of the answer checks (checks.shape, checks.wrapping, checks.instructed):
what sentences are made of, and the sentences that address the model answering. Part of the
one language module (``checks.language``), with its scope: English and German."""

from __future__ import annotations

import re

# short words that sentences of English or German are made with (articles, pronouns,
# prepositions, auxiliaries); with FUNCTION_WORDS and LANGUAGE_WORDS (the most frequent words
# of seven languages: SENTENCE_WORDS, checks.language) what tells a sentence from a record or
# code: a line without any of them names things at most. In another language no sentence is
# told (checks.shape)
SENTENCE_EXTRA = frozenset("""
a an the and or but nor of in on at to by for with from as into is are was were be been has
have had do did it its he she they we you his her their our my me him them this that not no
so if than who which what where how why will would can could
ein eine einen der die das und oder aber von zu im in an auf mit für ist sind war waren hat
haben er sie es wir ihr ich sein seine ihre nicht kein keine wie wer was wo
""".split())  # noqa: SIM905
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
