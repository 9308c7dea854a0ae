#!/usr/bin/env node
// bench-images.mjs — the image lab's speed in Node, one process, so the ratios come from one machine state.
// Usage: node tests/bench/bench-images.mjs [--runs N] [--batch B] [--rise-n N] [--threads "1,2"]
//   defaults: N = 30 timed single-image runs (after 5 warm-ups), B = 16, RISE N = 2000, threads 1 and 2.
// Measures, with ONNX Runtime Web's wasm EP on models/image/mobilenet_v2.onnx and the wasm core:
//   1. MobileNetV2 224×224 inference, batch 1, for each thread count (median / p10 / p90 ms), and batch B
//      per image.
//   2. Score-CAM (one pass per channel, 1280) and RISE (N masks) end to end through the core's plans and
//      web/runtime/plan-runner.js, against (passes ÷ B) × one timed batch-B inference: the overhead ratio
//      (target ≤ 1.25: the plan's input building and combining must cost little next to the network).
//   3. The core alone: preprocessImage, a CAM map + upsample + overlay (what runs between "image decoded" and
//      "first CAM shown" besides one inference).
// Prints a markdown table and, as the last line, one JSON object with the same numbers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';
import { decodeImageFile } from '../../scripts/lib/image-files.mjs';
import { runPlanLoop } from '../../web/runtime/plan-runner.js';
import { readImageHead } from '../../web/runtime/image-head.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
};
const RUNS = Number(arg('runs', 30));
const BATCH = Number(arg('batch', 16));
const RISE_N = Number(arg('rise-n', 2000));
const THREADS = String(arg('threads', '1,2')).split(',').map(Number);
const SIZE = 224;

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'models/image/manifest.json'), 'utf8'));
const entry = manifest.models.find((m) => m.name === 'mobilenet_v2');
const modelBytes = fs.readFileSync(path.join(ROOT, 'models/image', entry.files.onnx.path));

function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  const q = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median_ms: +q(0.5).toFixed(2), p10_ms: +q(0.1).toFixed(2), p90_ms: +q(0.9).toFixed(2), runs: s.length };
}
async function time(fn, runs = RUNS, warmup = 5) {
  for (let i = 0; i < warmup; i++) await fn();
  const t = [];
  for (let i = 0; i < runs; i++) { const t0 = performance.now(); await fn(); t.push(performance.now() - t0); }
  return stats(t);
}
const { default: createModule } = await import(pathToFileURL(path.join(ROOT, 'web/gen/attnlab_core.mjs')).href);
const core = await createModule({ wasmBinary: fs.readFileSync(path.join(ROOT, 'web/gen/attnlab_core.wasm')) });
const head = readImageHead(fs.readFileSync(path.join(ROOT, 'models/image', entry.files.head.path)));
const { C, K } = head;
const lab = new core.ImageLab(head.weight, head.bias, C, K);
const photo = decodeImageFile(path.resolve(ROOT, 'web/images/cat.png'));
const image = core.preprocessImage(photo.rgba, photo.width, photo.height);

const result = { cpus: os.cpus().length, node: process.version, batch: BATCH, inference: {}, plans: {}, core: {} };
const table = [];

// ORT reads numThreads once per process (at wasm init), so each thread count runs in its own child process
// when more than one is asked for; the first one runs here.
const threads = Number(process.env.BENCH_IMAGES_THREADS || THREADS[0]);
ort.env.wasm.numThreads = threads;
const session = await ort.InferenceSession.create(modelBytes);
const run = (inputs, n) => session.run({ image: new ort.Tensor('float32', inputs, [n, 3, SIZE, SIZE]) });
const single = await time(() => run(image.slice(), 1));
const batchInput = new Float32Array(BATCH * image.length);
for (let b = 0; b < BATCH; b++) batchInput.set(image, b * image.length);
const batched = await time(() => run(batchInput.slice(), BATCH), Math.max(5, Math.floor(RUNS / 4)), 2);
result.inference[`threads_${threads}`] = { batch1: single, [`batch${BATCH}_per_image_ms`]: +(batched.median_ms / BATCH).toFixed(2), [`batch${BATCH}`]: batched };
table.push([`MobileNetV2 224², ${threads} thread(s), batch 1`, `${single.median_ms} ms`, `p10 ${single.p10_ms} / p90 ${single.p90_ms}`]);
table.push([`MobileNetV2 224², ${threads} thread(s), batch ${BATCH}, per image`, `${(batched.median_ms / BATCH).toFixed(2)} ms`, '']);

