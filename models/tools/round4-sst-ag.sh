#!/usr/bin/env bash
# Deception by position (issue 32), Pruthi et al.'s "SST + Wiki" task with AG News in Wikipedia's place: each SST-2
# sentence followed by 20 words of a random AG News text (models/tools/sst-ag-appended.mjs), the SST tokens marked
# impermissible by position. Trains the vanilla BiLSTM recipe on the sentence-level SST-2 train split (6,920; the
# shipped models train on phrases) plain and with --deception 1 and 0.1 (the paper's two weights)
# --impermissible-positions, then runs experiment
# impermissible on the 1,821 test sentences with their marks: the attention mass on the SST part, the accuracy, and
# the accuracy with the SST part deleted (does the model still read it?). Summaries in models/text/round4-sst-ag/:
# KIND.{train,impermissible}.json for seed 1 at 8 epochs (the first run's names), KIND-sSEED[-eEPOCHS].… otherwise;
# `node models/tools/round4-sst-ag-table.mjs` prints the mean ± std table.
# Usage: bash models/tools/round4-sst-ag.sh [DATA_DIR=../shared/data]   (≈ 9 min a seed here; ATTNLAB=build/attnlab)
#   SEEDS="1" (training seeds)  EPOCHS=8 (the paper trains 15)  KINDS="plain deceptive deceptive-0.1"  JOBS=1
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data}
BIN=${ATTNLAB:-build/attnlab}
SEEDS=${SEEDS:-1}
EPOCHS=${EPOCHS:-8}
KINDS=${KINDS:-plain deceptive deceptive-0.1}
JOBS=${JOBS:-1}
work=build/sst-ag out=models/text/round4-sst-ag
mkdir -p "$work" "$out"
node models/tools/sst-ag-appended.mjs "$data" "$work" 1

one() {
  local kind=$1 seed=$2 tag=$1
  [ "$seed" != 1 ] && tag="$tag-s$seed"
  [ "$EPOCHS" != 8 ] && tag="$tag-e$EPOCHS"
  local extra=()
  case $kind in
    deceptive) extra=(--deception 1 --impermissible-positions "$work/train.positions") ;;
    deceptive-0.1) extra=(--deception 0.1 --impermissible-positions "$work/train.positions") ;;
  esac
  if [ ! -f "$work/$tag/config.json" ]; then
    nice -n 10 "$BIN" train-text --parts 1 --train "$work/train.tsv" --dev "$work/dev.tsv" --test "$work/test.tsv" --out "$work/$tag" \
      --attention tanh --seed "$seed" --epochs "$EPOCHS" --min-count 2 "${extra[@]}" > "$work/$tag.train.log" 2>&1
  fi
  grep '^{' "$work/$tag.train.log" | tail -n 1 > "$out/$tag.train.json"
  "$BIN" experiment impermissible --model "$work/$tag" --data "$work/test.tsv" \
    --impermissible-positions "$work/test.positions" 2>/dev/null | tail -n 1 > "$out/$tag.impermissible.json"
}

running=0
for seed in $SEEDS; do
  for kind in $KINDS; do
    one "$kind" "$seed" &
    running=$((running + 1))
    if ((running >= JOBS)); then wait -n; running=$((running - 1)); fi
  done
done
wait
node models/tools/round4-sst-ag-table.mjs
