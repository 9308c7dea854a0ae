#!/usr/bin/env bash
# run.sh BUILD_DIR SECONDS [JOBS] — runs every libFuzzer target built in BUILD_DIR (fuzz_*), JOBS targets at a
# time (default: the number of CPUs; each target is one single-threaded process):
#   1. on its committed crash inputs tests/fixtures/reliability/fuzz/<target>/* (each must pass now),
#   2. for SECONDS seconds from its seed corpus tests/fuzz/corpus/<target>/ (copied to BUILD_DIR/corpus/,
#      so the committed seeds never change), with its dictionary, inputs ≤ 64 KB, 2 GB RSS, 10 s per input.
# Prints one line per target: executions, coverage (cov / ft), corpus size, and the result. Exits non-zero
# when any target crashed (the crashing input is kept as BUILD_DIR/crash-<target>-*).
set -uo pipefail
BUILD="${1:?build dir}"
SECONDS_EACH="${2:-30}"
JOBS="${3:-$(nproc)}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
declare -A DICT=([fuzz_safetensors]=safetensors [fuzz_text_checkpoint]=checkpoint [fuzz_cnn_checkpoint]=checkpoint [fuzz_han_checkpoint]=checkpoint [fuzz_sentences]=text [fuzz_image_file]=text
                 [fuzz_tokenizer]=text [fuzz_tsv]=text [fuzz_onnx]=onnx)
# One target: its committed crash inputs, then the timed run; prints its lines, exits non-zero on a failure.
fuzz_target() {
  local bin="$1" failed=0
  local name target
  name="$(basename "$bin")"
  target="${name#fuzz_}"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  crashes=("$ROOT/tests/fixtures/reliability/fuzz/$target"/*)
  if [[ -e "${crashes[0]}" ]]; then
    if ! "$bin" "${crashes[@]}" >"$BUILD/$name.regress.log" 2>&1; then
      echo "fuzz: $name FAILED on a committed crash input (see $BUILD/$name.regress.log)"; failed=1
    fi
  fi
  corpus="$BUILD/corpus/$target"
  mkdir -p "$corpus"
  cp -n "$ROOT/tests/fuzz/corpus/$target"/* "$corpus/" 2>/dev/null
  log="$BUILD/$name.log"
  "$bin" "$corpus" -dict="$ROOT/tests/fuzz/dict/${DICT[$name]:-text}.dict" -max_total_time="$SECONDS_EACH" \
    -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$BUILD/crash-$target-" \
    >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)
  if ((rc == 0)); then
    echo "fuzz: $name ok — ${execs:-?} executions in ${SECONDS_EACH} s, ${cov:-?}"
  else
    echo "fuzz: $name FAILED (rc $rc) — see $log; input: $(ls "$BUILD"/crash-"$target"-* 2>/dev/null | head -1)"
    grep -m5 -E 'ERROR|SUMMARY|runtime error' "$log"
    grep -m12 -E '^ *#[0-9]+ ' "$log" # the top of the stack
    failed=1
  fi
  return $failed
}

# JOBS targets at a time; each one's lines are printed whole when it ends (no interleaving).
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
for bin in "$BUILD"/fuzz_*; do
  [[ -x "$bin" && -f "$bin" ]] || continue
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
  name="$(basename "$bin")"
  ( fuzz_target "$bin" >"$OUT/$name.out" 2>&1; echo $? >"$OUT/$name.rc" ) &
done
wait
failed=0
for f in "$OUT"/*.out; do
  [[ -e "$f" ]] || continue
  cat "$f"
  [[ "$(cat "${f%.out}.rc")" == 0 ]] || failed=1
done
exit $failed
