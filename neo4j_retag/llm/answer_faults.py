"""Whether a free-text reply is an answer: the checks every answer's text gets (a fresh reply
and a cached one alike) - what a document's instructions made of it (JSON or a template, the
prompt echoed, a record or markup, an instruction obeyed), text that answers nothing, text with
no sentence - and the text of a reply checked as one (``free_text``)."""

from __future__ import annotations

import re

from ..checks.degenerate import Subject, Verdict, check
from ..checks.instructed import instructed
from ..checks.shape import misshaped, sentenceless
from ..text import strip_chatter
from .json_text import leading_value
from .reply import _FENCE, DEGENERATE, INVALID, Reply, ReplyFault, check_text


def answers_nothing(text: str, subject: Subject | None = None) -> Verdict | None:
    """Why ``text`` answers nothing (``degenerate.check`` on it without its chatter), or
    None: the check of a fresh reply and of a cached one alike."""
    return check(strip_chatter(text).text, subject)


def injected(text: str, system: str, subject: Subject | None) -> Verdict | None:
    """Why ``text`` is what a document's instructions made of an answer, or None: JSON or the
    prompt echoed (``not_prose``), not shaped as an answer (``checks.shape.misshaped``), or
    saying what its data gives only in an instruction to the model (``checks.instructed``)."""
    return (not_prose(text, system) or misshaped(text, subject)
            or instructed(strip_chatter(text).text, subject))


def refusal(text: str, system: str, subject: Subject | None = None) -> Verdict | None:
    """The Verdict of the first check an answer's free text gets (``answer_fault``) that
    refuses ``text``, or None: the answer-check benchmark's measure."""
    found = answer_fault(text, system, subject or Subject())
    return found[1] if found else None


def answer_fault(text: str, system: str, subject: Subject | None,
                 check: bool = True) -> tuple[str, Verdict] | None:
    """The fault an answer's free text is (its reason and Verdict), or None: ``invalid`` when
    it is what a document's instructions made of it (``injected``), ``degenerate`` when it
    answers nothing (not with ``check`` False: LLM_ANSWER_CHECK), ``invalid`` when it has no
    sentence and names nothing of the corpus (``sentenceless``, after the degenerate checks:
    a degenerate reply is asked again as one)."""
    if why := injected(text, system, subject):
        return INVALID, why
    if check and (why := answers_nothing(text, subject)):
        return DEGENERATE, why
    if subject and (why := sentenceless(strip_chatter(text).text, subject)):
        return INVALID, why
    return None


def free_text(reply: Reply, *, stage: str, system: str, prose: bool = False,
              subject: Subject | None = None, truncation_ok: bool = False,
              check: bool = True) -> str:
    """The text of a free-text reply (``check_text``); with ``prose`` (an answer) checked as
    one (``answer_fault``). Raises ReplyFault."""
    text = check_text(reply, truncation_ok=truncation_ok)
    if prose and (found := answer_fault(text, system, subject, check)):
        raise ReplyFault(found[0], f"{stage}: {found[1]}", text, found[1])
    return text


# a prompt's section header: "-Goal-", "-Target response length and format-"
_HEADER = re.compile(r"^-+([A-Za-z][^\n]*?)-+[ \t]*$", re.M)


def not_prose(text: str, prompt: str) -> Verdict | None:
    """Why ``text`` is no free-text answer, or None: a JSON object or array, or a Python
    dict, alone or followed by prose ("{...} That is all.": a document told the model to
    answer with a template) - rule ``json``; a piece of the prompt's own instructions or
    example echoed back (``prompt_echo``), or an answer that opens with one of the prompt's
    section headers (``prompt_header``). The caller raises it as ``invalid`` (retried, then
    the item fails)."""
    # after the lead-in is gone ("Answer: {...}"), and JSON with a harmless defect (a
    # trailing comma) still JSON
    body = _FENCE.sub("", strip_chatter(text).text.strip()).strip()
    if body and body[0] in "{[" and (value := leading_value(body)):
        return Verdict("json", "a JSON value where a free-text answer was asked for",
                       {"value_chars": len(value), "prose_after": len(body) - len(value)})
    norm = " ".join(body.casefold().split())
    if len(norm) >= 20 and norm in " ".join(prompt.casefold().split()):
        return Verdict("prompt_echo", "the prompt's own instructions or template echoed back, "
                       "not an answer", {"chars": len(norm)})
    first = next((ln for ln in body.splitlines() if ln.strip()), "")
    lead = " ".join(first.lstrip(" \t-#*>").casefold().split())
    for header in _HEADER.findall(prompt):
        h = " ".join(header.casefold().split())
        # "-Target response length and format: 10 sentences ..." (SmolLM2's reduce), not
        # "Goals of the council ...": the header then its own end
        if lead.startswith(h) and lead[len(h):len(h) + 1] in ("", ":", "-"):
            return Verdict("prompt_header", f"the prompt's section header {header!r} echoed "
                           "back, not an answer", {})
    return None


