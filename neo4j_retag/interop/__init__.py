"""Other tools' indexes in and out of the graph (today: Microsoft GraphRAG, in `graphrag/`)."""
