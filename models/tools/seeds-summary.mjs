// Mean ± std over seeds of the files models/tools/seeds-sst2.sh and seeds-han.sh write (DIR/MODEL-sSEED.train.json,
// the last line of train-text / train-han; DIR/MODEL-sSEED.EXPERIMENT[.limitN].json, the experiment's summary line;
// MODEL e.g. sst2-tanh, 20news-han). Writes DIR/summary.json {MODEL: {metric: {mean, std, n, values: {seed: v}}}}
// (std: sample, n − 1) and DIR/comparisons.json (paired differences against the seed spread), and prints a
// Markdown table per model. Usage: node models/tools/seeds-summary.mjs [DIR]
import fs from 'node:fs';
import path from 'node:path';
import { meanStd, paired, oneSample, comparisonRow } from './seed-stats.mjs';

const dir = process.argv[2] ?? 'models/text/seeds';
const RANKINGS = ['attention', 'gradient', 'attention_x_gradient', 'leave_one_out', 'random'];
const MEASURES = ['attention', 'gradient', 'leave_one_out', 'integrated_gradients', 'random'];

// metric name → value, from one file's JSON, by what the file holds.
function metricsOf(kind, j) {
  const out = {};
  const put = (k, v) => { if (Number.isFinite(v)) out[k] = v; };
  if (kind === 'train') {
    put('test accuracy', j.metrics?.test?.accuracy);
    put('test F1', j.metrics?.test?.f1);
    put('dev accuracy', j.metrics?.dev?.accuracy);
    put('best epoch', j.best_epoch);
  } else if (kind.startsWith('kendall')) {
    put('τ(attention, gradient)', j.tau_gradient_mean);
    put('τ(attention, leave-one-out)', j.tau_loo_mean);
  } else if (kind.startsWith('permutation')) {
    put('permutation: median Δ output, median over sentences', j.median_delta_median);
    put('permutation: fraction with median Δ < 0.01', j['fraction_median_delta_below_0.01']);
  } else if (kind.startsWith('adversarial')) {
    put('adversarial: mean max JSD', j.mean_max_jsd);
    put('adversarial: fraction max JSD > 0.4', j['fraction_jsd_above_0.4']);
  } else if (kind.startsWith('erase-max')) {
    // the registry's keys; the files written before 2026-12-06 by the HAN's own erase-max used top / random names
    put('erase-max: fraction top JSD > random JSD', j.fraction_jsd_max_greater ?? j.fraction_top_larger);
    put('erase-max: mean JSD, top erased', j.jsd_max_mean ?? j.jsd_top_mean);
    put('erase-max: mean JSD, random erased', j.jsd_random_mean);
    put('erase-max: flip rate, top', j.flip_rate_max ?? j.flip_rate_top);
    put('erase-max: flip rate, random', j.flip_rate_random);
  } else if (kind.startsWith('erase-until-flip')) {
    // as docs/RESULTS.md reports it: the mean fraction removed over the sentences every ranking flips, and the
    // flip rate of each ranking
    for (const r of RANKINGS) put(`erase-until-flip: fraction removed (flipped by all), ${r}`, j.fraction_mean_flipped_by_all?.[r]);
    for (const r of RANKINGS) put(`erase-until-flip: flip rate, ${r}`, j[r]?.flip_rate);
    // and the page's headline (web/experiments-info.js): the mean fraction removed over every sentence (1 = no flip)
    for (const r of RANKINGS) put(`erase-until-flip: mean fraction removed, ${r}`, j[r]?.fraction_mean);
  } else if (kind.startsWith('eraser')) {
    for (const m of MEASURES) {
      put(`ERASER AOPC comprehensiveness, ${m}`, j.measures?.[m]?.aopc_comprehensiveness_mean);
      put(`ERASER AOPC sufficiency, ${m}`, j.measures?.[m]?.aopc_sufficiency_mean);
    }
  } else if (kind.startsWith('plausibility')) {
    for (const m of MEASURES) put(`plausibility token F1, ${m}`, j[m]?.token_f1);
    for (const m of MEASURES) put(`plausibility AUPRC, ${m}`, j[m]?.auprc);
    for (const m of MEASURES) put(`plausibility IOU F1, ${m}`, j[m]?.iou_f1);
  } else if (kind.startsWith('attention-flow')) {
    // Abnar & Zuidema, last layer: Spearman of raw / rollout / flow with blank-out and with gradients
    for (const k of ['raw_blankout', 'rollout_blankout', 'flow_blankout', 'raw_gradient', 'rollout_gradient', 'flow_gradient']) {
      put(`attention-flow, last layer: ${k.replace('_', ' vs ')}`, j.last_layer?.[k]);
    }
  } else if (kind.startsWith('conicity')) {
    put('conicity of the encoder states', j.conicity_mean);
  } else if (kind.startsWith('impermissible')) {
    put('attention mass on impermissible words', j.attention_mass_mean_where_present);
    put('accuracy', j.accuracy);
    put('accuracy without impermissible words', j.accuracy_without);
    put('predictions changed by deleting impermissible words', j.changed_fraction_where_present);
  } else if (kind.startsWith('head-ablation')) {
    put('head-ablation: accuracy', j.accuracy);
    const changes = (j.single ?? []).map((h) => h.accuracy_change).filter(Number.isFinite);
    if (changes.length) put('head-ablation: largest single-head accuracy drop', -Math.min(...changes));
  }
  return out;
}

