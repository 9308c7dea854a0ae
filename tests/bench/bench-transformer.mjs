#!/usr/bin/env node
// bench-transformer.mjs — the transformer text model, one 50-token sentence, one thread each:
// wasm core TextLab.predict vs ONNX Runtime Web (wasm EP) on the graph of export-transformer-onnx.mjs, and
// every importance together in the wasm core (TextLab.explain(text, T, 50): attention, gradient,
// leave-one-out, IG with 50 steps, attention_layers, rollout, exact flow, relevance, grad × attention,
// attention norm, AttnLRP, CP-LRP, value zeroing, ALTI), and the same without IG (explain(text, T, 0)). The two
// forwards run interleaved in blocks of 10 (the machine is shared: both see the same load).
// With --train-epoch, also one epoch of the Train view's 2-layer transformer recipe (Module.TextTraining, encoder
// transformer, on models/text/data/sst2-train.tsv, 6,920 sentences; dev sst2-dev) in the wasm core, beside the same
// epoch of the native CLI (`build/attnlab train-text`, the recipe of the page's same_as command).
// Usage: node tests/bench/bench-transformer.mjs [--model DIR] [--runs N] [--tokens T] [--train-epoch]
// (defaults models/text/sst2-transformer, 200, 50). Prints a markdown table, then one JSON line.
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as ort from 'onnxruntime-web';
import { readTransformerCheckpoint, buildTransformerModel } from '../../models/tools/export-transformer-onnx.mjs';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { ROOT, CLI, modelDir, hasModel, hasWasm, loadCore, openSession, sstSentences, vocabIndex, tokenIds } from '../node/parity-lib.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i >= 0 ? process.argv[i + 1] : def; };
const dir = path.resolve(arg('model', modelDir('sst2-transformer')));
const RUNS = Number(arg('runs', 200)), T = Number(arg('tokens', 50));
if (!hasModel(dir) || !hasWasm()) { console.error('bench-transformer: model or web/gen missing'); process.exit(2); }

function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  const q = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median_ms: q(0.5), p10_ms: q(0.1), p90_ms: q(0.9), runs: s.length };
}
async function time(fn, runs, warmup) {
  for (let i = 0; i < warmup; i++) await fn();
  const t = [];
  for (let i = 0; i < runs; i++) { const t0 = performance.now(); await fn(); t.push(performance.now() - t0); }
  return stats(t);
}
const words = sstSentences(2000).flatMap((s) => s.split(' ')).filter((w) => /^[a-z]+$/.test(w));
const text = words.slice(0, T).join(' ');
const core = await openSession(dir);
const probe = core.explain(text, T, 0); // the explain object (TextLab returns objects, docs/DESIGN.md)
if (probe.tokens.length !== T) { console.error(`bench-transformer: ${probe.tokens.length} tokens, want ${T}`); process.exit(1); }
const ckpt = readTransformerCheckpoint(dir);
const ids = BigInt64Array.from(tokenIds(vocabIndex(ckpt.config), probe.tokens), BigInt);
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(buildTransformerModel(ckpt), { executionProviders: ['wasm'] });
const feeds = () => ({ token_ids: new ort.Tensor('int64', ids.slice(), [1, T]) });
const pOrt = (await session.run(feeds())).probability.data[0];
const pCore = core.predict(text);
await time(() => core.predict(text), 0, 20);
await time(() => session.run(feeds()), 0, 20);
const coreTimes = [], ortTimes = [];
for (let b = 0; b < Math.ceil(RUNS / 10); b++) {
  for (let i = 0; i < 10; i++) { const t0 = performance.now(); core.predict(text); coreTimes.push(performance.now() - t0); }
  for (let i = 0; i < 10; i++) { const t0 = performance.now(); await session.run(feeds()); ortTimes.push(performance.now() - t0); }
}
const coreFwd = stats(coreTimes), ortFwd = stats(ortTimes);
const explainAll = await time(() => core.explain(text, T, 50), Math.max(5, Math.round(RUNS / 20)), 2);
const explainNoIg = await time(() => core.explain(text, T, 0), Math.max(12, Math.round(RUNS / 10)), 2);
core.delete();
await session.release();
const rel = path.relative(ROOT, dir);
const f = (x) => x.toFixed(3);
console.log(`\n### Transformer, ${T} tokens — ${rel} (${ckpt.config.layers}×${ckpt.config.heads}, d=${ckpt.config.embedding_dim}), Node ${process.version}, load ${os.loadavg()[0].toFixed(1)}\n`);
console.log('| path | median ms | p10 ms | p90 ms | runs |\n| --- | ---: | ---: | ---: | ---: |');
for (const [n, s] of [['wasm core `TextLab.predict` (forward)', coreFwd], ['ORT Web wasm EP, 1 thread (forward)', ortFwd],
  [`wasm core \`TextLab.explain(text, ${T}, 50)\` (all importances)`, explainAll],
  [`wasm core \`TextLab.explain(text, ${T}, 0)\` (every row but integrated gradients)`, explainNoIg]])
  console.log(`| ${n} | ${f(s.median_ms)} | ${f(s.p10_ms)} | ${f(s.p90_ms)} | ${s.runs} |`);
