"""`neo4j-retag eval`: the evaluation of Edge et al. 2024 (§3.3) and ReTAG (§4) with the
claim-based metrics of Edge et al. 2025, a layer above the query side (it asks every method of
``query.METHODS``) and below the CLI.

``run`` (the run), ``questions`` (generated or read), ``judge`` (head to head), ``claims``
(claim extraction, ROUGE-L, clustering), ``report`` (scores, folder), ``charts`` (PNGs),
``records`` (the typed records), ``saved`` (answers and verdicts saved as they end, kept by
`--resume` and the benchmarks' runner). rouge-score, SciPy and matplotlib are the ``[eval]`` extra,
imported lazily: `neo4j-retag --help` stays fast and the rest works without them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import ConfigError

EXTRA = ("rouge_score", "scipy", "numpy", "matplotlib")  # what `pip install .[eval]` brings


def require(module: str) -> ModuleType:
    """``module`` imported. Raises ConfigError naming the extra when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ConfigError(f"`eval` needs {module.split('.')[0]}: "
                          "pip install 'neo4j-retag[eval]'") from err


def require_extra() -> None:
    """Check every library of the ``[eval]`` extra at once, before a long run starts."""
    for module in EXTRA:
        require(module)
