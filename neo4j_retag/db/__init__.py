"""Neo4j access: every statement is a parameterised file in `cypher/`, loaded by name."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any


def _import_driver() -> None:
    """Import the driver without pandas and pyarrow.

    When they are installed (graphdatascience needs pandas) the driver imports both at import
    time, only to accept their values as query parameters, which we never send: ~0.4 s on
    every command. They stay importable for everything else (``Result.to_df`` imports pandas
    itself when called).
    """
    blocked = [m for m in ("pandas", "pyarrow") if m not in sys.modules]
    for m in blocked:
        sys.modules[m] = None  # type: ignore[assignment] # makes `import m` raise ImportError
    try:
        import neo4j  # noqa: F401
    finally:
        for m in blocked:
            if sys.modules.get(m) is None:
                del sys.modules[m]


_import_driver()
from neo4j import Driver, GraphDatabase, Query  # noqa: E402
from neo4j.exceptions import (  # noqa: E402
    AuthError,
    ClientError,
    Neo4jError,
    ServiceUnavailable,
)

from ..config import Settings  # noqa: E402
from ..errors import ConfigError, QueryTimeout, RetagError  # noqa: E402
from .breaker import Breaker, reachable  # noqa: E402

Record = dict[str, Any]  # one row of a Cypher result, or one row of an UNWIND $rows write
log = logging.getLogger(__name__)
MEMORY_CAP = "db.memory.transaction.max"
# fail_fast (a server process): seconds to open a connection, to get one from the pool, to
# retry a transaction whose server went away, and between tries while it stays away
FAST_CONNECT, FAST_ACQUIRE, FAST_RETRY, FAST_HOLD = 2.0, 3.0, 2.0, 2.0


class TransactionTooLarge(RetagError):
    """A write over Neo4j's transaction memory (``MemoryPoolOutOfMemoryError``). Raised from
    inside the transaction function so that the driver does not retry it as a transient
    error: a smaller write is the only way on (``Graph.write`` splits its rows)."""


def _too_large(err: Neo4jError, what: str) -> TransactionTooLarge | None:
    if "MemoryPoolOutOfMemoryError" not in f"{err.code} {err}":
        return None
    return TransactionTooLarge(f"{what} is over Neo4j's transaction memory ({MEMORY_CAP}): "
                               "raise it in neo4j.conf")


class _TransientRetries(logging.Filter):
    """The driver retries transient errors (deadlocks between concurrent writers, a leader
    switch) and logs each retry as a WARNING holding the server's whole lock dump; we log one
    short INFO line instead (shown with --debug), and only a failure that outlasts the retries
    reaches the user."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "will be retried" not in str(record.msg):
            return True
        err = record.args[-1] if isinstance(record.args, tuple) and record.args else None
        code = str(getattr(err, "code", None) or type(err).__name__)
        log.info("Neo4j transient error %s: the driver retries the transaction",
                 code.rsplit(".", 1)[-1])
        return False


logging.getLogger("neo4j.session").addFilter(_TransientRetries())