const ratio = ortFwd.median_ms / coreFwd.median_ms;
let train = null;
if (process.argv.includes('--train-epoch')) {
  const data = path.join(ROOT, 'models/text/data');
  const trainTsv = fs.readFileSync(path.join(data, 'sst2-train.tsv'), 'utf8'), devTsv = fs.readFileSync(path.join(data, 'sst2-dev.tsv'), 'utf8');
  const M = await loadCore();
  const t0 = performance.now();
  const job = new M.TextTraining(trainTsv, devTsv, { encoder: 'transformer', layers: 2, attention: 'dot', seed: 50, epochs: 1 });
  let p;
  do p = job.step(64); while (!p.done);
  const wasmS = (performance.now() - t0) / 1000;
  job.delete();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-bench-train-'));
  const c0 = performance.now();
  execFileSync(CLI, ['train-text', '--train', path.join(data, 'sst2-train.tsv'), '--dev', path.join(data, 'sst2-dev.tsv'), '--out', out,
    '--encoder', 'transformer', '--layers', '2', '--heads', '4', '--embedding-dim', '128', '--ffn-dim', '256', '--max-len', '64',
    '--attention', 'dot', '--optimizer', 'adamw', '--lr', '1e-3', '--weight-decay', '0.01', '--warmup', '0.1', '--dropout', '0.1',
    '--seed', '50', '--epochs', '1', '--min-count', '1', '--storage', 'f32'], { stdio: 'ignore' });
  const nativeS = (performance.now() - c0) / 1000;
  fs.rmSync(out, { recursive: true, force: true });
  train = { wasm_epoch_s: wasmS, native_epoch_s: nativeS, dev_accuracy: p.dev?.accuracy ?? null };
  console.log(`| one training epoch, 2-layer transformer, 6,920 sentences + dev (wasm TextTraining) | ${(1000 * wasmS).toFixed(0)} | | | 1 |`);
  console.log(`| the same epoch, native CLI train-text | ${(1000 * nativeS).toFixed(0)} | | | 1 |`);
}
console.log(`\nforward ratio ORT ÷ core (median): ${ratio.toFixed(2)} (p core ${pCore.toFixed(6)}, p ORT ${pOrt.toFixed(6)})\n`);
console.log(JSON.stringify({ bench: 'transformer', model: rel, tokens: T, load1: os.loadavg()[0], core_forward: coreFwd,
  ort_wasm_forward: ortFwd, core_explain_all: explainAll, core_explain_no_ig: explainNoIg, ratio_ort_over_core: ratio, train }));
