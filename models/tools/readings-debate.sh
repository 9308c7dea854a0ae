#!/usr/bin/env bash
# The debate's tests on the readings that came after it (issue 30): Jain & Wallace's Kendall τ against the gradient and
# leave-one-out, and Serrano & Smith's erase-until-flip, with every later reading of the model in attention's place
# (core/experiments/kendall.cpp, erase_until_flip.cpp: param readings=1, the default) — on the SST-2 test set, for
# J&W's BiLSTM (sst2-tanh: integrated gradients is its one later reading), the shipped 2-layer transformer (integrated
# gradients, rollout, flow, Chefer relevance, attention × gradient per head, attention norm, AttnLRP, CP-LRP, value
# zeroing, ALTI) with the seeds of both recipes trained by models/tools/seeds-sst2.sh (weights in $WORK, not
# committed), and the BERT-shaped ONNX fixture no one here wrote (tests/fixtures/onnx-text/bert-sst2; its later
# readings through the executor, gradient × input among them), and the debate's fourth round (ROUND4=1: the Orthogonal
# and Diversity LSTMs and the deceptive one, sst2-ortho / -diversity / -deceptive and their seeds — Mohankumar et al.'s
# agreement of attention with integrated gradients is kendall's τ vs attention of that reading). One summary per
# (model, experiment) in
# models/text/readings-debate/, then the tables of docs/RESULTS.md by models/tools/readings-table.mjs.
# Usage: bash models/tools/readings-debate.sh [DATA_DIR]
#   SEEDS="50 257"  WORK=build/seeds  ATTNLAB=build/attnlab  ONNX_LIMIT=500 (sentences for the ONNX fixture; 0 = all)
#   ROUND4=0
#   The seeds' models: ATTENTIONS="tanh transformer-dot" SEEDS="50 257" EXPERIMENTS= bash models/tools/seeds-sst2.sh
#   (round four: ATTENTIONS="ortho diversity deceptive")
# Cost here (2 cores): kendall ~2 min and erase-until-flip ~1 min a BiLSTM, ~4 min each a 2-layer transformer on the
# 1,821 sentences; the ONNX fixture ~0.5 s a sentence for both (2026-12-06, beside other jobs).
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data/sst2}
SEEDS=${SEEDS:-50 257}
WORK=${WORK:-build/seeds}
BIN=${ATTNLAB:-build/attnlab}
ONNX_LIMIT=${ONNX_LIMIT:-500}
out=models/text/readings-debate
mkdir -p "$out"

source models/tools/summary-file.sh  # summary FILE COMMAND...
run() {  # name model_dir [extra CLI arguments]
  local name=$1 dir=$2
  shift 2
  for e in kendall erase-until-flip; do
    summary "$out/$name.$e.json" "$BIN" experiment "$e" --model "$dir" --data "$data/test.tsv" "$@"
  done
}
run sst2-tanh models/text/sst2-tanh
run sst2-transformer models/text/sst2-transformer
for s in $SEEDS; do
  for pair in "sst2-tanh:sst2-tanh-s$s" "sst2-transformer:sst2-transformer-dot-s$s"; do
    name=${pair%%:*} dir="$WORK/${pair#*:}"
    [ -f "$dir/config.json" ] || { echo "readings-debate: $dir missing (see the usage above)" >&2; continue; }
    run "$name-s$s" "$dir"
  done
done
run bert-sst2-onnx tests/fixtures/onnx-text/bert-sst2 --limit "$ONNX_LIMIT"
if [ "${ROUND4:-0}" = 1 ]; then
  for kind in ortho diversity deceptive; do
    run "sst2-$kind" "models/text/sst2-$kind"
    for s in $SEEDS; do
      dir="$WORK/sst2-$kind-s$s"
      [ -f "$dir/config.json" ] || { echo "readings-debate: $dir missing (see the usage above)" >&2; continue; }
      run "sst2-$kind-s$s" "$dir"
    done
  done
fi
node models/tools/readings-table.mjs
