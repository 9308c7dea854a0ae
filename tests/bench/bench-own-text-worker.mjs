#!/usr/bin/env node
// bench-own-text-worker.mjs — the calls of "Your model" (Text tab) timed inside the page's own worker in headless
// Chromium, on the shipped stories260K at 50 tokens: the page opened with otmodel=stories260K and ?threads=N, then in
// the worker that hosts ownText a fresh OnnxTextLab runs top(ids, 1), explainIds without and with leave-one-out,
// leaveOneOut alone and attentionMaps, then the page's step as three calls (explainIds with leave-one-out, top 5,
// attentionMaps) and as one (explainStep), twice in turn (5 warm-ups, the median of 9 each). This is the wasm the
// page runs, on the threads the page gives it (Node cannot start the threaded core's pthreads), without the page's
// messaging and drawing.
// Usage: node tests/bench/bench-own-text-worker.mjs [threads = 2]   → one JSON line per worker that has the core.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, hostWorkers } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TH = process.argv[2] ?? '2';
const server = await startServer({ port: 0, root: REPO });
const ctx = await launchChromium();
try {
  const page = await ctx.newPage();
  await page.goto(`${server.url}/web/?threads=${TH}#view=text&otmodel=stories260K&ottext=Once`);
  await page.waitForFunction(() => document.getElementById('own-text')?.dataset.status === 'ready', null, { timeout: 120000 });
  await new Promise((r) => setTimeout(r, 3000));
  // the host workers only: an Emscripten pthread Worker waits in Atomics.wait between loops, and an evaluate sent to
  // it may never be answered (likely why one run of this bench hung on 2026-12-07; not proven)
  for (const w of hostWorkers(page)) {
    const has = await w.evaluate(() => !!globalThis[Symbol.for('attnlab.core')]).catch(() => false);
    if (!has) continue;
    const r = await w.evaluate(async () => {
      const M = await globalThis[Symbol.for('attnlab.core')];
      if (!M.OnnxTextLab) return 'no OnnxTextLab';
      const get = async (f) => new Uint8Array(await (await fetch(new URL(`../../../models/text/stories260K/${f}`, location.href))).arrayBuffer());
      const lab = new M.OnnxTextLab(await get('model.onnx'), await get('tokenizer.bin'), '', { tokenizerName: 'tokenizer.bin' });
      const TEXT = 'Once upon a time, there was a little girl named Lily who loved to play in the park with her red ball. ';
      const ids = lab.tokenize(TEXT.repeat(20), false).ids.slice(0, 50);
      const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]; // (in the worker)
      const out = { threads: M.threads?.(), url: location.href };
      for (const [name, f] of [
        ['top1', () => lab.top(ids, 1)],
        ['explain_noloo', () => lab.explainIds(ids, 'next', { leaveOneOut: false, attentionLayers: false })],
        ['loo', () => lab.leaveOneOut(ids, 5, 0.5, 0, ids.length)],
        ['explain_loo', () => lab.explainIds(ids, 'next', { leaveOneOut: true, attentionLayers: false })],
        ['maps', () => lab.attentionMaps(ids)],
        ['three_calls', () => { lab.explainIds(ids, 'next', { leaveOneOut: true, attentionLayers: false }); lab.top(ids, 5); lab.attentionMaps(ids); }],
        ['step', () => lab.explainStep(ids, 'next', { leaveOneOut: true, attentionLayers: false, top: 5 })],
        ['three_calls_again', () => { lab.explainIds(ids, 'next', { leaveOneOut: true, attentionLayers: false }); lab.top(ids, 5); lab.attentionMaps(ids); }],
        ['step_again', () => lab.explainStep(ids, 'next', { leaveOneOut: true, attentionLayers: false, top: 5 })],
      ]) {
        if (name.startsWith('step') && !lab.explainStep) continue;
        for (let k = 0; k < 5; ++k) f();
        const t = [];
        for (let k = 0; k < 9; ++k) { const t0 = performance.now(); f(); t.push(performance.now() - t0); }
        out[name] = +med(t).toFixed(1);
      }
      return out;
    });
    console.log(JSON.stringify(r));
  }
} finally {
  await ctx.closeAndClean().catch(() => {}); // the page's workers may already be gone
  await server.close();
}
