// The seed summaries: models/tools/seeds-summary.mjs (text) computes mean ± sample std over seeds and the paired
// differences against the seed spread (models/tools/seed-stats.mjs) — checked on hand-made files with known
// answers; and the committed summaries RESULTS' seed tables come from (models/text/seeds/{summary,comparisons}.json;
// models/cnn/seeds/{summary,comparisons}.json from seeds-cnn.sh summary) are what the scripts compute from the
// committed per-seed files.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SCRIPT = path.join(ROOT, 'models/tools/seeds-summary.mjs');

function run(dir) {
  execFileSync(process.execPath, [SCRIPT, dir], { stdio: 'pipe' });
  return {
    summary: JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')),
    comparisons: JSON.parse(fs.readFileSync(path.join(dir, 'comparisons.json'), 'utf8')),
  };
}

function write(dir, name, obj) {
  fs.writeFileSync(path.join(dir, name), `${JSON.stringify(obj)}\n`);
}

const flipFile = (att, rnd) => ({
  fraction_mean_flipped_by_all: { attention: att, gradient: 0.4, attention_x_gradient: 0.3, leave_one_out: 0.6, random: rnd },
});

test('mean, sample std and paired differences against hand-computed values', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seeds-summary-'));
  const f1 = { 1: 0.8, 2: 0.82, 3: 0.84 };
  const uni = { 1: 0.79, 2: 0.83, 3: 0.83 };  // tanh − uniform: 0.01, −0.01, 0.01 → signs disagree
  for (const s of [1, 2, 3]) {
    write(dir, `sst2-tanh-s${s}.train.json`, { best_epoch: s, metrics: { test: { f1: f1[s], accuracy: f1[s] } } });
    write(dir, `sst2-uniform-s${s}.train.json`, { best_epoch: 1, metrics: { test: { f1: uni[s], accuracy: uni[s] } } });
    // attention − random: −0.30, −0.31, −0.29 (every seed agrees, far beyond the spread)
    write(dir, `sst2-tanh-s${s}.erase-until-flip.json`, flipFile(0.5 - [0.30, 0.31, 0.29][s - 1], 0.5));
    write(dir, `sst2-uniform-s${s}.erase-until-flip.json`, { fraction_mean_flipped_by_all: { gradient: 0.6 + s / 100, attention_x_gradient: 0.6 + s / 100 } });
  }
  write(dir, 'sst2-tanh-s9.kendall.limit100.json', { tau_gradient_mean: 0.25 });  // a limited run keeps its suffix
  // τ against zero, one sample: dot's 0.20, 0.22, 0.24 is beyond its spread; uniform-ish −0.1, 0.3, 0.1 is not
  for (const [s, a, b] of [[1, 0.2, -0.1], [2, 0.22, 0.3], [3, 0.24, 0.1]]) {
    write(dir, `sst2-dot-s${s}.kendall.json`, { tau_gradient_mean: a, tau_loo_mean: b });
  }
  // a HAN on another data set (its model name has no sst2- prefix): erase-max's top − random flip rate per seed
  // 0.02 − 0.01, 0.03 − 0.01, 0.01 − 0.02 → one seed disagrees
  for (const [s, top, rnd] of [[1, 0.02, 0.01], [2, 0.03, 0.01], [3, 0.01, 0.02]]) {
    write(dir, `20news-han-s${s}.erase-max.json`, { flip_rate_top: top, flip_rate_random: rnd, jsd_top_mean: 0.003, jsd_random_mean: 0.001 * s });
  }
  fs.writeFileSync(path.join(dir, 'sst2-tanh-s8.kendall.json'), '');  // an interrupted run's empty file is skipped
  const { summary, comparisons } = run(dir);

  const t = summary['sst2-tanh']['test F1'];
  assert.equal(t.n, 3);
  assert.ok(Math.abs(t.mean - 0.82) < 1e-12);
  assert.ok(Math.abs(t.std - 0.02) < 1e-12);  // sqrt(((−0.02)² + 0 + 0.02²) / 2)
  assert.deepEqual(t.values, { 1: 0.8, 2: 0.82, 3: 0.84 });
  assert.equal(summary['sst2-tanh']['τ(attention, gradient) (limit100)'].n, 1);
  assert.equal(summary['sst2-tanh']['τ(attention, gradient) (limit100)'].std, null);
  assert.equal(summary['sst2-tanh']['τ(attention, gradient)'], undefined);

  const byWhat = Object.fromEntries(comparisons.map((c) => [c.what, c]));
  const ar = byWhat['sst2-tanh: erase-until-flip fraction, attention − random'];
  assert.ok(Math.abs(ar.mean + 0.30) < 1e-12);
  assert.ok(Math.abs(ar.std - 0.01) < 1e-12);
  assert.equal(ar.agree, 3);
  assert.equal(ar.beyond, true);
  const tg = byWhat['sst2-dot: τ(attention, gradient) − 0'];
  assert.ok(Math.abs(tg.mean - 0.22) < 1e-12);
  assert.ok(Math.abs(tg.std - 0.02) < 1e-12);
  assert.equal(tg.beyond, true);  // 0.22 > 2 · 0.02 / √3
  const tl = byWhat['sst2-dot: τ(attention, leave-one-out) − 0'];
  assert.equal(tl.agree, 2);
  assert.equal(tl.beyond, false);
  const han = byWhat['20news-han: erase-max flip rate, top − random'];
  assert.ok(Math.abs(han.mean - 0.02 / 3) < 1e-12);
  assert.equal(han.agree, 2);
  assert.equal(han.beyond, false);
  const jsd = byWhat['20news-han: erase-max mean JSD, top erased − random erased'];
  assert.ok(Math.abs(jsd.mean - 0.001) < 1e-12);  // 0.002, 0.001, 0 → the third seed has sign 0: not every seed agrees
  assert.equal(jsd.agree, 2);
  assert.equal(jsd.beyond, false);
  assert.deepEqual(summary['20news-han']['erase-max: flip rate, top'].values, { 1: 0.02, 2: 0.03, 3: 0.01 });
  // two rankings identical in every seed: no seed "agrees" on a sign that is not there
  const same = byWhat['sst2-uniform: erase-until-flip fraction, attention_x_gradient − gradient'];
  assert.deepEqual([same.n, same.mean, same.std, same.agree, same.beyond], [3, 0, 0, 0, false]);
  const tu = byWhat['test F1: sst2-tanh − sst2-uniform (same seeds)'];
  assert.ok(Math.abs(tu.mean - 0.01 / 3) < 1e-12);
  assert.equal(tu.agree, 2);
  assert.equal(tu.beyond, false);  // one seed disagrees: not larger than the spread
  fs.rmSync(dir, { recursive: true });
});

