#!/usr/bin/env node
// build-image-manifest.mjs — measures the converted MobileNetV2 ONNX model(s) with onnxruntime-web (wasm EP, Node)
// and writes models/image/manifest.json.
//
// Usage:
//   node models/tools/build-image-manifest.mjs --data ../shared/data --dir models/image [--threads 1]
//        [--converter-command "..."] [--storage uint8] [--storage-note "..."] [--compare-json FILE]
//        [--reference-json FILE (accuracy of the integer reference, {n, top1, top5})]
//     → evaluates DIR/mobilenet_v2.onnx on all 1000 ../shared/data/imagenet_samples photos (exact centre 224×224
//       crop: they all have a shorter side of 256), measures load / single-image / batch-16 time, and writes
//       DIR/manifest.json (sha256 + bytes of the files, input/outputs, preprocessing, metrics, provenance).
//   node models/tools/build-image-manifest.mjs --data ../shared/data --compare A.onnx B.onnx … [--out FILE.json]
//     → the same measurements for each model (to choose the weight storage); prints / writes JSON.
// Timing: load = median of 3 InferenceSession.create from bytes; single = median of 15 runs of 1 image; batch16 =
// median of 6 runs of 16 images (after 2 warm-up runs). With --compare the rounds are interleaved across the models
// (order alternating), singles are 40 rounds, and each row also gets the median of the paired differences of its
// single-image times to the first model's (robust to load from other processes) and its minimum.
// Single-threaded unless --threads says otherwise. Machine-dependent: compare rows of one run, not across runs.

import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import * as ort from 'onnxruntime-web';
import { decodeImageFile, centerCropRgb, hwcToChw255, readImagenetSamples } from '../../scripts/lib/image-files.mjs';

const S = 224, PIX = 3 * S * S;
const sha256 = (b) => createHash('sha256').update(b).digest('hex');
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

function args(argv) {
  const a = { compare: [], threads: 1 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => { if (i + 1 >= argv.length) throw new Error(`${k} needs a value`); return argv[++i]; };
    if (k === '--data') a.data = v();
    else if (k === '--dir') a.dir = v();
    else if (k === '--threads') a.threads = Number(v());
    else if (k === '--out') a.out = v();
    else if (k === '--converter-command') a.command = v();
    else if (k === '--storage') a.storage = v();
    else if (k === '--storage-note') a.storageNote = v();
    else if (k === '--compare-json') a.compareJson = v();
    else if (k === '--reference-json') a.referenceJson = v();
    else if (k === '--limit') a.limit = Number(v());
    else if (k === '--compare') { while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) a.compare.push(argv[++i]); }
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.data) throw new Error('--data DIR (../shared/data) is required');
  if (!a.dir && !a.compare.length) throw new Error('give --dir DIR or --compare A.onnx …');
  return a;
}

/** All sample crops as one Uint8Array of HWC crops (decoded once). */
function loadSamples(dataDir, limit) {
  let samples = readImagenetSamples(dataDir);
  if (limit) samples = samples.slice(0, limit);
  const crops = new Uint8Array(samples.length * PIX);
  samples.forEach((s, i) => {
    const im = decodeImageFile(s.file);
    if (Math.min(im.width, im.height) !== 256) throw new Error(`${s.file}: shorter side is not 256`);
    crops.set(centerCropRgb(im.rgba, im.width, im.height, S), i * PIX);
  });
  return { samples, crops };
}

function batchInput(crops, start, n) {
  const x = new Float32Array(n * PIX);
  for (let i = 0; i < n; i++) x.set(hwcToChw255(crops.subarray((start + i) * PIX, (start + i + 1) * PIX), S), i * PIX);
  return new ort.Tensor('float32', x, [n, 3, S, S]);
}

/** Top-1 / top-5 of one session over all samples (batches of 16). */
async function accuracy(session, { samples, crops }) {
  let top1 = 0, top5 = 0;
  const predictions = [];
  const B = 16;
  for (let start = 0; start < samples.length; start += B) {
    const n = Math.min(B, samples.length - start);
    const out = await session.run({ image: batchInput(crops, start, n) });
    const C = out.logits.dims[1];
    for (let i = 0; i < n; i++) {
      const l = out.logits.data.subarray(i * C, (i + 1) * C);
      const want = samples[start + i].coralIndex;
      let rank = 0;
      for (let k = 0; k < C; k++) if (l[k] > l[want] || (l[k] === l[want] && k < want)) rank++;
      if (rank === 0) top1++;
      if (rank < 5) top5++;
      let best = 0;
      for (let k = 1; k < C; k++) if (l[k] > l[best]) best = k;
      predictions.push(best);
    }
  }
  return { n: samples.length, top1: top1 / samples.length, top5: top5 / samples.length, predictions };
}

