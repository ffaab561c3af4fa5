"""The one exception family of neo4j-retag: everything the CLI reports as a one-line error.

Anything else that escapes (``TypeError``, ``KeyError`` ...) is a programming error and keeps
its traceback.
"""

from __future__ import annotations


class RetagError(Exception):
    """Base of every error a user can act on; the message says what to fix."""


class ConfigError(RetagError):
    """A setting is wrong or a service is unreachable; the message names what to fix."""


class DatabaseUnreachable(ConfigError):
    """Neo4j went away during a run and stayed away through the driver's retries."""


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
