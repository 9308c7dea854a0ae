#!/usr/bin/env bash
# `npm run bench`: every text benchmark in one run, so the ratios in docs/BENCHMARKS.md come from the same
# machine state: native (Google Benchmark), wasm in Node vs ONNX Runtime Web, wasm in Chromium vs ORT Web.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build -j2 --target attnlab_bench >/dev/null
echo "## native (build/attnlab_bench)"
build/attnlab_bench --benchmark_counters_tabular=true --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  2>/dev/null | grep -E "^(Benchmark|BM_.*_median|-)"
echo; echo "## wasm in Node vs ONNX Runtime Web (tests/bench/bench-text.mjs)"
node tests/bench/bench-text.mjs
echo; echo "## wasm in Chromium vs ONNX Runtime Web (tests/bench/bench-browser.mjs)"
node tests/bench/bench-browser.mjs
echo; echo "## the Debate view over the whole SST-2 test set in Chromium (tests/bench/bench-debate-browser.mjs)"
node tests/bench/bench-debate-browser.mjs
