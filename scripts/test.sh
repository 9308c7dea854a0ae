#!/usr/bin/env bash
# test.sh — `npm test`: setup, native build, CTest (GoogleTest), the same GoogleTest suite built with
# AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, -O1; by default its outside-input suites, see ASAN_FILTER), a short libFuzzer run of every target in
# tests/fuzz/ (build-fuzz/, clang 14; ATTNLAB_FUZZ_SECONDS each, default 30) plus their committed crash
# inputs, then the Node test runner over tests/node, tests/js and tests/e2e (those that exist). Every part
# runs even when an earlier test part fails; the script exits non-zero if any part failed and ends with a
# one-line-per-part summary (with each part's seconds). A failed setup or build stops dependent parts.
# ATTNLAB_SANITIZE=0 / ATTNLAB_FUZZ_SECONDS=0 skip the sanitizer / fuzz parts (local runs only).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

declare -a SUMMARY=()
FAILED=0
T0=$SECONDS
step() { printf '\n==== %s ====\n' "$*"; T0=$SECONDS; }
record() { # record NAME STATUS  (the time since the last step)
  local t=$((SECONDS - T0))
  if [[ "$2" -eq 0 ]]; then SUMMARY+=("  ok    $1 (${t} s)"); else SUMMARY+=("  FAIL  $1 (exit $2, ${t} s)"); FAILED=1; fi
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

# ccache, where installed, makes rebuilds of unchanged sources cheap (a fresh machine builds without it).
# CCACHE_BASEDIR makes the cache independent of where the checkout lives (paths below it are hashed relative).
LAUNCHER=()
if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); export CCACHE_BASEDIR="$ROOT"; fi

step "native build"
JOBS="${ATTNLAB_JOBS:-2}"
{ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" && cmake --build build -j"$JOBS"; }; rc=$?
record "native build" $rc

if ((rc == 0)); then
  step "ctest"
  ctest --test-dir build -j"$JOBS" --output-on-failure; rc=$?
  record "ctest" $rc
else
  SUMMARY+=("  skip  ctest (native build failed)")
fi

# Under ASan + UBSan, by default the suites of the readers of outside bytes (safetensors, checkpoints, TSV
# limits, tokenizer, vocabulary), which have run sanitizer-clean; ATTNLAB_ASAN_ALL=1 runs the whole suite (not yet
# run clean on the transformer / HAN / ONNX code merged this round — docs/RELIABILITY.md).
ASAN_FILTER=(-R '^(Safetensors|SafetensorsAudit|Checkpoint|CheckpointLimits|CnnCheckpoint|DatasetLimits|Tokenizer|Vocab|VocabMaxWords)\.')
[[ "${ATTNLAB_ASAN_ALL:-0}" != 0 ]] && ASAN_FILTER=()
if [[ "${ATTNLAB_SANITIZE:-1}" != 0 ]]; then
  step "native build, ASan + UBSan (build-asan)"
  { cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DATTNLAB_SANITIZE=ON \
      "${LAUNCHER[@]}" >/dev/null && cmake --build build-asan -j"$JOBS" --target attnlab_tests; }; rc=$?
  record "native build, ASan + UBSan" $rc
  if ((rc == 0)); then
    step "ctest, ASan + UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir build-asan -j"$JOBS" --output-on-failure "${ASAN_FILTER[@]}"; rc=$?
    record "ctest, ASan + UBSan" $rc
  else
    SUMMARY+=("  skip  ctest, ASan + UBSan (build failed)")
  fi
fi

FUZZ_SECONDS="${ATTNLAB_FUZZ_SECONDS:-30}"
if [[ "$FUZZ_SECONDS" != 0 ]]; then
  step "libFuzzer build (build-fuzz, clang 14)"
  { cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DATTNLAB_FUZZ=ON \
      -DCMAKE_CXX_COMPILER=clang++-14 "${LAUNCHER[@]}" >/dev/null && cmake --build build-fuzz -j"$JOBS"; }; rc=$?
  record "libFuzzer build" $rc
  if ((rc == 0)); then
    step "fuzz: committed crash inputs, then ${FUZZ_SECONDS} s per target"
    bash tests/fuzz/run.sh build-fuzz "$FUZZ_SECONDS"; rc=$?
    record "fuzz (${FUZZ_SECONDS} s per target)" $rc
  else
    SUMMARY+=("  skip  fuzz (build failed)")
  fi
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
