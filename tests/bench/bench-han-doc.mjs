#!/usr/bin/env node
// bench-han-doc.mjs — "a document explained in seconds" (issue 31): the wasm core's HanLab.explain (what the
// Documents view's worker runs: attention, gradient, leave-one-out and integrated gradients at both levels) on the
// longest document an explanation covers — the first 40 reviews of models/text/data/imdb-test-200.tsv joined,
// which the core cuts to its cap (100 sentences, 1,000 tokens: here 42 sentences, 1,000 tokens) — with
// models/text/imdb-han, one thread, in Node. Also times explain with ig_steps 0 (everything but IG).
// Usage: node tests/bench/bench-han-doc.mjs [--runs N] [--model DIR]   (ATTNLAB_WASM_DIR: another build)
// Prints one JSON line: {wasm_dir, sentences, tokens, explain_ms (median), explain_no_ig_ms, runs}.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, loadCore } from '../node/parity-lib.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i >= 0 ? process.argv[i + 1] : def; };
const runs = Number(arg('runs', 3));
const dir = path.resolve(arg('model', path.join(ROOT, 'models/text/imdb-han')));
const rows = fs.readFileSync(path.join(ROOT, 'models/text/data/imdb-test-200.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
const col = rows[0].reduce((best, c, i) => (c.length > rows[0][best].length ? i : best), 0);
const text = rows.slice(0, 40).map((r) => r[col]).join(' ');
const M = await loadCore();
const lab = new M.HanLab(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'), new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))));
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const all = [], noIg = [];
let e = null;
for (let k = 0; k < runs; k++) {
  let t0 = performance.now();
  e = lab.explain(text, 50);
  all.push(performance.now() - t0);
  t0 = performance.now();
  lab.explain(text, 0);
  noIg.push(performance.now() - t0);
}
console.log(JSON.stringify({ wasm_dir: process.env.ATTNLAB_WASM_DIR || 'web/gen', sentences: e.sentences?.length ?? null,
  tokens: e.word_leave_one_out?.flat().length ?? null, explain_ms: +median(all).toFixed(1), explain_no_ig_ms: +median(noIg).toFixed(1), runs }));
