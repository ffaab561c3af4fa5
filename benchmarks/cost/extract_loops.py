"""Benchmark (not a test): what a looping extraction costs. The ingest's extraction (prompt,
schema, claims as configured, no gleaning) of every text unit of a folder, one at a time,
against any OpenAI-compatible endpoint, LLM cache off: per unit the seconds, calls, prompt /
completion tokens, the reply faults (``loop``, ``truncated`` ...) and the entities and
relationships it gave, or why it failed. Run it on two commits to compare how the LLM layer
retries (a reply repeating one item up to the cap: more room, or a frequency penalty).

    .venv/bin/python -m benchmarks.cost.extract_loops --local --corpus examples/sample-corpus \\
        --name smollm2

Writes bench-results/extract-loops-<name>.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import neo4j_retag
from benchmarks.common import RESULTS, endpoint_args, endpoint_values, machine, with_llm
from neo4j_retag.config import Settings
from neo4j_retag.errors import LLMError
from neo4j_retag.index.documents import Document, read_path
from neo4j_retag.index.extract import extract_text_unit
from neo4j_retag.index.pipeline import text_units
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import TextUnit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--name", required=True)
    endpoint_args(ap)
    args = ap.parse_args()
    settings = Settings(**endpoint_values(args))
    units = [u for d in read_path(args.corpus) if isinstance(d, Document)
             for u in text_units(d, settings)]
    rows: list[dict[str, Any]] = []
    for unit in units:
        usage = Usage()
        start = time.perf_counter()
        row: dict[str, Any] = {"text_unit": unit.id}

        async def one(llm: LLM, unit: TextUnit = unit, row: dict[str, Any] = row) -> None:
            try:
                ex = await extract_text_unit(llm, settings, unit, glean=0,
                                             claims=settings.index.extract_claims)
                row.update(entities=len({e["key"] for e in ex.entities}),
                           relationships=len(ex.relationships))
            except LLMError as err:
                row["failed"] = str(err)[:300]

        with_llm(settings, usage, one)
        spent = usage.total
        row.update(seconds=round(time.perf_counter() - start, 1), calls=spent.calls,
                   prompt_tokens=spent.prompt_tokens,
                   completion_tokens=spent.completion_tokens, faults=dict(usage.faults))
        rows.append(row)
        print(row, flush=True)
    keys = ("seconds", "calls", "prompt_tokens", "completion_tokens", "entities",
            "relationships")
    out = {"corpus": str(args.corpus), "model": settings.llm.model,
           # the commit of the package measured (PYTHONPATH may name another checkout)
           "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], text=True,
                                    capture_output=True,
                                    cwd=Path(neo4j_retag.__file__).parent).stdout.strip(),
           "total": {k: round(sum(r.get(k, 0) for r in rows), 1) for k in keys}
           | {"failed": sum("failed" in r for r in rows),
              "faults": dict(sum((Counter(r["faults"]) for r in rows), Counter()))},
           "text_units": rows, "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"extract-loops-{args.name}.json"
    path.write_text(json.dumps(out, indent=2))
    print(out["total"], "\nwrote", path)


if __name__ == "__main__":
    main()
