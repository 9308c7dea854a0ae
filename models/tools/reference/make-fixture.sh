#!/usr/bin/env bash
# make-fixture.sh — regenerates tests/fixtures/image/tflite_int8_reference.json (development time only; needs Debian's
# /usr/bin/python3 with numpy, ~3–5 min on 2 cores): the integer TFLite reference on the 5 lossless demo PNGs (full
# uint8 logits) and on every 10th imagenet_samples photo (top-5 only, the subset tests/node/image_model.test.mjs uses).
# ALL=1 additionally runs the reference on all 1000 imagenet_samples photos and prints top-1/top-5 (~25–40 min).
# Usage: bash models/tools/reference/make-fixture.sh [DATA_DIR (default ../shared/data)]
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
data="${1:-../shared/data}"
tflite="$data/mobilenet_v2_coral/mobilenet_v2_1.0_224_quant.tflite"
work=tmp/image-reference
node models/tools/reference/write-crops.mjs --data "$data" --out "$work/demo" --demo
node models/tools/reference/write-crops.mjs --data "$data" --out "$work/every10" --samples 10
mkdir -p tests/fixtures/image
/usr/bin/python3 models/tools/reference/tflite_int8_reference.py --self-test
/usr/bin/python3 models/tools/reference/tflite_int8_reference.py --tflite "$tflite" --crops "$work/demo/crops.json" \
  --brief-crops "$work/every10/crops.json" --brief-crops-name "imagenet_samples, every 10th (index 0, 10, …, 990), exact centre crop" \
  --out tests/fixtures/image/tflite_int8_reference.json
if [[ "${ALL:-0}" == 1 ]]; then
  node models/tools/reference/write-crops.mjs --data "$data" --out "$work/all" --samples 1
  /usr/bin/python3 models/tools/reference/tflite_int8_reference.py --tflite "$tflite" --crops "$work/all/crops.json" \
    --brief --out "$work/all/reference.json" --eval-out "$work/all/accuracy.json"
fi
