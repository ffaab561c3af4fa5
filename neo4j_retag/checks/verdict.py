"""What a check of a model's free text is about and what it finds: the :class:`Subject` an
answer must be about, and the :class:`Verdict` of a rule that refuses it (checks.degenerate,
checks.degenerate_lists, llm.reply)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Subject:
    """What a free-text answer must be about: the ``question`` it answers and the ``context``
    it was given (the data only, never the prompt's instructions: a template word such as
    "importance score" must not count as grounding)."""

    question: str = ""
    context: str = ""


@dataclass(frozen=True)
class Verdict:
    """Why a reply is no answer: ``rule`` (repeated_lines, near_copies, repeated_labels,
    looping_phrase, repeated_sentences, non_answer, echo, bare_word, ungrounded; the reply
    checks add json, prompt_echo, prompt_header; checks.shape record, status_line,
    no_sentence, markup, opaque), ``why`` (one line) and ``numbers`` (the counts and shares
    the rule compared with its threshold)."""

    rule: str  # also empty_items, template_subject
    why: str
    numbers: dict[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.why
