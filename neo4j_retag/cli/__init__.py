"""The command line (`neo4j-retag`): `main` is the click group the console script runs."""

from .main import main

__all__ = ["main"]
