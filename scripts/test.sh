#!/usr/bin/env bash
# One command for the whole test suite: install, start the services the tests need (a test
# Neo4j on 7688/7475 with its own data folder, and the local LLM), run pytest, stop them.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -m "not llm"`).
set -uo pipefail
cd "$(dirname "$0")/.."
# the tests' local LLM is SmolLM2-135M (fast; the default Qwen is for answers, measured in the
# benchmarks): setup then fetches no Qwen, and the LLM server below serves SmolLM2
export LLM_MODEL=smollm2
bash scripts/setup.sh || exit 1
R=.venv/bin/neo4j-retag
HOME_DIR=${NEO4J_RETAG_HOME:-$HOME/.cache/neo4j-retag}
test_neo4j() { NEO4J_BOLT_PORT=7688 NEO4J_HTTP_PORT=7475 NEO4J_DATA="$HOME_DIR/neo4j-data-test" \
  NEO4J_HEAP=1g NEO4J_PAGECACHE=256m $R "$@"; }
llm_was_running=$($R llm status 2>/dev/null | grep -q '"running": true' && echo 1 || echo 0)
test_neo4j neo4j start >/dev/null || exit 1
$R llm start >/dev/null || exit 1
RETAG_TEST_REQUIRE=1 .venv/bin/pytest --durations=25 "$@"
rc=$?
test_neo4j neo4j stop >/dev/null
[ "$llm_was_running" = 1 ] || $R llm stop >/dev/null
if [ "$rc" = 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi
exit $rc
