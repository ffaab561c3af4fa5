"""What an OpenAI-compatible endpoint accepts, learnt from its 400s and remembered per
endpoint + model in the cache folder; transport-fault names and the Retry-After-aware wait.

Endpoints differ: OpenAI's reasoning models want ``max_completion_tokens`` instead of
``max_tokens`` and refuse ``temperature`` and ``frequency_penalty``; llama.cpp refuses the
``json_schema`` form of ``response_format``. A 400 is read for *which* parameter was refused
(its ``param``, ``code`` or message) and only that one is adapted, once.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.request
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import openai
from tenacity import RetryCallState, wait_exponential_jitter

from ..config import Settings
from ..model import JSON
from ..stages import stage_of

log = logging.getLogger(__name__)
CAPS_FILE = "endpoint-capabilities.json"
WINDOW_KEY = "context_tokens"  # the capability: the window (tokens) learnt from a refusal
MAX_RETRY_AFTER = 60.0  # seconds: longer waits are capped (the call is retried anyway)
_backoff = wait_exponential_jitter(initial=1, max=30)
# request parameters an endpoint may refuse and the client can do without (reasoning models
# refuse temperature and frequency_penalty: dropped; some servers want max_completion_tokens)
DROPPABLE = ("temperature", "frequency_penalty")
ADAPTABLE = ("max_tokens", *DROPPABLE)


class Capabilities:
    """Per endpoint + model: ``max_tokens_param`` ("max_tokens" | "max_completion_tokens"),
    ``temperature`` / ``frequency_penalty`` (False when refused), ``json_mode`` (the
    response_format form that works), the window learnt; for an embeddings endpoint (its own
    key) the input window and batch learnt. In ``<cache dir>/endpoint-capabilities.json``,
    apart from the response cache: kept with LLM_CACHE=false too."""

    def __init__(self, settings: Settings, key: str | None = None) -> None:
        self.path: Path = settings.cache_dir / CAPS_FILE
        # the chat endpoint + model, or another endpoint's own key (the embeddings')
        self.key = key or f"{settings.llm.endpoint}|{settings.llm.model}"
        self.values: JSON = self._load().get(self.key, {})
        # the window the server says it runs with (llama.cpp's /props n_ctx), read once by
        # this client and kept for its run only (a restarted server may say another)
        self.served: int | None = None
        self.served_read = False

    def _load(self) -> JSON:
        try:
            data = json.loads(self.path.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def set(self, name: str, value: Any) -> None:
        self.values[name] = value
        try:
            data = self._load()
            data[self.key] = self.values
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(data, indent=2, sort_keys=True))
        except OSError as err:  # remembering is an optimisation: this run adapted anyway
            log.warning("could not remember endpoint capabilities in %s: %s", self.path, err)

    def adapt(self, refused: str) -> bool:
        """Adapt to a refused ``max_tokens`` / ``temperature`` / ``frequency_penalty``; False
        when already adapted."""
        if refused == "max_tokens" and self.get("max_tokens_param") != "max_completion_tokens":
            self.set("max_tokens_param", "max_completion_tokens")
            return True
        if refused in DROPPABLE and self.get(refused) is not False:
            self.set(refused, False)
            return True
        return False

    def refuse_json(self, mode: str, message: str, fallback: str) -> None:
        """Remember that the endpoint refused response_format ``mode`` (its ``message``) and
        that ``fallback`` is used instead; every refusal of the chain is kept."""
        refused = {**self.refused_json(), mode: " ".join(message.split())[:300]}
        self.set("json_mode_refused", refused)
        self.set("json_mode", fallback)

    def refused_json(self) -> dict[str, str]:
        """The response_format modes the endpoint refused, in order, with its message (a file
        of an older version kept one, as ``json_mode_why``: "json_schema refused: ...")."""
        refused = self.get("json_mode_refused")
        if isinstance(refused, dict):
            return {str(k): str(v) for k, v in refused.items()}
        why = str(self.get("json_mode_why") or "")
        mode, sep, message = why.partition(" refused: ")
        return {mode: message} if sep else {}

    def json_fallback(self) -> str | None:
        """The line saying JSON mode fell back (json_schema -> json_object -> off), what the
        endpoint said, and the setting that decides it; None when it did not fall back."""
        refused = self.refused_json()
        if not refused:
            return None
        said = "; then ".join(f"{m} ({why})" for m, why in refused.items())
        return (f"JSON mode fell back to {self.get('json_mode') or 'off'} (LLM_JSON_MODE=auto):"
                f" the endpoint refused response_format {said}. Remembered in {self.path} for "
                f"this endpoint and model: set LLM_JSON_MODE to choose the mode yourself, or "
                "remove that entry to try again")

    def describe(self, json_mode: bool = True) -> str:
        """One line for `doctor`: what this endpoint was found to accept (``json_mode``: with
        the JSON mode and why it fell back)."""
        return (f"completion cap as {self.get('max_tokens_param') or 'max_tokens'}, "
                f"temperature {'refused' if self.get('temperature') is False else 'accepted'}"
                + (", frequency_penalty refused" if self.get("frequency_penalty") is False
                   else "")
                + (f", response_format {self.get('json_mode')}"
                   if json_mode and self.get("json_mode") else "")
                + (f" ({fallback})" if json_mode and (fallback := self.json_fallback())
                   else ""))


# a prompt or input longer than the model's window, in any provider's words (OpenAI, vLLM,
# llama.cpp's chat and embedding servers, TEI)
CONTEXT_REFUSAL = re.compile(
    r"context_length_exceeded|maximum context length|exceeds? the available context size|"
    r"context size|context window|too large to process|physical batch size|maximum input "
    r"length|too many tokens|must have less than \d+ tokens|prompt is too long", re.I)
_WINDOW = (r"n_ctx\W{0,4}(\d+)", r"maximum context length is (\d+)",
           r"current batch size: (\d+)", r"less than (\d+) tokens",
           r"maximum input length\D{0,20}(\d+)", r"context (?:size|window)\D{0,20}(\d+)")
# a request with more inputs than an embeddings endpoint takes at once
BATCH_REFUSAL = re.compile(r"(?<!physical )batch size|too many inputs|number of inputs|"
                           r"at most \d+ inputs|input array", re.I)


def served_ctx(endpoint: str, timeout: float = 3.0) -> int | None:
    """The context (tokens per slot) a llama.cpp server at ``endpoint`` (its /v1 root) runs
    with, from ``GET /props``; None when the server does not say (another kind of endpoint,
    busy, down)."""
    url = endpoint.rstrip("/").removesuffix("/v1") + "/props"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            props = json.loads(resp.read())
        n = props.get("default_generation_settings", {}).get("n_ctx") or props.get("n_ctx")
    except (OSError, ValueError, AttributeError):
        return None
    return n if isinstance(n, int) and n > 0 else None


def budget_setting(stage: str) -> str:
    """The token budget setting(s) that size ``stage``'s prompt (``Stage.budget``; every
    answer and reduce step: REDUCE_CONTEXT_TOKENS), with LLM_MAX_TOKENS, the completion's
    share of the window. Raises ValueError for a name that is no stage."""
    return f"{stage_of(stage).budget} or LLM_MAX_TOKENS"


def window_fix(stage: str, local: bool, ctx: int) -> str:
    """What fixes a ``stage`` prompt over the window: LLM_CTX for the local server (``ctx``:
    its value), else the stage's budget setting."""
    return (f"raise LLM_CTX (now {ctx:,}; `neo4j-retag llm stop` and `llm start` to apply it) "
            f"or lower {budget_setting(stage)}" if local
            else f"lower {budget_setting(stage)} to fit the model's window")


