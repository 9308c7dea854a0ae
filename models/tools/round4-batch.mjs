#!/usr/bin/env node
// round4-batch.mjs — the debate's remaining experiments in batch on the round-four models (issue 32): adversarial
// (Wiegreffe & Pinter), erase-max (Serrano & Smith), ERASER (DeYoung et al.) and plausibility (human rationales from
// SST's trees) on the whole SST-2 test set, for the shipped sst2-tanh (the vanilla BiLSTM, same build, same seed) and
// the shipped sst2-ortho, sst2-diversity and sst2-deceptive (seed 1 each: the replicas of seeds 50 and 257 are not
// committed). Runs `build/attnlab experiment …` (the last stdout line is the summary), writes the summaries to
// models/text/seeds/round4-batch.json and prints the tables of docs/RESULTS.md "The debate, round four".
// Usage: node models/tools/round4-batch.mjs [--data ../shared/data/sst2/test.tsv] [--limit N] [--threads N] [--table-only]
//   --table-only: print the tables from the committed JSON, run nothing.
//   --seeds: print the tables as mean ± std (n − 1) over seed 1 (the committed JSON: the shipped models) and the
//     replicas' summaries models/text/seeds/sst2-{tanh,ortho,diversity,deceptive}-s{50,257}.{experiment}.json
//     (ATTENTIONS="ortho diversity deceptive" SEEDS="50 257" EXPERIMENTS="adversarial erase-max eraser plausibility"
//     bash models/tools/seeds-sst2.sh); a cell names how many seeds it has when fewer than three. Runs nothing.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { meanStd } from './seed-stats.mjs';

const REPO = path.resolve(import.meta.dirname, '../..');
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const DATA = opt('--data', path.join(REPO, '../shared/data/sst2/test.tsv'));
const LIMIT = Number(opt('--limit', '0'));
const THREADS = opt('--threads', '2');
const OUT = path.join(REPO, 'models/text/seeds/round4-batch.json');
const TREES = path.join(REPO, 'models/text/data/sst2-test-trees.txt');
const CLI = path.join(REPO, 'build/attnlab');
const MODELS = [
  ['sst2-tanh', 'vanilla BiLSTM'],
  ['sst2-ortho', 'Orthogonal LSTM'],
  ['sst2-diversity', 'Diversity LSTM, λ 0.5'],
  ['sst2-deceptive', 'deceptive, λ 1'],
];
const EXPERIMENTS = ['adversarial', 'erase-max', 'eraser', 'plausibility'];

const SEEDS = args.includes('--seeds');
let results;
if (args.includes('--table-only') || SEEDS) {
  results = JSON.parse(fs.readFileSync(OUT, 'utf8'));
} else {
  results = { data: path.relative(REPO, DATA), limit: LIMIT || null, seed: 1, models: {} };
  for (const [model] of MODELS) {
    results.models[model] = {};
    for (const e of EXPERIMENTS) {
      const a = ['--threads', THREADS, 'experiment', e, '--model', path.join(REPO, 'models/text', model), '--data', DATA, '--seed', '1'];
      if (LIMIT) a.push('--limit', String(LIMIT));
      if (e === 'plausibility') a.push('--trees', TREES);
      const out = execFileSync(CLI, a, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 28 });
      const summary = JSON.parse(out.trim().split('\n').pop());
      delete summary.data;
      delete summary.model;
      results.models[model][e] = summary;
      process.stderr.write(`${model} ${e}: ${summary.seconds?.toFixed(1)} s\n`);
    }
  }
  fs.writeFileSync(OUT, `${JSON.stringify(results, null, 1)}\n`);
}

// One summary per seed of a model: seed 1 from the committed batch, the replicas from models/text/seeds/.
const REPLICAS = [50, 257];
const perSeed = (model) => {
  const seeds = [results.models[model]];
  for (const seed of REPLICAS) {
    const one = {};
    for (const e of EXPERIMENTS) {
      const f = path.join(REPO, `models/text/seeds/${model}-s${seed}.${e}.json`);
      if (fs.existsSync(f)) one[e] = JSON.parse(fs.readFileSync(f, 'utf8'));
    }
    seeds.push(one);
  }
  return seeds;
};
// A cell's number from a model's summaries (seed 1's alone, or one per seed): the value, or mean ± std over the
// seeds that have it.
const stat = (fmt) => (get) => (summaries) => {
  const xs = summaries.map((x) => { try { return get(x); } catch { return undefined; } })
    .filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (!xs.length) return '–';
  if (!SEEDS) return fmt(xs[0]);
  const { n, mean, std } = meanStd(xs);
  return n >= 2 ? `${fmt(mean)} ± ${fmt(std).replace(' %', '')}${n < 3 ? ` (${n} seeds)` : ''}` : `${fmt(mean)} (seed 1)`;
};
const f3 = (v) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(3) : '–');
const pct = (v) => (typeof v === 'number' && Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : '–');
const F3 = stat(f3), PCT = stat(pct);
const row = (cells) => `| ${cells.join(' | ')} |`;
const table = (title, head, cellsOf) => {
  console.log(`\n**${title}**\n`);
  console.log(row(['model', ...head]));
  console.log(row(['---', ...head.map(() => '---')]));
  for (const [model, label] of MODELS) {
    const summaries = SEEDS ? perSeed(model) : [results.models[model]]; // the files read once a model
    console.log(row([`${label} (\`${model}\`)`, ...cellsOf(summaries)]));
  }
};

table('Adversarial attention (Wiegreffe & Pinter) and erase-max (Serrano & Smith)',
  ['adversarial: mean max JSD', 'max JSD > 0.4', 'erase-max: JSD, max vs random', 'decision flips: max / random'],
  (m) => [F3((x) => x.adversarial.mean_max_jsd)(m), PCT((x) => x.adversarial['fraction_jsd_above_0.4'])(m),
    `${F3((x) => x['erase-max'].jsd_max_mean)(m)} / ${F3((x) => x['erase-max'].jsd_random_mean)(m)}`,
    `${PCT((x) => x['erase-max'].flip_rate_max)(m)} / ${PCT((x) => x['erase-max'].flip_rate_random)(m)}`]);
const MEASURES = ['attention', 'gradient', 'leave_one_out', 'integrated_gradients', 'random'];
table('ERASER AOPC, comprehensiveness / sufficiency (higher / lower is more faithful)', MEASURES,
  (m) => MEASURES.map((k) => `${F3((x) => x.eraser.measures[k].aopc_comprehensiveness_mean)(m)} / ${F3((x) => x.eraser.measures[k].aopc_sufficiency_mean)(m)}`));
table('Plausibility against SST\'s phrase rationales: token F1 / AUPRC', MEASURES,
  (m) => MEASURES.map((k) => `${F3((x) => x.plausibility[k].token_f1)(m)} / ${F3((x) => x.plausibility[k].auprc)(m)}`));
console.log(`\n(${results.data}${results.limit ? `, first ${results.limit}` : ''}; ${SEEDS ? `seeds 1, ${REPLICAS.join(', ')}: mean ± std` : `seed ${results.seed}`}; ` +
  `plausibility on the ${results.models['sst2-tanh'].plausibility.n_used} sentences with a human rationale)`);
