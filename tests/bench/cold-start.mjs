#!/usr/bin/env node
// cold-start.mjs — time to the first result on a cold open of the page, in headless Debian Chromium (issue 29).
// Each run launches Chromium with a new, empty profile (no HTTP cache, no IndexedDB / Cache Storage, no compiled
// code cache) and opens the page served as `npm run serve` serves it (scripts/serve.mjs: COOP / COEP, the CSP).
// Two measures, each on its own cold browser:
//   text: navigation start → the first prediction shown on the Text tab (#view-text gets data-status="ready"
//         with #text-results visible: the default sentence explained by the default model, sst2-tanh);
//   cam:  navigation start → the first CAM drawn on the Images tab (#image-canvas gets its data-peak-x: the demo
//         cat classified and its CAM drawn; the backend the page picks itself, wasm here).
// The times are read in the page (performance.now(), whose origin is the navigation start) by a MutationObserver
// installed before any page script runs, so polling adds nothing. --trace prints, for the last run of each
// measure, when each request started and ended (ms from navigation; the workers' requests included) and the
// page's and workers' performance marks.
// Usage: node tests/bench/cold-start.mjs [--runs 5] [--only text|cam] [--trace] [--port N] [--root DIR] [--latency MS]
//   [--no-bundle]
//   --latency: DevTools network emulation adds MS of latency to every request of the page (and of its workers), as a
//   real network's round trips would (localhost has none, so it hides what waits on a request chain); off by default.
//   --root: serve another checkout's web/ (with models/ and node_modules/) instead of this one: an A/B comparison
//   on a busy machine runs both in turn (e.g. `git archive <commit> web | tar -x -C DIR`, web/gen copied, the two
//   other folders linked).
//   --no-bundle: serve the page's modules unbundled (startServer's bundle: false; scripts/page-bundle.mjs).
// Prints a markdown table (every run, the median) and one JSON line. No assertion: a measurement, not a test.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launchChromium, CHROMIUM } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', '5'));
const ONLY = opt('--only', '');
const TRACE = args.includes('--trace');
const LATENCY = Number(opt('--latency', '0'));
const root = path.resolve(opt('--root', path.resolve(import.meta.dirname, '../..')));

const MEASURES = [
  { key: 'text', label: 'first prediction (Text tab)', hash: '' },
  { key: 'cam', label: 'first CAM (Images tab)', hash: '#view=image' },
].filter((m) => !ONLY || m.key === ONLY);

// Runs in the page before its scripts: records when the first prediction / first CAM appears.
function watch() {
  window.__cold = {};
  const check = () => {
    const c = window.__cold;
    const text = document.getElementById('view-text');
    if (c.text === undefined && text?.dataset.status === 'ready' && document.getElementById('text-results')?.hidden === false) {
      c.text = performance.now();
    }
    if (c.cam === undefined && document.getElementById('image-canvas')?.dataset.peakX) c.cam = performance.now();
    if (c.error === undefined) {
      const err = [text?.dataset.status === 'error' && document.getElementById('text-message')?.textContent,
        document.getElementById('view-image')?.dataset.status === 'error' && document.getElementById('image-message')?.textContent,
        document.getElementById('app-message')?.hidden === false && document.getElementById('app-message').textContent]
        .find(Boolean);
      if (err) c.error = err;
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function coldRun(server, m) {
  const ctx = await launchChromium();
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.addInitScript(watch);
    if (LATENCY > 0) {
      const cdp = await ctx.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: LATENCY, downloadThroughput: -1, uploadThroughput: -1 });
    }
    const requests = [];
    if (TRACE) {
      page.on('requestfinished', async (r) => {
        const t = r.timing();
        const size = await r.sizes().then((s) => s.responseBodySize).catch(() => 0);
        requests.push({ url: new URL(r.url()).pathname, start: t.startTime, end: t.startTime + t.responseEnd, size });
      });
    }
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/web/${m.hash}`);
    const handle = await page.waitForFunction((k) => window.__cold[k] ?? (window.__cold.error ? -1 : 0), m.key, { timeout: 180_000, polling: 100 });
    const ms = await handle.jsonValue();
    if (ms < 0) throw new Error(`the page failed: ${await page.evaluate(() => window.__cold.error)}`);
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    let trace = null;
    if (TRACE) {
      const nav = await page.evaluate(() => performance.timeOrigin);
      const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((e) => ({ name: e.name, t: Math.round(e.startTime) })));
      for (const w of page.workers()) {
        const ws = await w.evaluate(() => ({ origin: performance.timeOrigin,
          marks: performance.getEntriesByType('mark').map((e) => ({ name: e.name, t: e.startTime })) })).catch(() => null);
        if (ws) for (const k of ws.marks) marks.push({ name: `worker ${path.basename(new URL(w.url()).pathname)}: ${k.name}`, t: Math.round(ws.origin + k.t - nav) });
      }
      trace = {
        requests: requests.map((r) => ({ ...r, start: Math.round(r.start - nav), end: Math.round(r.end - nav) })).sort((a, b) => a.start - b.start),
        marks: marks.sort((a, b) => a.t - b.t),
      };
    }
    return { ms, trace };
  } finally {
    await ctx.closeAndClean();
  }
}

const BUNDLE = !args.includes('--no-bundle');
const server = await startServer({ port: Number(opt('--port', '0')), root, bundle: BUNDLE });
// The server bundles the page's modules once (scripts/page-bundle.mjs); a user's server has done so long before the
// page is opened, so the build is not part of a cold open.
await fetch(`${server.url}/web/app.js`).then((r) => r.arrayBuffer());
const result = { runs: RUNS, chromium: '' };
try {
  const rows = [];
  for (const m of MEASURES) {
    const times = [];
    let last = null;
    for (let i = 0; i < RUNS; i++) {
      last = await coldRun(server, m);
      times.push(last.ms);
      process.stderr.write(`${m.key} run ${i + 1}: ${Math.round(last.ms)} ms\n`);
    }
    result[m.key] = { median_ms: Math.round(median(times)), runs_ms: times.map(Math.round) };
    rows.push(`| ${m.label} | ${Math.round(median(times))} ms | ${times.map((t) => Math.round(t)).join(', ')} |`);
    if (TRACE && last.trace) {
      console.log(`\nTrace of the last "${m.key}" run (ms from navigation start):`);
      for (const r of last.trace.requests) console.log(`  ${String(r.start).padStart(6)} → ${String(r.end).padStart(6)}  ${r.url} (${(r.size / 1024).toFixed(0)} KB)`);
      for (const k of last.trace.marks) console.log(`  ${String(k.t).padStart(6)}  mark ${k.name}`);
      console.log('');
    }
  }
  try {
    result.chromium = execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().replace(/^Chromium\s*/, '').split(' ')[0];
  } catch { /* the version is only a label */ }
  if (LATENCY > 0) result.latency_ms = LATENCY;
  console.log(`| cold open (new profile each run, Chromium ${result.chromium}${LATENCY > 0 ? `, ${LATENCY} ms latency per request` : ''}) | median | runs (ms) |`);
  console.log('| --- | --- | --- |');
  for (const r of rows) console.log(r);
  console.log(JSON.stringify(result));
} finally {
  await server.close();
}
