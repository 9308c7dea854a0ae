#!/usr/bin/env bash
# Error bars over seeds (issue 14) for the SST-2 BiLSTM models: the shipped recipe of
# models/tools/train-text-models.sh (phrase-level train, dev selection, 8 epochs, min-count 2), trained again with
# Wiegreffe & Pinter's seeds into build/seeds/ (weights are not committed; the shipped models stay seed 1), then
# the headline experiments on the SST-2 test set, one JSON summary per (model, seed, experiment) in
# models/text/seeds/, and the mean ± std table by models/tools/seeds-summary.mjs (models/text/seeds/summary.json).
# The transformers too: ATTENTIONS="transformer-dot transformer-uniform" trains the shipped sst2-transformer recipe
# (models/tools/train-transformer-models.sh: 2 layers × 4 heads, AdamW, TF_EPOCHS=6) with that attention;
# "transformer1-dot" / "transformer4-dot" the same recipe with 1 / 4 layers (sst2-transformer-1layer / -4layer's).
# The debate's fourth round (issue 32): ATTENTIONS="ortho diversity deceptive" trains the same BiLSTM recipe with
# Mohankumar et al.'s Orthogonal LSTM (--encoder ortho_bilstm), their Diversity LSTM (--diversity 0.5) and Pruthi et
# al.'s deception penalty (--deception 1 on models/text/data/sst2-strong-lexicon.txt), all with tanh attention.
# Usage: bash models/tools/seeds-sst2.sh [DATA_DIR]
#   ATTENTIONS="tanh dot uniform"  SEEDS="50 257 500231 100078 12504"  EXPERIMENTS="kendall permutation adversarial
#   erase-until-flip eraser plausibility"  LIMIT=0 (test sentences per experiment, 0 = all)  EPOCHS=8  JOBS=2 (trainings side by side)
#   OUT=models/text/seeds  WORK=build/seeds  TRAIN_LIMIT=0  ATTNLAB=build/attnlab (a copy keeps long runs safe from rebuilds)
#   STORAGE=f32 (f16: as the shipped models, for a seed that is then copied to models/text/).
# Cost on this 2-core machine: ~4 min a training; kendall ~0.5 min, erase-until-flip ~2, eraser and
# plausibility ~5–12 min a model on the whole test set (integrated gradients, 50 steps).
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data/sst2}
ATTENTIONS=${ATTENTIONS:-tanh dot uniform}
SEEDS=${SEEDS:-50 257 500231 100078 12504}
EXPERIMENTS=${EXPERIMENTS-kendall permutation adversarial erase-until-flip eraser plausibility}  # EXPERIMENTS= : train only
LIMIT=${LIMIT:-0}
EPOCHS=${EPOCHS:-8}
TF_EPOCHS=${TF_EPOCHS:-6}
JOBS=${JOBS:-2}
TRAIN_LIMIT=${TRAIN_LIMIT:-0}    # first N training phrases only (0 = all; smoke runs)
STORAGE=${STORAGE:-f32}
LEXICON=${LEXICON:-models/text/data/sst2-strong-lexicon.txt}  # bash models/tools/sst-strong-lexicon.sh
out=${OUT:-models/text/seeds}
work=${WORK:-build/seeds}
mkdir -p "$out" "$work"
BIN=${ATTNLAB:-build/attnlab}
[ -x "$BIN" ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target attnlab; }
source models/tools/transformer-recipe.sh

# One (attention, seed): train unless already trained with the same settings, record its metrics, run the
# experiments whose summary is missing.
one() {
  local att=$1 seed=$2 dir="$work/sst2-$1-s$2" tag="sst2-$1-s$2"
  local recipe=(--attention "$att" --epochs "$EPOCHS")
  case $att in
    transformer-*)
      recipe=("${TRANSFORMER_RECIPE[@]}" --layers 2 --max-len 64 --attention "${att#transformer-}" --epochs "$TF_EPOCHS") ;;
    transformer[1-9]-*)  # transformerL-ATT: the same recipe with L layers (the shipped -1layer / -4layer variants)
      recipe=("${TRANSFORMER_RECIPE[@]}" --layers "${att:11:1}" --max-len 64 --attention "${att#transformer?-}" --epochs "$TF_EPOCHS") ;;
    ortho) recipe=(--attention tanh --encoder ortho_bilstm --epochs "$EPOCHS") ;;
    diversity) recipe=(--attention tanh --diversity 0.5 --epochs "$EPOCHS") ;;
    deceptive) recipe=(--attention tanh --deception 1 --impermissible "$LEXICON" --epochs "$EPOCHS") ;;
  esac
  if [ ! -f "$dir/config.json" ] || [ ! -f "$out/$tag.train.json" ]; then
    nice -n 10 "$BIN" train-text --parts 1 --train "$data/phrases_train.tsv" --dev "$data/dev.tsv" --test "$data/test.tsv" \
      --out "$dir" "${recipe[@]}" --seed "$seed" --min-count 2 --storage "$STORAGE" --limit "$TRAIN_LIMIT" \
      > "$work/$tag.train.log" 2>&1
    grep '^{' "$work/$tag.train.log" | tail -n 1 > "$out/$tag.train.json"
  fi
  for e in $EXPERIMENTS; do
    # attention is constant under uniform: τ undefined, nothing to permute or to search adversarially
    case $att in *uniform) case $e in kendall|permutation|adversarial) continue ;; esac ;; esac
    local suffix="" f
    [ "$LIMIT" != 0 ] && suffix=".limit$LIMIT"
    f="$out/$tag.$e$suffix.json"
    [ -f "$f" ] && continue
    local extra=()
    case $e in
      conicity) case $att in transformer*) continue ;; esac ;;
      impermissible) case $att in transformer*) continue ;; esac
        extra=(--param "words=$(tr '\n' ' ' < "$LEXICON")") ;;
    esac
    nice -n 10 "$BIN" experiment "$e" --model "$dir" --data "$data/test.tsv" --limit "$LIMIT" "${extra[@]}" \
      --out "$work/$tag.$e$suffix.rows.json" 2>/dev/null | tail -n 1 > "$f.tmp"
    mv "$f.tmp" "$f"
  done
}

running=0
for att in $ATTENTIONS; do
  for seed in $SEEDS; do
    one "$att" "$seed" &
    running=$((running + 1))
    if ((running >= JOBS)); then wait -n; running=$((running - 1)); fi
  done
done
wait
node models/tools/seeds-summary.mjs "$out"
