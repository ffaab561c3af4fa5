"""`python -m neo4j_retag.cli` = `neo4j-retag`."""

from .main import main

main()
