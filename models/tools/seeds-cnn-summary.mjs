// seeds-cnn-summary.mjs — mean ± sample std over the seeds of the localization lab's runs (the files
// models/tools/seeds-cnn.sh writes, DIR/NAME.seedS.json), and which differences are larger than the seed spread.
// Writes DIR/summary.json {NAME: {seeds, command, test_decorrelated: {metric: {n, mean, std, values: [per run]}},
// test_confounded?, erasing?: {seeds, union_area|recall|precision|still_correct: [per step {n, mean, std, values}]}}}
// (per-stage metrics such as CBAM's are arrays of those, null for a stage without CBAM) and
// DIR/comparisons.json [{what, n, mean, std, agree, beyond}] (seed-stats.mjs: paired by seed, or against chance);
// prints both. Usage: node models/tools/seeds-cnn-summary.mjs [DIR] [NAME ...]   (DIR default models/cnn/seeds)
import fs from 'node:fs';
import path from 'node:path';
import { meanStd, paired, verdict, comparisonRow } from './seed-stats.mjs';

const dir = process.argv[2] ?? 'models/cnn/seeds';
const only = process.argv.slice(3);
const runs = {};
for (const f of fs.readdirSync(dir).sort()) {
  const m = f.match(/^(.+)\.seed(\d+)\.json$/);
  if (!m || (only.length && !only.includes(m[1]))) continue;
  (runs[m[1]] ??= []).push(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}
const pick = {
  accuracy: (t) => t.accuracy, pointing_0px: (t) => t.pointing_game,
  pointing_std_tol: (t) => t.pointing?.hit_standard_tolerance, mask_iou: (t) => t.mask_iou,
  energy_in_mask: (t) => t.energy_in_mask, background_class_rate: (t) => t.background_class_rate,
  cbam_energy_in_mask: (t) => t.cbam_spatial?.energy_in_mask, cbam_pointing: (t) => t.cbam_spatial?.pointing_game,
};
const stat = (xs) => ({ ...meanStd(xs), values: xs });
// "mean ± std" of a stat (the mean alone for one seed, "-" for a stage without the metric)
const fmt = (x) => (x === null ? '-' : x.std === null ? x.mean.toFixed(3) : `${x.mean.toFixed(3)} ± ${x.std.toFixed(3)}`);
const summary = {};
for (const [name, rs] of Object.entries(runs)) {
  summary[name] = { seeds: rs.map((r) => r.seed), command: rs[0].command };
  for (const split of ['test_decorrelated', 'test_confounded']) {
    if (!rs.every((r) => r[split])) continue;
    const s = {};
    for (const [k, f] of Object.entries(pick)) {
      const v = rs.map((r) => f(r[split]));
      if (v.some((x) => x === undefined || x === null)) continue;
      if (Array.isArray(v[0])) s[k] = v[0].map((_, i) => (v.some((a) => a[i] === null) ? null : stat(v.map((a) => a[i]))));
      else s[k] = stat(v);
    }
    summary[name][split] = s;
    console.log(`${name} [${split}, seeds ${summary[name].seeds.join(',')}] ` +
      Object.entries(s).map(([k, x]) => `${k} ${Array.isArray(x) ? x.map(fmt).join(' / ') : fmt(x)}`).join('; '));
  }
}
// Adversarial erasing (RESULTS §4; .erasing of the runs seeds-cnn.sh ERASING=1 made): per step, mean ± std over seeds.
const ERASING = ['union_area', 'recall', 'precision', 'still_correct'];
const erasingRows = [];
for (const [name, rs] of Object.entries(runs)) {
  const er = rs.filter((r) => r.erasing);
  if (!er.length) continue;
  const e = { seeds: er.map((r) => r.seed) };
  for (const k of ERASING) e[k] = er[0].erasing[k].map((_, i) => stat(er.map((r) => r.erasing[k][i])));
  summary[name].erasing = e;
  e.recall.forEach((_, i) => erasingRows.push(`| ${i ? '' : `${name} (${er.length})`} | ${i + 1} | ` +
    ERASING.map((k) => fmt(e[k][i])).join(' | ') + ' |'));
}
if (erasingRows.length) {
  console.log('\nAdversarial erasing (cnn-experiment erasing --n 500 --steps 4), mean ± std over seeds:');
  console.log('| model (seeds) | step | union area | recall of the mask | precision | still predicts the class |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of erasingRows) console.log(r);
}
fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary, null, 1) + '\n');

// {seed: value} of one configuration's metric on the de-correlated test set
const bySeed = (name, metric) => Object.fromEntries((runs[name] ?? [])
  .map((r) => [r.seed, pick[metric](r.test_decorrelated ?? {})]).filter(([, v]) => Number.isFinite(v)));
