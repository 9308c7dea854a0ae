#!/usr/bin/env bash
# Seeds and sweeps of the localisation lab (issue 14): trains each named configuration once per seed with the
# shipped models' recipe (8 epochs x 8,000 images, batch 32, 64x64, 5 classes, 16/32/64, f16 as stored) and
# writes its metrics — not its weights — to models/cnn/seeds/NAME.seedS.json: {name, seed, source, command,
# test_decorrelated, test_confounded (confounder runs)}, the metrics being `train-cnn`'s own evaluation on
# 1,000 fresh test images (the same numbers as `eval-cnn --n 1000 [--confounder P]` on the stored weights).
# A shipped model (models/cnn/NAME/ trained with the same arguments) gives seed 1 without training: its
# stored weights are scored by `eval-cnn --n 1000` (source "shipped model"). Existing JSON files are kept
# (delete one to redo it), so the script resumes where it stopped. ERASING=1 also runs RESULTS §4's adversarial
# erasing (`cnn-experiment erasing --n 500 --steps 4`) on each seed's weights before they are deleted and adds its
# summary as .erasing; a kept file without it is retrained for it (.erasing_weights says on which weights; a retrained
# model's own test metrics are in .erasing_model, since a binary built for another CPU trains a close sibling).
# Usage: SEEDS="1 2 3" models/tools/seeds-cnn.sh [name ...]      (default: the main configurations below)
#        models/tools/seeds-cnn.sh summary [name ...]            (mean ± sample std over the seeds present and
#                                                                 paired differences against the seed spread:
#                                                                 models/tools/seeds-cnn-summary.mjs, to stdout
#                                                                 and models/cnn/seeds/{summary,comparisons}.json)
# ATTNLAB=path/to/attnlab (default build/attnlab). One training at a time, nice -n 10 (≈ 3 min each on an idle
# core; 515-972 s measured on the shared 2-core machine under load).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${ATTNLAB:-build/attnlab}
SEEDS=${SEEDS:-"1 2 3"}
OUT=${OUT:-models/cnn/seeds}  # (the summary of a copy: OUT=DIR models/tools/seeds-cnn.sh summary)
ERASING=${ERASING:-0}  # 1: also run the adversarial-erasing experiment (RESULTS §4) on each seed's weights
RECIPE=(--epochs 8 --train-size 8000 --val-size 500 --test-size 1000 --storage f16)
CONF="--head gap --confounder 0.95 --texture-contrast 0.35"
declare -A ARGS=(
  # the shipped models' configurations (models/tools/train-cnn-models.sh)
  [gap]="--head gap"
  [gmp]="--head gmp"
  [lse-r1]="--head lse --lse-r 1"
  [lse-r5]="--head lse --lse-r 5"
  [lse-r10]="--head lse --lse-r 10"
  [confounded]="$CONF"
  [balanced]="--head gap --confounder 0 --texture-contrast 0.35"
  [confounded-gain]="$CONF --attention-mining 1"
  [cbam-all]="--head gap --cbam all --lr 0.02"
  [gap-lr0.02]="--head gap --lr 0.02"
  # CBAM at one stage of the plain network (RESULTS §2; not shipped)
  [cbam-stage1]="--head gap --cbam stage1 --lr 0.02"
  [cbam-stage2]="--head gap --cbam stage2 --lr 0.02"
  [cbam-stage3]="--head gap --cbam stage3 --lr 0.02"
  # GAIN_ext sweep (train/gain_ext_loss.h): weight W on a fraction F of the training images with masks
  [ext-w1-f0.02]="$CONF --ext-weight 1 --ext-fraction 0.02"
  [ext-w10-f0.02]="$CONF --ext-weight 10 --ext-fraction 0.02"
  [ext-w1-f0.1]="$CONF --ext-weight 1 --ext-fraction 0.1"
  [ext-w10-f0.1]="$CONF --ext-weight 10 --ext-fraction 0.1"
  [ext-w30-f0.1]="$CONF --ext-weight 30 --ext-fraction 0.1"
  [ext-w10-f0.3]="$CONF --ext-weight 10 --ext-fraction 0.3"
  [ext-w10-f0.02-am1]="$CONF --ext-weight 10 --ext-fraction 0.02 --attention-mining 1"
  [ext-w10-f0.1-am1]="$CONF --ext-weight 10 --ext-fraction 0.1 --attention-mining 1"
  [ext-w1-f0.1-am1]="$CONF --ext-weight 1 --ext-fraction 0.1 --attention-mining 1"   # GAIN_ext's full loss at W = 1
  # residual stages (model/cnn_model.h), CBAM on the residual branch before the addition, lr 0.02 as §2
  [res-none]="--head gap --residual --lr 0.02"
  [res-cbam-all]="--head gap --residual --cbam all --lr 0.02"
  [res-cbam-stage1]="--head gap --residual --cbam stage1 --lr 0.02"
  [res-cbam-stage2]="--head gap --residual --cbam stage2 --lr 0.02"
  [res-cbam-stage3]="--head gap --residual --cbam stage3 --lr 0.02"
)
MAIN=(gap gmp lse-r1 confounded balanced confounded-gain)
mkdir -p "$OUT"