def over_window(stage: str, local: bool, ctx: int, message: str) -> str:
    """The one line for a prompt the endpoint refused as over its window: the window it
    names, and the settings that fix it (``window_fix``)."""
    window = window_in(message)
    named = f" ({window} tokens)" if window else ""  # no comma: window_in reads it again
    fix = window_fix(stage, local, ctx)
    return (f"{stage}: the prompt is over the LLM's context window{named}: {fix} "
            f"(the endpoint said: {' '.join(message.split())[:300]})")


def context_refused(message: str) -> bool:
    """True when an endpoint's error ``message`` says the prompt (or an input) is longer
    than the model's window."""
    return bool(CONTEXT_REFUSAL.search(message))


def window_in(message: str) -> int | None:
    """The window (tokens) a context-length refusal names, or None when it names none."""
    for pattern in _WINDOW:
        if m := re.search(pattern, message, re.I):
            return int(m.group(1))
    return None


def batch_refused(message: str) -> bool:
    """True when an embeddings endpoint's error says the request held too many inputs."""
    return not context_refused(message) and bool(BATCH_REFUSAL.search(message))


def error_fields(err: openai.APIStatusError) -> tuple[str, str, str]:
    body = err.body if isinstance(err.body, dict) else {}
    e = body.get("error") if isinstance(body.get("error"), dict) else body
    return (str(e.get("param") or ""), str(e.get("code") or ""),
            str(e.get("message") or err.message or ""))


def refused_param(err: BaseException | None) -> str | None:
    """Which request parameter a 400/422 refused: "max_tokens", "temperature",
    "frequency_penalty", "response_format", or None (the request was refused for another reason)."""
    if not isinstance(err, openai.APIStatusError):
        return None
    param, code, message = error_fields(err)
    if not isinstance(err, openai.BadRequestError | openai.UnprocessableEntityError):
        # some servers answer an unsupported response_format with a 500
        if isinstance(err, openai.InternalServerError) and "response_format" in message:
            return "response_format"
        return None
    for name in (*ADAPTABLE, "response_format"):
        if param == name or name in code:
            return name
    for name in ADAPTABLE:
        if re.search(rf"\b{name}\b", message):
            return name
    if re.search(r"response_format|json_schema|json_object|\bschema\b|grammar", message, re.I):
        return "response_format"
    return None


def transport_reason(err: BaseException | None) -> str:
    """The name a retried transport fault is counted under."""
    if isinstance(err, openai.RateLimitError):
        return "http429"
    if isinstance(err, openai.InternalServerError):
        return "http5xx"
    if isinstance(err, openai.APITimeoutError):
        return "timeout"
    return "connection"


def retry_after(err: BaseException | None, cap: float | None = MAX_RETRY_AFTER
                ) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), at most ``cap`` (None:
    as sent); None if absent."""
    response = getattr(err, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
        except (TypeError, ValueError):
            return None
    seconds = max(0.0, seconds)
    return seconds if cap is None else min(cap, seconds)


def wait(state: RetryCallState) -> float:
    """tenacity wait: the server's Retry-After when it sent one, else exponential jitter."""
    err = state.outcome.exception() if state.outcome else None
    after = retry_after(err)
    return after if after is not None else _backoff(state)
