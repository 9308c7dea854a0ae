#!/usr/bin/env bash
# Deception by position (issue 32), Pruthi et al.'s "SST + Wiki" task with AG News in Wikipedia's place: each SST-2
# sentence followed by 20 words of a random AG News text (models/tools/sst-ag-appended.mjs), the SST tokens marked
# impermissible by position. Trains the vanilla BiLSTM recipe on the sentence-level SST-2 train split (6,920; the
# shipped models train on phrases) plain and with --deception 1 and 0.1 (the paper's two weights)
# --impermissible-positions, then runs experiment
# impermissible on the 1,821 test sentences with their marks: the attention mass on the SST part, the accuracy, and
# the accuracy with the SST part deleted (does the model still read it?). Summaries in models/text/round4-sst-ag/.
# Usage: bash models/tools/round4-sst-ag.sh [DATA_DIR=../shared/data]   (≈ 9 min here; ATTNLAB=build/attnlab)
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data}
BIN=${ATTNLAB:-build/attnlab}
work=build/sst-ag out=models/text/round4-sst-ag
mkdir -p "$work" "$out"
node models/tools/sst-ag-appended.mjs "$data" "$work" 1
for kind in plain deceptive deceptive-0.1; do
  extra=()
  case $kind in
    deceptive) extra=(--deception 1 --impermissible-positions "$work/train.positions") ;;
    deceptive-0.1) extra=(--deception 0.1 --impermissible-positions "$work/train.positions") ;;
  esac
  if [ ! -f "$work/$kind/config.json" ]; then
    "$BIN" train-text --train "$work/train.tsv" --dev "$work/dev.tsv" --test "$work/test.tsv" --out "$work/$kind" \
      --attention tanh --seed 1 --min-count 2 "${extra[@]}" > "$work/$kind.train.log" 2>&1
  fi
  grep '^{' "$work/$kind.train.log" | tail -n 1 > "$out/$kind.train.json"
  "$BIN" experiment impermissible --model "$work/$kind" --data "$work/test.tsv" \
    --impermissible-positions "$work/test.positions" 2>/dev/null | tail -n 1 > "$out/$kind.impermissible.json"
done
cat "$out"/*.json
