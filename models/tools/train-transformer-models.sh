#!/usr/bin/env bash
# Reproduces the shipped SST-2 transformer models (models/text/sst2-transformer*) and the manifest.
# Same data and selection as the BiLSTMs (models/tools/train-text-models.sh): SST-2 phrase-level train, vocabulary
# of phrase-file words seen >= 2 times, dev-set model selection (accuracy), seed 1, f16 weights. Transformer recipe:
# d = 128, FFN 256, 4 heads, [CLS] classifier, pre-LN, dropout 0.1, AdamW (lr 1e-3, weight decay 0.01, warm-up
# over 10 % of the steps then linear decay), batch 32, max_len 64 tokens, 6 epochs (the best dev accuracy of a small
# sweep: 2, 4 or 6 epochs, dropout 0.1 or 0.2; docs/RESULTS.md "The transformer on SST-2").
# Usage: bash models/tools/train-transformer-models.sh [DATA_DIR] [MODEL...]   (default: all; 2-layer first)
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data/sst2}
shift || true
[ -x build/attnlab ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target attnlab; }
source models/tools/transformer-recipe.sh
train_one() {  # name layers attention epochs
  nice -n 10 build/attnlab train-text --parts 1 --train "$data/phrases_train.tsv" --dev "$data/dev.tsv" --test "$data/test.tsv" \
    --out "models/text/$1" "${TRANSFORMER_RECIPE[@]}" --layers "$2" --max-len 64 --attention "$3" \
    --seed 1 --epochs "$4" --min-count 2 --storage f16 > "models/text/$1.train.log" 2>&1
}
# The second data set: AG News World vs Business (as models/tools/train-other-datasets.sh: no dev split, every 10th
# training example held out; vocabulary of the 15,000 most frequent words seen >= 2 times), max_len 128 (p99 71 tokens).
train_agnews() {  # name
  nice -n 10 build/attnlab train-text --parts 1 --train "$data/../agnews/world_vs_business/train.tsv" \
    --test "$data/../agnews/world_vs_business/test.tsv" --dev-fraction 0.1 --max-vocab 15000 \
    --out "models/text/$1" "${TRANSFORMER_RECIPE[@]}" --layers 2 --max-len 128 --attention dot \
    --seed 1 --epochs 8 --min-count 2 --storage f16 > "models/text/$1.train.log" 2>&1
}
models=${*:-sst2-transformer sst2-transformer-uniform sst2-transformer-1layer sst2-transformer-4layer agnews-transformer}
for m in $models; do
  case $m in
    sst2-transformer) train_one "$m" 2 dot 6 ;;
    sst2-transformer-uniform) train_one "$m" 2 uniform 6 ;;
    sst2-transformer-1layer) train_one "$m" 1 dot 6 ;;
    sst2-transformer-4layer) train_one "$m" 4 dot 6 ;;
    agnews-transformer) train_agnews "$m" ;;
    *) echo "unknown model $m" >&2; exit 1 ;;
  esac
done
node models/tools/build-text-manifest.mjs "$data"
