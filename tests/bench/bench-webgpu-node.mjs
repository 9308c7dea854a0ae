#!/usr/bin/env node
// bench-webgpu-node.mjs — WebGPU on a real GPU, measured without a browser (issue 31): ONNX Runtime Web's WebGPU
// bundle (what the page loads when it finds a hardware adapter) run in Node through Dawn (the npm package `webgpu`,
// not a dependency: `npm install --no-save webgpu@0.6.2`), against its wasm EP bundle on the same machine.
// Usage: node tests/bench/bench-webgpu-node.mjs [--runs N] [--batch B] [--wasm-threads N] [--dawn FLAG]...
//                                               [--allow-fallback] [--no-scorecam] [--out FILE]
//   --runs N          timed batch-1 runs (default 30; batch B runs N/4, at least 3), after warm-ups
//   --batch B         the batched forward (default 16)
//   --wasm-threads N  the wasm EP's threads, 1–16 as the page's threads= (default the page's: min(4, cores))
//   --dawn FLAG       passed to Dawn's create() (repeatable): e.g. backend=vulkan, adapter=NAME; backend=null runs
//                     the whole path on Dawn's null device (a plumbing check: its numbers and outputs mean nothing)
//   --allow-fallback  measure even a software adapter (SwiftShader, lavapipe)
//   --scorecam-batch N  Score-CAM's batch on both backends (default the page's: 32 on WebGPU, 8 on wasm)
// What it records (MobileNetV2 224², models/image/mobilenet_v2.onnx, the cat photo web/images/cat.png), each backend in
// its own process (the two ORT bundles are separate builds):
//   the adapter (vendor, architecture, device, description, fallback or not);
//   session creation, the first forward (the GPU's shaders compile there), batch 1 (median / p10 / p90) and batch B
//   (per image);
//   Score-CAM end to end (the core's plan, one pass per channel, fed by web/runtime/plan-runner.js at the page's batch
//   size for that backend, ort-backend.js batchSizeFor) and whether the two backends agree: top-1, the logits'
//   largest difference, the Score-CAM maps' correlation and largest difference (of maps scaled to [0, 1]).
// Prints a markdown table, then one JSON line. Exit 0 measured; 2 no WebGPU adapter (the reasons are printed:
// scripts/lib/webgpu-diagnose.mjs); 3 a fallback adapter without --allow-fallback.
// Dawn's writeBuffer rejects (or crashes on) views of a SharedArrayBuffer, and ORT's threaded wasm memory is one in
// Node: the WebGPU child copies such views first (sharedSafeWriteBuffer).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gatherFacts, explainNoAdapter } from '../../scripts/lib/webgpu-diagnose.mjs';
import { batchSizeFor, chooseBackend, createSession, describeAdapter, loadOrt } from '../../web/runtime/ort-backend.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = fileURLToPath(import.meta.url);
const ORT_DIST = path.join(ROOT, 'node_modules/onnxruntime-web/dist/');
const argv = process.argv.slice(2);
const arg = (name, def) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : def; };
const args = (name) => argv.flatMap((a, i) => (a === `--${name}` && i + 1 < argv.length ? [argv[i + 1]] : []));
const RUNS = Number(arg('runs', 30));
const BATCH = Number(arg('batch', 16));
const WASM_THREADS = Number(arg('wasm-threads', Math.max(1, Math.min(4, os.cpus().length))));
const DAWN_FLAGS = args('dawn');
const CHILD = arg('child', null);
const SIZE = 224;

// ---------------------------------------------------------------- Dawn in this process (probe and webgpu children)
async function importDawn() {
  try {
    return await import('webgpu');
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw e;
  }
}