if (!process.env.BENCH_IMAGES_THREADS) {
  // The plans, at the first thread count.
  const first = await run(image.slice(), 1);
  const [, , h, w] = first.features.dims;
  const cls = Array.from(first.logits.data).reduce((bi, v, i, a) => (v > a[bi] ? i : bi), 0);
  const runBatch = async (inputs, n) => (await run(inputs, n)).logits.data;
  for (const [name, make] of [
    ['scorecam', () => core.planScoreCam(image, first.features.data, h, w, cls)],
    ['rise', () => core.planRise(image, cls, RISE_N, 7, 0.5, 1)],
  ]) {
    const plan = make();
    const t0 = performance.now();
    const passes = plan.count();
    await runPlanLoop(plan, { batch: BATCH, forward: runBatch });
    const total = performance.now() - t0;
    plan.delete();
    const networkOnly = (passes / BATCH) * batched.median_ms;
    result.plans[name] = { passes, total_ms: +total.toFixed(0), network_only_ms: +networkOnly.toFixed(0), overhead: +(total / networkOnly).toFixed(3) };
    table.push([`${name} end to end (${passes} passes)`, `${(total / 1000).toFixed(2)} s`, `÷ ${passes}/${BATCH} batched inferences (${(networkOnly / 1000).toFixed(2)} s) = ${(total / networkOnly).toFixed(3)}×`]);
  }
  // The core between decode and first CAM.
  result.core.preprocess = await time(() => core.preprocessImage(photo.rgba, photo.width, photo.height), 50, 5);
  result.core.cam_upsample_overlay = await time(() => {
    const m = lab.map('cam', first.features.data, h, w, cls, 1);
    const up = core.normalizeMap(core.upsampleMap(m, h, w, SIZE, SIZE));
    core.overlayMap(image, up, SIZE, SIZE, 0.5, 'viridis');
  }, 50, 5);
  table.push([`core: preprocessImage (${photo.width}×${photo.height} → 224²)`, `${result.core.preprocess.median_ms} ms`, '']);
  table.push(['core: CAM + upsample + normalise + overlay', `${result.core.cam_upsample_overlay.median_ms} ms`, '']);

  // The other thread counts, each in a fresh process.
  const { execFileSync } = await import('node:child_process');
  for (const t of THREADS.slice(1)) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--runs', String(RUNS), '--batch', String(BATCH)], {
      env: { ...process.env, BENCH_IMAGES_THREADS: String(t) }, encoding: 'utf8',
    });
    const child = JSON.parse(out.trim().split('\n').at(-1));
    Object.assign(result.inference, child.inference);
    const c = child.inference[`threads_${t}`];
    table.push([`MobileNetV2 224², ${t} thread(s), batch 1`, `${c.batch1.median_ms} ms`, `p10 ${c.batch1.p10_ms} / p90 ${c.batch1.p90_ms}`]);
    table.push([`MobileNetV2 224², ${t} thread(s), batch ${BATCH}, per image`, `${c[`batch${BATCH}_per_image_ms`]} ms`, '']);
  }
  const t1 = result.inference.threads_1?.batch1.median_ms;
  const t2 = result.inference.threads_2?.batch1.median_ms;
  if (t1 && t2) table.push(['speed-up 2 threads vs 1 (batch 1)', `${(t1 / t2).toFixed(2)}×`, '']);
  console.log('| measurement | median | notes |\n|---|---|---|');
  for (const r of table) console.log(`| ${r.join(' | ')} |`);
}
lab.delete();
console.log(JSON.stringify(result));