test('the committed models/text/seeds/summary.json is what the script computes from the committed files', () => {
  const src = path.join(ROOT, 'models/text/seeds');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seeds-committed-'));
  for (const f of fs.readdirSync(src)) if (!['summary.json', 'comparisons.json'].includes(f)) fs.copyFileSync(path.join(src, f), path.join(dir, f));
  const { summary, comparisons } = run(dir);
  assert.deepEqual(summary, JSON.parse(fs.readFileSync(path.join(src, 'summary.json'), 'utf8')));
  assert.deepEqual(comparisons, JSON.parse(fs.readFileSync(path.join(src, 'comparisons.json'), 'utf8')));
  fs.rmSync(dir, { recursive: true });
});

test('the committed models/cnn/seeds/summary.json is what seeds-cnn.sh summary computes from the committed runs', () => {
  const src = path.join(ROOT, 'models/cnn/seeds');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seeds-cnn-'));
  for (const f of fs.readdirSync(src)) if (/\.seed\d+\.json$/.test(f)) fs.copyFileSync(path.join(src, f), path.join(dir, f));
  execFileSync('bash', [path.join(ROOT, 'models/tools/seeds-cnn.sh'), 'summary'], { env: { ...process.env, OUT: dir }, stdio: 'pipe' });
  for (const f of ['summary.json', 'comparisons.json'])
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')), JSON.parse(fs.readFileSync(path.join(src, f), 'utf8')), f);
  fs.rmSync(dir, { recursive: true });
});

