#!/usr/bin/env node
// readings-table.mjs — the tables of docs/RESULTS.md "The debate's tests on the later readings" (issue 30) from the
// summaries in models/text/readings-debate/ (written by models/tools/readings-debate.sh): MODEL.kendall.json and
// MODEL.erase-until-flip.json, one summary object each (the CLI's stdout). A model named BASE-sN is seed N of BASE; the
// seeds of one base are shown as mean ± std over the seeds (sample std, n − 1); a base with one model shows its mean
// alone (for kendall, ± the std over the sentences, said in the heading).
// Rows: attention (the row's own τ / S&S's ranking), then S&S's other rankings (erase-until-flip), then each later
// reading. Columns — kendall: mean τ against the gradient, against leave-one-out and against attention, and the share
// of sentences where the first two are significant (p < 0.05); erase-until-flip: the mean fraction of the attention weights removed before the
// decision flips (all sentences; 1 when it never flips), the same over the sentences every one of S&S's five rankings
// flips (S&S's comparison), and the flip rate.
// Usage: node models/tools/readings-table.mjs [DIR]   Prints markdown.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { meanStd, seedGroups, seedOf } from './seed-stats.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.resolve(process.argv[2] ?? path.join(ROOT, 'models/text/readings-debate'));
const SS = ['attention', 'gradient', 'attention_x_gradient', 'leave_one_out', 'random'];
const LABEL = { attention: 'attention', gradient: 'gradient (∂p/∂α, S&S)', attention_x_gradient: 'attention × gradient (α·∂p/∂α, S&S)',
  leave_one_out: 'leave-one-out', random: 'random', integrated_gradients: 'integrated gradients', rollout: 'rollout',
  flow: 'attention flow', relevance: 'Chefer relevance', grad_attention: 'attention × gradient, per head',
  gradient_x_input: 'gradient × input', attention_norm: 'attention norm', attnlrp: 'AttnLRP', cp_lrp: 'CP-LRP',
  value_zeroing: 'value zeroing', alti: 'ALTI' };
const READINGS = ['integrated_gradients', 'gradient_x_input', 'rollout', 'flow', 'relevance', 'grad_attention', 'attention_norm',
  'attnlrp', 'cp_lrp', 'value_zeroing', 'alti'];

const summaries = {};  // model → experiment → summary
for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
  const m = f.match(/^(.*)\.(kendall|erase-until-flip)\.json$/);
  if (m) (summaries[m[1]] ??= {})[m[2]] = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
}
const groups = seedGroups(Object.keys(summaries));  // base → [model], in seed order

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : NaN);
// mean ± std over the seeds; one model: its value (± spread when given)
function cell(xs, spread = NaN, digits = 3, pct = false) {
  const v = xs.filter(Number.isFinite);
  if (!v.length) return '–';
  const f = (x) => (pct ? `${(100 * x).toFixed(1)} %` : x.toFixed(digits));
  const { mean, std } = meanStd(v);
  if (v.length === 1) return Number.isFinite(spread) ? `${f(mean)} ± ${f(spread)}` : f(mean);
  return `${f(mean)} ± ${f(std)}`;
}

for (const [base, models] of Object.entries(groups)) {
  const seeds = models.length === 1 ? models[0] : `${models.length} seeds: ${models.map((m) => `s${seedOf(m, base)}`).join(', ')}`;
  const ks = models.map((m) => summaries[m].kendall).filter(Boolean);
  if (ks.length) {
    const one = ks.length === 1;
    console.log(`\n#### Kendall τ, ${base} (${seeds}; n = ${ks.map((s) => s.n_used).join('/')} sentences${one ? '; one model: ± is the std over the sentences' : ''})\n`);
    console.log('| in attention’s place | τ vs gradient | τ vs leave-one-out | τ vs attention | significant, gradient | significant, leave-one-out |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    const names = ['attention', ...READINGS.filter((r) => ks.some((s) => s.readings?.[r]))];
    for (const r of names) {
      const part = (s) => (r === 'attention' ? s : s.readings?.[r]);
      const col = (key) => ks.map((s) => num(part(s)?.[key]));
      const sd = (key) => (one ? num(part(ks[0])?.[key.replace('_mean', '_std')]) : NaN);
      const sig = (k) => ks.map((s) => num(part(s)?.fraction_significant?.[k]));
      const vsAttention = r === 'attention' ? '–' : cell(col('tau_attention_mean'), sd('tau_attention_mean'));
      console.log(`| ${LABEL[r] ?? r} | ${cell(col('tau_gradient_mean'), sd('tau_gradient_mean'))} | ${cell(col('tau_loo_mean'), sd('tau_loo_mean'))} | ${vsAttention} | ` +
        `${cell(sig('gradient'), NaN, 3, true)} | ${cell(sig('loo'), NaN, 3, true)} |`);
    }
  }
  const es = models.map((m) => summaries[m]['erase-until-flip']).filter(Boolean);
  if (es.length) {
    console.log(`\n#### Erase until the decision flips, ${base} (${seeds}; n = ${es.map((s) => s.n_used).join('/')} sentences, ` +
      `${es.map((s) => s.n_flipped_by_all).join('/')} flipped by all five of S&S's rankings)\n`);
    console.log('| ranking | mean fraction removed ↓ | the same, flipped by all five ↓ | flip rate ↑ |');
    console.log('| --- | ---: | ---: | ---: |');
    for (const r of [...SS, ...READINGS.filter((x) => es.some((s) => s[x]))]) {
      const col = (get) => es.map((s) => num(get(s)));
      console.log(`| ${LABEL[r] ?? r} | ${cell(col((s) => s[r]?.fraction_mean))} | ${cell(col((s) => s.fraction_mean_flipped_by_all?.[r]))} | ` +
        `${cell(col((s) => s[r]?.flip_rate), NaN, 3, true)} |`);
    }
  }
}