if [ "${1:-}" = summary ]; then
  shift
  exec node models/tools/seeds-cnn-summary.mjs "$OUT" "$@"
fi

# The adversarial-erasing experiment (RESULTS §4) on a model's weights → its summary (one JSON line).
erasing() {
  "$BIN" cnn-experiment erasing --model "$1" --n 500 --steps 4 | tail -n 1 |
    jq -c '{n, steps, threshold, fill, union_area, recall, precision, still_correct}'
}
# Adds .erasing (the summary) and .erasing_weights (whose weights it ran on) to a seed file.
add_erasing() { # add_erasing JSON DIR NOTE
  local e
  e=$(erasing "$2")
  jq --argjson e "$e" --arg note "$3" '. + {erasing: $e, erasing_weights: $note}' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

NAMES=("$@")
[ ${#NAMES[@]} -eq 0 ] && NAMES=("${MAIN[@]}")
for name in "${NAMES[@]}"; do
  [ -n "${ARGS[$name]+x}" ] || { echo "unknown configuration: $name" >&2; exit 2; }
  conf=$(sed -n 's/.*--confounder \([0-9.]*\).*/\1/p' <<<"${ARGS[$name]}")
  for seed in $SEEDS; do
    json=$OUT/$name.seed$seed.json
    want_erasing=0
    [ "$ERASING" = 1 ] && { [ ! -f "$json" ] || ! jq -e .erasing "$json" >/dev/null; } && want_erasing=1
    [ -f "$json" ] && [ $want_erasing = 0 ] && { echo "$json: kept"; continue; }
    shipped=models/cnn/$name
    # shellcheck disable=SC2206
    cmd=("$BIN" train-cnn --out "" ${ARGS[$name]} "${RECIPE[@]}" --seed "$seed")
    if [ "$seed" = 1 ] && [ -f "$shipped/config.json" ] &&
       jq -e --arg a " ${ARGS[$name]} " '.provenance.command | test($a)' "$shipped/config.json" >/dev/null; then
      if [ ! -f "$json" ]; then
        dec=$("$BIN" eval-cnn --model "$shipped" --n 1000 | tail -n 1)
        con=null
        if [ -n "$conf" ] && [ "$conf" != 0 ]; then
          con=$("$BIN" eval-cnn --model "$shipped" --n 1000 --confounder "$conf" | tail -n 1)
        fi
        jq -n --arg name "$name" --argjson dec "$dec" --argjson con "$con" \
          --arg command "$(jq -r .provenance.command "$shipped/config.json")" \
          '{name: $name, seed: 1, source: "shipped model (eval-cnn --n 1000 on its stored weights)", command: $command,
            test_decorrelated: $dec} + (if $con == null then {} else {test_confounded: $con} end)' >"$json"
      fi
      [ $want_erasing = 1 ] && add_erasing "$json" "$shipped" "the shipped model's stored weights"
    else
      tmp=$(mktemp -d)
      cmd[3]=$tmp
      echo "$name seed $seed: ${cmd[*]}" >&2
      t0=$(date +%s)
      nice -n 10 "${cmd[@]}" >"$tmp/out.txt" 2>"$tmp/log.txt" || { cat "$tmp/log.txt" >&2; exit 1; }
      line=$(tail -n 1 "$tmp/out.txt")
      if [ -f "$json" ]; then
        # Retrained only for the erasing experiment. Training is deterministic for a seed and a binary, but the
        # build uses -march=native, so another CPU rounds differently and the retrained model is a sibling of the
        # recorded run: its own test metrics go in .erasing_model beside the recorded ones.
        add_erasing "$json" "$tmp" "retrained with the same command by another binary (its test metrics: erasing_model)"
        jq --argjson s "$line" '. + {erasing_model: ($s.metrics.test_decorrelated | {accuracy, pointing_game, mask_iou, energy_in_mask})}' \
          "$json" >"$json.tmp" && mv "$json.tmp" "$json"
      else
        jq -n --arg name "$name" --argjson seed "$seed" --argjson s "$line" --arg command "${cmd[*]}" \
          --argjson wall "$(($(date +%s) - t0))" \
          '{name: $name, seed: $seed, source: "trained", command: ($command | sub("--out [^ ]+"; "--out DIR")),
            wall_seconds: $wall, images_per_second: $s.images_per_second,
            test_decorrelated: $s.metrics.test_decorrelated}
           + (if $s.metrics.test_confounded then {test_confounded: $s.metrics.test_confounded} else {} end)' >"$json"
        [ $want_erasing = 1 ] && add_erasing "$json" "$tmp" "the trained weights"
      fi
      rm -rf "$tmp"
    fi
    echo "$json: $(jq -c '[.test_decorrelated.accuracy, .test_decorrelated.pointing_game, .test_decorrelated.energy_in_mask, .erasing.recall]' "$json")"
  done
done
