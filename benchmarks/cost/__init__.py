"""LLM calls, prompt tokens and money: what an index and an answer cost, and what the
savings change (`ingest --estimate` checked against the real bill)."""