class _LostConnections(logging.Filter):
    """A server that goes away makes the driver log each dead connection as an ERROR; the
    run's own error (DatabaseUnreachable, after the retries) says it once, so these are INFO
    lines (shown with --debug)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and "defunct connection" in record.getMessage():
            log.info("Neo4j connection lost: %s", record.getMessage()[:200])
            return False
        return True


for _name in ("neo4j.io", "neo4j.pool"):
    logging.getLogger(_name).addFilter(_LostConnections())


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
        timeouts = ({"connection_timeout": FAST_CONNECT, "connection_acquisition_timeout":
                     FAST_ACQUIRE, "max_transaction_retry_time": min(retry, FAST_RETRY)}
                    if fail_fast else {"connection_acquisition_timeout": max(5.0, retry),
                                       "max_transaction_retry_time": retry})
        auth = settings.neo4j_auth()
        try:
            self.driver: Driver = GraphDatabase.driver(
                settings.neo4j.bolt_uri, auth=auth, notifications_min_severity="OFF",
                **timeouts)
            self.driver.verify_connectivity()
        except AuthError as err:
            raise ConfigError(
                f"Neo4j at {settings.neo4j.bolt_uri} rejected the credentials: "
                "check NEO4J_USERNAME / NEO4J_PASSWORD"
            ) from err
        except (ServiceUnavailable, ValueError, OSError) as err:
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

    def run(self, name: str, /, **params: Any) -> list[Record]:
        """Run ``cypher/<name>.cypher`` with ``params``; rows as dicts."""
        with self._reachable(), self._bounded(name):
            records, _, _ = self.driver.execute_query(
                Query(self.cypher(name), timeout=self.query_timeout), params,
                database_=self.database)
        return [r.data() for r in records]

    def run_script(self, name: str, /, **params: Any) -> None:
        """Run each statement of a multi-statement file (schema, clean-ups) in order."""
        with self._reachable(), self.driver.session(database=self.database) as session:
            for stmt in statements(self.cypher(name)):
                session.run(Query(stmt), params).consume()

    def run_script_tx(self, name: str, /, **params: Any) -> dict[str, int]:
        """Every statement of a multi-statement file in ONE write transaction (all or
        nothing); returns the summed update counters (``nodes_deleted``, ...)."""
        totals: dict[str, int] = {}

        def work(tx: Any) -> None:
            totals.clear()  # a retried transaction counts once
            for stmt in statements(self.cypher(name)):
                counters = vars(tx.run(stmt, params).consume().counters)
                for key, value in counters.items():
                    if isinstance(value, int) and not isinstance(value, bool):
                        totals[key] = totals.get(key, 0) + value

        with self._reachable(), self.driver.session(database=self.database) as session:
            session.execute_write(work)
        return totals

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
        Raises TransactionTooLarge (``what`` names the write) over the transaction memory."""
        what = what or f"a write of {parts[0][0]}"

        def work(tx: Any) -> None:
            for name, params in parts:
                tx.run(self.cypher(name), params).consume()

        # first try unmanaged: the memory error (raised by a statement or at commit) is a
        # transient error the driver would retry for NEO4J retry seconds, to no avail
        with (self._reachable(), self._bounded(parts[0][0]),
              self.driver.session(database=self.database) as session):
            try:
                with session.begin_transaction(timeout=self.query_timeout) as tx:
                    work(tx)
                    tx.commit()
            except Neo4jError as err:
                if (big := _too_large(err, what)) is not None:
                    raise big from err
                if not err.is_retryable():
                    raise
                session.execute_write(work)  # a deadlock, a leader switch: the driver retries

    def ensure_schema(self) -> None:
        """Constraints and indexes (idempotent); waits for indexes to come online. One query
        when they are all there and online already (every command but the first)."""
        wanted = set(re.findall(r"CREATE (?:CONSTRAINT|(?:FULLTEXT )?INDEX) (\w+) IF NOT EXISTS",
                                self.cypher("db/schema")))
        online = {r["name"] for r in self.run("db/schema_state") if r["state"] == "ONLINE"}
        if wanted <= online:
            return
        # one managed transaction per statement: two processes creating the schema of a fresh
        # database at once deadlock, and the driver retries managed transactions (logged)
        with self.driver.session(database=self.database) as session:
            for stmt in statements(self.cypher("db/schema")):
                try:
                    session.execute_write(lambda tx, stmt=stmt: tx.run(stmt).consume())
                except ClientError as err:
                    # IF NOT EXISTS races: the other process created the same rule between
                    # our check and our commit; it exists, which is all we want
                    if err.code != "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists":
                        raise
                    log.debug("schema rule created by another process: %s", stmt[:80])
        self.run("db/await_indexes")


def _batches(rows: Iterable[Record], size: int) -> Iterator[list[Record]]:
    batch: list[Record] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["Graph", "Record", "TransactionTooLarge", "statements"]
