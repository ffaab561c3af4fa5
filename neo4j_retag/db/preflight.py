"""What the database must offer before `ingest` spends a call, and what `doctor` shows, one
line each: the GDS plugin, the schema (constraints and full-text indexes), vector indexes.

Each check is a :class:`Finding`: ``problem`` is None when the check passed, else one line
saying what is wrong (never the server's raw error text alone) with ``fix`` naming the cure.
"""

from __future__ import annotations

from dataclasses import dataclass

from neo4j.exceptions import Neo4jError

from ..config import Settings
from ..errors import ConfigError, DatabaseUnreachable
from . import Graph, vectors
from .breaker import one_line

GDS_FIX = ("install the GDS plugin and allow `dbms.security.procedures.unrestricted=gds.*` "
           "(the local server does both: `neo4j-retag neo4j start`), or set GDS_MODE=sessions")


@dataclass
class Finding:
    """One check: ``name``, ``detail`` (what was found), ``problem`` (None: passed), ``fix``."""

    name: str
    detail: str
    problem: str | None = None
    fix: str = ""


def _why(err: Exception) -> str:
    text = " ".join(str(getattr(err, "message", None) or err).split())
    return text[:160] if isinstance(err, Neo4jError) else one_line(err)


def gds(graph: Graph, settings: Settings) -> Finding:
    """The GDS plugin answers ``gds.version()`` (GDS_MODE=sessions: its settings are set)."""
    name = "Graph Data Science"
    if settings.gds.mode == "sessions":  # GDS runs in Aura sessions, not in this database
        problem = settings.gds_sessions_problem()
        return Finding(name, f"GDS_MODE=sessions: Aura Graph Analytics session "
                       f"{settings.gds.session_name!r} ({settings.gds.session_memory})",
                       problem, "set the named setting (docs/configuration.md)")
    try:
        return Finding(name, f"GDS {graph.run('ops/doctor_gds')[0]['version']}")
    except DatabaseUnreachable:
        raise
    except (Neo4jError, ConfigError) as err:
        text = str(err)
        if "Unknown function 'gds." in text:
            problem = (f"the GDS plugin is not installed in Neo4j at "
                       f"{settings.neo4j.bolt_uri} (gds.version() is unknown)")
        elif "sandboxed" in text or "not allowed" in text or "unrestricted" in text:
            problem = "the GDS plugin is installed but its procedures are not allowed"
        else:
            problem = f"GDS does not answer: {_why(err)}"
        return Finding(name, "not usable", problem, GDS_FIX)


def schema(graph: Graph) -> Finding:
    """Constraints and full-text indexes in place (made if missing), the english analyzer."""
    name = "constraints + full-text indexes"
    try:
        graph.ensure_schema()
        english = graph.run("ops/doctor_fulltext")[0]["english"]
    except DatabaseUnreachable:
        raise
    except (Neo4jError, ConfigError) as err:
        return Finding(name, "not in place", f"the schema could not be made: {_why(err)}",
                       "the user needs schema rights (CREATE CONSTRAINT/INDEX)")
    if not english:
        return Finding(name, "no english analyzer", "Lucene's english analyzer is missing",
                       "a Neo4j 5 server with Lucene full-text indexes is needed")
    return Finding(name, "schema in place, english analyzer available")


def vector_indexes(graph: Graph, settings: Settings) -> Finding:
    """Vector indexes can be listed (Neo4j 5.13 or later) and the stored vectors are of
    EMBEDDING_MODEL (their dimension is checked once the endpoint gave one)."""
    name = "vector indexes"
    if not settings.embedding.enabled:
        return Finding(name, "EMBEDDINGS=false: none needed")
    try:
        st = vectors.state(graph)
    except DatabaseUnreachable:
        raise
    except (Neo4jError, ConfigError) as err:
        return Finding(name, "not available", f"vector indexes are not available: {_why(err)}",
                       "a Neo4j 5.13 or later server, or set EMBEDDINGS=false")
    if (why := vectors.mismatch(st, settings.embedding.model, None)) is not None:
        return Finding(name, "another model's vectors", why, "see the line")
    online = sum(i["state"] == "ONLINE" for i in st["indexes"])
    return Finding(name, f"{online} online, {vectors.stored(st)} vectors stored")


def require(graph: Graph, settings: Settings) -> None:
    """Every check above, before any paid call: raises ConfigError with the first problem
    and its fix (one line)."""
    for found in (gds(graph, settings), schema(graph), vector_indexes(graph, settings)):
        if found.problem is not None:
            raise ConfigError(f"{found.name}: {found.problem}; {found.fix}")


__all__ = ["Finding", "gds", "require", "schema", "vector_indexes"]
