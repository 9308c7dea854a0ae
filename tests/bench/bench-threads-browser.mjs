#!/usr/bin/env node
// bench-threads-browser.mjs — the wasm core's threads in Chromium (issue 31): in the served page (cross-origin
// isolated, threads=N in the URL), inside the text host worker, the core's work on 1 thread and on N, interleaved
// run by run, with the results compared (they must be identical):
//   explain (every importance) of a 50-token sentence, as the page asks for it: sst2-tanh (BiLSTM) and sst2-transformer
//   (and the transformer's full form with attention_layers, the CLI's JSON)
//   the Debate's erase-until-flip on 40 SST-2 test sentences (TextLab.experimentRange, the rows of one worker)
//   the Documents view's HAN explain of a 1,000-token document (imdb-han; at most 3 runs)
//   training (at most 2 runs): one epoch of the Train view's BiLSTM (tanh, SST-2's 6,920 sentences + the dev pass,
//   Module.TextTraining) and of the localization lab's CNN ("full" recipe, 500 images, Module.CnnTrainer), the
//   weights compared as bytes (core/train/data_parallel.h, nn/conv2d.h)
//   a user's image model on the core's executor ("Your model"; OnnxLab, what the page's worker runs): MobileNetV2 at
//   224 px on a fixed synthetic photo — one forward, Grad-CAM (a forward and a backward: the ops' parts,
//   onnx/ops/parts.h) and SmoothGrad (25 samples on copies of the executor), the logits / maps compared as JSON
// Usage: node tests/bench/bench-threads-browser.mjs [--runs N] [--threads N] [--only explain|han|train|onnx]
// Prints a table (median ms).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, hostWorkers } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i >= 0 ? process.argv[i + 1] : def; };
const runs = Number(arg('runs', 5));
const threads = Number(arg('threads', 2));
const only = arg('only', null);
const server = await startServer({ port: 0, root: ROOT });
const ctx = await launchChromium();
try {
  const page = await ctx.newPage();
  await page.goto(`${server.url}/web/#view=text&threads=${threads}`);
  await page.waitForFunction(() => document.querySelector('#view-text')?.dataset.status === 'ready', null, { timeout: 120_000 });
  const [host] = hostWorkers(page);
  const out = await host.evaluate(async ({ runs, threads, only }) => {
    const { loadCore } = await import('./core.js');
    const M = await loadCore();
    const words = ['the', 'film', 'is', 'not', 'bad', ',', 'but', 'the', 'plot', 'drags', 'and', 'the', 'ending', 'is', 'a', 'mess'];
    const text = Array.from({ length: 50 }, (_, i) => words[i % words.length]).join(' ');
    const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
    // run() on 1 and on `threads` threads, interleaved, `rounds` times; one row: the medians and whether the results agree.
    const timeRow = (job, run, rounds) => {
      const t = { 1: [], [threads]: [] };
      const res = {};
      for (let r = 0; r < rounds; r++)
        for (const n of [1, threads]) {
          M.setThreads(n);
          const t0 = performance.now();
          res[n] = run();
          t[n].push(performance.now() - t0);
        }
      M.setThreads(threads);
      return { job, one: median(t[1]), many: median(t[threads]), same: res[1] === res[threads] };
    };
    const rows = [];
    const sst = (await (await fetch('/models/text/data/sst2-test.tsv')).text()).trim().split('\n').slice(0, 40).join('\n');
    for (const name of only && only !== 'explain' ? [] : ['sst2-tanh', 'sst2-transformer']) {
      const base = `/models/text/${name}/`;
      const lab = new M.TextLab(await (await fetch(`${base}config.json`)).text(),
        new Uint8Array(await (await fetch(`${base}model.safetensors`)).arrayBuffer()));
      lab.loadDataset('bench', sst, '');
      // the page's form (labs/text-core.js: a transformer's attention_layers left out) and, for a transformer, the
      // full one (the CLI's JSON: 460 KB more to build, parse and copy)
      const jobs = [[`explain, 50 tokens, ${name}`, () => JSON.stringify(lab.explain(text, undefined, undefined, false))]];
      if (name === 'sst2-transformer') jobs.push([`explain, 50 tokens, ${name}, with attention_layers`, () => JSON.stringify(lab.explain(text))]);
      if (name === 'sst2-tanh') jobs.push([`erase-until-flip, 40 SST-2 sentences, ${name}`, () => JSON.stringify(lab.experimentRange('erase-until-flip', 'bench', 0, 40, {}, 1))]);
      for (const [job, run] of jobs) {
        run(); // warm-up
        rows.push(timeRow(job, run, runs));
      }
      lab.delete();
    }
    if (!only || only === 'han') { // the Documents view's explain of the longest document an explanation covers (bench-han-doc.mjs's document)
      const base = '/models/text/imdb-han/';
      const lab = new M.HanLab(await (await fetch(`${base}config.json`)).text(),
        new Uint8Array(await (await fetch(`${base}model.safetensors`)).arrayBuffer()));
      const tsv = (await (await fetch('/models/text/data/imdb-test-200.tsv')).text()).trim().split('\n').map((l) => l.split('\t'));
      const col = tsv[0].reduce((best, c, i) => (c.length > tsv[0][best].length ? i : best), 0);
      const doc = tsv.slice(0, 40).map((r) => r[col]).join(' ');
      lab.explain(doc, 50); // warm-up
      rows.push(timeRow('HAN explain, 1,000-token IMDB document (42 sentences), imdb-han', () => JSON.stringify(lab.explain(doc, 50)), Math.min(runs, 3)));
      lab.delete();
    }
    if (!only || only === 'onnx') {
      const lab = new M.OnnxLab(new Uint8Array(await (await fetch('/models/image/mobilenet_v2.onnx')).arrayBuffer()));
      const rgba = new Uint8Array(224 * 224 * 4).map((_, k) => (k % 4 === 3 ? 255 : (k * 37 + (k >> 10) * 11) % 256));
      lab.setPhoto(M.preprocessImage(rgba, 224, 224), 'imagenet');
      const planar = M.preprocessImage(rgba, 224, 224);
      const jobs = [
        ['MobileNetV2 224², one forward (the core\'s executor)', () => JSON.stringify(Array.from(lab.logitsOf(planar, 1)))],
        ['MobileNetV2 224², Grad-CAM (forward + backward)', () => JSON.stringify(lab.explain('gradcam', 'auto', -1, {}).map)],
        ['MobileNetV2 224², SmoothGrad (25 samples)', () => JSON.stringify(lab.explain('smoothgrad', 'auto', -1, { samples: 25, seed: 1 }).map)],
      ];
      for (const [job, run] of jobs) {
        run(); // warm-up
        rows.push(timeRow(job, run, job.includes('SmoothGrad') ? Math.min(runs, 3) : runs));
      }
      lab.delete();
    }
    if (!only || only === 'train') {
      const hash = (bytes) => { let h = 2166136261; for (const b of bytes) h = Math.imul(h ^ b, 16777619) >>> 0; return `${bytes.length}:${h}`; };
      const train = await (await fetch('/models/text/data/sst2-train.tsv')).text(), dev = await (await fetch('/models/text/data/sst2-dev.tsv')).text();
      const jobs = [
        ['training: one BiLSTM epoch (SST-2, 6,920 sentences + dev)', () => {
          const job = new M.TextTraining(train, dev, { attention: 'tanh', seed: 50, epochs: 1 });
          let p;
          do p = job.step(64); while (!p.done);
          const h = hash(job.weights());
          job.delete();
          return h;
        }],
        ['training: one CNN epoch (localization "full" recipe, 500 images)', () => {
          const t = new M.CnnTrainer({ imageSize: 64, widths: [16, 32, 64], optimizer: 'sgd', lr: 0.05, batchSize: 32, head: 'gap',
            cbam: 'none', trainSize: 500, valSize: 100, testSize: 50, epochs: 1, seed: 1, probes: 1 });
          while (!t.done()) t.step(4);
          const h = hash(t.weights());
          t.delete();
          return h;
        }],
      ];
      for (const [job, run] of jobs) rows.push(timeRow(job, run, Math.min(runs, 2)));
    }
    return { cores: navigator.hardwareConcurrency, threads: M.threads(), rows };
  }, { runs, threads, only });
  console.log(`Chromium, ${out.cores} cores; the core on ${out.threads} threads; ${runs} runs each, median`);
  console.log(`| job | 1 thread (ms) | ${threads} threads (ms) | speed-up | results |`);
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of out.rows) console.log(`| ${r.job} | ${r.one.toFixed(0)} | ${r.many.toFixed(0)} | ${(r.one / r.many).toFixed(2)}× | ${r.same ? 'identical' : 'DIFFER'} |`);
} finally {
  await ctx.closeAndClean();
  await server.close();
}
