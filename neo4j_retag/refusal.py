"""A reply the answer checks refused, kept in the trace so that a reader can judge the
refusal: the step, the rule, its numbers and (the first 500 characters of) the text.

Plain data, as ``errors.Failure`` is: the LLM client's checks make one from a refused reply
(``llm.reply.ReplyFault.verdict``), the query methods append it to ``Trace.refusals``.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

KEPT = 500  # characters of a refused text the trace keeps


class Refusal(BaseModel):
    """One refused reply: ``stage`` (answer, reduce, map, drift_reduce ...), ``rule`` (json,
    prompt_echo, prompt_header, repeated_lines, near_copies, looping_phrase,
    repeated_sentences, echo, bare_word, empty_items, template_subject, ungrounded),
    ``why`` (one line), ``numbers`` (the counts and shares the rule compared with its
    threshold) and ``text`` (the refused reply, cut to :data:`KEPT` characters)."""

    stage: str
    rule: str
    why: str
    numbers: dict[str, float] = Field(default_factory=dict)
    text: str = ""

    @classmethod
    def of(cls, stage: str, rule: str, why: str, numbers: dict[str, float] | None,
           text: str) -> Refusal:
        return cls(stage=stage, rule=rule, why=why, numbers=dict(numbers or {}),
                   text=text[:KEPT])

    def line(self) -> str:
        """``stage: why`` with the numbers, for `ask`'s one line per refusal."""
        nums = ", ".join(f"{k} {v:g}" for k, v in self.numbers.items())
        return f"{self.stage} refused ({self.rule}): {self.why}" + (f" [{nums}]" if nums else "")