function sharedSafeWriteBuffer(GPUQueue) {
  const write = GPUQueue.prototype.writeBuffer;
  GPUQueue.prototype.writeBuffer = function (buffer, offset, data, dataOffset = 0, size) {
    if (ArrayBuffer.isView(data) && data.buffer instanceof SharedArrayBuffer) {
      const el = data.BYTES_PER_ELEMENT ?? 1;
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
      return size === undefined ? write.call(this, buffer, offset, bytes, dataOffset * el)
        : write.call(this, buffer, offset, bytes, dataOffset * el, size * el);
    }
    return size === undefined ? write.call(this, buffer, offset, data, dataOffset) : write.call(this, buffer, offset, data, dataOffset, size);
  };
}

async function adapterFrom(dawn) {
  Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create(DAWN_FLAGS);
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) return { gpu, adapter: null, info: null };
  return { gpu, adapter, info: plainInfo(adapter.info) };
}

// A GPUAdapterInfo's fields as a plain object (its getters do not survive JSON).
const plainInfo = (i) => ({ vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description,
  fallback: Boolean(i.isFallbackAdapter), nullBackend: DAWN_FLAGS.includes('backend=null') });
const softwareAdapter = (info) => info.fallback || /swiftshader|llvmpipe|lavapipe/i.test(describeAdapter(info));

// ---------------------------------------------------------------- a measuring child: one backend, one ORT bundle
function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  const q = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median_ms: +q(0.5).toFixed(2), p10_ms: +q(0.1).toFixed(2), p90_ms: +q(0.9).toFixed(2), runs: s.length };
}
async function timed(fn, runs, warmup) {
  for (let i = 0; i < warmup; i++) await fn();
  const t = [];
  for (let i = 0; i < runs; i++) { const t0 = performance.now(); await fn(); t.push(performance.now() - t0); }
  return stats(t);
}

// The page's own path (web/runtime/ort-backend.js): the backend forced as backend= in the URL forces it, the bundle and
// thread count it picks, the session on exactly that EP.
async function measure(backend) {
  let gpu;
  if (backend === 'webgpu') {
    const dawn = await importDawn();
    Object.assign(globalThis, dawn.globals);
    gpu = dawn.create(DAWN_FLAGS);
    sharedSafeWriteBuffer(globalThis.GPUQueue);
    // Node 21+ defines navigator with a getter only: replace the property rather than assign to it.
    Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
  }
  const choice = await chooseBackend({ gpu, override: backend, crossOriginIsolated: true,
    hardwareConcurrency: os.cpus().length, threads: WASM_THREADS });
  const ort = await loadOrt(choice, ORT_DIST);  // a path: ORT in Node reads its wasm from files, not by fetch
  const { runPlanLoop } = await import('../../web/runtime/plan-runner.js');
  const { decodeImageFile } = await import('../../scripts/lib/image-files.mjs');
  const { default: createModule } = await import(pathToFileURL(path.join(ROOT, 'web/gen/attnlab_core.mjs')).href);
  const core = await createModule({ wasmBinary: fs.readFileSync(path.join(ROOT, 'web/gen/attnlab_core.wasm')) });
  const photo = decodeImageFile(path.join(ROOT, 'web/images/cat.png'));
  const image = core.preprocessImage(photo.rgba, photo.width, photo.height);

  const bytes = fs.readFileSync(path.join(ROOT, 'models/image/mobilenet_v2.onnx'));
  let t0 = performance.now();
  const { session, ep } = await createSession(ort, bytes, choice);
  const sessionMs = performance.now() - t0;
  const run = (inputs, n) => session.run({ image: new ort.Tensor('float32', inputs, [n, 3, SIZE, SIZE]) });
  t0 = performance.now();
  const first = await run(image.slice(), 1);
  const firstMs = performance.now() - t0;
  const batch1 = await timed(() => run(image.slice(), 1), RUNS, 3);
  const many = new Float32Array(BATCH * image.length);
  for (let b = 0; b < BATCH; b++) many.set(image, b * image.length);
  const batchB = await timed(() => run(many.slice(), BATCH), Math.max(3, Math.floor(RUNS / 4)), 1);
  const logits = Array.from(first.logits.data);
  const top1 = logits.reduce((bi, v, i, a) => (v > a[bi] ? i : bi), 0);
  const out = { backend, ep, adapter: choice.adapterInfo ? plainInfo(choice.adapterInfo) : null, threads: choice.numThreads, session_ms: +sessionMs.toFixed(0),
    first_ms: +firstMs.toFixed(1), batch1, [`batch${BATCH}`]: batchB, [`batch${BATCH}_per_image_ms`]: +(batchB.median_ms / BATCH).toFixed(2),
    top1, logits };
  if (!argv.includes('--no-scorecam')) {
    const [, , h, w] = first.features.dims;
    const plan = core.planScoreCam(image, first.features.data, h, w, top1);
    const batch = Number(arg('scorecam-batch', batchSizeFor(backend)));
    try {
      t0 = performance.now();
      await runPlanLoop(plan, { batch, forward: async (inputs, n) => (await run(inputs, n)).logits.data });
      out.scorecam = { passes: plan.count(), batch, total_ms: +(performance.now() - t0).toFixed(0), map: Array.from(plan.result()) };
    } catch (e) {
      out.scorecam = { passes: plan.count(), batch, error: String(e?.message ?? e).split('\n')[0].slice(0, 500) };
    } finally {
      plan.delete();
    }
  }
  await session.release();
  return out;
}

