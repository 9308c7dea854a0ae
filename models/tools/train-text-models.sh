#!/usr/bin/env bash
# Reproduces the shipped SST-2 text models (models/text/sst2-{tanh,dot,uniform}) and their manifest.
# Recipe: phrase-level SST-2 train (76,961 phrases, the 6,920 training sentences among them), vocabulary
# of phrase-file words seen >= 2 times, dev-set model selection (accuracy), 8 epochs, seed 1, f16 weights.
# Usage: bash models/tools/train-text-models.sh [DATA_DIR]   (default ../shared/data/sst2); ~4 min a model.
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data/sst2}
[ -x build/attnlab ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target attnlab; }
train_one() {
  build/attnlab train-text --parts 1 --train "$data/phrases_train.tsv" --dev "$data/dev.tsv" --test "$data/test.tsv" \
    --out "models/text/sst2-$1" --attention "$1" --seed 1 --epochs 8 --min-count 2 --storage f16 \
    > "models/text/sst2-$1.train.log" 2>&1
}
train_one tanh & train_one dot & wait
train_one uniform
node models/tools/build-text-manifest.mjs "$data"
