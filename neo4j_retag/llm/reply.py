"""What an LLM reply must be before anything uses it: the response envelope checked, the text
sanitised, harmless defects repaired, truncation and refusals told apart from answers.

Every way a reply can be unusable has a named reason (``ReplyFault.reason``); the LLM client
retries on these and counts them, so a run's summary says which faults it met and how often.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import json_repair

from .. import tokens
from ..checks.degenerate import Verdict
from ..errors import LLMParseError
from ..model import JSON
from ..text import clean
from .json_text import unclosed

# reasons a reply is unusable (retried, then the item fails with the last one)
NO_CHOICES = "no_choices"        # HTTP 200 without choices (an error object, or [])
NO_MESSAGE = "no_message"        # a choice without a message object
BAD_CONTENT = "bad_content"      # content that is not a string
EMPTY = "empty"                  # "" or only whitespace
TRUNCATED = "truncated"          # finish_reason "length", or JSON cut mid-string/bracket
UNPARSEABLE = "unparseable"      # no JSON object in a reply that must be one
INVALID = "invalid"              # JSON of the wrong shape
REFUSED = "refused"              # the model declined ("I'm sorry, I cannot ...")
CONTENT_FILTER = "content_filter"  # finish_reason "content_filter", or a 400 saying so
LOOP = "loop"                    # truncated while repeating itself: more room only repeats more
DEGENERATE = "degenerate"        # fluent text that answers nothing (llm.degenerate): repeated
                                 # lines, a looping phrase, the question echoed, ungrounded
# harmless defects are repaired and counted under their own names (think, fence, prose,
# chatter, nousage, sanitised, truncated_ok, tuples, over_items, over_length, extra_field)
# beside the reasons above: the reply is used

_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.S | re.I)
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.I)
_REFUSAL = re.compile(r"^\s*(i'?m sorry|i am sorry|sorry, |i can(?:no|')t|i cannot|i am unable|"
                      r"i'?m unable|as an ai\b)", re.I)
# closing chatter after a text answer ("I hope this helps! Let me know ...")
_CHATTER = re.compile(r"\n+\s*(i hope (?:this|that) helps|let me know if|feel free to ask|"
                      r"is there anything else)[^\n]*\s*$", re.I)


def filtered(*parts: Any) -> list[str]:
    """The categories a content filter flagged anywhere in ``parts`` (a choice, a body, an
    error body): Azure's ``content_filter_results`` / ``content_filter_result`` entries
    ``{"violence": {"filtered": true, "severity": "medium"}}``, as ``"violence (medium)"``;
    a ``category``/``categories`` field too (other gateways)."""
    out: list[str] = []

    def walk(v: Any, depth: int = 0) -> None:
        if depth > 6:
            return
        if isinstance(v, list):
            for x in v:
                walk(x, depth + 1)
        if not isinstance(v, dict):
            return
        for k, x in v.items():
            if isinstance(x, dict) and x.get("filtered") is True:
                sev = x.get("severity")
                out.append(f"{k} ({sev})" if isinstance(sev, str) and sev != "safe" else str(k))
            elif k in ("category", "categories") and isinstance(x, str | list):
                out.extend(str(c) for c in (x if isinstance(x, list) else [x]))
            else:
                walk(x, depth + 1)

    for p in parts:
        walk(p)
    return list(dict.fromkeys(out))


def blocked(categories: list[str]) -> str:
    """The one line for a content-filter refusal, naming what it flagged."""
    what = (f" (categor{'y' if len(categories) == 1 else 'ies'}: {', '.join(categories)})"
            if categories else " (no category given)")
    return f"the answer was blocked by the endpoint's content filter{what}"


# the line ``blocked`` writes, its brackets balanced: a category carries its own severity
# ("sexual (low)"), so the first ")" is no end
_BLOCKED = re.compile(r"the answer was blocked by the endpoint's content filter "
                      r"\(((?:[^()]|\([^()]*\))*)\)")


def blocked_line(err: BaseException | str) -> str:
    """The content-filter line an error's message (or a failed item's kept error) holds,
    with every category; the plain line when it holds none."""
    m = _BLOCKED.search(str(err))
    return m.group(0) if m else blocked([])


def blocked_categories(err: BaseException | str) -> list[str] | None:
    """The categories a content-filter line in ``err`` names ([] for none given), or None
    when it holds no such line: what `stats` counts blocked items by."""
    m = _BLOCKED.search(str(err))
    if m is None:
        return None
    inner = m.group(1)
    if not inner.startswith("categor"):
        return []
    names = inner.split(": ", 1)[1] if ": " in inner else ""
    return [c.strip() for c in re.split(r",\s+(?![^()]*\))", names) if c.strip()]


class ReplyFault(LLMParseError):
    """A reply that arrived but cannot be used; ``reason`` is one of the names above;
    ``verdict`` the answer check's rule and numbers when a check refused it."""

    def __init__(self, reason: str, message: str, raw: str = "",
                 verdict: Verdict | None = None) -> None:
        super().__init__(f"{reason}: {message}", raw, reason)
        self.detail = message
        self.verdict = verdict


