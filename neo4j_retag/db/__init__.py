"""Neo4j access: every statement is a parameterised file in `cypher/`, loaded by name."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from . import load_driver  # noqa: F401 - first: the driver, without pandas

# isort: split
from neo4j import Driver, GraphDatabase, Query, Session
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConnectionAcquisitionTimeoutError,
    Neo4jError,
    ServiceUnavailable,
)

from ..config import Settings
from ..errors import ConfigError, DatabaseUnreachable, QueryTimeout
from .breaker import Breaker, reachable
from .memory import MEMORY_CAP, RAISE_IT, TransactionTooLarge, too_large
from .pool import FAST_HOLD, FAST_RETRY, driver_options
from .retry import retrying

Record = dict[str, Any]  # one row of a Cypher result, or one row of an UNWIND $rows write
log = logging.getLogger(__name__)
T = TypeVar("T")


@lru_cache(maxsize=256)
def _load(cypher_dir: Path, name: str) -> str:
    path = cypher_dir / f"{name}.cypher"
    if not path.exists():
        raise ConfigError(f"no Cypher statement {path}")
    return path.read_text()


def statements(text: str) -> list[str]:
    """Split a script on `;` at line ends, dropping `//` comment-only parts."""
    parts = re.split(r";\s*$", text, flags=re.M)
    out = []
    for part in parts:
        body = "\n".join(ln for ln in part.splitlines() if not ln.strip().startswith("//"))
        if body.strip():
            out.append(body.strip())
    return out


class Graph:
    """A driver bound to one database, running named Cypher files.

    ``fail_fast`` (for `serve`): short connect and retry times (at most FAST_RETRY s, not
    NEO4J_RETRY_SECONDS) and a :class:`Breaker`, so that while the server is down each call
    fails within seconds, then at once, and works again as soon as it is back; and each
    :meth:`run` and :meth:`write` (what questions and routes use; not the scripts) gets
    SERVE_QUERY_TIMEOUT as its transaction timeout, so that a query that hangs
    (a lock, a runaway plan) ends with QueryTimeout instead of holding its thread for good.

    Raises ConfigError (naming NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD) when the server
    is unreachable or rejects the credentials.
    """

    def __init__(self, settings: Settings, *, fail_fast: bool = False) -> None:
        self.settings = settings
        self.database = settings.neo4j.database
        self.breaker = Breaker(FAST_HOLD) if fail_fast else None
        # Neo4j enforces it on its side: the driver has no read timeout of its own
        self.query_timeout = settings.serve.query_timeout if fail_fast else None
        retry = settings.neo4j.retry_seconds
        # seconds a call is tried again after its connection was lost (retry.retrying)
        self.retry_window = min(retry, FAST_RETRY) if fail_fast else retry
        # set once a call spent its window: every later call fails at once (a CLI run ends
        # after one window, not one per call still to come)
        self.gone: str | None = None
        auth = settings.neo4j_auth()
        try:
            self.driver: Driver = GraphDatabase.driver(
                settings.neo4j.bolt_uri, auth=auth, notifications_min_severity="OFF",
                **driver_options(settings, fail_fast))
            self.driver.verify_connectivity()
        except AuthError as err:
            raise ConfigError(
                f"Neo4j at {settings.neo4j.bolt_uri} rejected the credentials: "
                "check NEO4J_USERNAME / NEO4J_PASSWORD"
            ) from err
        except (ServiceUnavailable, ConnectionAcquisitionTimeoutError, ValueError,
                OSError) as err:
            hint = "run `neo4j-retag neo4j start`" if settings.neo4j.local else "check NEO4J_URI"
            raise ConfigError(f"cannot reach Neo4j at {settings.neo4j.bolt_uri}: {hint}") from err

    def close(self) -> None:
        self.driver.close()

    def _reachable(self) -> AbstractContextManager[None]:
        # the server went away and the driver's retries are spent: one error a user reads
        return reachable(self.settings.neo4j.bolt_uri, self.breaker)

    @contextmanager
    def _bounded(self, name: str) -> Iterator[None]:
        """Around a query given ``query_timeout``: Neo4j's timeout is one QueryTimeout line."""
        try:
            yield
        except ClientError as err:
            if "TransactionTimedOut" not in (err.code or ""):
                raise
            raise QueryTimeout(f"Neo4j stopped {name} after {self.query_timeout:g} s "
                               "(SERVE_QUERY_TIMEOUT)") from err

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cypher(self, name: str) -> str:
        return _load(self.settings.cypher_dir, name)

    def _call(self, name: str, work: Callable[[Session], T], what: str = "") -> T:
        """``work(session)`` on a new session, tried again on a lost connection for the retry
        window (:func:`retrying`: progress lines while it waits); Neo4j's transaction-memory
        error is TransactionTooLarge (``what``, else ``name``, names the statement) at once,
        never retried; a server still gone after the window is DatabaseUnreachable."""

        def once() -> T:
            with self.driver.session(database=self.database) as session:
                try:
                    return work(session)
                except Neo4jError as err:
                    if (big := too_large(err, what or f"the statement {name}")) is not None:
                        raise big from err
                    raise

        uri = self.settings.neo4j.bolt_uri
        if self.gone is not None:  # one window spent already: the run's end is not delayed
            raise DatabaseUnreachable(f"Neo4j at {uri} unreachable ({self.gone})")
        try:
            with self._reachable(), self._bounded(name):
                return retrying(once, what=name, window=self.retry_window, uri=uri)
        except DatabaseUnreachable:
            if self.breaker is None:  # serve's breaker tries again by itself
                self.gone = f"gone for {self.retry_window:g} s (NEO4J_RETRY_SECONDS)"
            raise

    def run(self, name: str, /, **params: Any) -> list[Record]:
        """Run ``cypher/<name>.cypher`` with ``params`` in one transaction; rows as dicts.
        Retried on a lost connection (see :meth:`_call`)."""
        query = self.cypher(name)

        def work(session: Session) -> list[Record]:
            with session.begin_transaction(timeout=self.query_timeout) as tx:
                rows = [r.data() for r in tx.run(query, params)]
                tx.commit()
            return rows

        return self._call(name, work)

    def run_paged(self, name: str, key: str, values: list[Any], /, **params: Any
                  ) -> list[Record]:
        """:meth:`run` with ``params[key] = values``; a read over Neo4j's transaction memory
        is run again on each half of ``values`` (rows of both, in order); raises
        TransactionTooLarge (one line naming the value) when one value alone is over it."""
        try:
            return self.run(name, **params, **{key: values})
        except TransactionTooLarge:
            if len(values) <= 1:
                raise
            log.warning("%s: %d %s over Neo4j's transaction memory (%s): read in halves",
                        name, len(values), key, MEMORY_CAP)
            half = len(values) // 2
            return (self.run_paged(name, key, values[:half], **params)
                    + self.run_paged(name, key, values[half:], **params))

    def run_script(self, name: str, /, **params: Any) -> None:
        """Run each statement of a multi-statement file (schema, clean-ups) in order, each in
        a transaction of its own (retried alone on a lost connection)."""
        for stmt in statements(self.cypher(name)):
            self._call(name, lambda s, stmt=stmt: s.run(Query(stmt), params).consume())

    def run_batched(self, name: str, /, **params: Any) -> dict[str, int]:
        """Each statement of a file that writes in ``CALL {...} IN TRANSACTIONS OF $batch
        ROWS`` (auto-commit), ``batch`` WRITE_BATCH_SIZE. A batch over Neo4j's transaction
        memory: the statement again with half as many rows per transaction (the batches
        committed stay: every such file is idempotent), down to one row; raises
        TransactionTooLarge (one line) when one row alone is over it. Returns the summed
        update counters (``nodes_deleted``, ...)."""
        totals: dict[str, int] = {}
        for stmt in statements(self.cypher(name)):
            batch = first = self.settings.neo4j.write_batch_size
            while True:
                try:
                    counters = self._call(name, lambda s, stmt=stmt, b=batch: s.run(
                        Query(stmt), {**params, "batch": b}).consume().counters,
                        f"one row of {name}" if batch == 1 else "")
                    break
                except TransactionTooLarge:
                    if batch == 1:
                        raise
                    batch //= 2
            if batch < first:
                log.warning("%s: %d rows per transaction were over Neo4j's transaction memory "
                            "(%s): written %d at a time", name, first, MEMORY_CAP, batch)
            _add(totals, counters)
        return totals

    def run_script_tx(self, name: str, /, **params: Any) -> dict[str, int]:
        """Every statement of a multi-statement file in ONE write transaction (all or
        nothing); returns the summed update counters (``nodes_deleted``, ...)."""

        def work(session: Session) -> dict[str, int]:
            totals: dict[str, int] = {}  # a transaction tried again counts once
            with session.begin_transaction(timeout=self.query_timeout) as tx:
                for stmt in statements(self.cypher(name)):
                    _add(totals, tx.run(stmt, params).consume().counters)
                tx.commit()
            return totals

        return self._call(name, work)

    def write(self, name: str, rows: Iterable[Record], /, **params: Any) -> int:
        """``UNWIND $rows`` in batches of ``write_batch_size``; returns rows written. A batch
        over Neo4j's transaction memory is split in halves and written again (logged);
        raises TransactionTooLarge (one line) when one row alone is over it."""
        n = 0
        for batch in _batches(rows, self.settings.neo4j.write_batch_size):
            n += self._write_split(name, batch, params)
        return n

    def _write_split(self, name: str, rows: list[Record], params: Record) -> int:
        try:
            self.write_tx([(name, {**params, "rows": rows})],
                          f"one row of {name}" if len(rows) == 1 else "")
        except TransactionTooLarge:
            if len(rows) == 1:
                raise
            log.warning("%s: %d rows over Neo4j's transaction memory (%s): written in halves",
                        name, len(rows), MEMORY_CAP)
            half = len(rows) // 2
            return (self._write_split(name, rows[:half], params)
                    + self._write_split(name, rows[half:], params))
        return len(rows)

    def write_tx(self, parts: list[tuple[str, Record]], what: str = "") -> None:
        """Several named statements in one transaction: all or nothing (crash-safe merges).
        Tried again on a lost connection, even when the commit's answer was lost (every write
        file is idempotent); raises TransactionTooLarge (``what`` names the write) over the
        transaction memory, at once."""
        what = what or f"a write of {parts[0][0]}"

        def work(session: Session) -> None:
            # unmanaged: the memory error (raised by a statement or at commit) is a transient
            # error the driver's managed retries would repeat for the whole window, to no avail
            with session.begin_transaction(timeout=self.query_timeout) as tx:
                for name, params in parts:
                    tx.run(self.cypher(name), params).consume()
                tx.commit()

        self._call(parts[0][0], work, what)

    def ensure_schema(self) -> None:
        """Constraints and indexes (idempotent); waits for indexes to come online. One query
        when they are all there and online already (every command but the first)."""
        wanted = set(re.findall(r"CREATE (?:CONSTRAINT|(?:FULLTEXT )?INDEX) (\w+) IF NOT EXISTS",
                                self.cypher("db/schema")))
        online = {r["name"] for r in self.run("db/schema_state") if r["state"] == "ONLINE"}
        if wanted <= online:
            return
        # one transaction per statement: two processes creating the schema of a fresh
        # database at once deadlock, and a deadlock is tried again (retrying, logged)
        for stmt in statements(self.cypher("db/schema")):
            self._call("db/schema", lambda s, stmt=stmt: _create_rule(s, stmt))
        self.run("db/await_indexes")


def _create_rule(session: Session, stmt: str) -> None:
    try:
        session.run(Query(stmt)).consume()
    except ClientError as err:
        # IF NOT EXISTS races: the other process created the same rule between our check and
        # our commit; it exists, which is all we want
        if err.code != "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists":
            raise
        log.debug("schema rule created by another process: %s", stmt[:80])


def _add(totals: dict[str, int], counters: object) -> None:
    for key, value in vars(counters).items():
        if isinstance(value, int) and not isinstance(value, bool):
            totals[key] = totals.get(key, 0) + value


def _batches(rows: Iterable[Record], size: int) -> Iterator[list[Record]]:
    batch: list[Record] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["MEMORY_CAP", "RAISE_IT", "Graph", "Record", "TransactionTooLarge", "statements"]
