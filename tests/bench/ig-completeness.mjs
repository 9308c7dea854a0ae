#!/usr/bin/env node
// ig-completeness.mjs — how complete integrated gradients are in the wasm core: for the first N sentences of
// ../shared/data/sst2/test.tsv, TextLab.explain(text, 200, STEPS) and |sum of attributions − (p(x) − p(baseline))|
// (the explain object's integrated_gradients_completeness). Prints one JSON line: mean / median / p90 / max of that
// error, the median relative error, how many sentences miss by more than 5 % of a gap above 0.01 (the page flags
// those), and the total explain time. ATTNLAB_WASM_DIR picks another build (e.g. a "before" copy of web/gen).
// Usage: node tests/bench/ig-completeness.mjs [MODEL=sst2-transformer] [N=100] [STEPS=50]
import { performance } from 'node:perf_hooks';
import { modelDir, hasModel, hasWasm, openSession, sstSentences } from '../node/parity-lib.mjs';

const [name = 'sst2-transformer', N = '100', steps = '50'] = process.argv.slice(2);
if (!hasModel(modelDir(name)) || !hasWasm()) { console.error('ig-completeness: model or wasm build missing'); process.exit(2); }
const core = await openSession(modelDir(name));
const errs = [], rels = [];
let ms = 0, over5 = 0;
for (const text of sstSentences(Number(N))) {
  const t0 = performance.now();
  const e = core.explain(text, 200, Number(steps));
  ms += performance.now() - t0;
  if (!e.integrated_gradients_completeness) continue;
  const { sum, target } = e.integrated_gradients_completeness;
  const err = Math.abs(sum - target);
  errs.push(err);
  rels.push(err / Math.max(Math.abs(target), 1e-12));
  if (Math.abs(target) > 0.01 && err > 0.05 * Math.abs(target)) over5++;
}
core.delete();
const s = [...errs].sort((a, b) => a - b), r = [...rels].sort((a, b) => a - b);
const q = (a, f) => a[Math.min(a.length - 1, Math.floor(f * a.length))];
const e3 = (x) => +x.toExponential(3);
console.log(JSON.stringify({ wasm: process.env.ATTNLAB_WASM_DIR || 'web/gen', model: name, sentences: errs.length, steps: Number(steps),
  abs_err_mean: e3(errs.reduce((a, b) => a + b, 0) / errs.length), abs_err_median: e3(q(s, 0.5)), abs_err_p90: e3(q(s, 0.9)),
  abs_err_max: e3(s.at(-1)), rel_err_median: e3(q(r, 0.5)), over_5_percent: over5, explain_ms_total: Math.round(ms) }));
