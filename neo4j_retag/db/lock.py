"""One writing run at a time per database: a lock node, ``(:Meta {id: 'lock'})``.

Two processes writing one graph's index at once (ingest, topics build, a GraphRAG import,
`documents delete`, `reset`) would interleave community rebuilds (one deletes what the other
writes); the second one stops at once with a one-line InputError naming the
holder instead. The lock is re-entrant within a process (``ingest`` builds topics under it)
and released in ``finally``; a lock left by a killed run on this host (its pid is gone) is
taken over, so kill-and-resume keeps working. A lock left by a killed run on another host is
named in the error, with the Cypher that removes it.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import InputError
from . import Graph

log = logging.getLogger(__name__)
HOST = socket.gethostname()
OWNER = f"{HOST}:{os.getpid()}:{uuid.uuid4().hex[:8]}"  # this process
_depth: dict[str, int] = {}  # re-entrancy per database (uri + name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def acquire(graph: Graph, what: str) -> None:
    """Take the lock or raise InputError("another ... is running ...")."""
    key = f"{graph.settings.neo4j.bolt_uri}/{graph.database}"
    if _depth.get(key):
        _depth[key] += 1
        return
    pid = os.getpid()
    held = graph.run("db/lock_acquire", owner=OWNER, host=HOST, pid=pid, what=what)[0]
    if held["owner"] != OWNER:
        stale = held["host"] == HOST and not _alive(int(held["pid"] or 0))
        if not (stale and graph.run("db/lock_take_over", stale=held["owner"], owner=OWNER,
                                    host=HOST, pid=pid, what=what)):
            where = "this host" if held["host"] == HOST else f"host {held['host']}"
            raise InputError(
                f"another {held['what']} is running on this database (pid {held['pid']} on "
                f"{where}, since {held['since']}): wait for it to finish; if it was killed "
                "on another host, remove its lock with MATCH (l:Meta {id: 'lock'}) DELETE l")
    _depth[key] = 1


def release(graph: Graph) -> None:
    """Give the lock back (at the outermost level); never raises: a failed release must not
    mask the error that ended the run (the next run on this host takes a stale lock over)."""
    key = f"{graph.settings.neo4j.bolt_uri}/{graph.database}"
    _depth[key] = _depth.get(key, 1) - 1
    if _depth[key] <= 0:
        _depth.pop(key, None)
        try:
            graph.run("db/lock_release", owner=OWNER)
        except Exception as err:  # noqa: BLE001
            log.warning("could not release the index lock: %s", err)


@contextmanager
def index_lock(graph: Graph, what: str) -> Iterator[None]:
    """``with index_lock(graph, "reset"):`` the block runs under the database's lock
    (InputError when another run holds it)."""
    graph.ensure_schema()  # the meta_id constraint makes taking the lock atomic
    acquire(graph, what)
    try:
        yield
    finally:
        release(graph)


__all__ = ["acquire", "index_lock", "release"]
