// cold-open-order.test.mjs — what a cold open starts, and when (issue 29: tests/bench/cold-start.mjs measures the
// times). Opened on the Images tab, the page starts the image worker first and holds the text host (its worker and
// core compile) until the first photo is classified, so the two do not compete for a small machine's cores; opening
// another tab releases it at once. Opened on the Text tab (the negative control), the text host starts at once and
// no image worker is started. Workers are recorded by wrapping the page's Worker constructor before any page script.
// Run: node --test tests/e2e/cold-open-order.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 180_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) && fs.existsSync(path.join(REPO, 'models/image/manifest.json'))
  ? false : 'needs web/gen and models/image';

// Records every worker the page makes: {name, t} in window.__workers; and when the first photo was classified.
function recordWorkers() {
  window.__workers = [];
  const Original = window.Worker;
  window.Worker = class extends Original {
    constructor(url, opts) {
      super(url, opts);
      window.__workers.push({ name: opts?.name ?? '', t: performance.now() });
    }
  };
  new MutationObserver(() => {
    if (window.__top1 === undefined && document.getElementById('view-image')?.dataset.top1) window.__top1 = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-top1'] });
}

const made = (page) => page.evaluate(() => window.__workers);

test('a cold open on the Images tab starts the image worker first and the text host after the first photo', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium();
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm`, {
      before: (p) => p.addInitScript(recordWorkers),
    });
    await page.waitForFunction(() => document.getElementById('image-canvas')?.dataset.peakX, null, { timeout: TIMEOUT });
    // the text host comes once the photo is classified (the hidden views' requests were waiting for it)
    await page.waitForFunction(() => window.__workers.some((w) => w.name === 'attnlab-core'), null, { timeout: TIMEOUT });
    const ws = await made(page);
    const top1 = await page.evaluate(() => window.__top1);
    const image = ws.find((w) => w.name === 'attnlab-image');
    const text = ws.find((w) => w.name === 'attnlab-core');
    assert.ok(image && text, JSON.stringify(ws));
    assert.ok(image.t < text.t, `the image worker (${image.t.toFixed(0)} ms) before the text host (${text.t.toFixed(0)} ms)`);
    // held until the first photo, or until app.js's 8-s fallback on a machine too busy to classify it by then
    // (its timer starts when app.js runs, after navigation: text.t ≥ 8000 then)
    assert.ok(text.t >= Math.min(top1, 8000), `the text host (${text.t.toFixed(0)} ms) waited for the first photo (${top1.toFixed(0)} ms) or 8 s`);
    assert.equal(ws.filter((w) => w.name === 'attnlab-core').length, 1, 'one text host');
    // the held requests went through: the hidden Debate view got its model list
    await page.waitForFunction(() => !document.getElementById('debate-model').disabled, null, { timeout: TIMEOUT });
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});

test('opening another tab releases the text host at once; a cold open on the Text tab starts it at once (negative control)', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium();
  try {
    // The Images tab, left for the Text tab before any photo is classified: the text host starts, the sentence is explained.
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm`, {
      before: (p) => p.addInitScript(recordWorkers),
    });
    await page.waitForFunction(() => window.__workers.some((w) => w.name === 'attnlab-image'), null, { timeout: TIMEOUT });
    await page.click('.view-tab[data-view="text"]');
    await page.waitForFunction(() => document.getElementById('view-text').dataset.status === 'ready', null, { timeout: TIMEOUT });
    assert.ok((await made(page)).some((w) => w.name === 'attnlab-core'));
    await page.close();

    const text = await openRecordingPage(ctx, `${server.url}/web/#view=text`, { before: (p) => p.addInitScript(recordWorkers) });
    await text.waitForFunction(() => document.getElementById('view-text').dataset.status === 'ready', null, { timeout: TIMEOUT });
    const ws = await made(text);
    assert.equal(ws[0]?.name, 'attnlab-core', JSON.stringify(ws));
    assert.ok(!ws.some((w) => w.name === 'attnlab-image'), 'no image worker on the Text tab');
    assert.deepEqual(text.errors, []);
    await text.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
