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
@click.pass_obj
@friendly
def serve(obj: Ctx, host: str, port: int, mcp_stdio: bool, allow_writes: bool) -> None:
    """Serve the corpus: HTTP API (POST /ask, /ask/stream; OpenAPI at /docs), MCP on /mcp
    (or --mcp-stdio), and a page at / to ask from. Binds 127.0.0.1 unless told otherwise;
    read-only unless --allow-writes; at most LLM_CONCURRENCY questions at once."""
    from ..serve.run import serve as run
    run(obj.settings, host=host, port=port, mcp_stdio=mcp_stdio, allow_writes=allow_writes)
