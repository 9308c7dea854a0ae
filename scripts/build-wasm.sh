#!/usr/bin/env bash
# Builds the core + wasm/bindings.cpp into web/gen/attnlab_core.{mjs,wasm} with Debian's Emscripten,
# only when a source is newer than the output (or with --force). All Emscripten flags live in CMakeLists.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
# The stamp is the .mjs: Emscripten writes it last, so a link that failed after writing the .wasm is redone.
out=web/gen/attnlab_core.mjs
if [ "${1:-}" != "--force" ] && [ -f "$out" ] && [ -f web/gen/attnlab_core.wasm ] && \
   [ -z "$(find core wasm CMakeLists.txt -newer "$out" -type f -print -quit)" ]; then
  exit 0
fi
command -v emcmake >/dev/null || { echo "build-wasm: emcmake not found (apt-get install emscripten)" >&2; exit 1; }
# Debian's emscripten 3.1.6 needs Debian's acorn on NODE_PATH; its cache is prebuilt (do not set EM_CACHE).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
mkdir -p web/gen
echo "build-wasm: building web/gen/attnlab_core.{mjs,wasm}" >&2
source scripts/lib/generator.sh
mapfile -t GEN < <(cmake_generator build-wasm)
emcmake cmake -S . -B build-wasm "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DATTNLAB_WASM_OUT="$PWD/web/gen" >/dev/null
cmake --build build-wasm -j"${ATTNLAB_JOBS:-$(nproc)}"
touch "$out"
