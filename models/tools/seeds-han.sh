#!/usr/bin/env bash
# Error bars over seeds (issue 14) for the HAN models: the shipped recipe of models/tools/train-han-models.sh
# trained again with Wiegreffe & Pinter's seeds into build/seeds/ (weights are not committed; the shipped models are
# seed 1 and are linked, not retrained), then S&S's sentence-level erasure experiments (erase-max, erase-until-flip)
# on the whole test set for the learned model (under uniform attention the attention ranking is no ranking). One
# JSON line per (model, seed, file) in models/text/seeds/ (NAME-sSEED.{train,erase-max,erase-until-flip}.json),
# summarised with the SST-2 seeds by models/tools/seeds-summary.mjs.
#   DATASET=20news (default): 20news-han (tanh word and sentence attention) and 20news-han-uniform, 8 epochs each,
#     the current splitter; 796 test posts.
#   DATASET=imdb: imdb-han (8 epochs) and imdb-han-uniform (4 epochs, as shipped), the splitter without its
#     run-together rule (as the shipped pair); 2,000 test reviews.
#   UNIFORM_EPOCHS=N: the uniform model trains N epochs instead of the shipped count; when that differs, its runs are
#     named DATASET-han-uniform-eN and seed 1 is trained too (the shipped model is not that recipe).
#     UNIFORM_ONLY=1 trains only the uniform model (the learned model's seed files are kept as they are).
# Usage: SEEDS="50 257" [DATASET=imdb] bash models/tools/seeds-han.sh [DATA_DIR]
#   ATTNLAB=build/attnlab (a copy keeps long runs safe from rebuilds)  OUT=models/text/seeds  WORK=build/seeds
#   (an empty SEEDS means the default five, like every ${VAR:-…} here)
# Cost on this 2-core machine, beside other jobs: 20news ≈ 1–2.5 min a training, seconds per experiment; IMDB
# several times that.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATASET=${DATASET:-20news}
case $DATASET in
  20news) data=${1:-../shared/data/20news_hockey_baseball}; uniform_epochs=8; run_together=true ;;
  imdb) data=${1:-../shared/data/imdb}; uniform_epochs=4; run_together=false ;;
  *) echo "DATASET must be 20news or imdb" >&2; exit 2 ;;
esac
SEEDS=${SEEDS:-50 257 500231 100078 12504}
out=${OUT:-models/text/seeds}
work=${WORK:-build/seeds}
BIN=${ATTNLAB:-build/attnlab}
uniform_name=$DATASET-han-uniform
if [ -n "${UNIFORM_EPOCHS:-}" ] && [ "$UNIFORM_EPOCHS" != "$uniform_epochs" ]; then
  uniform_epochs=$UNIFORM_EPOCHS
  uniform_name=$DATASET-han-uniform-e$UNIFORM_EPOCHS
fi
mkdir -p "$out" "$work"
[ -x "$BIN" ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target attnlab; }

one() {  # NAME ATTENTION SEED EPOCHS
  local name=$1 att=$2 seed=$3 epochs=$4 tag="$1-s$3" dir="$work/$1-s$3"
  if [ "$seed" = 1 ] && [ -d "models/text/$name" ]; then
    # the shipped model: its training log's last line is its metrics
    ln -sfn "$PWD/models/text/$name" "$dir"
    [ -f "$out/$tag.train.json" ] || grep '^{' "models/text/$name.train.log" | tail -n 1 > "$out/$tag.train.json"
  elif [ ! -f "$dir/config.json" ] || [ ! -f "$out/$tag.train.json" ]; then
    nice -n 10 "$BIN" train-han --parts 1 --train "$data/train.tsv" --test "$data/test.tsv" --dev-fraction 0.1 --out "$dir" \
      --word-attention "$att" --sentence-attention "$att" --seed "$seed" --epochs "$epochs" --min-count 2 --max-vocab 15000 \
      --embedding-dim 100 --word-hidden 50 --sentence-hidden 50 --max-sentences 100 --max-sentence-tokens 100 \
      --split-run-together "$run_together" --storage f16 > "$work/$tag.train.log" 2>&1
    grep '^{' "$work/$tag.train.log" | tail -n 1 > "$out/$tag.train.json"
  fi
  [ "$att" = uniform ] && return 0
  for e in erase-max erase-until-flip; do
    local f="$out/$tag.$e.json"
    [ -f "$f" ] && continue
    nice -n 10 "$BIN" experiment "$e" --model "$dir" --data "$data/test.tsv" --limit 0 \
      --out "$work/$tag.$e.rows.json" 2>/dev/null | tail -n 1 > "$f.tmp"
    mv "$f.tmp" "$f"
  done
}

for seed in 1 $SEEDS; do
  one "$uniform_name" uniform "$seed" "$uniform_epochs"
  [ "${UNIFORM_ONLY:-0}" = 1 ] || one "$DATASET-han" tanh "$seed" 8
done
node models/tools/seeds-summary.mjs "$out"
