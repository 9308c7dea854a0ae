// In-page benchmark of the Debate view: runs an experiment over the whole SST-2 test set (1,821 sentences)
// in headless Debian Chromium, in the page's worker, exactly as a user would (URL state + the Run button),
// and prints the wall time per experiment as a markdown table and one JSON line.
// Usage: node tests/bench/bench-debate-browser.mjs [--experiments kendall,permutation,adversarial] [--model sst2-tanh] [--n 1821]
import path from 'node:path';
import { launchChromium } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const experiments = opt('--experiments', 'kendall,permutation,adversarial').split(',');
const model = opt('--model', 'sst2-tanh');
const n = Number(opt('--n', '1821'));
const root = path.resolve(import.meta.dirname, '../..');

const server = await startServer({ port: 0, root });
const context = await launchChromium();
const results = {};
try {
  for (const name of experiments) {
    const page = await context.newPage();
    await page.goto(`${server.url}/web/#view=debate&experiment=${name}&model=${model}&n=${n}`);
    await page.waitForFunction(() => document.querySelector('#view-debate')?.dataset.status === 'idle', null, { timeout: 120_000 });
    const t0 = Date.now();
    await page.click('#debate-run');
    await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.querySelector('#view-debate')?.dataset.status),
      null, { timeout: 1_800_000 });
    const seconds = (Date.now() - t0) / 1000;
    const status = await page.locator('#view-debate').getAttribute('data-status');
    const rows = await page.locator('#debate-result').getAttribute('data-rows');
    if (status !== 'done') throw new Error(`${name}: ${status}: ${await page.locator('#debate-message').textContent()}`);
    results[name] = { seconds, rows: Number(rows) };
    await page.close();
  }
} finally {
  await context.closeAndClean();
  await server.close();
}
console.log(`| experiment (${model}, ${n} SST-2 test sentences, Chromium worker) | minutes | sentences/s |`);
console.log('| --- | ---: | ---: |');
for (const [name, r] of Object.entries(results))
  console.log(`| ${name} | ${(r.seconds / 60).toFixed(2)} | ${(r.rows / r.seconds).toFixed(1)} |`);
console.log(JSON.stringify({ bench: 'debate-browser', model, n, results }));
