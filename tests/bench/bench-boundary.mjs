#!/usr/bin/env node
// bench-boundary.mjs — bytes across the worker boundary (page ↔ workers) and the Embind boundary (JS ↔ the
// wasm core) and the wall time for three user actions, in headless Chromium with ?meter=1 (the workers count
// with web/runtime/host/meter.js and broadcast their counters on BroadcastChannel 'attnlab-meter'):
//   debate  one Debate run of `kendall` over the first --n SST-2 test sentences (Run → done; workers= --workers)
//   text    one text explanation with all five live panels, for a second sentence (typed → every panel done)
//   image   the cat photo: page open → the seven maps (Score-CAM, RISE with --rise-n masks, occlusion computed
//           from the grid) and CAM's deletion / insertion curves (model load included)
// Counters are deltas over each action, summed over every worker of the page. Prints a markdown table and one
// JSON line. Usage: node tests/bench/bench-boundary.mjs [--parts debate,text,image] [--n 1821] [--workers 1]
//   [--rise-n 50] [--root DIR] (DIR: another checkout to measure, e.g. the code before a change)
import path from 'node:path';
import { launchChromium } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const parts = opt('--parts', 'debate,text,image').split(',');
const N = Number(opt('--n', '1821'));
const WORKERS = Number(opt('--workers', '1'));
const RISE_N = Number(opt('--rise-n', '50'));
const root = path.resolve(opt('--root', path.resolve(import.meta.dirname, '../..')));
const LONG = 3_600_000;

const server = await startServer({ port: 0, root });
const context = await launchChromium({ viewport: { width: 1200, height: 1000 } });
await context.addInitScript(() => {
  window.__meter = {};
  new BroadcastChannel('attnlab-meter').onmessage = (e) => { window.__meter[e.data.worker] = e.data.counters; };
});
const total = (page) => page.evaluate(async () => {
  await new Promise((r) => setTimeout(r, 300)); // the workers publish within 50 ms
  const t = { worker_in: 0, worker_out: 0, embind_in: 0, embind_out: 0, embind_calls: 0 };
  for (const c of Object.values(window.__meter)) for (const k of Object.keys(t)) t[k] += c[k];
  return t;
});
const delta = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, b[k] - a[k]]));
const results = {};
try {
  if (parts.includes('debate')) {
    const page = await context.newPage();
    await page.goto(`${server.url}/web/?meter=1#view=debate&experiment=kendall&model=sst2-tanh&n=${N}&workers=${WORKERS}`);
    await page.waitForFunction(() => document.querySelector('#view-debate')?.dataset.status === 'idle', null, { timeout: LONG });
    const before = await total(page);
    const t0 = Date.now();
    await page.click('#debate-run');
    await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.querySelector('#view-debate')?.dataset.status), null, { timeout: LONG });
    const seconds = (Date.now() - t0) / 1000;
    if ((await page.locator('#view-debate').getAttribute('data-status')) !== 'done') throw new Error(await page.textContent('#debate-message'));
    results.debate = { seconds, rows: Number(await page.locator('#debate-result').getAttribute('data-rows')), ...delta(before, await total(page)) };
    await page.close();
  }
  if (parts.includes('text')) {
    const page = await context.newPage();
    const panelsDone = () => page.waitForFunction(() => {
      const s = document.querySelector('#view-text')?.dataset.status;
      const panels = [...document.querySelectorAll('.live-panel')];
      return s === 'ready' && panels.length >= 5 && panels.every((p) => p.dataset.status !== 'pending');
    }, null, { timeout: LONG });
    await page.goto(`${server.url}/web/?meter=1#view=text&text=${encodeURIComponent('a fine film')}`);
    await panelsDone();
    const before = await total(page);
    const t0 = Date.now();
    await page.fill('#text-input', 'the acting is superb but the plot is a mess and the ending falls flat');
    await page.waitForFunction(() => document.querySelector('#view-text')?.dataset.status !== 'ready', null, { timeout: LONG }).catch(() => {});
    await panelsDone();
    results.text = { seconds: (Date.now() - t0) / 1000, ...delta(before, await total(page)) };
    await page.close();
  }
  if (parts.includes('image')) {
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`${server.url}/web/?meter=1#view=image&image=cat&backend=wasm&risen=${RISE_N}`);
    await page.waitForFunction(() => document.getElementById('image-canvas')?.dataset.peakX, null, { timeout: LONG });
    for (const m of ['scorecam', 'rise', 'occlusion']) {
      await page.waitForFunction((k) => {
        const b = document.querySelector(`#image-grid [data-method="${k}"] .image-tile-action`);
        return b && !b.disabled && document.getElementById('image-job').hidden;
      }, m, { timeout: LONG });
      await page.click(`#image-grid [data-method="${m}"] .image-tile-action`);
      await page.waitForFunction((k) => document.querySelector(`#image-grid [data-method="${k}"]`)?.classList.contains('tile-ready'), m, { timeout: LONG });
    }
    await page.waitForFunction(() => document.getElementById('image-job').hidden, null, { timeout: LONG });
    await page.click('#image-curves-run');
    await page.waitForFunction(() => document.getElementById('image-job').hidden && document.querySelector('#image-curves svg, #image-curves figure'), null, { timeout: LONG });
    results.image = { seconds: (Date.now() - t0) / 1000, ...delta({ worker_in: 0, worker_out: 0, embind_in: 0, embind_out: 0, embind_calls: 0 }, await total(page)) };
    await page.close();
  }
} finally {
  await context.closeAndClean();
  await server.close();
}
const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
console.log(`| action (${root}) | seconds | worker boundary in / out | Embind in / out | Embind calls |`);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [k, r] of Object.entries(results)) {
  console.log(`| ${k} | ${r.seconds.toFixed(1)} | ${mb(r.worker_in)} / ${mb(r.worker_out)} | ${mb(r.embind_in)} / ${mb(r.embind_out)} | ${r.embind_calls} |`);
}
console.log(JSON.stringify({ bench: 'boundary', root, n: N, workers: WORKERS, riseN: RISE_N, results }));
