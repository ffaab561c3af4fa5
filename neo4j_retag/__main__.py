"""`python -m neo4j_retag` = `neo4j-retag` (as `python -m neo4j_retag.cli`)."""

from .cli.main import main

main()