// ---------------------------------------------------------------- the parent: probe, measure both, compare
// A child writes its result to a file (a pipe is flushed asynchronously, and the child must exit: see the end).
function runChild(mode) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-webgpu-')), 'result.json');
  const r = spawnSync(process.execPath, [SELF, ...argv, '--child', mode, '--result', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  let json = null;
  try { json = JSON.parse(fs.readFileSync(file, 'utf8')); } catch { json = null; }
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return { json, stderr: r.stderr ?? '', status: r.status, signal: r.signal };
}

function scaled(map) {
  let lo = Infinity, hi = -Infinity;
  for (const v of map) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return map.map((v) => (hi > lo ? (v - lo) / (hi - lo) : 0));
}
function pearson(a, b) {
  const n = a.length, ma = a.reduce((s, v) => s + v, 0) / n, mb = b.reduce((s, v) => s + v, 0) / n;
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < n; i++) { ab += (a[i] - ma) * (b[i] - mb); aa += (a[i] - ma) ** 2; bb += (b[i] - mb) ** 2; }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : NaN;
}
const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

function safeRun(cmd, cmdArgs) {
  try { return execFileSync(cmd, cmdArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }); } catch { return null; }
}
function safeReadDir(d) {
  try { return fs.readdirSync(d); } catch { return []; }
}

