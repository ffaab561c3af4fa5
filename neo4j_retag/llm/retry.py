"""How an unusable reply is asked again: by what was wrong with it.

Greedy decoding gives the same reply to the same request, so asking again as it was helps
only for a one-off fault; a truncated reply gets more room, a loop or a degenerate answer a
repetition penalty, an unparseable or invalid one the error as a nudge, and a reply blocked by
a content filter is not asked again at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import tokens
from ..config import Settings
from ..prompts import fragment
from .endpoint import Capabilities
from .reply import (
    CONTENT_FILTER,
    DEGENERATE,
    INVALID,
    LOOP,
    TRUNCATED,
    UNPARSEABLE,
    ReplyFault,
)
from .schema import JSON

LOOP_PENALTY = 0.5  # frequency_penalty added per retry of a reply that looped
Messages = list[dict[str, str]]


@dataclass
class Retry:
    """The request to send next: ``msgs`` and ``params``, starting as given, changed by
    :meth:`after` each unusable reply."""

    messages: Messages
    params: JSON
    caps: Capabilities
    settings: Settings
    prose: bool = False
    msgs: Messages = field(init=False)
    bad: int = 0  # unparseable / invalid replies so far
    degenerate: int = 0

    def __post_init__(self) -> None:
        self.msgs = list(self.messages)

    def after(self, fault: ReplyFault) -> bool:
        """Change the next request for ``fault``; False when asking again is pointless (a
        content filter, a second degenerate answer, no more room for a truncated one)."""
        if fault.reason == CONTENT_FILTER:
            return False  # the same request meets the same filter: asking again only costs
        if fault.reason == DEGENERATE:
            # once more, with repeated tokens penalised (greedy decoding gives the same text
            # again otherwise); a second one is the model's answer
            self.degenerate += 1
            self.params = self.penalised()
            return self.degenerate < 2
        if fault.reason == LOOP and self.caps.get("frequency_penalty") is not False:
            # greedy decoding repeats the loop however much room it gets: penalise repeated
            # tokens instead (0.5 ends SmolLM2's reduce loops)
            self.params = self.penalised()
        elif fault.reason in (TRUNCATED, LOOP):  # a loop without the penalty: room
            room = self.more_room()
            if room <= self.params["max_tokens"]:
                return False  # no more room in the context: the item fails as truncated
            self.params = {**self.params, "max_tokens": room}
        elif fault.reason in (UNPARSEABLE, INVALID):
            # asked again as it was first (a one-off bad reply is the usual case, and the
            # answer is then the one the request gives); a second time, nudged
            self.bad += 1
            self.msgs = self.nudged(fault) if self.bad >= 2 else list(self.messages)
        return True

    def penalised(self) -> JSON:
        """The params with ``frequency_penalty`` raised by LOOP_PENALTY (at most 2), unless
        the endpoint refuses the parameter."""
        if self.caps.get("frequency_penalty") is False:
            return self.params
        penalty = min(2.0, self.params.get("frequency_penalty", 0.0) + LOOP_PENALTY)
        return {**self.params, "frequency_penalty": penalty}

    def more_room(self) -> int:
        """A larger completion cap after a truncation: doubled, within the context window."""
        cap = self.params["max_tokens"]
        used = tokens.count("\n".join(m["content"] for m in self.msgs), self.settings.encoding)
        return max(cap, min(2 * cap, self.settings.services.llm_ctx - used - 16))

    def nudged(self, fault: ReplyFault) -> Messages:
        """The messages with the validation error added to the system message (one is put
        first if there is none): chat templates take a system message only there."""
        nudge = fragment("llm/reply_not_prose" if self.prose else "llm/reply_invalid",
                         error=str(fault)[:300])
        messages = self.messages
        if messages and messages[0].get("role") == "system":
            first = {**messages[0], "content": messages[0]["content"] + "\n\n" + nudge}
            return [first, *messages[1:]]
        return [{"role": "system", "content": nudge}, *messages]
