#!/usr/bin/env bash
# gtest-shards.sh BINARY SHARDS JOBS [FILTER] — runs a GoogleTest binary as SHARDS processes (GoogleTest's own
# sharding: GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX), JOBS at a time, with the caller's environment (the sanitizer
# options). One process per test (CTest) costs the sanitized suite a binary load and a sanitizer start-up per test
# (≈ 60 s of system time for 422 tests here); a few shards cost that a few times. Each shard's output goes to
# BINARY.shard-N.log; the shards run in BINARY's directory, as CTest runs the tests. Prints one line per shard; for a shard that fails, its failed tests, the test that was
# running when it stopped (a sanitizer report ends the process) and the end of its log. Exits non-zero when any
# shard failed or a shard ran no test.
set -uo pipefail
BIN="${1:?test binary}" SHARDS="${2:?shards}" JOBS="${3:?jobs}" FILTER="${4:-*}"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
cd "$(dirname "$BIN")" || exit 1
for ((i = 0; i < SHARDS; i++)); do
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
  ( GTEST_TOTAL_SHARDS="$SHARDS" GTEST_SHARD_INDEX="$i" "$BIN" --gtest_filter="$FILTER" >"$BIN.shard-$i.log" 2>&1
    echo $? >"$BIN.shard-$i.rc" ) &
done
wait
failed=0
for ((i = 0; i < SHARDS; i++)); do
  log="$BIN.shard-$i.log"
  rc="$(cat "$BIN.shard-$i.rc" 2>/dev/null || echo 1)"
  ran="$(grep -oE '^\[==========\] [0-9]+ tests? from' "$log" | grep -oE '[0-9]+' | head -1)"
  if [[ "$rc" == 0 && -n "$ran" && "$ran" != 0 ]]; then
    echo "shard $i/$SHARDS: ok, $ran tests"
  else
    failed=1
    echo "shard $i/$SHARDS: FAILED (exit $rc) — $log"
    grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sort -u
    echo "  last test started: $(grep -E '^\[ RUN      \]' "$log" | tail -1)"
    tail -n 30 "$log"
  fi
done
exit $failed