async function parent() {
  const dawn = await importDawn();
  if (!dawn) {
    console.log(`No WebGPU adapter:\n- ${explainNoAdapter({ packageMissing: true }).join('\n- ')}`);
    return 2;
  }
  const probe = runChild('probe');
  const adapter = probe.json?.adapter ?? null;
  if (!adapter) {
    const facts = gatherFacts({ env: process.env, exists: fs.existsSync, readDir: safeReadDir, run: safeRun });
    const crashed = probe.json ? null : `the probe process ended with ${probe.signal ?? `status ${probe.status}`}`;
    const why = explainNoAdapter({ dawnStderr: probe.stderr, facts, adapterError: probe.json?.error ?? crashed });
    console.log(`No WebGPU adapter (Dawn flags: ${DAWN_FLAGS.length ? DAWN_FLAGS.join(' ') : 'none'}):\n- ${why.join('\n- ')}`);
    console.log(JSON.stringify({ adapter: null, why }));
    return 2;
  }
  console.log(`WebGPU adapter: ${describeAdapter(adapter)}${adapter.fallback ? ' (fallback)' : ''}${adapter.nullBackend ? ' (Dawn\'s null backend: a plumbing check, not a measurement)' : ''}`);
  if (softwareAdapter(adapter) && !argv.includes('--allow-fallback')) {
    console.log('That is a software adapter (the page would not use it): --allow-fallback measures it anyway.');
    return 3;
  }
  const results = {};
  for (const backend of ['webgpu', 'wasm']) {
    const r = runChild(backend);
    if (!r.json) {
      const errors = r.stderr.split('\n').filter((l) => /^\w*Error\b/.test(l.trim())).map((l) => l.trim().slice(0, 600));
      throw new Error(`The ${backend} run failed (${r.signal ?? `status ${r.status}`}): ${errors.join(' / ') || r.stderr.slice(-1500)}`);
    }
    results[backend] = r.json;
  }
  const g = results.webgpu, w = results.wasm;
  const rows = [
    ['adapter', describeAdapter(adapter), `wasm EP, ${w.threads} thread(s), ${os.cpus().length} cores`, ''],
    ['ORT reports', g.ep, w.ep, ''],
    ['session creation', `${g.session_ms} ms`, `${w.session_ms} ms`, ''],
    ['first forward', `${g.first_ms} ms`, `${w.first_ms} ms`, ''],
    ['batch 1, median (p10 / p90)', `${g.batch1.median_ms} ms (${g.batch1.p10_ms} / ${g.batch1.p90_ms})`,
      `${w.batch1.median_ms} ms (${w.batch1.p10_ms} / ${w.batch1.p90_ms})`, `${(w.batch1.median_ms / g.batch1.median_ms).toFixed(2)}×`],
    [`batch ${BATCH}, per image`, `${g[`batch${BATCH}_per_image_ms`]} ms`, `${w[`batch${BATCH}_per_image_ms`]} ms`,
      `${(w[`batch${BATCH}_per_image_ms`] / g[`batch${BATCH}_per_image_ms`]).toFixed(2)}×`],
  ];
  const agree = { top1_same: g.top1 === w.top1, logits_max_diff: +maxDiff(g.logits, w.logits).toExponential(3) };
  rows.push(['top-1 (cat photo); largest logit difference', String(g.top1), String(w.top1), `${agree.top1_same ? 'same' : 'DIFFERENT'}; ${agree.logits_max_diff}`]);
  if (g.scorecam || w.scorecam) {
    const cell = (r) => (!r.scorecam ? '' : r.scorecam.error ? `failed (batch ${r.scorecam.batch}): ${r.scorecam.error}`
      : `${(r.scorecam.total_ms / 1000).toFixed(2)} s (batch ${r.scorecam.batch})`);
    const both = g.scorecam?.map && w.scorecam?.map;
    rows.push([`Score-CAM end to end (${(g.scorecam ?? w.scorecam).passes} passes)`, cell(g), cell(w),
      both ? `${(w.scorecam.total_ms / g.scorecam.total_ms).toFixed(2)}×` : '']);
    if (both) {
      const a = scaled(g.scorecam.map), b = scaled(w.scorecam.map);
      agree.scorecam_r = +pearson(a, b).toFixed(6);
      agree.scorecam_max_diff = +maxDiff(a, b).toExponential(3);
      rows.push(['Score-CAM maps (scaled to [0, 1]): r; largest difference', '', '', `${agree.scorecam_r}; ${agree.scorecam_max_diff}`]);
    }
  }
  console.log('\n| MobileNetV2 224² | WebGPU | wasm | wasm ÷ WebGPU |\n| --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  for (const r of Object.values(results)) { delete r.logits; if (r.scorecam) delete r.scorecam.map; }
  const summary = { cpus: os.cpus().length, node: process.version, dawn_flags: DAWN_FLAGS, adapter, agree, ...results };
  const out = arg('out', null);
  if (out) fs.writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify(summary));
  return 0;
}

async function child(mode) {
  if (mode === 'probe') {
    try {
      const { info } = await adapterFrom(await importDawn());
      return { adapter: info };
    } catch (e) {
      return { adapter: null, error: e?.message ?? String(e) };
    }
  }
  return measure(mode);
}

if (CHILD) {
  fs.writeFileSync(arg('result', null), JSON.stringify(await child(CHILD)));
  process.exit(0);  // Dawn keeps Node alive while its instance lives
} else {
  process.exit(await parent());
}
