"""The query side: every method of `neo4j-retag ask`, one shape for all of them.

A method is one module that declares its contract (:class:`~.contract.Method`: name, help,
its options and its settings as typed models beside it, its trace part and how the CLI prints
it); :data:`METHODS` collects every declaration in this package (``registry``), and `ask`'s
CLI options, the HTTP request model, the MCP tool and the page are built from it
(``ask.ask_model``). :func:`answer` runs one, then optional refinement; ``ask.answer_question``
is the `ask` operation every front end calls. retag (ReTAG, the default), global (GraphRAG
global search), global-dynamic (global search with GraphRAG's dynamic community selection),
drift (GraphRAG's DRIFT search: primer, follow-ups by local search, reduce), and the baselines
of Edge et al. §3.2: local search, rag (BM25, vector or hybrid over text units) and ts
(map-reduce over text units); lazy (LazyGraphRAG: relevance tests under a budget, claims of
text units); and auto (one classification call picks retag/global or local). Method modules
share helpers through ``common``, never through each other (auto reaches the others through
the registry).
"""

from __future__ import annotations

from .ask import answer
from .contract import Method, MethodFn
from .registry import METHODS, SETTINGS, run_method

__all__ = ["METHODS", "SETTINGS", "Method", "MethodFn", "answer", "run_method"]
