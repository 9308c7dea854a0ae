#!/usr/bin/env bash
# The impermissible words of the deceptive SST-2 model (issue 32; Pruthi et al. 2020's penalty): every word that
# SST's annotators rated very negative (0) or very positive (4) on its own — the leaves of the training trees with
# label 0 or 4 — lower-cased, one per line, sorted. Checkable here: the labels are the treebank's, not ours.
# Usage: bash models/tools/sst-strong-lexicon.sh [DATA_DIR] > models/text/data/sst2-strong-lexicon.txt
set -euo pipefail
data=${1:-../shared/data/sst2}
grep -o '([04] [^()]*)' "$data/trees/train.txt" | sed -E 's/^\([04] //; s/\)$//' | tr '[:upper:]' '[:lower:]' |
  LC_ALL=C sort -u
