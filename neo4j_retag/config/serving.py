"""The serve group of `Settings`: `neo4j-retag serve`'s HTTP API, MCP and page (`serve/`),
their keys, bounds and processes."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr

from .groups import Group, env


class ServeSettings(Group):
    """`neo4j-retag serve`: its HTTP API, MCP and page (`serve/`; the local servers are
    ``services``)."""

    api_key: SecretStr | None = env(
        "SERVE_API_KEY", None, "bearer token every request must carry; required off loopback")
    ingest_root: Path | None = env(
        "SERVE_INGEST_ROOT", None, "the only folder POST /ingest reads under (unset: no ingest)")
    queue_limit: int = Field(32, ge=0, validation_alias="SERVE_QUEUE_LIMIT",
                             description="questions that may wait for a slot before 429")
    max_body: int = Field(65_536, ge=1024, validation_alias="SERVE_MAX_BODY",
                          description="largest request body in bytes (413 beyond)")
    allowed_hosts: str = env(
        "SERVE_ALLOWED_HOSTS", "", "Host names (name or name:port, comma-separated; * any) "
        "accepted beside the bound loopback ones; others get 421")
    allowed_origins: str = env(
        "SERVE_ALLOWED_ORIGINS", "", "browser origins (scheme://name[:port], comma-separated) "
        "accepted beside the allowed hosts' own; others get 403")
    query_timeout: float = env("SERVE_QUERY_TIMEOUT", 60.0, "seconds one Neo4j query or write "
                               "of a question may run; Neo4j stops it beyond (504)", gt=0)
    processes: int = env("SERVE_PROCESSES", 2, "processes answering questions (LLM_CONCURRENCY "
                         "split among them); 0: the server's own (slows /health)", ge=0, le=64)
    cors: bool = env("SERVE_CORS", False, "CORS headers for SERVE_ALLOWED_ORIGINS (browser "
                     "apps on another origin); off: same-origin only")
    connections_per_client: int = env(
        "SERVE_CONNECTIONS_PER_CLIENT", 64, "connections one client address may hold open at "
        "once (of the 256 in all; 429 beyond); behind a proxy every client has its address",
        ge=1)
    mcp_sessions: int = env("SERVE_MCP_SESSIONS", 100, "MCP sessions open at once (HTTP; the "
                            "next one gets a 503)", ge=1)
    mcp_idle: float = env("SERVE_MCP_IDLE", 1800.0, "seconds an MCP session may go without a "
                          "request in flight before it is closed (its id then a 404)", gt=0,
                          allow_inf_nan=False)

    def key(self) -> str | None:
        """The API key, or None when unset or empty."""
        value = self.api_key.get_secret_value() if self.api_key else ""
        return value or None
