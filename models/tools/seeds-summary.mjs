// Mean ± std over seeds of the files models/tools/seeds-sst2.sh writes (DIR/sst2-ATT-sSEED.train.json, the
// last line of train-text; DIR/sst2-ATT-sSEED.EXPERIMENT[.limitN].json, the experiment's summary line).
// Writes DIR/summary.json {ATT: {metric: {mean, std, n, values: {seed: v}}}} (std: sample, n − 1) and prints a
// Markdown table per model. Usage: node models/tools/seeds-summary.mjs [DIR]
import fs from 'node:fs';
import path from 'node:path';

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
  } else if (kind.startsWith('erase-until-flip')) {
    // as docs/RESULTS.md reports it: the mean fraction removed over the sentences every ranking flips, and the
    // flip rate of each ranking
    for (const r of RANKINGS) put(`erase-until-flip: fraction removed (flipped by all), ${r}`, j.fraction_mean_flipped_by_all?.[r]);
    for (const r of RANKINGS) put(`erase-until-flip: flip rate, ${r}`, j[r]?.flip_rate);
  } else if (kind.startsWith('eraser')) {
    for (const m of MEASURES) {
      put(`ERASER AOPC comprehensiveness, ${m}`, j.measures?.[m]?.aopc_comprehensiveness_mean);
      put(`ERASER AOPC sufficiency, ${m}`, j.measures?.[m]?.aopc_sufficiency_mean);
    }
  } else if (kind.startsWith('plausibility')) {
    for (const m of MEASURES) put(`plausibility token F1, ${m}`, j[m]?.token_f1);
  } else if (kind.startsWith('attention-flow')) {
    // Abnar & Zuidema, last layer: Spearman of raw / rollout / flow with blank-out and with gradients
    for (const k of ['raw_blankout', 'rollout_blankout', 'flow_blankout', 'raw_gradient', 'rollout_gradient', 'flow_gradient']) {
      put(`attention-flow, last layer: ${k.replace('_', ' vs ')}`, j.last_layer?.[k]);
    }
  } else if (kind.startsWith('head-ablation')) {
    put('head-ablation: accuracy', j.accuracy);
    const changes = (j.single ?? []).map((h) => h.accuracy_change).filter(Number.isFinite);
    if (changes.length) put('head-ablation: largest single-head accuracy drop', -Math.min(...changes));
  }
  return out;
}

const table = {};
for (const f of fs.readdirSync(dir).sort()) {
  const m = /^sst2-([\w-]+)-s(\d+)\.(.+)\.json$/.exec(f);
  if (!m) continue;
  const [, att, seed, kind] = m;
  const text = fs.readFileSync(path.join(dir, f), 'utf8').trim();
  if (!text) continue;
  for (const [k, v] of Object.entries(metricsOf(kind, JSON.parse(text)))) {
    const key = kind.includes('.limit') ? `${k} (${kind.split('.').pop()})` : k;
    ((table[att] ??= {})[key] ??= { values: {} }).values[seed] = v;
  }
}
for (const metrics of Object.values(table)) {
  for (const s of Object.values(metrics)) {
    const v = Object.values(s.values);
    s.n = v.length;
    s.mean = v.reduce((a, b) => a + b, 0) / v.length;
    s.std = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - s.mean) ** 2, 0) / (v.length - 1)) : null;
  }
}
fs.writeFileSync(path.join(dir, 'summary.json'), `${JSON.stringify(table, null, 1)}\n`);
for (const [att, metrics] of Object.entries(table)) {
  console.log(`\n### sst2-${att}\n\n| metric | mean ± std | seeds | per seed |\n| --- | --- | --- | --- |`);
  for (const [k, s] of Object.entries(metrics)) {
    const per = Object.entries(s.values).map(([seed, v]) => `${seed}: ${v.toFixed(3)}`).join(', ');
    console.log(`| ${k} | ${s.mean.toFixed(3)}${s.std === null ? '' : ` ± ${s.std.toFixed(3)}`} | ${s.n} | ${per} |`);
  }
}

// Is a difference larger than the seed spread? Paired over the seeds both metrics have (the same model's two
// rankings, or two models trained with the same seed): mean ± sample std of the difference, how many seeds agree
// on its sign, and "yes" when every seed agrees and |mean| > 2 · std / sqrt(n) (a paired t of 2; n ≥ 3).
function paired(a, b) {
  const seeds = Object.keys(a?.values ?? {}).filter((k) => k in (b?.values ?? {}));
  const d = seeds.map((k) => a.values[k] - b.values[k]);
  const n = d.length;
  if (n < 2) return null;
  const mean = d.reduce((x, y) => x + y, 0) / n;
  const std = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / (n - 1));
  const agree = d.filter((x) => Math.sign(x) === Math.sign(mean)).length;
  return { n, mean, std, agree, beyond: n >= 3 && agree === n && Math.abs(mean) > (2 * std) / Math.sqrt(n) };
}
const comparisons = [];
const flip = (r) => `erase-until-flip: fraction removed (flipped by all), ${r}`;
for (const [att, m] of Object.entries(table)) {
  for (const [x, y] of [['attention', 'random'], ['attention', 'leave_one_out'], ['gradient', 'attention'],
    ['attention_x_gradient', 'gradient'], ['leave_one_out', 'random']]) {
    const c = paired(m[flip(x)], m[flip(y)]);
    if (c) comparisons.push({ what: `sst2-${att}: erase-until-flip fraction, ${x} − ${y}`, ...c });
  }
  for (const kind of ['comprehensiveness', 'sufficiency']) {
    for (const [x, y] of [['attention', 'gradient'], ['attention', 'integrated_gradients'], ['leave_one_out', 'attention'],
      ['attention', 'random']]) {
      const c = paired(m[`ERASER AOPC ${kind}, ${x}`], m[`ERASER AOPC ${kind}, ${y}`]);
      if (c) comparisons.push({ what: `sst2-${att}: ERASER AOPC ${kind}, ${x} − ${y}`, ...c });
    }
  }
  for (const k of ['τ(attention, gradient)', 'τ(attention, leave-one-out)']) {
    const c = paired(m[k], { values: Object.fromEntries(Object.keys(m[k]?.values ?? {}).map((s) => [s, 0])) });
    if (c) comparisons.push({ what: `sst2-${att}: ${k} − 0`, ...c });
  }
}
for (const [x, y] of [['tanh', 'uniform'], ['dot', 'uniform'], ['tanh', 'dot'], ['transformer-dot', 'transformer-uniform']]) {
  for (const k of ['test F1', 'test accuracy']) {
    const c = paired(table[x]?.[k], table[y]?.[k]);
    if (c) comparisons.push({ what: `${k}: sst2-${x} − sst2-${y} (same seeds)`, ...c });
  }
}
if (comparisons.length) {
  console.log('\n### Differences against the seed spread (paired by seed)\n\n| difference | mean ± std | seeds agreeing | larger than the spread |\n| --- | --- | --- | --- |');
  for (const c of comparisons)
    console.log(`| ${c.what} | ${c.mean.toFixed(3)} ± ${c.std.toFixed(3)} | ${c.agree} of ${c.n} | ${c.beyond ? 'yes' : 'no'} |`);
}
fs.writeFileSync(path.join(dir, 'comparisons.json'), `${JSON.stringify(comparisons, null, 1)}\n`);
