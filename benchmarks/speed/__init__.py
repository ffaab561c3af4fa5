"""Seconds: the CLI, serve under load, ingest and Leiden at scale, the local model's
tokens per second, the quickstart."""
