// global_view_parity.test.mjs — the wasm global view (TextLab / HanLab globalViewStart + globalViewStep, the page's
// computation) equals `build/attnlab global-view` on the same model and data. Contract: for sst2-tanh on
// models/text/data/sst2-train.tsv and imdb-han (word and sentence level) on models/text/data/imdb-train-500.tsv,
// with --top 40: count_total and level exactly; query, score_at_mean, explained_variance to |Δ| ≤ 1e-5; and for the
// CLI's top + bottom items and every class's top + bottom items, the wasm item at the same rank has the same text,
// count and predicted class, and score, contextual score (null = NaN) to 1e-5 and PCA x, y to 1e-5 up to the sign
// of each component (the core orients them along the query; a component nearly perpendicular to it may flip).
// Negative controls that must fail the same comparison: the wasm view of sst2-tanh on only the first 200 training
// lines (other contextual scores and counts), and of another model (sst2-dot is not additive: an Error; imdb-tanh:
// another vocabulary). Skips only when web/gen, build/attnlab or a model / data file is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, hasWasm, loadCore } from './parity-lib.mjs';
import { datasetLines } from '../../web/runtime/dataset-lines.js';

const TOL = 1e-5;
const TOP = 40;
const MODELS = path.join(ROOT, 'models/text');
const SST_TRAIN = path.join(MODELS, 'data/sst2-train.tsv');
const IMDB_TRAIN = path.join(MODELS, 'data/imdb-train-500.tsv');
const need = [CLI, SST_TRAIN, IMDB_TRAIN, path.join(MODELS, 'sst2-tanh/config.json'), path.join(MODELS, 'imdb-han/config.json'), path.join(MODELS, 'imdb-tanh/config.json')];
const skip = !hasWasm() ? 'web/gen is not built (bash scripts/build-wasm.sh)'
  : need.find((f) => !fs.existsSync(f)) ? `missing ${need.find((f) => !fs.existsSync(f))}` : false;

function cli(model, data, level = 'word') {
  const run = spawnSync(CLI, ['global-view', '--model', path.join(MODELS, model), '--data', data, '--top', String(TOP), '--level', level],
    { encoding: 'utf8', maxBuffer: 256 << 20 });
  assert.equal(run.status, 0, `CLI failed: ${run.stderr}`);
  const out = run.stdout.trim().split('\n');
  return JSON.parse(out[out.length - 1]);
}

const files = (model) => [fs.readFileSync(path.join(MODELS, model, 'config.json'), 'utf8'),
  new Uint8Array(fs.readFileSync(path.join(MODELS, model, 'model.safetensors')))];

function finish(lab, start) {
  assert.ok(start.total > 0);
  let r;
  let calls = 0;
  do {
    r = lab.globalViewStep(2);
    calls++;
    if (!r.finished) assert.ok(r.done > 0 && r.done < r.total, `progress ${r.done}/${r.total}`);
  } while (!r.finished);
  assert.ok(calls > 1, 'the view is computed in several steps');
  return r;
}

async function wasmText(model, tsv) {
  const M = await loadCore();
  const lab = new M.TextLab(...files(model));
  try {
    return finish(lab, lab.globalViewStart(tsv));
  } finally {
    lab.delete();
  }
}

async function wasmHan(model, texts, level) {
  const M = await loadCore();
  const lab = new M.HanLab(...files(model));
  try {
    return finish(lab, lab.globalViewStart(texts, level));
  } finally {
    lab.delete();
  }
}

