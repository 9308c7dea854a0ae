#!/usr/bin/env bash
# "Which explanation is most faithful?" (issue 30): every method attnlab has, on the same SST-2 test sentences, for
# the shipped transformers (sst2-transformer, -1layer, -4layer) and the seeds of the 2-layer recipe trained by
# models/tools/seeds-sst2.sh (ATTENTIONS=transformer-dot; weights in $WORK, not committed): ERASER by |value|,
# ERASER with signed methods ranked most positive first, and plausibility — one summary per (model, run) in
# models/text/transformer-methods/, then the tables of docs/RESULTS.md by models/tools/methods-table.mjs.
# Usage: bash models/tools/transformer-methods.sh [DATA_DIR]
#   MODELS="sst2-transformer sst2-transformer-1layer sst2-transformer-4layer"  SEEDS="50 257"  WORK=build/seeds
#   PLAUSIBILITY_MODELS="sst2-transformer"  ATTNLAB=build/attnlab  LAYER_SEEDS="1 4" (the 1- and 4-layer variants'
#   seeds, trained by ATTENTIONS="transformer1-dot transformer4-dot" EXPERIMENTS= bash models/tools/seeds-sst2.sh)
#   ONNX=1: also the models no one here wrote — the BERT-shaped fixture (tests/fixtures/onnx-text/bert-sst2) with its
#   ONNX_SEEDS="50 257" (made by `/usr/bin/python3 models/tools/make-text-fixtures.py --only bert-sst2 --seed S
#   --out $WORK/bert-sst2-sS`; not committed) on the 1,821 test sentences, and stories260K on the 97 word prefixes of
#   its own greedy text (each explained at its last position; the "class" its greedy next token). One pretrained
#   model has no seeds: its error bar is the standard error over the prefixes (the summaries' _sem entries).
# Cost here (2 cores, one run at a time): ERASER ~3 min a 2-layer model on the 1,821 sentences, plausibility ~3 min;
# ~7 min a BERT-shaped model, ~8 min stories260K.
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:-../shared/data/sst2}
MODELS=${MODELS:-sst2-transformer sst2-transformer-1layer sst2-transformer-4layer}
SEEDS=${SEEDS:-50 257}
WORK=${WORK:-build/seeds}
PLAUSIBILITY_MODELS=${PLAUSIBILITY_MODELS:-sst2-transformer}
LAYER_SEEDS=${LAYER_SEEDS:-1 4}
BIN=${ATTNLAB:-build/attnlab}
out=models/text/transformer-methods
mkdir -p "$out"

source models/tools/summary-file.sh  # summary FILE COMMAND...
run() {  # name model_dir [plausibility]
  local name=$1 dir=$2
  summary "$out/$name.eraser.json" "$BIN" experiment eraser --model "$dir" --data "$data/test.tsv"
  summary "$out/$name.eraser-signed.json" "$BIN" experiment eraser --model "$dir" --data "$data/test.tsv" --param ranking=signed
  if [ "${3:-}" = plausibility ]; then
    summary "$out/$name.plausibility.json" "$BIN" experiment plausibility --model "$dir" --data "$data/test.tsv"
  fi
}
for m in $MODELS; do
  case " $PLAUSIBILITY_MODELS " in *" $m "*) run "$m" "models/text/$m" plausibility ;; *) run "$m" "models/text/$m" ;; esac
done
for s in $SEEDS; do
  dir="$WORK/sst2-transformer-dot-s$s"
  [ -f "$dir/config.json" ] || { echo "transformer-methods: $dir missing (ATTENTIONS=transformer-dot SEEDS=\"$s\" bash models/tools/seeds-sst2.sh)" >&2; continue; }
  run "sst2-transformer-s$s" "$dir" plausibility
done
for s in $SEEDS; do
  for l in $LAYER_SEEDS; do  # the 1- / 4-layer variants' seeds (ERASER only, as their shipped seed)
    dir="$WORK/sst2-transformer$l-dot-s$s"
    [ -f "$dir/config.json" ] || { echo "transformer-methods: $dir missing (ATTENTIONS=transformer$l-dot SEEDS=\"$s\" EXPERIMENTS= bash models/tools/seeds-sst2.sh)" >&2; continue; }
    run "sst2-transformer-${l}layer-s$s" "$dir"
  done
done
if [ "${ONNX:-0}" = 1 ]; then
  run "bert-sst2-onnx" tests/fixtures/onnx-text/bert-sst2
  for s in ${ONNX_SEEDS:-50 257}; do
    dir="$WORK/bert-sst2-s$s/bert-sst2"
    [ -f "$dir/model.onnx" ] || { echo "transformer-methods: $dir missing (/usr/bin/python3 models/tools/make-text-fixtures.py --only bert-sst2 --seed $s --out $WORK/bert-sst2-s$s)" >&2; continue; }
    run "bert-sst2-onnx-s$s" "$dir"
  done
  prefixes="$WORK/stories260K-prefixes.tsv"
  node -e "const t=require('fs').readFileSync('$data/../stories260K/greedy200.expected.txt','utf8').trim().split(/\s+/);
console.log(t.slice(2).map((_,k)=>'0\t'+t.slice(0,k+3).join(' ')).join('\n'))" > "$prefixes"
  summary "$out/stories260K.eraser.json" "$BIN" experiment eraser --model models/text/stories260K --data "$prefixes"
  summary "$out/stories260K.eraser-signed.json" "$BIN" experiment eraser --model models/text/stories260K --data "$prefixes" --param ranking=signed
fi
node models/tools/methods-table.mjs
