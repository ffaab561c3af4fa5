"""The one exception family of neo4j-retag: everything the CLI reports as a one-line error;
and an error recorded, not raised: `Failure` (an item that failed, retried by the next run)
and `error_text` (what a failed item keeps in the graph).

Anything else that escapes (``TypeError``, ``KeyError`` ...) is a programming error and keeps
its traceback.
"""

from __future__ import annotations

from pydantic import BaseModel


class RetagError(Exception):
    """Base of every error a user can act on; the message says what to fix."""


class ConfigError(RetagError):
    """A setting is wrong or a service is unreachable; the message names what to fix."""


class DatabaseUnreachable(ConfigError):
    """Neo4j went away during a run and stayed away for NEO4J_RETRY_SECONDS (db/retry.py)."""


class QueryTimeout(RetagError):
    """Neo4j stopped a query that ran longer than the transaction timeout given to it
    (`serve`: SERVE_QUERY_TIMEOUT); the message names the query and the limit."""


class InputError(RetagError):
    """Bad input from the user: a missing path, an unknown topic, method or mode."""


class NotFoundError(InputError):
    """A named item (document, report, text unit, job) that does not exist (HTTP 404)."""


class IntegrityError(RetagError):
    """Downloaded files that do not match their pinned size or SHA-256 (they are deleted)."""


class LevelError(RetagError):
    """The requested community level has no reports; the message names what to run."""


class LLMError(RetagError):
    """An LLM call failed after its retries, or its output could not be used.

    ``reason`` names the kind of failure for counts and `Failure` records: ``llm_error`` by
    default; the transport and reply checks set their own (``timeout``, ``truncated`` ...).
    """

    def __init__(self, message: str, reason: str = "llm_error") -> None:
        super().__init__(message)
        self.reason = reason


class LLMParseError(LLMError):
    """The completion arrived but is not valid JSON for the expected shape."""

    def __init__(self, message: str, raw: str, reason: str = "unparseable") -> None:
        super().__init__(message, reason)
        self.raw = raw


class Failure(BaseModel):
    """One item that failed, in every stage alike (a text unit, an element summary, a community
    report, a topic item, an eval answer or verdict): the next run retries it.

    ``item`` names it (a text unit id, ``"report 12"``, ``"topic reduce"`` ...), ``reason`` is a
    short code (an `LLMError` reason such as ``truncated`` or ``timeout``, ``llm_error``,
    ``incomplete``, or the exception's class name for anything else), ``error`` the message,
    cut to 300 characters.
    """

    item: str
    reason: str = "llm_error"
    error: str = ""

    @classmethod
    def of(cls, item: object, err: BaseException | str, reason: str | None = None) -> Failure:
        """The failure of ``item`` by ``err``: the reason is ``reason``, else the error's own
        ``reason`` field (`LLMError`; ``tx_memory`` for a write over Neo4j's transaction
        memory), else ``incomplete`` for a message, else its class."""
        if reason is None:
            if isinstance(err, str):
                reason = "incomplete"
            elif isinstance(err, RetagError) and isinstance(
                    own := getattr(err, "reason", None), str):
                reason = own
            else:
                reason = "llm_error" if isinstance(err, RetagError) else type(err).__name__
        return cls(item=str(item), reason=reason, error=str(err)[:300])

    def line(self) -> str:
        """The one line a user reads: ``item (reason): error``."""
        msg = self.error.removeprefix(f"{self.reason}: ")
        return f"{self.item} ({self.reason}): {msg}"


def error_text(err: BaseException) -> str:
    """What a failed item keeps in the graph (a text unit's ``error``, a community's
    ``report_error``): the error's message starting with its `Failure` reason, at most 2,000
    characters."""
    reason, msg = Failure.of("", err).reason, str(err)
    return (msg if msg.startswith(reason) else f"{reason}: {msg}")[:2000]