/**
 * Load / single-image / batch-16 times of several models, measured in interleaved rounds (model A, B, …, then
 * again) so that load from other processes on the machine falls on all of them alike. Returns one row per file.
 */
async function timings(files, { crops, samples }) {
  const rows = files.map((f) => ({ file: f, bytes: fs.readFileSync(f), loads: [], singles: [], batches: [], session: null }));
  const one = batchInput(crops, 0, 1), b16 = batchInput(crops, 0, Math.min(16, samples.length));
  for (let r = 0; r < 3; r++) {
    for (const row of rows) {
      if (row.session) await row.session.release();
      const t0 = performance.now();
      row.session = await ort.InferenceSession.create(row.bytes);
      row.loads.push(performance.now() - t0);
    }
  }
  for (const row of rows) for (let r = 0; r < 2; r++) { await row.session.run({ image: one }); await row.session.run({ image: b16 }); }
  const order = (r) => (r % 2 ? [...rows].reverse() : rows); // alternate the order so no model always runs first
  const singleRounds = rows.length > 1 ? 40 : 15;
  for (let r = 0; r < singleRounds; r++) {
    for (const row of order(r)) { const t0 = performance.now(); await row.session.run({ image: one }); row.singles.push(performance.now() - t0); }
  }
  for (let r = 0; r < 6; r++) {
    for (const row of order(r)) { const t0 = performance.now(); await row.session.run({ image: b16 }); row.batches.push(performance.now() - t0); }
  }
  return rows.map((row) => ({
    file: path.basename(row.file), bytes: row.bytes.length, session: row.session,
    load_ms: +median(row.loads).toFixed(1), single_ms: +median(row.singles).toFixed(1), batch16_ms: +median(row.batches).toFixed(1),
    ...(rows.length > 1 ? {
      single_paired_diff_vs_first_ms: +median(row.singles.map((v, i) => v - rows[0].singles[i])).toFixed(1),
      single_min_ms: +Math.min(...row.singles).toFixed(1),
    } : {}),
  }));
}

async function measureAll(files, data) {
  const rows = await timings(files, data);
  for (const row of rows) {
    Object.assign(row, await accuracy(row.session, data));
    await row.session.release();
    delete row.session;
    Object.defineProperty(row, 'predictions', { enumerable: false, value: row.predictions }); // kept out of JSON
    console.error(JSON.stringify(row));
  }
  return rows;
}

function readDataCommit(dataDir) {
  const readme = fs.readFileSync(path.join(dataDir, 'README.md'), 'utf8');
  const m = readme.match(/google-coral\/test_data\*\*, commit `([0-9a-f]{40})`/);
  return m ? m[1] : null;
}

