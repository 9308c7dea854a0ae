#!/usr/bin/env node
// bench-transformer.mjs — the transformer text model, one 50-token sentence, one thread each:
// wasm core TextSession.predict vs ONNX Runtime Web (wasm EP) on the graph of export-transformer-onnx.mjs, and
// every importance together in the wasm core (TextSession.explain(text, T, 50): attention, gradient,
// leave-one-out, IG with 50 steps, attention_layers, rollout, exact flow, relevance, grad × attention,
// attention norm). Usage: node tests/bench/bench-transformer.mjs [--model DIR] [--runs N] [--tokens T]
// (defaults models/text/sst2-transformer, 200, 50). Prints a markdown table, then one JSON line.
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as ort from 'onnxruntime-web';
import { readTransformerCheckpoint, buildTransformerModel } from '../../models/tools/export-transformer-onnx.mjs';
import { ROOT, modelDir, hasModel, hasWasm, openSession, sstSentences, vocabIndex, tokenIds } from '../node/parity-lib.mjs';

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
const probe = JSON.parse(core.explain(text, T, 0));
if (probe.tokens.length !== T) { console.error(`bench-transformer: ${probe.tokens.length} tokens, want ${T}`); process.exit(1); }
const ckpt = readTransformerCheckpoint(dir);
const ids = BigInt64Array.from(tokenIds(vocabIndex(ckpt.config), probe.tokens), BigInt);
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(buildTransformerModel(ckpt), { executionProviders: ['wasm'] });
const feeds = () => ({ token_ids: new ort.Tensor('int64', ids.slice(), [1, T]) });
const pOrt = (await session.run(feeds())).probability.data[0];
const pCore = core.predict(text);
const coreFwd = await time(() => core.predict(text), RUNS, 20);
const ortFwd = await time(() => session.run(feeds()), RUNS, 20);
const explainAll = await time(() => core.explain(text, T, 50), Math.max(5, Math.round(RUNS / 20)), 2);
core.delete();
await session.release();
const rel = path.relative(ROOT, dir);
const f = (x) => x.toFixed(3);
console.log(`\n### Transformer, ${T} tokens — ${rel} (${ckpt.config.layers}×${ckpt.config.heads}, d=${ckpt.config.embedding_dim}), Node ${process.version}, load ${os.loadavg()[0].toFixed(1)}\n`);
console.log('| path | median ms | p10 ms | p90 ms | runs |\n| --- | ---: | ---: | ---: | ---: |');
for (const [n, s] of [['wasm core `TextSession.predict` (forward)', coreFwd], ['ORT Web wasm EP, 1 thread (forward)', ortFwd],
  [`wasm core \`TextSession.explain(text, ${T}, 50)\` (all importances)`, explainAll]])
  console.log(`| ${n} | ${f(s.median_ms)} | ${f(s.p10_ms)} | ${f(s.p90_ms)} | ${s.runs} |`);
const ratio = ortFwd.median_ms / coreFwd.median_ms;
console.log(`\nforward ratio ORT ÷ core (median): ${ratio.toFixed(2)} (p core ${pCore.toFixed(6)}, p ORT ${pOrt.toFixed(6)})\n`);
console.log(JSON.stringify({ bench: 'transformer', model: rel, tokens: T, load1: os.loadavg()[0], core_forward: coreFwd,
  ort_wasm_forward: ortFwd, core_explain_all: explainAll, ratio_ort_over_core: ratio }));
