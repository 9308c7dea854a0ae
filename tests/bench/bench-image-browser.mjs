#!/usr/bin/env node
// bench-image-browser.mjs — the Image lab in headless Debian Chromium (cross-origin isolated, wasm backend,
// 2 threads): time from a photo handed to the page (the file input's change event, as a drop or a pick) to
// the first CAM drawn (#image-canvas gets its data-peak-x), with a warm model cache (the page was opened once
// before in the same profile, so the model bytes come from the Cache API). Photos alternate between two demo
// photos so every run classifies anew. Then one Score-CAM (one pass per channel not zero on the photo) and one RISE (--rise-n masks) through
// the page's worker, timed from the button to the finished map.
// Usage: node tests/bench/bench-image-browser.mjs [--runs N] [--rise-n N] [--slow 0|1] [--threads "0,1,2"]
//   --threads: the page's wasm thread counts to compare (threads= in the URL; 0 = the page's automatic choice,
//   min(4, cores)); each count gets a fresh page load. The slow methods run at the first count only.
// Prints a markdown table and one JSON line.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', '10'));
const SLOW = opt('--slow', '1') === '1';
const RISE_N = Number(opt('--rise-n', '1000'));
const THREADS = String(opt('--threads', '0')).split(',').map(Number);
const root = path.resolve(import.meta.dirname, '../..');
const photos = ['cat.png', 'owl.jpg'].map((f) => ({
  name: f, mimeType: f.endsWith('.png') ? 'image/png' : 'image/jpeg', buffer: fs.readFileSync(path.join(root, 'web/images', f)),
}));

const server = await startServer({ port: 0, root });
const context = await launchChromium();
const stats = (t) => {
  const s = [...t].sort((a, b) => a - b);
  const q = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median_ms: Math.round(q(0.5)), min_ms: Math.round(s[0]), max_ms: Math.round(s.at(-1)), runs: s.length };
};
try {
  const result = { chromium: context.browser()?.version() ?? '' };
  const rows = [];
  const page = context.pages()[0] ?? (await context.newPage());
  for (const threads of THREADS) {
    const url = `${server.url}/web/#view=image&image=cat&backend=wasm&risen=${RISE_N}${threads ? `&threads=${threads}` : ''}`;
    const ready = () => page.waitForFunction(() => document.getElementById('image-canvas')?.dataset.peakX, null, { timeout: 300_000 });
    await page.goto(url);
    await ready(); // first open: downloads and caches the model
    await page.reload();
    await ready(); // second open: the model comes from the Cache API
    const backend = await page.evaluate(() => ({ ...document.getElementById('view-image').dataset }));

    // Record the change event's time and the time the CAM's peak attribute is next set.
    await page.evaluate(() => {
      const canvas = document.getElementById('image-canvas');
      window.__drops = [];
      document.getElementById('image-file').addEventListener('change', () => {
        window.__drops.push({ t0: performance.now(), t1: null });
      }, true);
      new MutationObserver(() => {
        const last = window.__drops.at(-1);
        if (last && last.t1 === null && canvas.dataset.peakX) last.t1 = performance.now();
      }).observe(canvas, { attributes: true, attributeFilter: ['data-peak-x'] });
    });
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      await page.setInputFiles('#image-file', photos[i % photos.length]);
      await page.waitForFunction((k) => window.__drops[k]?.t1, i, { timeout: 120_000 });
      const d = await page.evaluate((k) => window.__drops[k], i);
      times.push(d.t1 - d.t0);
    }
    const reason = await page.evaluate(() => document.body.innerText.match(/Backend: [^\n]*/)?.[0] ?? '');
    const d = stats(times);
    result[`threads_${threads}`] = { reason, drop_to_first_cam: d };
    rows.push([`photo handed to the page → first CAM drawn (warm cache, ${backend.ep ?? backend.backend}, threads=${threads || 'auto'})`, `${d.median_ms} ms`, `min ${d.min_ms} / max ${d.max_ms}, ${RUNS} runs; ${reason}`]);

    if (SLOW && threads === THREADS[0]) {
      for (const method of ['scorecam', 'rise']) {
        // the plans run on ONNX Runtime: their Compute buttons come once its session is made (after the first map,
        // which the core's executor draws meanwhile)
        await page.waitForFunction((m) => document.querySelector(`#image-grid [data-method="${m}"] .image-tile-action`),
          method, { timeout: 120_000 }).catch(() => {});
        const t = await page.evaluate(async (m) => {
          const tile = () => document.querySelector(`#image-grid [data-method="${m}"]`);
          const button = tile()?.querySelector('.image-tile-action');
          if (!button) return { error: `no Compute button for ${m}` };
          const t0 = performance.now();
          button.click();
          // The grid is re-rendered when the map arrives: the tile for m then has class tile-ready. The job's text
          // says "… n / N": N is the passes the plan runs (Score-CAM: the channels not zero on the photo).
          let passes = null;
          await new Promise((resolve) => {
            const poll = () => {
              const total = /\/ ([\d,]+)/.exec(document.getElementById('image-job-text')?.textContent ?? '')?.[1];
              if (total) passes = Number(total.replace(/,/g, ''));
              return tile()?.classList.contains('tile-ready') ? resolve() : setTimeout(poll, 50);
            };
            poll();
          });
          return { ms: performance.now() - t0, passes, photo: new URLSearchParams(location.hash.slice(1)).get('image') };
        }, method);
        result[method] = t;
        rows.push([`${method} in the page, button → map`, t.error ?? `${(t.ms / 1000).toFixed(1)} s`,
          `${method === 'rise' ? `${RISE_N} masks` : `${t.passes ?? '?'} of 1,280 passes (the channels not zero on the photo)`}${t.photo ? `, photo ${t.photo}` : ''}`]);
      }
    }
  }
  console.log('| measurement (Chromium, headless) | median | notes |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(JSON.stringify(result));
} finally {
  await context.closeAndClean();
  await server.close();
}
