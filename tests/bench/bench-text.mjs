#!/usr/bin/env node
// bench-text.mjs — forward latency of one 50-token sentence: wasm core vs ONNX Runtime Web (wasm EP, 1 thread).
// Usage: node tests/bench/bench-text.mjs [--model DIR] [--runs N] [--warmup W] [--tokens T]
//   defaults: models/text/sst2-tanh, N = 200, W = 20, T = 50.
// In one process: builds a T-token text from SST test-sentence words (plain [a-z]+ words so the core's
// tokenizer keeps them one token each; checked), times TextSession.predict(text) and, on the graph exported
// by models/tools/export-onnx.mjs, InferenceSession.run (fresh int64 tensor each run, ids from the tokens the
// core returned). Also times, wasm core only (ORT Web has no backward): TextSession.forwardBackward(text, 1)
// (loss + all parameter gradients, batch of one) and TextSession.explain(text, T, 0) (forward, gradient
// importance, T leave-one-out forwards).
// Prints a markdown table (median / p10 / p90 ms, ratio ORT ÷ core) and then one JSON line with the same data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as ort from 'onnxruntime-web';
import { readCheckpoint, buildModel } from '../../models/tools/export-onnx.mjs';
import {
  ROOT, modelDir, hasModel, hasWasm, openSession, sstSentences, vocabIndex, tokenIds,
} from '../node/parity-lib.mjs';

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}
const dir = path.resolve(arg('model', modelDir('sst2-tanh')));
const RUNS = Number(arg('runs', 200));
const WARMUP = Number(arg('warmup', 20));
const T = Number(arg('tokens', 50));

if (!hasModel(dir)) { console.error(`bench-text: no checkpoint in ${dir}`); process.exit(2); }
if (!hasWasm()) { console.error('bench-text: web/gen/attnlab_core.{mjs,wasm} missing'); process.exit(2); }

function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  const q = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median_ms: q(0.5), p10_ms: q(0.1), p90_ms: q(0.9), runs: s.length };
}
async function time(fn, runs = RUNS, warmup = WARMUP) {
  for (let i = 0; i < warmup; i++) await fn();
  const t = [];
  for (let i = 0; i < runs; i++) { const t0 = performance.now(); await fn(); t.push(performance.now() - t0); }
  return stats(t);
}

// A T-token text from SST test sentences.
const words = sstSentences(2000).flatMap((s) => s.split(' ')).filter((w) => /^[a-z]+$/.test(w));
if (words.length < T) { console.error('bench-text: not enough SST words'); process.exit(2); }
const text = words.slice(0, T).join(' ');

const core = await openSession(dir);
const probe = JSON.parse(core.explain(text, T, 0));
if (probe.error || probe.tokens.length !== T) {
  console.error(`bench-text: core tokenised the text into ${probe.tokens.length} tokens (want ${T}) ${probe.error}`);
  process.exit(1);
}
const ckpt = readCheckpoint(dir);
const ids = BigInt64Array.from(tokenIds(vocabIndex(ckpt.config), probe.tokens), BigInt);

ort.env.wasm.numThreads = 1;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-bench-'));
const onnxPath = path.join(tmp, 'model.onnx');
fs.writeFileSync(onnxPath, buildModel(ckpt));
const session = await ort.InferenceSession.create(onnxPath, { executionProviders: ['wasm'] });
const ortOut = await session.run({ token_ids: new ort.Tensor('int64', ids.slice(), [1, T]) });
const pOrt = ortOut.probability ? ortOut.probability.data[0] : NaN;
const pCore = core.predict(text);

