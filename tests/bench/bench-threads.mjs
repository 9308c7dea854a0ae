#!/usr/bin/env node
// bench-threads.mjs — the core's threads natively (issue 31): the CLI's commands on 1, 2 (and more) threads,
// interleaved run by run so the ratios come from one machine state, each command's output compared byte for byte
// across the thread counts (the promise that results do not depend on them).
//   explain-text, 50 tokens: sst2-tanh (BiLSTM) and sst2-transformer — every importance of one sentence
//   experiment erase-until-flip on the first 100 SST-2 test sentences (sst2-tanh) — instances side by side
//   explain-onnx on MobileNetV2 (one ImageNet sample): smoothgrad (25 samples), integrated-gradients (32 steps),
//   ablationcam — samples, steps and channels side by side on copies of the executor
// Usage: node tests/bench/bench-threads.mjs [--runs N] [--threads 1,2,4]
// Prints a table: median wall seconds per thread count and the speed-up over one thread.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i >= 0 ? process.argv[i + 1] : def; };
const runs = Number(arg('runs', 5));
const counts = arg('threads', '1,2').split(',').map(Number);
const cli = path.join(ROOT, 'build/attnlab');
const shared = path.resolve(ROOT, '../shared/data');
const words = ['the', 'film', 'is', 'not', 'bad', ',', 'but', 'the', 'plot', 'drags', 'and', 'the', 'ending', 'is', 'a', 'mess'];
const text50 = Array.from({ length: 50 }, (_, i) => words[i % words.length]).join(' ');
const image = path.join(shared, 'imagenet_samples/images/000_n01440764.jpg');
const onnx = path.join(ROOT, 'models/image/mobilenet_v2.onnx');
const jobs = [
  ['explain-text sst2-tanh, 50 tokens', ['explain-text', '--model', 'models/text/sst2-tanh', '--text', text50]],
  ['explain-text sst2-transformer, 50 tokens', ['explain-text', '--model', 'models/text/sst2-transformer', '--text', text50]],
  ['experiment erase-until-flip, 100 SST-2 sentences', ['experiment', 'erase-until-flip', '--model', 'models/text/sst2-tanh',
    '--data', path.join(shared, 'sst2/test.tsv'), '--limit', '100']],
  ['explain-onnx smoothgrad (25 samples), MobileNetV2', ['explain-onnx', '--model', onnx, '--image', image, '--method', 'smoothgrad']],
  ['explain-onnx integrated-gradients (32 steps), MobileNetV2', ['explain-onnx', '--model', onnx, '--image', image, '--method', 'integrated-gradients']],
  ['explain-onnx ablationcam, MobileNetV2', ['explain-onnx', '--model', onnx, '--image', image, '--method', 'ablationcam']],
];
if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: build it first (ninja -C build attnlab)`);
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
// Fields that honestly differ between runs (timings) are dropped before the outputs are compared.
const stable = (s) => s.replace(/"(seconds|elapsed_s|duration_s|wall_s)":[0-9.e+-]+,?/g, '');
console.log(`cores: ${(await import('node:os')).cpus().length}; runs: ${runs}; threads: ${counts.join(', ')}`);
console.log(`| command | ${counts.map((t) => `${t} thread${t > 1 ? 's' : ''} (s)`).join(' | ')} | ${counts.slice(1).map((t) => `${t} ÷ 1`).join(' | ')} | outputs |`);
console.log(`| --- | ${counts.map(() => '---').join(' | ')} | ${counts.slice(1).map(() => '---').join(' | ')} | --- |`);
for (const [name, args] of jobs) {
  const times = Object.fromEntries(counts.map((t) => [t, []]));
  const outputs = new Map();
  for (let r = 0; r < runs; r++)
    for (const t of counts) {
      const t0 = process.hrtime.bigint();
      const p = spawnSync(cli, ['--threads', String(t), ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      if (p.status !== 0) throw new Error(`${name} (threads ${t}) failed: ${p.stderr}`);
      times[t].push(s);
      outputs.set(t, stable(p.stdout));
    }
  const m = counts.map((t) => median(times[t]));
  const same = counts.every((t) => outputs.get(t) === outputs.get(counts[0]));
  console.log(`| ${name} | ${m.map((x) => x.toFixed(3)).join(' | ')} | ${m.slice(1).map((x) => (m[0] / x).toFixed(2) + '×').join(' | ')} | ${same ? 'identical' : 'DIFFER'} |`);
}
