#!/usr/bin/env node
// sst-ag-appended.mjs — Pruthi et al.'s "SST + Wiki" task with AG News in Wikipedia's place (no Wikipedia is at hand;
// issue 32): every SST-2 sentence (train / dev / test, sentence level) followed by the first 20 words of an AG News
// World-vs-Business text drawn at random (seeded), and a positions file that marks the SST sentence's tokens — the
// impermissible tokens: they alone carry the sentiment, so a model must read them, and a deceptive one must hide
// that from its attention. The SST lines are already tokenised (core/text/tokenizer.h maps them to themselves,
// split on spaces), so the marked positions are 0 … n-1 for an n-token sentence.
// Usage: node models/tools/sst-ag-appended.mjs [DATA_DIR=../shared/data] [OUT=build/sst-ag] [SEED=1]
// Writes OUT/{train,dev,test}.tsv and OUT/{train,dev,test}.positions (one line per TSV line); prints one JSON line.
import fs from 'node:fs';
import path from 'node:path';

const [data = '../shared/data', out = 'build/sst-ag', seedArg = '1'] = process.argv.slice(2);
let s = Number(seedArg) >>> 0 || 1;
const rand = () => { // mulberry32
  s = (s + 0x6d2b79f5) >>> 0;
  let t = s;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim() !== '');
const ag = lines(path.join(data, 'agnews/world_vs_business/train.tsv'))
  .map((l) => l.slice(l.indexOf('\t') + 1).replace(/\s+/g, ' ').trim().split(' ').slice(0, 20).join(' '));
fs.mkdirSync(out, { recursive: true });
const counts = {};
for (const split of ['train', 'dev', 'test']) {
  const tsv = [];
  const pos = [];
  for (const l of lines(path.join(data, 'sst2', `${split}.tsv`))) {
    const tab = l.indexOf('\t');
    const sst = l.slice(tab + 1).trim();
    const n = sst.split(/ +/).length;
    tsv.push(`${l.slice(0, tab)}\t${sst} ${ag[Math.floor(rand() * ag.length)]}`);
    pos.push(Array.from({ length: n }, (_, i) => i).join(' '));
  }
  fs.writeFileSync(path.join(out, `${split}.tsv`), `${tsv.join('\n')}\n`);
  fs.writeFileSync(path.join(out, `${split}.positions`), `${pos.join('\n')}\n`);
  counts[split] = tsv.length;
}
console.log(JSON.stringify({ out, seed: Number(seedArg), ...counts }));
