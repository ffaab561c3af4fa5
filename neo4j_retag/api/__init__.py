"""The library seam every front end calls: operations with typed requests and responses
(:mod:`.operations` holds their table), as Microsoft GraphRAG's ``graphrag/api``. The CLI, the
HTTP routes and the MCP tools call the same functions and give the same shapes."""
