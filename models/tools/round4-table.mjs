// The tables of docs/RESULTS.md "Round four" (issue 32) from models/text/seeds/summary.json (seeds-summary.mjs):
// per model, mean ± std over its seeds (n seeds given), so no number is copied by hand.
// Usage: node models/tools/round4-table.mjs [models/text/seeds/summary.json]
import fs from 'node:fs';

const summary = JSON.parse(fs.readFileSync(process.argv[2] ?? 'models/text/seeds/summary.json', 'utf8'));
const cell = (model, key, digits = 3) => {
  const s = summary[model]?.[key];
  if (!s) return '—';
  const std = s.std === null || s.std === undefined ? '' : ` ± ${s.std.toFixed(digits)}`;
  return `${s.mean.toFixed(digits)}${std} (${s.n})`;
};
const row = (label, model, keys) => `| ${label} | ${keys.map((k) => cell(model, k)).join(' | ')} |`;

const SST = [['vanilla BiLSTM (`sst2-tanh`)', 'sst2-tanh'], ['Orthogonal LSTM (`sst2-ortho`)', 'sst2-ortho'],
  ['Diversity LSTM, λ 0.5 (`sst2-diversity`)', 'sst2-diversity'], ['deceptive, λ 1 (`sst2-deceptive`)', 'sst2-deceptive']];
const flip = (r) => `erase-until-flip: fraction removed (flipped by all), ${r}`;
const tables = [
  ['SST-2 test (1,821): accuracy, conicity, agreement, permutation',
    ['test accuracy', 'conicity of the encoder states', 'τ(attention, gradient)', 'τ(attention, leave-one-out)',
      'permutation: median Δ output, median over sentences'],
    ['test accuracy', 'conicity', 'τ(att, grad)', 'τ(att, LOO)', 'permutation: median Δp']],
  ['SST-2 test: erase until the decision flips (mean fraction of tokens removed, sentences every ranking flips)',
    [flip('attention'), flip('gradient'), flip('leave_one_out'), flip('random'), 'erase-until-flip: flip rate, attention'],
    ['attention', 'gradient', 'leave-one-out', 'random', 'flip rate (attention)']],
  ['SST-2 test: the 454 strong-sentiment words (sentences that contain one)',
    ['attention mass on impermissible words', 'predictions changed by deleting impermissible words', 'accuracy',
      'accuracy without impermissible words'],
    ['attention on them', 'predictions changed by deleting them', 'accuracy', 'accuracy without them']],
];
for (const [title, keys, heads] of tables) {
  console.log(`\n**${title}** — mean ± std (seeds)\n\n| model | ${heads.join(' | ')} |\n| --- |${' --- |'.repeat(heads.length)}`);
  for (const [label, model] of SST) console.log(row(label, model, keys));
}
for (const [ds, label, limit] of [['20news', '20 Newsgroups hockey vs baseball (the first 100 of 796 test posts)', ' (limit100)'],
  ['agnews', 'AG News World vs Business (3,800)', ''],
  ['imdb', 'IMDB (the first 100 of the 2,000 test reviews)', ' (limit100)']]) {
  const keys = ['test accuracy', `conicity of the encoder states${limit}`, `τ(attention, gradient)${limit}`,
    `τ(attention, leave-one-out)${limit}`, `permutation: median Δ output, median over sentences${limit}`];
  console.log(`\n**${label}** — mean ± std (seeds)\n\n| model | test accuracy | conicity | τ(att, grad) | τ(att, LOO) | permutation: median Δp |\n| --- | --- | --- | --- | --- | --- |`);
  for (const [kind, name] of [['tanh', 'vanilla BiLSTM'], ['ortho', 'Orthogonal LSTM'], ['diversity', 'Diversity LSTM, λ 0.5']]) {
    console.log(row(name, `${ds}-${kind}`, keys));
  }
}
