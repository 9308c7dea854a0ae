#!/usr/bin/env bash
# convert-mobilenet.sh — regenerates models/image/* from ../shared/data (the coral MobileNetV2 uint8 TFLite model):
#   mobilenet_v2.onnx (float graph, uint8 weights + DequantizeLinear), mobilenet_v2.head.safetensors, labels.txt,
#   manifest.json (sha256, metrics on the 1000 imagenet_samples centre crops, speed, provenance).
# Usage: bash models/tools/convert-mobilenet.sh [DATA_DIR (default ../shared/data)]
#   COMPARE=1 also converts the fp16 / fp32 / no-clamp variants into tmp/image-compare/ and measures them all
#   (the storage choice recorded in the manifest's provenance.storage_comparison); takes ~5 min on 2 cores.
# Needs: node ≥ 20 with the repo's node_modules (onnx-proto, flatbuffers, onnxruntime-web, jpeg-js, pngjs).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
data="${1:-../shared/data}"
tflite="$data/mobilenet_v2_coral/mobilenet_v2_1.0_224_quant.tflite"
[[ -f "$tflite" ]] || { echo "convert-mobilenet: $tflite not found" >&2; exit 1; }
out=models/image
mkdir -p "$out"
conv=(node models/tools/tflite-to-onnx.mjs --tflite "$tflite")
"${conv[@]}" --out "$out/mobilenet_v2.onnx" --head "$out/mobilenet_v2.head.safetensors" --storage uint8 >/dev/null
install -m 644 "$data/mobilenet_v2_coral/imagenet_labels.txt" "$out/labels.txt"

compare_json="$out/storage-comparison.json"
if [[ "${COMPARE:-0}" == 1 ]]; then
  cmp=tmp/image-compare
  mkdir -p "$cmp"
  "${conv[@]}" --out "$cmp/uint8.onnx" --storage uint8 >/dev/null
  "${conv[@]}" --out "$cmp/fp16.onnx" --storage fp16 >/dev/null
  "${conv[@]}" --out "$cmp/fp32.onnx" --storage fp32 >/dev/null
  "${conv[@]}" --out "$cmp/uint8-noclamp.onnx" --storage uint8 --no-clamp >/dev/null
  node models/tools/build-image-manifest.mjs --data "$data" --out "$compare_json" \
    --compare "$cmp/uint8.onnx" "$cmp/fp16.onnx" "$cmp/fp32.onnx" "$cmp/uint8-noclamp.onnx"
fi

# the integer reference's accuracy on all 1000 crops, if ALL=1 models/tools/reference/make-fixture.sh was run
ref=()
[[ -f tmp/image-reference/all/accuracy.json ]] && ref=(--reference-json tmp/image-reference/all/accuracy.json)
node models/tools/build-image-manifest.mjs --data "$data" --dir "$out" --storage uint8 "${ref[@]}" \
  --converter-command "bash models/tools/convert-mobilenet.sh" --compare-json "$compare_json" \
  --storage-note "uint8 weights + DequantizeLinear (per-tensor scale / zero point, exactly the TFLite values): the smallest file (3.57 MB vs 7.04 MB fp16, 13.98 MB fp32) with the same accuracy: all variants give top-1/top-5 0.879/0.983 on the 1000 imagenet_samples centre crops (uint8, fp16, fp32, and uint8 without the range clipping). Speed (onnxruntime-web wasm EP in Node, 1 thread, a shared and busy 2-core machine, so absolute medians are noisy): the paired single-image difference is about 1 ms of 46-50 ms (uint8 slower by 0.7-1.2 ms, ~2 %); load and batch-16 times moved by more from run to run than between storages (see storage_comparison). The graph's ops (Sub, Mul, DequantizeLinear uint8, Conv, Clip, Add, GlobalAveragePool, Flatten) all have kernels in onnxruntime's WebGPU EP; the WebGPU run itself was not tested here (no GPU)."
