"""The Neo4j driver, imported first by `db` (see :func:`_import_driver`)."""

from __future__ import annotations

import sys


def _import_driver() -> None:
    """Import the driver without pandas and pyarrow.

    When they are installed (graphdatascience needs pandas) the driver imports both at import
    time, only to accept their values as query parameters, which we never send: ~0.4 s on
    every command. They stay importable for everything else (``Result.to_df`` imports pandas
    itself when called).
    """
    blocked = [m for m in ("pandas", "pyarrow") if m not in sys.modules]
    for m in blocked:
        sys.modules[m] = None  # type: ignore[assignment] # makes `import m` raise ImportError
    try:
        import neo4j  # noqa: F401
    finally:
        for m in blocked:
            if sys.modules.get(m) is None:
                del sys.modules[m]


_import_driver()
