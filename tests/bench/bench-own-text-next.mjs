#!/usr/bin/env node
// bench-own-text-next.mjs — issue 28's "one explained next token" as a user sees it, in headless Debian Chromium: the
// Text tab's "Your model" with the shipped stories260K opened by its link (a 29-word story, 52 tokens with BOS), then
// Next pressed N times, 2.5 s after the step before finished (its integrated gradients, value zeroing and ALTI jobs
// done; the debate panels still running, as when a reader looks at the rows before pressing Next). Per press, in the
// page's own clock: `explained` = the page's status number (click → the worker's answer, the rows, top 5 and maps, on
// the main thread), `drawn` = click → the first frame after the status says "explained" (the rows, head view, model
// view and panels drawn), and the worker's own time of each call (rows = explainStep: the explanation with
// leave-one-out, the top 5 and the maps in one call — until 2026-12-07 three calls, rows / top / maps —; pieces).
// One line per press.
// Usage: node tests/bench/bench-own-text-next.mjs [--presses N = 6] [--threads N]
//   EXTRA_HASH='&otdclosed=kendall,erase-max,erase-until-flip,permutation' appends state to the link (here: the debate
//   panels folded shut, so no second worker runs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const PRESSES = Number(arg('--presses', 6));
const THREADS = arg('--threads', null);
const TEXT = 'The sun was warm and the sky was blue. Sue and her mom went to the store to buy some milk and bread for the cat.';
const server = await startServer({ port: 0, root: REPO });
const ctx = await launchChromium({ viewport: { width: 1280, height: 900 } });
try {
  const page = await ctx.newPage();
  await page.goto(`${server.url}/web/${THREADS ? `?threads=${THREADS}` : ''}#view=text&otmodel=stories260K&ottext=${encodeURIComponent(TEXT)}${process.env.EXTRA_HASH ?? ''}`);
  const done = () => page.waitForFunction(() => document.getElementById('own-text').dataset.status === 'ready' &&
    / ALTI \d+ ms more/.test(document.getElementById('ot-status').textContent), null, { timeout: 120_000 });
  await done();
  for (let k = 0; k < PRESSES; ++k) {
    await new Promise((r) => setTimeout(r, 2500));
    const r = await page.evaluate(() => new Promise((resolve) => {
      const st = document.getElementById('ot-status');
      st.textContent = '';
      const t0 = performance.now();
      const obs = new MutationObserver(() => {
        const m = st.textContent.match(/explained in (\d+) ms/);
        if (!m) return;
        obs.disconnect();
        const parts = document.getElementById('own-text').ownTextResult?.worker_parts ?? {};
        requestAnimationFrame(() => setTimeout(() => resolve({ explained: Number(m[1]), drawn: Math.round(performance.now() - t0),
          worker: Object.entries(parts).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ') }), 0));
      });
      obs.observe(st, { childList: true, characterData: true, subtree: true });
      document.getElementById('ot-next').click();
    }));
    console.log(`${k + 1}: explained ${r.explained} ms, drawn ${r.drawn} ms (in the worker: ${r.worker} ms)`);
    await done();
  }
} finally {
  await ctx.closeAndClean().catch(() => {});
  await server.close();
}