@dataclass
class Reply:
    """A checked reply: sanitised text, finish reason, tokens (estimated when the endpoint
    sent no usage) and the harmless defects that were repaired."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    repairs: list[str] = field(default_factory=list)


def _usage(body: JSON, prompt: str, text: str, enc: str,
           repairs: list[str]) -> tuple[int, int]:
    u = body.get("usage")
    if isinstance(u, dict):
        for p, c in (("prompt_tokens", "completion_tokens"), ("input_tokens", "output_tokens")):
            if isinstance(u.get(p), int) and isinstance(u.get(c), int):
                return u[p], u[c]
    repairs.append("nousage")
    return tokens.count(prompt, enc), tokens.count(text, enc)


def read_envelope(body: Any, prompt: str, enc: str) -> Reply:
    """A chat-completion body (the decoded JSON) -> Reply. ``prompt`` is the request's text,
    for a token estimate when ``usage`` is missing. Raises ReplyFault (no_choices, no_message,
    bad_content, refused); truncation and emptiness are judged by the caller."""
    if not isinstance(body, dict):
        raise ReplyFault(NO_CHOICES, f"the body is a {type(body).__name__}, not an object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        err = body.get("error")
        why = (f"an error object: {err.get('message', err) if isinstance(err, dict) else err}"
               if err else "no choices" if choices is None else "an empty choices list")
        raise ReplyFault(NO_CHOICES, f"HTTP 200 with {why}")
    choice = choices[0] if isinstance(choices[0], dict) else {}
    msg = choice.get("message")
    if not isinstance(msg, dict):
        raise ReplyFault(NO_MESSAGE, "the first choice has no message")
    content = msg.get("content")
    refusal = msg.get("refusal")  # OpenAI's structured-output refusal, beside no content
    if isinstance(refusal, str) and refusal.strip() and not (content or "").strip():
        raise ReplyFault(REFUSED, f"the model refused: {refusal.strip()[:80]!r}", refusal)
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise ReplyFault(BAD_CONTENT, f"content is a {type(content).__name__}, not a string")
    finish = choice.get("finish_reason")
    finish = finish if isinstance(finish, str) else None
    if finish == "content_filter":
        raise ReplyFault(CONTENT_FILTER, blocked(filtered(choice, body.get(
            "prompt_filter_results"))), content)
    repairs: list[str] = []
    text = clean(content)
    if text != content:
        repairs.append("sanitised")
    if (m := _THINK.match(text)) is not None:
        text = text[m.end():]
        repairs.append("think")
    pt, ct = _usage(body, prompt, text, enc, repairs)
    return Reply(text=text, finish_reason=finish, prompt_tokens=pt, completion_tokens=ct,
                 repairs=repairs)


def sanitise_value(value: Any) -> Any:
    """Every string of a parsed JSON value (keys too) through ``model.clean`` (NFC, no lone
    surrogates or control characters): safe for any write."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [sanitise_value(v) for v in value]
    if isinstance(value, dict):
        return {clean(str(k)): sanitise_value(v) for k, v in value.items()}
    return value


def looping(text: str, n: int = 20, share: float = 0.3) -> bool:
    """True when ``text`` repeats itself: ``share`` or more of its word ``n``-grams occurred
    earlier in it. SmolLM2's looping reduce repeats 0.67 of its 20-grams; templated lists and
    tables (one bullet per entity, a shared phrase in every row) 0 (at n = 8 they reached 0.5,
    hence the long n)."""
    words = text.lower().split()
    grams = [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]
    return len(grams) >= 4 * n and 1 - len(set(grams)) / len(grams) >= share


def check_text(reply: Reply, *, truncation_ok: bool = False) -> str:
    """The text of a free-text reply: trailing chatter stripped; raises ReplyFault for an
    empty reply, a refusal, or a truncated one (unless ``truncation_ok``): ``loop`` when it
    was cut off repeating itself."""
    if reply.finish_reason == "length" and not truncation_ok and looping(reply.text):
        raise ReplyFault(LOOP, "the reply repeated itself up to the completion cap", reply.text)
    if reply.finish_reason == "length" and not truncation_ok:
        raise ReplyFault(TRUNCATED, "the reply hit the completion cap (finish_reason length)",
                         reply.text)
    if reply.finish_reason == "length":
        reply.repairs.append("truncated_ok")  # a short answer the caller capped on purpose
    text = reply.text.strip()
    if not text:
        raise ReplyFault(EMPTY, "the reply is empty")
    if _REFUSAL.match(text) and len(text) < 300:
        raise ReplyFault(REFUSED, f"the model declined: {text[:80]!r}", text)
    if (m := _CHATTER.search(text)) is not None and m.start() > 0:
        text = text[:m.start()].rstrip()
        reply.repairs.append("chatter")
    return text


def parse_json(text: str, repairs: list[str] | None = None) -> Any:
    """Tolerant JSON for harmless defects: code fences, prose around the object, trailing
    commas; strings sanitised. Raises ReplyFault ``truncated`` when the JSON is cut off (it
    would parse only by closing open strings or brackets) and ``unparseable`` when there is
    no JSON at all."""
    repairs = [] if repairs is None else repairs
    body = _THINK.sub("", text, count=1) if _THINK.match(text) else text
    fenced = _FENCE.sub("", body.strip())
    try:
        return sanitise_value(json.loads(fenced))
    except json.JSONDecodeError:
        pass
    start = min((i for i in (fenced.find("{"), fenced.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ReplyFault(UNPARSEABLE, "no JSON object in the reply", text)
    if unclosed(fenced[start:]):
        raise ReplyFault(TRUNCATED, "the JSON is cut off (an open string or bracket)", text)
    value = json_repair.loads(fenced[start:])
    if value in ("", None, [], {}) and fenced[start:].strip() not in ("{}", "[]"):
        raise ReplyFault(UNPARSEABLE, "no JSON object could be read from the reply", text)
    if "```" in body:
        repairs.append("fence")
    if fenced[:start].strip():
        repairs.append("prose")
    return sanitise_value(value)
