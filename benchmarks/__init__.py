"""Benchmarks (not tests): measurements written as JSON to bench-results/, one package per
concern - ``cost`` (LLM calls and tokens, what an index costs), ``quality`` (answers scored:
nuggets, recall, ablations, output checks), ``speed`` (seconds: CLI, serve, ingest, Leiden,
scale, local model), ``faults`` (faulted runs that must converge) and ``inputs`` (document
readers). ``common`` is the shared set-up (fakellm, the benchmark Neo4j, ingest), ``runner``
the answer-producing benchmarks' per-answer saving and ``--resume``.

Run one from the checkout's root as a module: ``.venv/bin/python -m benchmarks.cost.llm_cost``
(docs/benchmarks.md lists them; docs/house.md says where a new one goes).
"""
