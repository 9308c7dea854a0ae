#!/usr/bin/env node
// round4-sst-ag-table.mjs — the table of docs/RESULTS.md "Deception by position" from models/text/round4-sst-ag/
// (bash models/tools/round4-sst-ag.sh): per kind and epoch count, mean ± std (n − 1) over the seeds present of the test
// accuracy, the attention mass on the SST part, the accuracy with the SST part deleted and the predictions it
// changes; the seeds listed. Usage: node models/tools/round4-sst-ag-table.mjs [--dir models/text/round4-sst-ag]
import fs from 'node:fs';
import path from 'node:path';
import { meanStd } from './seed-stats.mjs';

const REPO = path.resolve(import.meta.dirname, '../..');
const args = process.argv.slice(2);
const DIR = path.resolve(REPO, args.includes('--dir') ? args[args.indexOf('--dir') + 1] : 'models/text/round4-sst-ag');
const KINDS = [['plain', 'vanilla BiLSTM'], ['deceptive-0.1', 'deceptive, λ 0.1'], ['deceptive', 'deceptive, λ 1']];
const NAME = /^(plain|deceptive-0\.1|deceptive)(?:-s(\d+))?(?:-e(\d+))?\.impermissible\.json$/;

const groups = new Map(); // `${kind}|${epochs}` → [{seed, accuracy, mass, without, changed}]
for (const f of fs.readdirSync(DIR).sort()) {
  const m = NAME.exec(f);
  if (!m) continue;
  const [, kind, seed = '1', epochs = '8'] = m;
  const r = JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8'));
  const key = `${kind}|${epochs}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push({ seed: Number(seed), accuracy: r.accuracy, mass: r.attention_mass_mean, without: r.accuracy_without, changed: r.changed_fraction });
}
const cell = (xs, digits) => {
  const { n, mean, std } = meanStd(xs);
  return n >= 2 ? `${mean.toFixed(digits)} ± ${std.toFixed(digits)}` : mean.toFixed(digits);
};
console.log('| model | epochs | seeds | test accuracy | attention on the SST part | accuracy with the SST part deleted | predictions changed by deleting it |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const epochs of ['8', '15']) {
  for (const [kind, label] of KINDS) {
    const rows = (groups.get(`${kind}|${epochs}`) ?? []).sort((a, b) => a.seed - b.seed);
    if (!rows.length) continue;
    const col = (k) => rows.map((r) => r[k]);
    console.log(`| ${label} | ${epochs} | ${rows.map((r) => r.seed).join(', ')} | ${cell(col('accuracy'), 3)} | ` +
      `${cell(col('mass'), 4)} | ${cell(col('without'), 3)} | ${cell(col('changed'), 3)} |`);
  }
}
