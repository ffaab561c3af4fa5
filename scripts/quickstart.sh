#!/usr/bin/env bash
# One command: install, start Neo4j + GDS and the local LLM, check them, index the sample
# corpus, build topics and answer a global question by both methods.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
R=.venv/bin/neo4j-retag
$R up
$R doctor
$R ingest examples/sample-corpus
QUESTION=${QUESTION:-"What are the main themes of this corpus?"}
$R ask "$QUESTION" --method global
$R ask "$QUESTION"
$R browse || true
