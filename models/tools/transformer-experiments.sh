#!/usr/bin/env bash
# Runs the debate experiments of docs/RESULTS.md "The transformer on SST-2" on one transformer model and keeps each
# summary (the CLI's last stdout line) in models/text/transformer-results/MODEL/NAME.json, with the command in it.
# N per experiment as in RESULTS: the whole test set, fewer for the costly ones (eraser's IG, the adversary's search,
# randomisation's four re-initialised copies). EXPERIMENTS="attention-flow head-ablation" runs only those (the
# ordered head ablation follows head-ablation); DATA=test.tsv names the file in DATA_DIR.
# Usage: bash models/tools/transformer-experiments.sh MODEL [DATA_DIR]   (JOBS=2 runs two experiments at a time)
set -euo pipefail
cd "$(dirname "$0")/../.."
model=${1:?model name under models/text}
data=${2:-../shared/data/sst2}
jobs=${JOBS:-1}
out=models/text/transformer-results/$model
mkdir -p "$out"
[ -x build/attnlab ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2 --target attnlab; }
run() {  # file name limit [extra args...]: the summary goes to $out/FILE.json
  local file=$1 name=$2 limit=$3
  shift 3
  local cmd=(build/attnlab experiment "$name" --model "models/text/$model" --data "$data/${DATA:-test.tsv}" --seed 1)
  [ "$limit" = 0 ] || cmd+=(--limit "$limit")
  cmd+=("$@")
  local t0=$SECONDS
  local line
  line=$(nice -n 10 "${cmd[@]}" 2>/dev/null | tail -1)
  node -e 'const [line, cmd, s] = process.argv.slice(1); const j = JSON.parse(line);
    j.command = cmd; j.wall_seconds = Number(s); process.stdout.write(JSON.stringify(j, null, 1) + "\n");' \
    "$line" "${cmd[*]}" "$((SECONDS - t0))" > "$out/$file.json"
  echo "$model $file: $((SECONDS - t0)) s"
}
experiments=(
  "attention-flow 0" "head-ablation 0" "kendall 0" "permutation 0" "erase-max 0" "erase-until-flip 0"
  "eraser 500" "adversarial 300" "randomization 100" "plausibility 0 --trees $data/trees/test.txt"
)
wanted=${EXPERIMENTS:-}
i=0
for e in "${experiments[@]}"; do
  if [ -n "$wanted" ] && [[ " $wanted " != *" ${e%% *} "* ]]; then continue; fi
  # shellcheck disable=SC2086
  run "${e%% *}" $e &
  i=$((i + 1))
  if [ $((i % jobs)) = 0 ]; then wait; fi
done
wait
# Michel et al.'s pruning by importance: the same ablation again in the single-ablation order (least harmful first).
if [ -n "$wanted" ] && [[ " $wanted " != *" head-ablation "* ]]; then exit 0; fi
order=$(node -e 'process.stdout.write(require(process.argv[1]).suggested_order)' "$PWD/$out/head-ablation.json")
run head-ablation-ordered head-ablation 0 --param "order=$order"
