# The transformer recipe of the shipped models (docs/RESULTS.md "The transformer on SST-2"): d = 128, 4 heads, FFN 256,
# AdamW lr 1e-3, weight decay 0.01, warm-up over 10 % of the steps then linear decay, dropout 0.1. Callers add
# --layers, --attention, --max-len, --epochs and the data. Sourced (from the repository root) by
# models/tools/train-transformer-models.sh and models/tools/seeds-sst2.sh; the page's recipe is the core's
# catalogue defaults (text.training), the same values.
TRANSFORMER_RECIPE=(--encoder transformer --heads 4 --embedding-dim 128 --ffn-dim 256 --optimizer adamw --lr 1e-3
  --weight-decay 0.01 --warmup 0.1 --dropout 0.1)
