"""Neo4j access: every statement is a parameterised file in `cypher/`, loaded by name."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable, Iterator
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
from neo4j.exceptions import AuthError, ClientError, ServiceUnavailable  # noqa: E402

from ..config import Settings  # noqa: E402
from ..errors import ConfigError  # noqa: E402

Record = dict[str, Any]  # one row of a Cypher result, or one row of an UNWIND $rows write
log = logging.getLogger(__name__)


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

    Raises ConfigError (naming NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD) when the server
    is unreachable or rejects the credentials.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.database = settings.neo4j.database
        auth = settings.neo4j_auth()
        try:
            self.driver: Driver = GraphDatabase.driver(
                settings.neo4j.bolt_uri, auth=auth, notifications_min_severity="OFF")
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

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cypher(self, name: str) -> str:
        return _load(self.settings.cypher_dir, name)

    def run(self, name: str, /, **params: Any) -> list[Record]:
        """Run ``cypher/<name>.cypher`` with ``params``; rows as dicts."""
        records, _, _ = self.driver.execute_query(
            Query(self.cypher(name)), params, database_=self.database
        )
        return [r.data() for r in records]

    def run_script(self, name: str, /, **params: Any) -> None:
        """Run each statement of a multi-statement file (schema, clean-ups) in order."""
        with self.driver.session(database=self.database) as session:
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

        with self.driver.session(database=self.database) as session:
            session.execute_write(work)
        return totals

    def write(self, name: str, rows: Iterable[Record], /, **params: Any) -> int:
        """``UNWIND $rows`` in batches of ``write_batch_size``; returns rows written."""
        n = 0
        for batch in _batches(rows, self.settings.neo4j.write_batch_size):
            self.run(name, rows=batch, **params)
            n += len(batch)
        return n

    def write_tx(self, parts: list[tuple[str, Record]]) -> None:
        """Several named statements in one transaction: all or nothing (crash-safe merges)."""
        def work(tx: Any) -> None:
            for name, params in parts:
                tx.run(self.cypher(name), params).consume()

        with self.driver.session(database=self.database) as session:
            session.execute_write(work)

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


__all__ = ["Graph", "Record", "statements"]
