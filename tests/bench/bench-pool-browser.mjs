#!/usr/bin/env node
// bench-pool-browser.mjs — the Debate view's data-set run over a pool of core workers (web/runtime/pool.js), in
// headless Debian Chromium, as a user runs it (URL state with workers=K, the Run button): wall time of one
// experiment over the first --n SST-2 test sentences for each pool size, the speed-up over one worker, and a check
// that every pool gave the same rows (the CSV download is compared byte for byte). Prints the machine's cores and
// load average, a markdown table and one JSON line.
// Usage: node tests/bench/bench-pool-browser.mjs [--workers 1,2,4] [--experiment kendall] [--model sst2-tanh] [--n 1821]
import os from 'node:os';
import path from 'node:path';
import { launchChromium } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const sizes = opt('--workers', '1,2,4').split(',').map(Number);
const experiment = opt('--experiment', 'kendall');
const model = opt('--model', 'sst2-tanh');
const n = Number(opt('--n', '1821'));
const root = path.resolve(import.meta.dirname, '../..');

const server = await startServer({ port: 0, root });
const context = await launchChromium();
const results = [];
try {
  for (const k of sizes) {
    const page = await context.newPage();
    await page.goto(`${server.url}/web/#view=debate&experiment=${experiment}&model=${model}&n=${n}&workers=${k}`);
    await page.waitForFunction(() => document.querySelector('#view-debate')?.dataset.status === 'idle', null, { timeout: 600_000 });
    const load = os.loadavg()[0];
    const t0 = Date.now();
    await page.click('#debate-run');
    await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.querySelector('#view-debate')?.dataset.status),
      null, { timeout: 3_600_000 });
    const seconds = (Date.now() - t0) / 1000;
    const status = await page.locator('#view-debate').getAttribute('data-status');
    if (status !== 'done') throw new Error(`workers=${k}: ${status}: ${await page.textContent('#debate-message')}`);
    const workers = Number(await page.locator('#view-debate').getAttribute('data-workers'));
    const rows = Number(await page.locator('#debate-result').getAttribute('data-rows'));
    const csv = await page.evaluate(async () => (await fetch(document.getElementById('debate-csv').href)).text());
    results.push({ workers: k, pool: workers, seconds, rows, load_before: load, load_after: os.loadavg()[0], csv });
    await page.close();
  }
} finally {
  await context.closeAndClean();
  await server.close();
}
const base = results.find((r) => r.workers === 1) ?? results[0];
console.log(`cores: ${os.cpus().length}; navigator.hardwareConcurrency in the page: see data-workers at workers=0`);
console.log(`| workers (${experiment}, ${model}, ${n} sentences) | seconds | speed-up vs 1 | sentences/s | load avg before → after | rows equal 1 worker's |`);
console.log('| ---: | ---: | ---: | ---: | --- | --- |');
for (const r of results) {
  console.log(`| ${r.pool} | ${r.seconds.toFixed(1)} | ${(base.seconds / r.seconds).toFixed(2)}× | ${(r.rows / r.seconds).toFixed(1)} | ` +
    `${r.load_before.toFixed(1)} → ${r.load_after.toFixed(1)} | ${r.csv === base.csv ? 'yes' : 'NO'} |`);
}
console.log(JSON.stringify({ bench: 'pool-browser', experiment, model, n, cores: os.cpus().length,
  results: results.map(({ csv, ...r }) => ({ ...r, same_rows: csv === base.csv })) }));
if (results.some((r) => r.csv !== base.csv)) process.exitCode = 1;
