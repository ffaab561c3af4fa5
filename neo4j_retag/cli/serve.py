"""CLI: `serve` - one long-lived process answering over HTTP, MCP and a page."""

from __future__ import annotations

import click

from .common import Ctx, friendly


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="any other than loopback needs SERVE_API_KEY")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True)
@click.option("--mcp-stdio", is_flag=True, help="MCP on stdin/stdout instead of HTTP (what a "
              "desktop agent launches)")
@click.option("--allow-writes", is_flag=True, help="allow POST /ingest (under "
              "SERVE_INGEST_ROOT), DELETE /documents and MCP's write tools")
@click.option("--ssl-certfile", type=click.Path(exists=True, dir_okay=False),
              help="serve HTTPS with this certificate (PEM; uvicorn's TLS), with --ssl-keyfile")
@click.option("--ssl-keyfile", type=click.Path(exists=True, dir_okay=False),
              help="the certificate's private key (PEM)")
@click.pass_obj
@friendly
def serve(obj: Ctx, host: str, port: int, mcp_stdio: bool, allow_writes: bool,
          ssl_certfile: str | None, ssl_keyfile: str | None) -> None:
    """Serve the corpus: HTTP API (POST /ask, /ask/stream; OpenAPI at /docs), MCP on /mcp
    (or --mcp-stdio), and a page at / to ask from. Binds 127.0.0.1 unless told otherwise;
    read-only unless --allow-writes; at most LLM_CONCURRENCY questions at once."""
    from ..query.registry import check_settings
    from ..serve.run import serve as run
    if bool(ssl_certfile) != bool(ssl_keyfile):
        raise click.UsageError("--ssl-certfile and --ssl-keyfile go together")
    check_settings(obj.settings)  # every method's own: one out of bounds is exit 2 now
    run(obj.settings, host=host, port=port, mcp_stdio=mcp_stdio, allow_writes=allow_writes,
        ssl=(ssl_certfile, ssl_keyfile) if ssl_certfile and ssl_keyfile else None)
