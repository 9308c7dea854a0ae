#!/usr/bin/env bash
# test.sh — `npm test`: setup, native build, CTest (GoogleTest), then the Node test runner over
# tests/node, tests/js and tests/e2e (those that exist). Every part runs even when an earlier test part
# fails; the script exits non-zero if any part failed and ends with a one-line-per-part summary.
# A failed setup or native build stops dependent parts (setup: everything; build: CTest).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

declare -a SUMMARY=()
FAILED=0
step() { printf '\n==== %s ====\n' "$*"; }
record() { # record NAME STATUS
  if [[ "$2" -eq 0 ]]; then SUMMARY+=("  ok    $1"); else SUMMARY+=("  FAIL  $1 (exit $2)"); FAILED=1; fi
}
finish() {
  printf '\n==== summary ====\n'
  printf '%s\n' "${SUMMARY[@]}"
  if ((FAILED)); then echo "npm test: FAILED"; exit 1; fi
  echo "npm test: all parts passed"
}

step "setup"
bash scripts/setup.sh; rc=$?
record "setup" $rc
((rc == 0)) || finish

step "native build"
JOBS="${ATTNLAB_JOBS:-2}"
{ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j"$JOBS"; }; rc=$?
record "native build" $rc

if ((rc == 0)); then
  step "ctest"
  ctest --test-dir build --output-on-failure; rc=$?
  record "ctest" $rc
else
  SUMMARY+=("  skip  ctest (native build failed)")
fi

dirs=()
for d in tests/node tests/js tests/e2e; do [[ -d "$d" ]] && dirs+=("$d/"); done
if ((${#dirs[@]})); then
  step "node --test ${dirs[*]}"
  node --test "${dirs[@]}"; rc=$?
  record "node --test" $rc
else
  SUMMARY+=("  skip  node --test (no tests/node, tests/js or tests/e2e)")
fi

finish