const coreFwd = await time(() => core.predict(text));
const ortFwd = await time(() => session.run({ token_ids: new ort.Tensor('int64', ids.slice(), [1, T]) }));
const hasFB = typeof core.forwardBackward === 'function';
const coreFB = hasFB ? await time(() => core.forwardBackward(text, 1)) : null;
const coreExplain = await time(() => core.explain(text, T, 0), Math.max(10, Math.round(RUNS / 10)), 3);
// Training throughput: forward + backward of a batch of 32 copies of a 20-token text (no optimiser step).
const text20 = words.slice(0, 20).join(' ');
const coreTrain = await time(() => core.forwardBackwardBatch(text20, 1, 32), Math.max(10, Math.round(RUNS / 10)), 3);
// Practical GEMM peak in this build: the core's kernel vs Eigen's product, [512x128] x [128x640].
const { loadCore } = await import('../node/parity-lib.mjs');
const Module = await loadCore();
const gemmFlops = 2 * 512 * 128 * 640;
const gemmKernel = await time(() => Module.gemmProbe(512, 128, 640, 1, false), 50, 5);
const gemmEigen = await time(() => Module.gemmProbe(512, 128, 640, 1, true), 50, 5);

core.delete();
await session.release();
fs.rmSync(tmp, { recursive: true, force: true });

const rel = dir.startsWith(ROOT + path.sep) ? path.relative(ROOT, dir) : dir;
const f = (x) => x.toFixed(3);
const rows = [
  ['wasm core `TextSession.predict` (forward)', coreFwd],
  ['ORT Web wasm EP, 1 thread (forward)', ortFwd],
  ...(coreFB ? [['wasm core `TextSession.forwardBackward` (loss + all parameter gradients)', coreFB]] : []),
  [`wasm core \`TextSession.explain(text, ${T}, 0)\` (fwd + bwd + ${T} LOO fwds)`, coreExplain],
  ['wasm core training batch 32 x 20 tokens (forward + backward)', coreTrain],
  ['wasm GEMM 512x128x640, core kernel', gemmKernel],
  ['wasm GEMM 512x128x640, Eigen', gemmEigen],
];
console.log(`\n### Text forward, ${T} tokens — ${rel} (${ckpt.config.attention}, E=${ckpt.config.embedding_dim}, `
  + `H=${ckpt.config.hidden_dim}), Node ${process.version}, ${os.cpus().length} CPU(s)\n`);
console.log('| path | median ms | p10 ms | p90 ms | runs |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [n, s] of rows) console.log(`| ${n} | ${f(s.median_ms)} | ${f(s.p10_ms)} | ${f(s.p90_ms)} | ${s.runs} |`);
const ratio = ortFwd.median_ms / coreFwd.median_ms;
const forwardFlops = T * 590208;  // per token: 2 directions x (4H(E+H) MACs) + tanh attention, x2 FLOPs/MAC
console.log(`wasm training throughput: ${(32 * 20 / coreTrain.median_ms * 1000).toFixed(0)} tokens/s; `
  + `forward ${(forwardFlops / coreFwd.median_ms / 1e6).toFixed(1)} GFLOP/s vs GEMM peak `
  + `${(gemmFlops / gemmKernel.median_ms / 1e6).toFixed(1)} (kernel) / ${(gemmFlops / gemmEigen.median_ms / 1e6).toFixed(1)} (Eigen) GFLOP/s`);
console.log(`\nforward ratio ORT ÷ core (median): ${ratio.toFixed(2)}  `
  + `(p core ${pCore.toFixed(6)}, p ORT ${pOrt.toFixed(6)}, |Δ| ${Math.abs(pCore - pOrt).toExponential(2)})\n`);
console.log(JSON.stringify({
  bench: 'text-forward', model: rel, attention: ckpt.config.attention, tokens: T, node: process.version,
  core_forward: coreFwd, ort_wasm_forward: ortFwd, core_forward_backward: coreFB, core_explain_no_ig: coreExplain,
  core_train_batch_32x20: coreTrain, gemm_kernel: gemmKernel, gemm_eigen: gemmEigen,
  ratio_ort_over_core: ratio, probability_core: pCore, probability_ort: pOrt,
}));