const table = {};
for (const f of fs.readdirSync(dir).sort()) {
  const m = /^([\w-]+)-s(\d+)\.(.+)\.json$/.exec(f);
  if (!m) continue;
  const [, model, seed, kind] = m;
  const text = fs.readFileSync(path.join(dir, f), 'utf8').trim();
  if (!text) continue;
  for (const [k, v] of Object.entries(metricsOf(kind, JSON.parse(text)))) {
    const key = kind.includes('.limit') ? `${k} (${kind.split('.').pop()})` : k;
    ((table[model] ??= {})[key] ??= { values: {} }).values[seed] = v;
  }
}
for (const metrics of Object.values(table)) {
  for (const s of Object.values(metrics)) Object.assign(s, meanStd(Object.values(s.values)));
}
fs.writeFileSync(path.join(dir, 'summary.json'), `${JSON.stringify(table, null, 1)}\n`);
for (const [model, metrics] of Object.entries(table)) {
  console.log(`\n### ${model}\n\n| metric | mean ± std | seeds | per seed |\n| --- | --- | --- | --- |`);
  for (const [k, s] of Object.entries(metrics)) {
    const per = Object.entries(s.values).map(([seed, v]) => `${seed}: ${v.toFixed(3)}`).join(', ');
    console.log(`| ${k} | ${s.mean.toFixed(3)}${s.std === null ? '' : ` ± ${s.std.toFixed(3)}`} | ${s.n} | ${per} |`);
  }
}