// Every mismatch between the CLI's JSON and the wasm view (empty = equal within TOL).
function compare(native, view) {
  const problems = [];
  const num = (what, a, b) => {
    const d = Math.abs(a - b);
    if (!(d <= TOL)) problems.push(`${what}: ${a} vs ${b}`);
  };
  if (native.level !== view.level) problems.push(`level ${native.level} vs ${view.level}`);
  if (native.count_total !== view.count_total) problems.push(`count_total ${native.count_total} vs ${view.count_total}`);
  num('score_at_mean', native.score_at_mean, view.score_at_mean);
  native.explained_variance.forEach((v, k) => num(`explained_variance[${k}]`, v, view.explained_variance[k]));
  const sign = [0, 1].map((k) => (Math.sign(native.query[k]) === Math.sign(view.query[k]) || Math.abs(native.query[k]) < 1e-6 ? 1 : -1));
  native.query.forEach((v, k) => num(`query[${k}]`, Math.abs(v), Math.abs(view.query[k])));
  const index = new Map(view.texts.map((t, i) => [t, i]));
  const check = (it, i, where) => {
    if (i === undefined || view.texts[i] !== it.text) {
      problems.push(`${where}: "${it.text}" is at wasm index ${index.get(it.text)}, wasm has "${view.texts[i]}" there`);
      return;
    }
    num(`${where} score`, it.score, view.score[i]);
    const c = view.contextual_score[i];
    if (it.contextual_score === null ? !Number.isNaN(c) : !(Math.abs(it.contextual_score - c) <= TOL)) problems.push(`${where} contextual ${it.contextual_score} vs ${c}`);
    if (it.count !== view.count[i]) problems.push(`${where} count ${it.count} vs ${view.count[i]}`);
    if (it.predicted_class !== view.predicted_class[i]) problems.push(`${where} class ${it.predicted_class} vs ${view.predicted_class[i]}`);
    num(`${where} x`, it.x, sign[0] * view.x[i]);
    num(`${where} y`, it.y, sign[1] * view.y[i]);
  };
  const list = native.words ?? native.sentences;
  const n = view.texts.length;
  list.forEach((it, k) => {
    const rank = k < native.top ? k : n - native.bottom + (k - native.top);
    check(it, rank, `item ${rank + 1}`);
  });
  view.class_names.forEach((name, c) => {
    const mine = [];
    for (let i = 0; i < n; i++) if (view.predicted_class[i] === c) mine.push(i);
    const pc = native.per_class[name];
    if (!pc) { problems.push(`per_class ${name} missing`); return; }
    if (pc.count !== mine.length) problems.push(`per_class ${name} count ${pc.count} vs ${mine.length}`);
    pc.top.forEach((it, k) => check(it, mine[k], `${name} top ${k + 1}`));
    pc.bottom.forEach((it, k) => check(it, mine[mine.length - pc.bottom.length + k], `${name} bottom ${k + 1}`));
  });
  return problems;
}

test('sst2-tanh: the wasm global view equals the CLI on the SST-2 training sentences', { skip }, async () => {
  const tsv = fs.readFileSync(SST_TRAIN, 'utf8');
  const native = cli('sst2-tanh', SST_TRAIN);
  const view = await wasmText('sst2-tanh', tsv);
  assert.deepEqual(compare(native, view).slice(0, 10), []);
  assert.ok(native.words.length === 2 * TOP && view.texts.length > 10000);

  // negative controls: fewer training lines (other contextual scores / counts), another model's vocabulary
  const fewer = await wasmText('sst2-tanh', tsv.split('\n').slice(0, 200).join('\n'));
  assert.ok(compare(native, fewer).length > 0, 'a view on 200 training lines must not match the CLI on all of them');
  const other = await wasmText('imdb-tanh', tsv);
  assert.ok(compare(native, other).length > 0, 'another model must not match');
  const M = await loadCore();
  const dot = new M.TextLab(...files('sst2-dot'));
  assert.throws(() => dot.globalViewStart(tsv), /additive \(tanh\) attention/);
  dot.delete();
});

for (const level of ['word', 'sentence']) {
  test(`imdb-han (${level} level): the wasm global view equals the CLI on imdb-train-500`, { skip }, async () => {
    const texts = datasetLines(fs.readFileSync(IMDB_TRAIN, 'utf8')).map((l) => l.text);
    const native = cli('imdb-han', IMDB_TRAIN, level);
    const view = await wasmHan('imdb-han', texts, level);
    assert.deepEqual(compare(native, view).slice(0, 10), []);
    const fewer = await wasmHan('imdb-han', texts.slice(0, 50), level);
    assert.ok(compare(native, fewer).length > 0, 'a view on 50 reviews must not match the CLI on 500');
  });
}
