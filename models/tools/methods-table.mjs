#!/usr/bin/env node
// methods-table.mjs — the "Which explanation is most faithful?" tables of docs/RESULTS.md (issue 30) from the
// experiment summaries in models/text/transformer-methods/ (written by models/tools/transformer-methods.sh):
//   MODEL.eraser.json (ranking by |value|), MODEL.eraser-signed.json (--param ranking=signed),
//   MODEL.plausibility.json — one summary object each (the CLI's stdout).
// A model named BASE-sN is seed N of BASE; seeds of one base are shown as mean ± std (sample std, n − 1). A base
// with one model (a pretrained one has no seeds) shows mean ± the standard error over its instances where the
// summary has one (ERASER's _sem entries), said in the table's heading.
// Usage: node models/tools/methods-table.mjs [DIR]   Prints markdown.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { meanStd, seedGroups, seedOf } from './seed-stats.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.resolve(process.argv[2] ?? path.join(ROOT, 'models/text/transformer-methods'));
const ORDER = ['attention', 'gradient', 'gradient_x_input', 'leave_one_out', 'integrated_gradients', 'rollout', 'flow', 'relevance',
  'grad_attention', 'attention_norm', 'attnlrp', 'cp_lrp', 'value_zeroing', 'alti', 'random'];
// gradient: Jain & Wallace's for a model attnlab trained, ‖∂logit/∂x‖ for an ONNX model (explain-onnx-text's row; a base
// named *onnx* or stories260K).
const LABEL = { attention: 'attention ([CLS], last layer)', gradient: 'gradient (J&W)',
  gradient_x_input: 'gradient × input ±', leave_one_out: 'leave-one-out',
  integrated_gradients: 'integrated gradients ±', rollout: 'rollout', flow: 'attention flow', relevance: 'Chefer relevance',
  grad_attention: 'attention × gradient ±', attention_norm: 'attention norm', attnlrp: 'AttnLRP ±', cp_lrp: 'CP-LRP ±',
  value_zeroing: 'value zeroing', alti: 'ALTI', random: 'random' };

const summaries = {};  // model → kind → summary
for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
  const m = f.match(/^(.*)\.(eraser|eraser-signed|plausibility)\.json$/);
  if (!m) continue;
  (summaries[m[1]] ??= {})[m[2]] = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
}
const groups = seedGroups(Object.keys(summaries));  // base → [model], in seed order

const value = (s, kind, measure, key) => {
  if (!s?.[kind]) return NaN;
  const v = kind === 'plausibility' ? s[kind][measure]?.[key] : s[kind].measures?.[measure]?.[key];
  return typeof v === 'number' ? v : NaN;
};
const cell = (xs, sem = NaN) => {
  const v = xs.filter(Number.isFinite);
  if (!v.length) return '–';
  const { mean, std } = meanStd(v);
  if (v.length === 1) return Number.isFinite(sem) ? `${mean.toFixed(3)} ± ${sem.toFixed(3)}` : mean.toFixed(3);
  return `${mean.toFixed(3)} ± ${std.toFixed(3)}`;
};
const COLS = [
  ['AOPC comp. ↑ (signed)', 'eraser-signed', 'aopc_comprehensiveness_mean'],
  ['AOPC suff. ↓ (signed)', 'eraser-signed', 'aopc_sufficiency_mean'],
  ['AOPC comp. ↑ (by size)', 'eraser', 'aopc_comprehensiveness_mean'],
  ['AOPC suff. ↓ (by size)', 'eraser', 'aopc_sufficiency_mean'],
  ['token F1 ↑', 'plausibility', 'token_f1'],
  ['AUPRC ↑', 'plausibility', 'auprc'],
];
for (const [base, models] of Object.entries(groups)) {
  const n = (kind) => models.map((m) => summaries[m][kind]?.n_used).filter(Number.isFinite);
  const semOf = (kind, measure, key) =>
    models.length === 1 && key.endsWith('_mean') ? value(summaries[models[0]], kind, measure, key.replace(/_mean$/, '_sem')) : NaN;
  const hasSem = models.length === 1 && ORDER.some((m) => COLS.some(([, kind, key]) => Number.isFinite(semOf(kind, m, key))));
  console.log(`\n#### ${base} (${models.length === 1 ? models[0] : `${models.length} seeds: ${models.map((m) => `s${seedOf(m, base)}`).join(', ')}`}; ` +
    `ERASER n = ${n('eraser').join('/') || '–'}, plausibility n = ${n('plausibility').join('/') || '–'}` +
    `${hasSem ? '; one model: ± is the standard error over the instances' : ''})\n`);
  console.log(`| method | ${COLS.map((c) => c[0]).join(' | ')} |`);
  console.log(`| --- | ${COLS.map(() => '---:').join(' | ')} |`);
  for (const measure of ORDER) {
    const cells = COLS.map(([, kind, key]) => cell(models.map((m) => value(summaries[m], kind, measure, key)), semOf(kind, measure, key)));
    if (cells.every((c) => c === '–')) continue;
    const label = measure === 'gradient' && /onnx|stories260K/.test(base) ? 'gradient ‖∂logit/∂x‖' : LABEL[measure];
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }
}
