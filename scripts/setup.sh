#!/usr/bin/env bash
# setup.sh — make a fresh Debian 12 checkout ready to build, test and serve attnlab. Idempotent.
#
# Contract:
#   1. Installs the missing Debian packages (checked one by one with `dpkg -s`; `apt-get update` runs
#      only when something is missing). Runs apt as root, else through sudo. nodejs/npm are also
#      satisfied by `node`/`npm` commands from elsewhere (e.g. NodeSource's nodejs, which bundles npm).
#   2. Runs `npm ci` when node_modules/ is missing or older than package-lock.json.
#   3. Builds the WebAssembly core with `bash scripts/build-wasm.sh` (a no-op when up to date).
# Emscripten 3.1.6 needs NODE_PATH=/usr/share/nodejs (its optimizer requires Debian's acorn).
# EM_CACHE is never set: Debian's Emscripten cache is prebuilt and read-only.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# clang-14 + libclang-rt-14-dev: the libFuzzer targets (tests/fuzz/); g++'s ASan/UBSan runtimes come with g++.
# ninja-build: the build scripts configure new build directories with Ninja (scripts/lib/generator.sh).
# libstb-dev: stb_image (header-only), the CLI's PNG / JPEG reader (core/image/image_file.cpp).
PACKAGES=(cmake ninja-build g++ libeigen3-dev nlohmann-json3-dev libcli11-dev libgtest-dev googletest
          libbenchmark-dev emscripten chromium nodejs npm clang-14 libclang-rt-14-dev libonnx-testdata libstb-dev)

# --- 1. Debian packages ---------------------------------------------------------------------------
# nodejs and npm also count as present when another install provides the commands (NodeSource's
# nodejs bundles npm and conflicts with Debian's npm package).
declare -A PROVIDED_BY_COMMAND=([nodejs]=node [npm]=npm)
missing=()
for pkg in "${PACKAGES[@]}"; do
  if dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then continue; fi
  cmd="${PROVIDED_BY_COMMAND[$pkg]:-}"
  if [[ -n "$cmd" ]] && command -v "$cmd" >/dev/null; then continue; fi
  missing+=("$pkg")
done

if ((${#missing[@]})); then
  log "installing missing packages: ${missing[*]}"
  SUDO=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null || die "not root and sudo is not available; install as root: ${missing[*]}"
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" apt-get install -y -q "${missing[@]}"
else
  log "Debian packages present"
fi

# --- 2. npm dependencies --------------------------------------------------------------------------
# npm ci writes node_modules/.package-lock.json; its age tells whether the install is current.
if [[ ! -d node_modules || ! -e node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  log "npm ci"
  npm ci --no-audit --no-fund
  touch node_modules/.package-lock.json
else
  log "node_modules up to date"
fi

# --- 3. WebAssembly core --------------------------------------------------------------------------
export NODE_PATH=/usr/share/nodejs
[[ -f scripts/build-wasm.sh ]] || die "scripts/build-wasm.sh is missing; cannot build web/gen/attnlab_core.{mjs,wasm}"
bash scripts/build-wasm.sh
log "done"
