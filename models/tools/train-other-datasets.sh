#!/usr/bin/env bash
# Reproduces the shipped models for the other data sets of Jain & Wallace (models/text/{imdb,20news,agnews}-
# {tanh,dot,uniform}) and rebuilds the manifest. Same recipe as SST-2 (train-text-models.sh) except: these sets
# have no dev split, so every 10th training example is held out as dev (20news is sorted by label); the vocabulary is the
# 15,000 most frequent training words seen >= 2 times (keeps each model under 5 MB); texts are cut to their
# first 400 tokens in training and evaluation (p99 of IMDB is ~900 tokens; one 20news post has 11,252). AG News is Jain &
# Wallace's binary World (0) vs Business (1) task on our 2,539-row training subset (theirs: ~51k).
# The debate's fourth round (issue 32): the Orthogonal LSTM ("ortho", --encoder ortho_bilstm) and the Diversity LSTM
# ("diversity", --diversity 0.5), tanh attention, the same recipe (1–2 min a training here on 20news and AG News,
# 9–16 min on IMDB).
# Usage: bash models/tools/train-other-datasets.sh [DATA_DIR]   (default ../shared/data)
#   KINDS="tanh dot uniform ortho diversity" (the default: all) to train only some
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data}
KINDS=${KINDS:-tanh dot uniform ortho diversity}
[ -x build/attnlab ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target attnlab; }
train_one() {  # NAME DATA_SUBDIR KIND
  local recipe=(--attention "$3")
  case $3 in ortho) recipe=(--attention tanh --encoder ortho_bilstm) ;; diversity) recipe=(--attention tanh --diversity 0.5) ;; esac
  build/attnlab train-text --parts 1 --train "$data/$2/train.tsv" --test "$data/$2/test.tsv" --dev-fraction 0.1 --max-tokens 400 \
    --out "models/text/$1-$3" "${recipe[@]}" --seed 1 --epochs 8 --min-count 2 --max-vocab 15000 --storage f16 \
    > "models/text/$1-$3.train.log" 2>&1
}
for a in $KINDS; do
  train_one imdb imdb "$a" &
  { train_one 20news 20news_hockey_baseball "$a"; train_one agnews agnews/world_vs_business "$a"; } &
  wait
done
node models/tools/build-text-manifest.mjs "$data/sst2"
