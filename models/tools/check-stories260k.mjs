#!/usr/bin/env node
// check-stories260k.mjs — measures models/text/stories260K and writes the numbers into its manifest.json `metrics`.
//
// Usage:  node models/tools/check-stories260k.mjs [--cli build/attnlab] [--data ../shared/data/stories260K] [--dry-run]
// Measures:
//   greedy_200   the CLI's `generate --steps 200` text vs greedy200.expected.txt (exact), its seconds and ms per forward
//                (the whole graph re-run on the growing sequence), and the float64 reference's greedy text
//   parity       max |Δlogit| / max |logit| and max |Δlogit| between ORT Web (wasm EP, 1 thread), the core's executor
//                (`generate --logits`) and the float64 reference (models/tools/reference/llama2c-reference.mjs), on
//                a few prompts encoded by the CLI's tokenizer (the prompt's positions)
//   ort_forward  ORT's median ms of one forward on 200 tokens (for scale; machine-dependent)
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { loadReference, referenceLogits, referenceGreedy, readVocab, decodePieces } from './reference/llama2c-reference.mjs';

ort.env.wasm.numThreads = 1;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const a = { cli: path.join(ROOT, 'build/attnlab'), data: path.resolve(ROOT, '../shared/data/stories260K'), dry: false };
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i];
  if (k === '--cli') a.cli = path.resolve(process.argv[++i]);
  else if (k === '--data') a.data = path.resolve(process.argv[++i]);
  else if (k === '--dry-run') a.dry = true;
  else throw new Error(`unknown argument ${k}`);
}
const dir = path.join(ROOT, 'models/text/stories260K');
const modelPath = path.join(dir, 'model.onnx'), tokPath = path.join(dir, 'tokenizer.bin');
const expected = fs.readFileSync(path.join(a.data, 'greedy200.expected.txt'), 'utf8');
const ref = loadReference(new Uint8Array(fs.readFileSync(path.join(a.data, 'stories260K.bin'))));
const session = await ort.InferenceSession.create(new Uint8Array(fs.readFileSync(modelPath)));
const cli = (args) => JSON.parse(execFileSync(a.cli, ['generate', '--model', modelPath, '--tokenizer', tokPath, ...args],
  { encoding: 'utf8', maxBuffer: 256 << 20 }).trim().split('\n').pop());
const ortRun = async (ids) => (await session.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]) })).logits.data;
function diff(flatA, rowsB) {
  let d = 0, m = 0;
  rowsB.forEach((r, t) => r.forEach((v, j) => { d = Math.max(d, Math.abs(flatA[t * r.length + j] - v)); m = Math.max(m, Math.abs(v)); }));
  return { max_abs: d, relative: d / m };
}
const worse = (x, y) => ({ max_abs: Math.max(x.max_abs, y.max_abs), relative: Math.max(x.relative, y.relative) });

// greedy
const g = cli(['--steps', '200']);
const refText = decodePieces(readVocab(new Uint8Array(fs.readFileSync(tokPath))), referenceGreedy(ref, 200));
const greedy = {
  steps: 200, from: 'BOS', executor_text_equals_expected: g.text === expected, reference_text_equals_expected: refText === expected,
  tokens: g.ids.length - 1, executor_seconds: Number(g.seconds.toFixed(2)), executor_ms_per_forward: Number(g.ms_per_forward.toFixed(1)),
  expected: '../shared/data/stories260K/greedy200.expected.txt (llama2.c\'s test, temperature 0)',
};

// parity
const prompts = ['Once upon a time', 'The little cat was very sad because she lost her red ball in the park.', 'Tom and Lily'];
let ortRef = { max_abs: 0, relative: 0 }, exOrt = { max_abs: 0, relative: 0 }, exRef = { max_abs: 0, relative: 0 };
let positions = 0;
for (const p of prompts) {
  const r = cli(['--prompt', p, '--steps', '40', '--logits']);
  const ids = r.ids.slice(0, r.prompt_tokens);
  positions += ids.length;
  const o = await ortRun(ids), rl = referenceLogits(ref, ids);
  ortRef = worse(ortRef, diff(o, rl));
  exOrt = worse(exOrt, diff(o, r.logits));
  exRef = worse(exRef, diff(Float32Array.from(r.logits.flat()), rl));
}
const sci = (x) => Number(x.toExponential(2));
const fmt = (d) => ({ max_abs: sci(d.max_abs), relative: sci(d.relative) });
const ids200 = g.ids.slice(0, 200);
const times = [];
for (let i = 0; i < 7; i++) { const t = performance.now(); await ortRun(ids200); times.push(performance.now() - t); }
times.sort((x, y) => x - y);
const metrics = {
  greedy_200: greedy,
  parity: {
    prompts, positions, measure: 'max |Δlogit| / max |logit| over the prompt positions (and max |Δlogit|)',
    ort_vs_reference: fmt(ortRef), executor_vs_ort: fmt(exOrt), executor_vs_reference: fmt(exRef),
  },
  ort_forward_200_tokens_ms: Number(times[3].toFixed(1)),
  note: 'timings from one run on a shared 2-core machine (machine-dependent); ORT = onnxruntime-web ' + ort.env.versions?.web + ' wasm EP, 1 thread',
};
console.log(JSON.stringify(metrics, null, 2));
if (!a.dry) {
  const mf = path.join(dir, 'manifest.json');
  const m = JSON.parse(fs.readFileSync(mf, 'utf8'));
  const e = m.models[0];
  const ordered = {};
  for (const [k, v] of Object.entries(e)) { if (k === 'provenance') ordered.metrics = metrics; if (k !== 'metrics') ordered[k] = v; }
  m.models[0] = ordered;
  fs.writeFileSync(mf, JSON.stringify(m, null, 2) + '\n');
}
