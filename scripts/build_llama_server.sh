#!/usr/bin/env bash
# Build llama.cpp's own C++ server (llama-server) into .venv/bin, idempotently, from the llama.cpp
# source that the pinned llama-cpp-python sdist on PyPI vendors (MIT; the same llama.cpp the
# Python server would run), its sha256 checked. Only the llama-server target, statically linked,
# with the portable CPU flags (a -march=native build crashed on CPUs that advertise AMX):
# override with LLAMA_SERVER_CMAKE_ARGS. The local LLM runs on it by default (LLM_SERVER=auto;
# docs/benchmarks.md "Local model speed" has the measurement); exit non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.3.36
SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
FLAGS=${LLAMA_SERVER_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}
STAMP=.venv/bin/llama-server.build
want="llama-cpp-python==$VERSION $FLAGS"
if [ -x .venv/bin/llama-server ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "[setup] llama-server: fetching the llama.cpp source (llama-cpp-python $VERSION sdist, 77 MB)"
.venv/bin/python -m pip download -q --no-deps --no-binary :all: -d "$work" \
  "llama-cpp-python==$VERSION"
echo "$SHA256  $work/llama_cpp_python-$VERSION.tar.gz" | sha256sum -c --quiet -
tar xzf "$work/llama_cpp_python-$VERSION.tar.gz" -C "$work"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# shellcheck disable=SC2086 # FLAGS is a list of cmake options
cmake -S "$work/llama_cpp_python-$VERSION/vendor/llama.cpp" -B "$work/build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF $FLAGS \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF >"$work/configure.log"
echo "[setup] llama-server: compiling (~15 CPU-minutes: 7-8 min on 2 idle cores, longer on a busy machine)"
start=$(date +%s)
cmake --build "$work/build" --target llama-server -j "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
  >"$work/build.log" || { tail -30 "$work/build.log" >&2; exit 1; }
install -m 0755 "$work/build/bin/llama-server" .venv/bin/llama-server
echo "$want" >"$STAMP"
echo "[setup] llama-server: built in $(( $(date +%s) - start )) s -> .venv/bin/llama-server"
