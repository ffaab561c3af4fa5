"""`neo4j-retag serve`: one long-lived process answering over HTTP (FastAPI, streaming),
MCP (streamable HTTP and stdio) and a page at ``/``; :mod:`.answer` is the answer function
the CLI's `ask --json`, the HTTP API and MCP share, so all three give the same JSON."""
