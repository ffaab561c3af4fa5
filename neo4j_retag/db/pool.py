"""How the driver keeps its connections: timeouts, the liveness check, their lifetime.

A connection that sat idle in the pool may be gone without a word: a NAT, a firewall or a
cloud load balancer forgets an idle flow and drops its packets (no reset). Used as it is, a
query waits for the server's receive timeout (2 minutes) before the driver gives up on it.
So a connection idle for NEO4J_LIVENESS_CHECK seconds is checked (one round trip) before it
is used, and one that does not answer within NEO4J_CONNECT_TIMEOUT (the acquisition deadline,
which bounds the check as well as a new connection) is dropped and replaced: the next try
opens a new one (`retry.lost`), and `retry` says it in a warning. NEO4J_CONNECTION_LIFETIME
retires every connection after a while, below the idle and age limits of load balancers
(Aura closes connections idle for an hour).
"""

from __future__ import annotations

from typing import Any

from ..config import Settings

# fail_fast (a server process): seconds to open a connection, to get one from the pool, to
# retry a transaction whose server went away, and between tries while it stays away
FAST_CONNECT, FAST_ACQUIRE, FAST_RETRY, FAST_HOLD = 2.0, 3.0, 2.0, 2.0


def driver_options(settings: Settings, fail_fast: bool) -> dict[str, Any]:
    """The keyword arguments of ``GraphDatabase.driver`` for ``settings``."""
    n = settings.neo4j
    retry = n.retry_seconds
    connect = min(n.connect_timeout, FAST_ACQUIRE) if fail_fast else n.connect_timeout
    return {"connection_timeout": min(connect, FAST_CONNECT) if fail_fast else connect,
            "connection_acquisition_timeout": connect,
            "max_transaction_retry_time": min(retry, FAST_RETRY) if fail_fast else retry,
            "liveness_check_timeout": n.liveness_check,
            "max_connection_lifetime": n.connection_lifetime}


def describe(settings: Settings) -> str:
    """The connection settings in one line (`doctor`)."""
    n = settings.neo4j
    return (f"a connection idle {n.liveness_check:g} s is checked before use "
            f"(NEO4J_LIVENESS_CHECK), {n.connect_timeout:g} s to connect or answer "
            f"(NEO4J_CONNECT_TIMEOUT), replaced after {n.connection_lifetime:g} s "
            "(NEO4J_CONNECTION_LIFETIME)")


__all__ = ["FAST_ACQUIRE", "FAST_CONNECT", "FAST_HOLD", "FAST_RETRY", "describe",
           "driver_options"]
