// Your transformer, explained (issue 28): the wasm core's ONNX executor against ONNX Runtime Web (wasm EP, one
// thread), both in Node, on the text fixtures and the shipped stories260K; and the page's explanation work, timed
// as the worker does it. Usage: node tests/bench/bench-onnx-text.mjs [--runs N] [--tokens 50,200]
// Per model and length T (ids: a fixed text's tokens repeated, no special handling; the core cuts nothing at these
// lengths): forward_core_ms (OnnxTextLab.top(ids, 1) on a lab made with lastPositionTail: false — one pass of the
// whole graph + the top-1, the work ORT's run does), next_core_ms (the same on the page's lab: a causal LM's tail on
// the last position alone, what the page's "Next" costs), forward_ort_ms
// (InferenceSession.run with input_ids / attention_mask / token_type_ids), ratio = core ÷ ORT (medians, the two run
// in turn so load hits both alike); explain_ms (explainIds with leave-one-out + attentionMaps + top-5: what the
// worker's ownText.explain does when leave-one-out runs inline), ig_ms (integratedGradients, 50 segments: the ig job),
// vz_ms / alti_ms (contextMixingLayer per layer + contextMixingRollout: the mixing jobs; models with attention).
// Prints one JSON line per (model, T). The script runs itself again under `node --no-liftoff` (both wasm modules
// compiled by TurboFan at once): with V8's default tiering the first model's rows were taken while functions still
// moved from Liftoff to TurboFan, and its ratio read anywhere from 0.2 to 4.9; V8's flag set at run time
// (v8.setFlagsFromString) is not the same — it left the core's GPT-2-shaped forward at 14.5 ms where it runs in 10.5
// (docs/BENCHMARKS.md).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { ROOT, loadCore } from '../node/parity-lib.mjs';

if (!process.execArgv.includes('--no-liftoff')) {
  const r = spawnSync(process.execPath, ['--no-liftoff', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const arg = (name, dflt) => {
  const k = process.argv.indexOf(name);
  return k > 0 ? process.argv[k + 1] : dflt;
};
const RUNS = Number(arg('--runs', 9));
const LENGTHS = arg('--tokens', '50,200').split(',').map(Number);
ort.env.wasm.numThreads = 1;

const MODELS = [
  ['bert-sst2', 'tests/fixtures/onnx-text/bert-sst2', 'tokenizer.json'],
  ['roberta-sst2', 'tests/fixtures/onnx-text/roberta-sst2', 'tokenizer.json'],
  ['gpt2-sst2', 'tests/fixtures/onnx-text/gpt2-sst2', 'tokenizer.json'],
  ['stories260K', 'models/text/stories260K', 'tokenizer.bin'],
];
const TEXT = 'Once upon a time, there was a little girl named Lily who loved to play in the park with her red ball. ';
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

const M = await loadCore();
for (const [name, dir, tokFile] of MODELS) {
  const read = (f) => new Uint8Array(fs.readFileSync(path.join(ROOT, dir, f)));
  const config = fs.existsSync(path.join(ROOT, dir, 'config.json')) ? fs.readFileSync(path.join(ROOT, dir, 'config.json'), 'utf8') : '';
  const lab = new M.OnnxTextLab(read('model.onnx'), read(tokFile), config, { tokenizerName: tokFile });
  const whole = new M.OnnxTextLab(read('model.onnx'), read(tokFile), config, { tokenizerName: tokFile, lastPositionTail: false });
  const info = lab.info();
  const session = await ort.InferenceSession.create(fs.readFileSync(path.join(ROOT, dir, 'model.onnx')), { executionProviders: ['wasm'] });
  const textIds = lab.tokenize(TEXT.repeat(20), false).ids;
  for (const T of LENGTHS) {
    if (info.max_positions && T > info.max_positions) continue;
    const ids = textIds.slice(0, T);
    const t = (v) => new ort.Tensor('int64', BigInt64Array.from(v, BigInt), [1, v.length]);
    const feeds = () => {
      const f = {};
      for (const n of session.inputNames) {
        if (/input_ids/.test(n)) f[n] = t(ids);
        else if (/attention_mask/.test(n)) f[n] = t(ids.map(() => 1));
        else if (/token_type/.test(n)) f[n] = t(ids.map(() => 0));
        else if (/position/.test(n)) f[n] = t(ids.map((_, k) => k));
        else throw new Error(`${name}: input ${n}`);
      }
      return f;
    };
    for (let k = 0; k < 5; ++k) { whole.top(ids, 1); lab.top(ids, 1); await session.run(feeds()); } // warm-up
    const core = [], next = [], rt = [], explain = [], ig = [], vz = [], alti = [];
    for (let k = 0; k < RUNS; ++k) {
      let t0 = performance.now();
      whole.top(ids, 1);
      core.push(performance.now() - t0);
      t0 = performance.now();
      lab.top(ids, 1);
      next.push(performance.now() - t0);
      t0 = performance.now();
      await session.run(feeds());
      rt.push(performance.now() - t0);
    }
    const explainRuns = Math.max(1, Math.min(RUNS, T > 100 ? 2 : 3));
    let e = null;
    for (let k = 0; k < explainRuns; ++k) {
      let t0 = performance.now();
      e = lab.explainIds(ids, 'next', { leaveOneOut: true, attentionLayers: false });
      if (info.layers > 0) lab.attentionMaps(ids);
      lab.top(ids, 5);
      explain.push(performance.now() - t0);
      t0 = performance.now();
      lab.integratedGradients(ids, e.target, 50);
      ig.push(performance.now() - t0);
      for (const [method, out] of [['value_zeroing', vz], ['alti', alti]]) {
        if (!(info.layers > 0)) break;
        t0 = performance.now();
        const layers = [...Array(info.layers).keys()].map((l) => lab.contextMixingLayer(ids, method, l).values);
        lab.contextMixingRollout(ids, layers);
        out.push(performance.now() - t0);
      }
    }
    const c = median(core), o = median(rt);
    console.log(JSON.stringify({ model: name, tokens: T, runs: RUNS, forward_core_ms: +c.toFixed(2), next_core_ms: +median(next).toFixed(2), forward_ort_ms: +o.toFixed(2),
      ratio: +(c / o).toFixed(2), explain_ms: +median(explain).toFixed(1), ig_ms: +median(ig).toFixed(1),
      ...(vz.length ? { vz_ms: +median(vz).toFixed(1), alti_ms: +median(alti).toFixed(1) } : {}) }));
  }
  lab.delete?.();
  whole.delete?.();
}