test('seeds-cnn.sh summary: paired differences by seed and CBAM maps against chance, on hand-made runs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seeds-cnn-hand-'));
  const run = (name, seed, t) => write(dir, `${name}.seed${seed}.json`, { name, seed, command: 'x', test_decorrelated: t });
  // ext − confounded accuracy: +0.05, +0.07, +0.06; ext's seed 4 has no confounded twin and is not paired
  for (const [s, c, e] of [[3, 0.40, 0.46], [1, 0.38, 0.43], [2, 0.37, 0.44]]) {
    run('confounded', s, { accuracy: c, mask_iou: 0.3 });
    run('ext-w1-f0.1', s, { accuracy: e, mask_iou: 0.3 });
  }
  run('ext-w1-f0.1', 4, { accuracy: 0.1, mask_iou: 0.9 });
  // CBAM at stage 3 only; its map's energy in mask vs the test set's mask fraction: +0.001, −0.002, +0.004
  for (const [s, en, mf] of [[1, 0.135, 0.134], [2, 0.132, 0.134], [3, 0.140, 0.136]])
    run('res-cbam-stage3', s, { accuracy: 0.9, mask_fraction: mf, cbam_spatial: { energy_in_mask: [null, null, en], pointing_game: [null, null, 0] } });
  execFileSync('bash', [path.join(ROOT, 'models/tools/seeds-cnn.sh'), 'summary'], { env: { ...process.env, OUT: dir }, stdio: 'pipe' });
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
  const byWhat = Object.fromEntries(JSON.parse(fs.readFileSync(path.join(dir, 'comparisons.json'), 'utf8')).map((c) => [c.what, c]));
  assert.deepEqual(summary.confounded.seeds, [1, 2, 3]);
  assert.ok(Math.abs(summary.confounded.test_decorrelated.accuracy.mean - 1.15 / 3) < 1e-12);
  const ext = byWhat['accuracy: ext-w1-f0.1 − confounded (same seeds)'];
  assert.equal(ext.n, 3);
  assert.ok(Math.abs(ext.mean - 0.06) < 1e-12);
  assert.ok(Math.abs(ext.std - 0.01) < 1e-12);
  assert.deepEqual([ext.agree, ext.beyond], [3, true]);
  const iou = byWhat['mask_iou: ext-w1-f0.1 − confounded (same seeds)'];
  assert.deepEqual([iou.mean, iou.agree, iou.beyond], [0, 0, false]);
  const cbam = byWhat['CBAM stage 3 map energy in mask − chance: res-cbam-stage3'];
  assert.ok(Math.abs(cbam.mean - 0.001) < 1e-12);
  assert.deepEqual([cbam.n, cbam.agree, cbam.beyond], [3, 2, false]);
  assert.equal(summary['res-cbam-stage3'].test_decorrelated.cbam_energy_in_mask[0], null);
  fs.rmSync(dir, { recursive: true });
});

test('seeds-cnn.sh summary: adversarial erasing per step over seeds, paired and against a random union', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seeds-cnn-erasing-'));
  const erasing = (area1, prec1, rec1) => ({
    n: 500, steps: 2, threshold: 0.5, fill: 0.5,
    union_area: [area1, 0.6], recall: [rec1, 0.8], precision: [prec1, 0.3], still_correct: [0.9, 0.3],
  });
  // gmp − gap step-1 precision: +0.07, +0.08, +0.06; gap's step-1 recall − area: +0.2, +0.1, −0.05 (one disagrees)
  for (const [s, gapArea, gapRec, gapPrec, gmpPrec] of [[1, 0.3, 0.5, 0.38, 0.45], [2, 0.4, 0.5, 0.36, 0.44], [3, 0.35, 0.3, 0.40, 0.46]]) {
    write(dir, `gap.seed${s}.json`, { name: 'gap', seed: s, command: 'x', test_decorrelated: { accuracy: 0.9 }, erasing: erasing(gapArea, gapPrec, gapRec) });
    write(dir, `gmp.seed${s}.json`, { name: 'gmp', seed: s, command: 'x', test_decorrelated: { accuracy: 0.9 }, erasing: erasing(0.2, gmpPrec, 0.4) });
  }
  write(dir, 'gmp.seed4.json', { name: 'gmp', seed: 4, command: 'x', test_decorrelated: { accuracy: 0.9 } });  // no erasing: left out
  const out = execFileSync('bash', [path.join(ROOT, 'models/tools/seeds-cnn.sh'), 'summary'], { env: { ...process.env, OUT: dir }, encoding: 'utf8' });
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
  const byWhat = Object.fromEntries(JSON.parse(fs.readFileSync(path.join(dir, 'comparisons.json'), 'utf8')).map((c) => [c.what, c]));
  assert.deepEqual(summary.gmp.erasing.seeds, [1, 2, 3]);
  assert.equal(summary.gap.erasing.union_area.length, 2);
  const a = summary.gap.erasing.union_area[0];
  assert.ok(Math.abs(a.mean - 0.35) < 1e-12 && Math.abs(a.std - 0.05) < 1e-12);
  assert.deepEqual(a.values, [0.3, 0.4, 0.35]);
  const p = byWhat['erasing step 1 precision: gmp − gap (same seeds)'];
  assert.ok(Math.abs(p.mean - 0.07) < 1e-12 && Math.abs(p.std - 0.01) < 1e-12);
  assert.deepEqual([p.n, p.agree, p.beyond], [3, 3, true]);
  const r = byWhat['erasing step 1 recall − union area (random pixels: 0): gap'];
  assert.ok(Math.abs(r.mean - 0.25 / 3) < 1e-12);
  assert.deepEqual([r.agree, r.beyond], [2, false]);
  assert.match(out, /\| gap \(3\) \| 1 \| 0\.350 ± 0\.050 \| 0\.433 ± 0\.115 \| 0\.380 ± 0\.020 \| 0\.900 ± 0\.000 \|/);
  fs.rmSync(dir, { recursive: true });
});
