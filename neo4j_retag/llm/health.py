"""Whether an endpoint is down, as one client's calls have met it, and the one line for an
HTTP error a user reads (its status, reason and message; a redirect's ``Location``).

A 502, 503 or 504 says the endpoint, not the request, is at fault: when LLM_MAX_RETRIES + 1
of them come in a row (from any calls, no reply between), or one asks to be retried later
than a call waits (``Retry-After`` over ``endpoint.MAX_RETRY_AFTER``; a 429 too), the
endpoint is down: the calls in flight stop retrying and every call fails at once with that
line, without a request, for ``DOWN_SECONDS`` (or the server's longer ``Retry-After``); a
long-lived client (`serve`) then asks again. Each call retrying on its own would pay its
attempts and back-off one after another for an endpoint that answers none of them."""

from __future__ import annotations

import time

import openai

from .endpoint import MAX_RETRY_AFTER, error_fields, retry_after

DOWN_STATUSES = (502, 503, 504)  # the endpoint (or its gateway) is unavailable
DOWN_SECONDS = 30.0  # how long a down endpoint is not asked, when it said no Retry-After
DOWN = "endpoint_down"  # the reason of a call failed without a request


class EndpointDown(Exception):  # noqa: N818 - a state, raised to stop a call
    """Raised in place of a request while the endpoint is known down."""


def answered(err: openai.APIStatusError) -> str:
    """``HTTP 503 Service Unavailable: <the body's message>``: what the endpoint answered."""
    reason = getattr(err.response, "reason_phrase", "") or ""
    if isinstance(reason, bytes):
        reason = reason.decode("latin-1")
    _, _, message = error_fields(err)
    if not isinstance(err.body, dict):  # a proxy's page: its text, not "Error code: ..."
        message = " ".join(str(err.response.text).split())
    message = message if message and not message.startswith("Error code:") else ""
    head = f"HTTP {err.status_code}{f' {reason}' if reason else ''}"
    return f"{head}: {message[:200]}" if message and message != reason else head


class Health:
    """One client's view of its endpoint (``what`` and ``url`` name it in the line)."""

    def __init__(self, what: str, url: str, attempts: int) -> None:
        self.what, self.url, self.attempts = what, url, attempts
        self.streak = 0  # 502/503/504 answers in a row, from any call
        self.until = 0.0  # time.monotonic() before which the endpoint is down
        self.line = ""

    def down(self) -> str | None:
        """The line saying the endpoint is down (the status it answered, for how long it is
        not asked), or None when it may be asked."""
        return self.line if self.line and time.monotonic() < self.until else None

    def check(self) -> None:
        """Raise EndpointDown (its line) while the endpoint is down."""
        if (line := self.down()) is not None:
            raise EndpointDown(line)

    def ok(self) -> None:
        """A reply came (any status but the ones that say the endpoint is unavailable)."""
        self.streak = 0

    def failed(self, err: BaseException) -> None:
        """Count ``err`` (a request's error); the endpoint is down when it completes a run of
        ``attempts`` unavailable answers or asks to be retried later than a call waits."""
        if not isinstance(err, openai.APIStatusError):
            return
        after = retry_after(err, cap=None)
        status = err.status_code
        if status not in DOWN_STATUSES:
            if status == 429 and after is not None and after > MAX_RETRY_AFTER:
                self._down(err, after, f"it asks to be retried after {after:.0f} s")
            else:
                self.streak = 0
            return
        self.streak += 1
        if after is not None and after > MAX_RETRY_AFTER:
            self._down(err, after, f"it asks to be retried after {after:.0f} s")
        elif self.streak >= self.attempts:
            # the server's Retry-After was for one retry, and they all failed
            self._down(err, max(after or 0.0, DOWN_SECONDS),
                       f"{self.streak} answers like it in a row")

    def _down(self, err: openai.APIStatusError, hold: float, why: str) -> None:
        self.until = time.monotonic() + hold
        self.line = (f"the {self.what} endpoint {self.url} is unavailable: it answered "
                     f"{answered(err)} ({why}); not asked again for {hold:.0f} s")
