"""The serve group of `Settings`: `neo4j-retag serve`'s HTTP API, MCP and page (`serve/`),
their keys, bounds and processes."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from .groups import Group, env


class ServeSettings(Group):
    """`neo4j-retag serve`: its HTTP API, MCP and page (`serve/`; the local servers are
    ``services``)."""

    api_key: SecretStr | None = env(
        "SERVE_API_KEY", None, "the bearer token every request must carry (`Authorization: "
        "Bearer ...`, compared in constant time, wrong ones throttled); required for any host "
        "but loopback, and there at least 32 characters of printable ASCII "
        "([Serve: security](serve.md#security-what-is-checked-what-to-put-in-front))")
    ingest_root: Path | None = env(
        "SERVE_INGEST_ROOT", None, "`serve --allow-writes`: the only folder `POST /ingest` and "
        "MCP's `ingest` read under; unset = no ingest over HTTP")
    queue_limit: int = env("SERVE_QUEUE_LIMIT", 32, "questions that may wait for a slot before "
                           "a 429", ge=0)
    max_body: int = env("SERVE_MAX_BODY", 65_536, "the largest request body in bytes (413 "
                        "beyond)", ge=1024)
    allowed_hosts: str = env(
        "SERVE_ALLOWED_HOSTS", "", "Host names (name or name:port, comma-separated; `*` any) "
        "accepted beside the bound loopback ones; others get 421 "
        "([Serve: security](serve.md#security-what-is-checked-what-to-put-in-front))")
    allowed_origins: str = env(
        "SERVE_ALLOWED_ORIGINS", "", "browser origins (scheme://name[:port], comma-separated) "
        "accepted beside the allowed hosts' own; others get 403")
    query_timeout: float = env("SERVE_QUERY_TIMEOUT", 60.0, "seconds one Neo4j query or write "
                               "of a question may run in `serve`; Neo4j stops it beyond (504, "
                               "one line)", gt=0)
    processes: int = env("SERVE_PROCESSES", 2, "processes that answer `serve`'s questions, "
                         "`LLM_CONCURRENCY` split among them (fewer when it is smaller); 0: the "
                         "server's own process ([Serve](serve.md))", ge=0, le=64)
    cors: bool = env("SERVE_CORS", False, "CORS headers for `SERVE_ALLOWED_ORIGINS` (browser "
                     "apps on another origin); off: same-origin only")
    connections_per_client: int = env(
        "SERVE_CONNECTIONS_PER_CLIENT", 64, "connections one client address (an IPv6 client's "
        "/64) may hold open at once, of the 256 in all; the next gets a 429 and is closed. "
        "Behind a reverse proxy every client has the proxy's address: raise it to 256 there",
        ge=1)
    mcp_sessions: int = env("SERVE_MCP_SESSIONS", 100, "MCP sessions open at once on `/mcp` "
                            "(the next `initialize` gets a 503)", ge=1)
    mcp_idle: float = env("SERVE_MCP_IDLE", 1800.0, "seconds an MCP session may go without a "
                          "request in flight before it is closed (its id then a 404; a "
                          "connected client's open stream counts as one) "
                          "([Serve: MCP sessions](serve.md#serve-http-mcp-and-a-page))", gt=0,
                          allow_inf_nan=False)

    def key(self) -> str | None:
        """The API key, or None when unset or empty."""
        value = self.api_key.get_secret_value() if self.api_key else ""
        return value or None
