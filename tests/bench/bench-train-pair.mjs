#!/usr/bin/env node
// bench-train-pair.mjs — training in the page's wasm core against the native CLI, one thread each, the same recipe,
// data and seed, run in turn in one session (issue 31's "page / native" ratios; the machine is shared, so read the
// ratio, not the seconds):
//   bilstm  one epoch of the Train view's BiLSTM with tanh attention on SST-2 (6,920 sentences + the dev pass):
//           Module.TextTraining vs `build/attnlab train-text --attention tanh … --epochs 1`
//   cnn     one epoch of the localization lab's "full" recipe (the CLI default network: 64×64, 16/32/64, SGD lr
//           0.05, batch 32, GAP head, no CBAM) on N procedural images (default 1,000; validation 100, test 50, no
//           curves, one probe image): Module.CnnTrainer vs `build/attnlab train-cnn …`
// Usage: node tests/bench/bench-train-pair.mjs [--only bilstm|cnn] [--cnn-images N] [--rounds R] [--threads N]
// --threads N (default 1): the wasm core started with a pool of N - 1 pthreads and setThreads(N), the CLI with
// --threads N (its default is every core, so it is always given).
// ATTNLAB_WASM_DIR picks another wasm build (e.g. a "before" copy of web/gen). Prints one JSON line per measure and
// round: {measure, wasm_s, native_s, ratio, load1}.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { ROOT, CLI, WASM_MJS, WASM_BIN } from '../node/parity-lib.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i >= 0 ? process.argv[i + 1] : def; };
const only = arg('only', null);
const rounds = Number(arg('rounds', 1));
const cnnImages = Number(arg('cnn-images', 1000));
if (!fs.existsSync(CLI)) { console.error(`bench-train-pair: ${CLI} missing (ninja -C build attnlab)`); process.exit(2); }
const threads = Number(arg('threads', 1));
const { default: createModule } = await import(pathToFileURL(WASM_MJS).href);
const M = await createModule({ wasmBinary: fs.readFileSync(WASM_BIN), attnlabPoolSize: threads - 1 });
if (M.setThreads(threads) !== threads) { console.error(`bench-train-pair: the wasm core runs ${M.threads()} threads, not ${threads}`); process.exit(2); }
const data = path.join(ROOT, 'models/text/data');

function timeCli(args) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-bench-train-'));
  const t0 = performance.now();
  execFileSync(CLI, ['--threads', String(threads), ...args, '--out', out], { stdio: 'ignore' });
  const s = (performance.now() - t0) / 1000;
  fs.rmSync(out, { recursive: true, force: true });
  return s;
}

function bilstm() {
  const train = fs.readFileSync(path.join(data, 'sst2-train.tsv'), 'utf8'), dev = fs.readFileSync(path.join(data, 'sst2-dev.tsv'), 'utf8');
  const t0 = performance.now();
  const job = new M.TextTraining(train, dev, { attention: 'tanh', seed: 50, epochs: 1 });
  let p;
  do p = job.step(64); while (!p.done);
  const wasm = (performance.now() - t0) / 1000;
  job.delete();
  const native = timeCli(['train-text', '--train', path.join(data, 'sst2-train.tsv'), '--dev', path.join(data, 'sst2-dev.tsv'),
    '--attention', 'tanh', '--seed', '50', '--epochs', '1', '--min-count', '1', '--storage', 'f32']);
  return { wasm, native };
}

function cnn() {
  const options = { imageSize: 64, widths: [16, 32, 64], optimizer: 'sgd', lr: 0.05, batchSize: 32, head: 'gap', cbam: 'none',
    trainSize: cnnImages, valSize: 100, testSize: 50, epochs: 1, seed: 1, probes: 1 };
  const t0 = performance.now();
  const t = new M.CnnTrainer(options);
  while (!t.done()) t.step(4);
  const wasm = (performance.now() - t0) / 1000;
  t.delete?.();
  const native = timeCli(['train-cnn', '--image-size', '64', '--optimizer', 'sgd', '--lr', '0.05', '--batch-size', '32', '--head', 'gap',
    '--cbam', 'none', '--train-size', String(cnnImages), '--val-size', '100', '--test-size', '50', '--epochs', '1', '--seed', '1',
    '--probes', '1', '--curve-n', '0', '--storage', 'f32']);
  return { wasm, native };
}

for (let r = 1; r <= rounds; r++) {
  for (const [name, run] of [['bilstm', bilstm], ['cnn', cnn]]) {
    if (only && only !== name) continue;
    const { wasm, native } = run();
    console.log(JSON.stringify({ measure: name, round: r, threads, wasm_dir: process.env.ATTNLAB_WASM_DIR || 'web/gen', wasm_s: +wasm.toFixed(2),
      native_s: +native.toFixed(2), ratio: +(wasm / native).toFixed(2), load1: +os.loadavg()[0].toFixed(2) }));
  }
}