// Is a difference larger than the seed spread? Paired by seed (the same model's two rankings, or two models trained
// with the same seed), or one metric against zero (τ > 0): seed-stats.mjs.
const pairedM = (a, b) => paired(a?.values, b?.values);
const comparisons = [];
const push = (what, c) => { if (c) comparisons.push({ what, ...c }); };
const flip = (r) => `erase-until-flip: fraction removed (flipped by all), ${r}`;
for (const [model, m] of Object.entries(table)) {
  for (const [x, y] of [['attention', 'random'], ['attention', 'leave_one_out'], ['gradient', 'attention'],
    ['attention_x_gradient', 'gradient'], ['leave_one_out', 'random']]) {
    push(`${model}: erase-until-flip fraction, ${x} − ${y}`, pairedM(m[flip(x)], m[flip(y)]));
  }
  for (const kind of ['comprehensiveness', 'sufficiency']) {
    for (const [x, y] of [['attention', 'gradient'], ['attention', 'integrated_gradients'], ['leave_one_out', 'attention'],
      ['attention', 'random']]) {
      push(`${model}: ERASER AOPC ${kind}, ${x} − ${y}`, pairedM(m[`ERASER AOPC ${kind}, ${x}`], m[`ERASER AOPC ${kind}, ${y}`]));
    }
  }
  for (const [x, y] of [['attention', 'leave_one_out'], ['attention', 'gradient'], ['leave_one_out', 'gradient'],
    ['integrated_gradients', 'gradient'], ['attention', 'random']]) {
    push(`${model}: plausibility token F1, ${x} − ${y}`, pairedM(m[`plausibility token F1, ${x}`], m[`plausibility token F1, ${y}`]));
  }
  for (const [x, y] of [['rollout', 'raw'], ['flow', 'raw'], ['rollout', 'flow']]) {
    for (const ref of ['blankout', 'gradient']) {
      const key = (k) => `attention-flow, last layer: ${k} vs ${ref}`;
      push(`${model}: attention-flow last layer vs ${ref}, ${x} − ${y}`, pairedM(m[key(x)], m[key(y)]));
    }
  }
  for (const [x, y] of [['flip rate, top', 'flip rate, random'], ['mean JSD, top erased', 'mean JSD, random erased']]) {
    push(`${model}: erase-max ${x} − ${y.replace(/^.*, /, '')}`, pairedM(m[`erase-max: ${x}`], m[`erase-max: ${y}`]));
  }
  for (const k of ['τ(attention, gradient)', 'τ(attention, leave-one-out)']) {
    push(`${model}: ${k} − 0`, oneSample(m[k]?.values));
  }
}
for (const [x, y] of [['sst2-tanh', 'sst2-uniform'], ['sst2-dot', 'sst2-uniform'], ['sst2-tanh', 'sst2-dot'],
  ['sst2-transformer-dot', 'sst2-transformer-uniform'], ['20news-han', '20news-han-uniform'], ['imdb-han', 'imdb-han-uniform'],
  ['imdb-han', 'imdb-han-uniform-e8'], ['imdb-han-uniform-e8', 'imdb-han-uniform']]) {
  for (const k of ['test F1', 'test accuracy']) {
    push(`${k}: ${x} − ${y} (same seeds)`, pairedM(table[x]?.[k], table[y]?.[k]));
  }
}
if (comparisons.length) {
  console.log('\n### Differences against the seed spread (paired by seed)\n\n| difference | mean ± std | seeds agreeing | larger than the spread |\n| --- | --- | --- | --- |');
  for (const c of comparisons) console.log(comparisonRow(c));
}
fs.writeFileSync(path.join(dir, 'comparisons.json'), `${JSON.stringify(comparisons, null, 1)}\n`);

// The side-by-side tables of docs/RESULTS.md, printed from the summary so that they are pasted, not retyped:
// one column per model of a group, "mean ± std" (fractions that RESULTS shows as % in %), "–" where a model has
// no such metric; the seed count is in the header.
const GROUPS = [
  ['SST-2 BiLSTMs', ['sst2-tanh', 'sst2-dot', 'sst2-uniform']],
  ['SST-2 transformers', ['sst2-transformer-dot', 'sst2-transformer-uniform']],
  ['20 Newsgroups HAN', ['20news-han', '20news-han-uniform']],
  ['IMDB HAN', ['imdb-han', 'imdb-han-uniform', 'imdb-han-uniform-e8']],
];
const AS_PERCENT = /fraction with|fraction max|flip rate|fraction top/;
function cell(s, k, small) {
  if (!s) return '–';
  const pc = AS_PERCENT.test(k), f = (x) => (pc ? (100 * x).toFixed(1) : x.toFixed(small ? 5 : 3));
  return `${f(s.mean)}${s.std === null ? '' : ` ± ${f(s.std)}`}${pc ? ' %' : ''}`;
}
for (const [title, models] of GROUPS) {
  const present = models.filter((m) => table[m]);
  if (!present.length) continue;
  const keys = [...new Set(present.flatMap((m) => Object.keys(table[m])))];
  const seeds = present.map((m) => `${m} ${Math.max(...Object.values(table[m]).map((s) => s.n))}`).join(', ');
  console.log(`\n### ${title}, side by side (seeds: ${seeds})\n\n| metric | ${present.map((m) => `\`${m}\``).join(' | ')} |\n| --- |${' ---: |'.repeat(present.length)}`);
  for (const k of keys) {
    // a row whose every mean is below 0.01 (JSDs of one erased weight) gets 5 decimals, not 0.000
    const small = present.every((m) => !table[m][k] || Math.abs(table[m][k].mean) < 0.01);
    console.log(`| ${k} | ${present.map((m) => cell(table[m][k], k, small)).join(' | ')} |`);
  }
}