const comparisons = [];
const push = (what, c) => { if (c) comparisons.push({ what, ...c }); };
for (const [a, b, metrics] of [
  ['balanced', 'confounded', ['accuracy', 'background_class_rate']],
  ['confounded-gain', 'confounded', ['accuracy', 'background_class_rate']],
  ['ext-w1-f0.1', 'confounded', ['accuracy', 'background_class_rate', 'mask_iou', 'energy_in_mask']],
  ['ext-w1-f0.02', 'confounded', ['accuracy', 'mask_iou']],
  ['ext-w10-f0.1', 'confounded', ['accuracy', 'background_class_rate', 'mask_iou']],
  ['ext-w10-f0.1', 'ext-w1-f0.1', ['accuracy', 'mask_iou']],
  ['ext-w1-f0.1-am1', 'confounded', ['accuracy', 'mask_iou']],
  ['ext-w1-f0.1-am1', 'ext-w1-f0.1', ['accuracy', 'mask_iou']],
  ['ext-w1-f0.1', 'confounded-gain', ['accuracy']],
  ['balanced', 'ext-w1-f0.1', ['accuracy']],
  ['gmp', 'gap', ['energy_in_mask', 'mask_iou', 'pointing_0px', 'pointing_std_tol']],
  ['lse-r1', 'gap', ['pointing_0px', 'pointing_std_tol', 'energy_in_mask']],
  ['lse-r5', 'gap', ['pointing_std_tol', 'energy_in_mask']],
  ['lse-r10', 'gap', ['pointing_std_tol', 'energy_in_mask']],
  ['cbam-all', 'gap-lr0.02', ['accuracy', 'energy_in_mask']],
  ['cbam-stage1', 'gap-lr0.02', ['accuracy', 'energy_in_mask']],
  ['cbam-stage2', 'gap-lr0.02', ['accuracy', 'energy_in_mask']],
  ['cbam-stage3', 'gap-lr0.02', ['accuracy', 'energy_in_mask']],
  ['res-cbam-all', 'res-none', ['accuracy', 'energy_in_mask']],
  ['res-cbam-stage3', 'res-none', ['accuracy', 'energy_in_mask']],
  ['res-cbam-stage2', 'res-none', ['accuracy', 'energy_in_mask']],
  ['res-cbam-stage1', 'res-none', ['accuracy', 'energy_in_mask']],
]) {
  for (const k of metrics) push(`${k}: ${a} − ${b} (same seeds)`, paired(bySeed(a, k), bySeed(b, k)));
}
// {seed: value} of one configuration's erasing metric at a step (1-based)
const erasingBySeed = (name, k, step) => Object.fromEntries((runs[name] ?? []).filter((r) => r.erasing)
  .map((r) => [r.seed, r.erasing[k][step - 1]]));
for (const [a, b, k, step] of [
  ['gmp', 'gap', 'union_area', 1], ['gmp', 'gap', 'precision', 1], ['gmp', 'gap', 'still_correct', 2],
  ['gmp', 'gap', 'recall', 4], ['gmp', 'gap', 'union_area', 4], ['lse-r5', 'gap', 'precision', 1], ['cbam-all', 'gap-lr0.02', 'recall', 1],
  ['confounded-gain', 'confounded', 'recall', 1], ['confounded-gain', 'confounded', 'precision', 1],
  ['balanced', 'confounded', 'still_correct', 1], ['balanced', 'confounded', 'precision', 1],
]) push(`erasing step ${step} ${k}: ${a} − ${b} (same seeds)`, paired(erasingBySeed(a, k, step), erasingBySeed(b, k, step)));
// The erased union against a union of random pixels of the same area (whose expected recall is its area)
for (const name of Object.keys(runs)) {
  for (const step of [1, 4]) {
    const rec = erasingBySeed(name, 'recall', step), area = erasingBySeed(name, 'union_area', step);
    push(`erasing step ${step} recall − union area (random pixels: 0): ${name}`,
      verdict(Object.keys(rec).map((sd) => rec[sd] - area[sd])));
  }
}
// CBAM's own spatial maps against chance: energy in mask − the test set's mask fraction (what a flat map scores)
for (const [name, rs] of Object.entries(runs)) {
  const stages = rs[0].test_decorrelated?.cbam_spatial?.energy_in_mask ?? [];
  stages.forEach((e, i) => {
    if (e === null) return;
    push(`CBAM stage ${i + 1} map energy in mask − chance: ${name}`,
      verdict(rs.map((r) => r.test_decorrelated.cbam_spatial.energy_in_mask[i] - r.test_decorrelated.mask_fraction)));
  });
}
console.log('\nDifferences against the seed spread (paired by seed; "yes" = every seed agrees, |mean| > 2 std / sqrt(n), n >= 3):');
for (const c of comparisons) console.log(comparisonRow(c));
fs.writeFileSync(path.join(dir, 'comparisons.json'), JSON.stringify(comparisons, null, 1) + '\n');
