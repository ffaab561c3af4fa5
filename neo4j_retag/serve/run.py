"""Start `serve`: the HTTP app under uvicorn (with MCP on /mcp), or MCP alone on stdin/stdout
(`--mcp-stdio`, what desktop agents launch)."""

from __future__ import annotations

import asyncio
import logging
import sys

from ..config import Settings
from ..errors import ConfigError
from .security import LOCAL_HOSTS, check_bind
from .service import Service

log = logging.getLogger(__name__)


def serve(settings: Settings, *, host: str = "127.0.0.1", port: int = 8765,
          mcp_stdio: bool = False, allow_writes: bool = False,
          ssl: tuple[str, str] | None = None) -> None:
    """Run until interrupted. Raises ConfigError for a non-local host without
    SERVE_API_KEY or with one under 32 characters (before anything starts; see
    ``security.check_bind``), or when the serve extra is not installed.
    ``ssl``: (certificate file, key file) for HTTPS (uvicorn's TLS)."""
    if not mcp_stdio:
        check_bind(host, settings.serve)
    try:
        import uvicorn
        from uvicorn.main import STARTUP_FAILURE

        from .conn import Limits, server_config
        from .http import create_app, with_guard
    except ImportError as err:
        raise ConfigError(f"`serve` needs the serve extra: pip install 'neo4j-retag[serve]' "
                          f"({err.name} is missing)") from err
    service = Service(settings, allow_writes=allow_writes)
    if mcp_stdio:
        asyncio.run(_stdio(service))
        return
    app = with_guard(create_app(service, host), service, host, port)
    log.warning("serving on %s://%s:%d (MCP on /mcp, API docs on /docs)%s",
                "https" if ssl else "http", host, port, ", writes allowed" if allow_writes else "")
    if host not in LOCAL_HOSTS and not settings.serve.allowed_hosts:
        log.warning("only the loopback names are allowed as Host: set SERVE_ALLOWED_HOSTS to "
                    "the name clients use (else 421)")
    tls = {"ssl_certfile": ssl[0], "ssl_keyfile": ssl[1]} if ssl else {}
    # the connection bounds (read timeouts, the cap) are serve.conn's
    server = uvicorn.Server(server_config(app, host, port, Limits.of(settings.serve),
                                          timeout_graceful_shutdown=5, **tls))
    server.run()
    if not server.started:  # as uvicorn.run: the port taken, or the service did not start
        sys.exit(STARTUP_FAILURE)


async def _stdio(service: Service) -> None:
    from .mcp import build_mcp
    await service.start()
    try:
        await build_mcp(service).run_stdio_async()
    finally:
        await service.stop()