async function main() {
  const a = args(process.argv.slice(2));
  ort.env.wasm.numThreads = a.threads;
  const data = loadSamples(a.data, a.limit);
  if (a.compare.length) {
    const rows = await measureAll(a.compare, data);
    if (a.out) fs.writeFileSync(a.out, JSON.stringify({ threads: a.threads, node: process.version, ort: ort.env.versions?.web ?? null, rows }, null, 2) + '\n');
    return;
  }
  const dir = a.dir;
  const file = (name) => { const b = fs.readFileSync(path.join(dir, name)); return { path: name, bytes: b.length, sha256: sha256(b) }; };
  const [m] = await measureAll([path.join(dir, 'mobilenet_v2.onnx')], data);
  // top-1 agreement with the integer reference, when its per-photo results (…/reference.json next to the accuracy file) exist
  let agreement = null;
  const refItemsFile = a.referenceJson ? path.join(path.dirname(a.referenceJson), 'reference.json') : null;
  if (refItemsFile && fs.existsSync(refItemsFile)) {
    const ref = new Map(JSON.parse(fs.readFileSync(refItemsFile, 'utf8')).items.map((it) => [it.name, it.top5[0]]));
    let same = 0, n = 0;
    data.samples.forEach((s, i) => { const r = ref.get(path.basename(s.name, '.jpg')); if (r !== undefined) { n++; if (r === m.predictions[i]) same++; } });
    agreement = { n, top1_equal: same };
  }
  const tflite = path.join(a.data, 'mobilenet_v2_coral/mobilenet_v2_1.0_224_quant.tflite');
  const labelsSrc = path.join(a.data, 'mobilenet_v2_coral/imagenet_labels.txt');
  const compare = a.compareJson && fs.existsSync(a.compareJson) ? JSON.parse(fs.readFileSync(a.compareJson, 'utf8')) : null;
  const manifest = {
    models: [{
      name: 'mobilenet_v2',
      description: 'MobileNetV2 1.0/224 (ImageNet, 1001 classes incl. background), the coral uint8 TFLite model converted to a float ONNX graph',
      files: {
        onnx: file('mobilenet_v2.onnx'),
        head: file('mobilenet_v2.head.safetensors'),
        labels: file('labels.txt'),
      },
      input: { name: 'image', dtype: 'float32', shape: ['N', 3, 224, 224],
        description: 'planar RGB, values 0–255 (the TFLite uint8 input values); the graph applies (x − 128)·0.0078125' },
      outputs: {
        features: { dtype: 'float32', shape: ['N', 1280, 7, 7], description: 'last feature map (TFLite tensor 168, after ReLU6), dequantised' },
        logits: { dtype: 'float32', shape: ['N', 1001], description: 'classifier output before softmax; index 0 = background, ImageNet class i = index i + 1; not capped' },
      },
      head: {
        weight_q: 'U8 [1001,1280]', weight_scale: 'F32 [1001]', weight_zero_point: 'F32 [1001]', bias: 'F32 [1001]',
        formula: 'logits = weight · mean_{7×7}(features) + bias, weight = (weight_q − weight_zero_point) · weight_scale in float32 (web/runtime/image-head.js)',
      },
      preprocessing: 'shorter side resized to 256 (antialiased area/triangle filter when downscaling, bilinear when upscaling, half-pixel centres), centre 224×224 crop, alpha over white, planar RGB float32 0–255; no mean/std normalisation (the graph does it)',
      metrics: {
        imagenet_samples_center_crop: {
          data: 'imagenet_samples (1000 photos, one per class, shorter side 256 → exact centre 224×224 crop, no resampling)',
          n: m.n, top1: m.top1, top5: m.top5,
          note: 'the photos may come from the ImageNet training split, so this can be optimistic; the direct-resize protocol was not measured',
        },
        ...(a.referenceJson && fs.existsSync(a.referenceJson) ? {
          tflite_int8_reference_center_crop: {
            ...JSON.parse(fs.readFileSync(a.referenceJson, 'utf8')),
            ...(agreement ? { onnx_top1_equal_to_reference: agreement } : {}),
            note: 'the integer TFLite-semantics reference (models/tools/reference/tflite_int8_reference.py, ALL=1 make-fixture.sh) on the same 1000 centre crops',
          },
        } : {}),
        speed_node_wasm: { threads: a.threads, load_ms: m.load_ms, single_ms: m.single_ms, batch16_ms: m.batch16_ms,
          note: 'onnxruntime-web wasm EP in Node (median; machine-dependent)' },
      },
      provenance: {
        source: {
          repository: 'google-coral/test_data', commit: readDataCommit(a.data),
          file: 'mobilenet_v2_1.0_224_quant.tflite', sha256: sha256(fs.readFileSync(tflite)), license: 'Apache-2.0',
          labels: { file: 'imagenet_labels.txt', sha256: sha256(fs.readFileSync(labelsSrc)) },
        },
        converter: a.command ?? 'bash models/tools/convert-mobilenet.sh',
        storage: a.storage ?? null,
        storage_reason: a.storageNote ?? null,
        storage_comparison: compare,
        onnxruntime_web: JSON.parse(fs.readFileSync(new URL('../../node_modules/onnxruntime-web/package.json', import.meta.url), 'utf8')).version,
      },
    }],
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  console.log(JSON.stringify(m));
}

main().catch((e) => { console.error(`build-image-manifest: ${e.message}`); process.exit(1); });
