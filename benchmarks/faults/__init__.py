"""Faulted runs (the LLM, the network to Neo4j, a small context window) that must end as a
clean run does."""
