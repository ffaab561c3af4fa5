"""The lazy method's relevance test: can this text unit help answer the question? One output
token, ``Y`` or ``N`` (``max_tokens`` 1, no logit bias, no grammar: any endpoint takes it),
after a short prompt whose fixed part - the instructions and the question, the same for every
test of one question - comes first, so a local server evaluates only the passage again (its
prompt cache keeps the prefix). To the local server the reply is begun ("Answer:", an assistant
turn llama.cpp continues): a small model that would open with "The passage ..." then writes
the letter (SmolLM2-135M did; a remote API is not sent a turn it may refuse).

The answer is read leniently: the first word of the reply, whatever its case or marks ("Y",
"yes", "**N**", "No.", after an "Answer:" label), and the JSON object an endpoint may write
anyway (``{"relevant": true}``, a rating such as "high" or "4/5", as `ratings.read_rating`
reads it). Anything else is an invalid reply: asked again as it was, then with the error; then
the test fails (counted, never taken for a no)."""

from __future__ import annotations

import json
import re

from ..llm import LLM
from ..llm.reply import INVALID, ReplyFault
from ..prompts import fragment, render
from ..stages import Stage
from .ratings import read_rating

LABEL = re.compile(r"^\W*(?:answer|relevant|relevance)\W*[:=-]", re.I)  # "Answer: Y"
YES = frozenset({"y", "yes", "true", "relevant", "1"})
NO = frozenset({"n", "no", "false", "irrelevant", "not", "0"})
ATTEMPTS = 3  # the reply, as it was once more, then nudged with the error (LLM_MAX_RETRIES
# bounds it too)


def read_answer(text: str, repairs: list[str]) -> bool:
    """True for a yes, False for a no. Raises ReplyFault (invalid) for anything else."""
    raw = text.strip()
    if raw.startswith("{"):
        try:
            value = json.loads(raw).get("relevant")
            read = read_rating(value, 0, 1)
        except (ValueError, AttributeError) as err:
            raise ReplyFault(INVALID, f"relevance: {raw[:40]!r} is neither Y nor N", text) \
                from err
        if read.outside is not None:
            raise ReplyFault(INVALID, f"relevance: {read.outside:g} is outside 0-1 (answer Y "
                             "or N)", text)
        return read.value >= 0.5
    first = re.sub(r"[^\w\s]", " ", LABEL.sub("", raw).casefold()).split()[:1]
    if first and first[0] in YES:
        return True
    if first and first[0] in NO:
        return False
    raise ReplyFault(INVALID, f"relevance: {raw[:40]!r} is neither Y nor N (answer with one "
                     "letter)", text)


async def relevant(llm: LLM, question: str, text: str) -> bool:
    """One relevance test of ``text`` (the passage as the test reads it) against
    ``question``. Raises LLMError when no attempt gave a Y or an N."""
    msgs = render("query/lazy_relevance", question=question, text=text)
    if llm.settings.llm.local:
        msgs.append({"role": "assistant", "content": fragment("query/lazy_relevance_prefill")})
    return await llm.complete(msgs, stage=Stage.RELEVANCE, max_tokens=1, validate=read_answer,
                              truncation_ok=True,
                              attempts=min(ATTEMPTS, llm.settings.llm.max_retries + 1))
