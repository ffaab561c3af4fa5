"""The `neo4j-retag` command line: services, ingest, topics, documents, ask, eval, stats, doctor,
interop.

Each command parses its options, makes one library call and prints the result; the commands
live beside this module, one file per side (services, index, query, interop).
"""

from __future__ import annotations

import logging

import click

from .common import Ctx
from .documents import documents, reset
from .index import ingest, stats, topics
from .interop import browse, export, import_group
from .query import ask, eval_cmd
from .serve import serve
from .services import config_cmd, doctor, down, embed, llm, neo4j, up


@click.group()
@click.option("--debug", is_flag=True, help="show full tracebacks")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """GraphRAG + ReTAG global sensemaking over a corpus, on Neo4j + Graph Data Science."""
    ctx.obj = Ctx(debug)
    # fallbacks log a warning to stderr (and land in traces); --debug shows every record
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


for _cmd in (config_cmd, neo4j, llm, embed, up, down, doctor, ingest, stats, topics, documents,
             reset, ask, eval_cmd, import_group, export, browse, serve):
    main.add_command(_cmd)

if __name__ == "__main__":
    main()
