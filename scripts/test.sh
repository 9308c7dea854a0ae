#!/usr/bin/env bash
# test.sh — `npm test`: setup; the native Release build of the CLI and of the few GoogleTest cases that take
# minutes under ASan (run here); one AddressSanitizer + UndefinedBehaviorSanitizer build (build-fuzz/, clang 14, -O1)
# of the whole core, CLI and GoogleTest suite, which runs the whole suite and a short libFuzzer run of every target in
# tests/fuzz/ (ATTNLAB_FUZZ_SECONDS each, default 6) plus their committed crash inputs; then the Node test runner
# over tests/node, tests/js and tests/e2e (those that exist), several test files at a time. Every part runs even when
# an earlier test part fails; the script exits non-zero if any part failed and ends with a one-line-per-part summary
# (with each part's seconds), then the lines that say what failed. A failed setup or build stops dependent parts.
# ATTNLAB_SANITIZE=0 / ATTNLAB_FUZZ_SECONDS=0 skip the sanitizer / fuzz parts (local runs only); with
# ATTNLAB_SANITIZE=0 the whole GoogleTest suite is built natively and run by CTest instead.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

declare -a SUMMARY=()
declare -a DETAILS=() # for each failed part: the lines that say what failed (printed after the summary)
FAILED=0
LOGS="$(mktemp -d)"
T0=$SECONDS
step() { printf '\n==== %s ====\n' "$*"; T0=$SECONDS; }
record() { # record NAME STATUS  (the time since the last step)
  local t=$((SECONDS - T0))
  if [[ "$2" -eq 0 ]]; then SUMMARY+=("  ok    $1 (${t} s)"); else SUMMARY+=("  FAIL  $1 (exit $2, ${t} s)"); FAILED=1; fi
}
# detail NAME LOG PATTERN: after a failed part, keep the lines of its LOG that match PATTERN (at most 60, with the
# line after each), so the summary at the very end of a CI log says what failed without the whole log.
detail() {
  local lines
  lines="$(grep -E -A1 -- "$3" "$2" | head -60)"
  [[ -n "$lines" ]] && DETAILS+=("-- $1:" "$lines")
}
finish() {
  printf '\n==== summary ====\n'
  printf '%s\n' "${SUMMARY[@]}"
  if ((${#DETAILS[@]})); then printf '\n==== what failed ====\n'; printf '%s\n' "${DETAILS[@]}"; fi
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
# The sloppiness lets ccache cache the translation units that use the precompiled headers (CMakeLists.txt).
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$ROOT" CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
fi

source scripts/lib/generator.sh
step "native build"
JOBS="${ATTNLAB_JOBS:-$(nproc)}"
mapfile -t GEN < <(cmake_generator build)
# The CLI (the Node tests run it) and, natively, only the GoogleTest cases the sanitized suite skips
# (attnlab_slow_tests): the whole suite runs once, under ASan + UBSan below (CI time: compiling it twice cost ~95 s
# and its Release run 27 s). With the sanitizers off (ATTNLAB_SANITIZE=0, local runs) the whole suite is built and
# run here instead. The Google Benchmark target is built by scripts/bench.sh when benchmarks run.
# A GoogleTest filter, names joined by ':': a training to a stated accuracy, and stories260K's 200-step generations
# (20 s each under ASan; the 60-step one with changed weights still runs there, through the same code).
ASAN_SLOW_TESTS='CnnTraining.ShortRunReachesStatedAccuracy:Stories260K.Greedy200EqualsLlama2cExactly:Stories260K.NegativeControlFewerStepsGiveAnotherText'
if [[ "${ATTNLAB_SANITIZE:-1}" != 0 ]]; then NATIVE_TESTS=attnlab_slow_tests; else NATIVE_TESTS=attnlab_tests; fi
{ cmake -S . -B build "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" &&
  cmake --build build -j"$JOBS" --target attnlab "$NATIVE_TESTS" attnlab_alloc_tests; }; rc=$?
record "native build" $rc

if ((rc != 0)); then
  SUMMARY+=("  skip  native GoogleTest (native build failed)")
elif [[ "$NATIVE_TESTS" == attnlab_slow_tests ]]; then
  step "GoogleTest, Release: the cases the sanitized suite skips ($ASAN_SLOW_TESTS)"
  # and the wasm core's operator new / delete (a program of its own; not built sanitized: it replaces the allocator)
  { build/attnlab_slow_tests --gtest_filter="$ASAN_SLOW_TESTS" && build/attnlab_alloc_tests; } 2>&1 | tee "$LOGS/native-tests.log"; rc=${PIPESTATUS[0]}
  record "GoogleTest, Release (the cases ASan skips)" $rc
  ((rc == 0)) || detail "GoogleTest, Release" "$LOGS/native-tests.log" '\[  FAILED  \]|Failure$'
else
  step "ctest"
  ctest --test-dir build -j"$JOBS" --output-on-failure 2>&1 | tee "$LOGS/ctest.log"; rc=${PIPESTATUS[0]}
  record "ctest" $rc
  ((rc == 0)) || detail ctest "$LOGS/ctest.log" '\*\*\*Failed|\(Failed\)|\[  FAILED  \]|Failure$'
fi

# The sanitized build (build-fuzz/, clang 14, ASan + UBSan, -O1): the whole core (with libFuzzer's coverage
# instrumentation), the CLI, the whole GoogleTest suite and the libFuzzer targets, so CI compiles the sanitized
# core once (docs/RELIABILITY.md "Sanitizers"). Under ASan
# the suite skips ASAN_SLOW_TESTS: a training and two generations that take minutes / 20 s each there and run no code
# the rest of the suite does not (the native build runs them).
SAN_ENV=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
FUZZ_SECONDS="${ATTNLAB_FUZZ_SECONDS:-6}"
if [[ "${ATTNLAB_SANITIZE:-1}" != 0 || "$FUZZ_SECONDS" != 0 ]]; then
  step "sanitized build (build-fuzz, clang 14: whole suite, CLI, libFuzzer targets)"
  mapfile -t GEN < <(cmake_generator build-fuzz)
  { cmake -S . -B build-fuzz "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DATTNLAB_FUZZ=ON \
      -DCMAKE_CXX_COMPILER=clang++-14 "${LAUNCHER[@]}" >/dev/null && cmake --build build-fuzz -j"$JOBS"; }; rc=$?
  record "sanitized build (build-fuzz)" $rc
  if ((rc != 0)); then
    SUMMARY+=("  skip  GoogleTest, ASan + UBSan and fuzz (build failed)")
  else
    if [[ "${ATTNLAB_SANITIZE:-1}" != 0 ]]; then
      # In 4 shards a CPU (scripts/gtest-shards.sh), not one process per test: a sanitized process start costs
      # ~0.15 s of system time, ~60 s over the suite's 422 tests.
      step "GoogleTest, ASan + UBSan (whole suite, build-fuzz, $((4 * JOBS)) shards)"
      env "${SAN_ENV[@]}" bash scripts/gtest-shards.sh build-fuzz/attnlab_tests $((4 * JOBS)) "$JOBS" "-$ASAN_SLOW_TESTS" 2>&1 |
        tee "$LOGS/sanitized.log"; rc=${PIPESTATUS[0]}
      record "GoogleTest, ASan + UBSan (whole suite)" $rc
      ((rc == 0)) || detail sanitized "$LOGS/sanitized.log" '\[  FAILED  \]|ERROR: |SUMMARY: |runtime error' 
    fi
    if [[ "$FUZZ_SECONDS" != 0 ]]; then
      step "fuzz: committed crash inputs, then ${FUZZ_SECONDS} s per target"
      bash tests/fuzz/run.sh build-fuzz "$FUZZ_SECONDS" 2>&1 | tee "$LOGS/fuzz.log"; rc=${PIPESTATUS[0]}
      record "fuzz (${FUZZ_SECONDS} s per target)" $rc
      ((rc == 0)) || detail fuzz "$LOGS/fuzz.log" 'FAILED|ERROR|SUMMARY|runtime error|^ *#[0-9]+ '
      ((rc == 0)) || for f in build-fuzz/crash-*; do [[ -f "$f" ]] && DETAILS+=("$f (base64): $(head -c 3000 "$f" | base64 -w0)"); done
    fi
  fi
fi

dirs=()
for d in tests/node tests/js tests/e2e; do [[ -d "$d" ]] && dirs+=("$d/"); done
if ((${#dirs[@]})); then
  step "node --test ${dirs[*]}"
  # --test-force-exit: a test file whose tests have all ended exits even if something it started is still
  # open (a browser a failed test did not close); without it such a file keeps the whole run waiting.
  # --test-concurrency: test files side by side, at least two (Node's default on 2 CPUs is one at a time); every
  # browser test starts its own server on port 0 and its own browser profile. Measured on 2 cores: 14 % less wall
  # time (4 browser files 151 -> 130 s; the browser tests alone keep ~80 % of both cores busy; BENCHMARKS).
  node --test --test-force-exit --test-concurrency="$((JOBS > 2 ? JOBS : 2))" "${dirs[@]}" 2>&1 | tee "$LOGS/node.log"
  rc=${PIPESTATUS[0]}
  record "node --test" $rc
  ((rc == 0)) || detail "node --test" "$LOGS/node.log" '^ *not ok |^ *(error|failureType|code):' 
else
  SUMMARY+=("  skip  node --test (no tests/node, tests/js or tests/e2e)")
fi

finish
