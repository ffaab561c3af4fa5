#!/usr/bin/env bash
# One command: install, start Neo4j + GDS and the local LLM, check them, index the sample
# corpus, build topics and answer a global question by both methods.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
R=.venv/bin/neo4j-retag
$R up
$R doctor
# exit 3 = some items failed (listed in the summary; the next `ingest` retries them): the index
# is still usable, so the questions are answered anyway and the script ends with that 3 (the
# embedded 135M model can still fail an item the retries do not recover)
ingest_rc=0
$R ingest examples/sample-corpus || ingest_rc=$?
[ "$ingest_rc" = 0 ] || [ "$ingest_rc" = 3 ] || exit "$ingest_rc"
QUESTION=${QUESTION:-"What are the main themes of this corpus?"}
$R ask "$QUESTION" --method global
$R ask "$QUESTION"
$R browse || true
if [ "$ingest_rc" != 0 ]; then
  echo "note: ingest left failed items (see its summary): rerun \`$R ingest --resume\`" >&2
fi
exit "$ingest_rc"
