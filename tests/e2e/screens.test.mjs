// screens.test.mjs — every tab at 390 px (a phone) and 1280 px (a laptop): no horizontal overflow, and no text
// node shows a number the way web/analysis/format.js never does (an exponent like 2.5e-5 or more than 6
// decimals). Screenshots go to tests/e2e/out/screen-VIEW-WIDTH.png. Run: node --test tests/e2e/screens.test.mjs
// (≈ 60–90 s on the 2-core machine; the debate tab runs adversarial on 10 sentences first).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const TIMEOUT = 120_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen (bash scripts/build-wasm.sh)';

// What each tab needs before it is judged: its main result on screen.
const READY = {
  text: () => document.getElementById('view-text').dataset.status === 'ready' &&
    [...document.querySelectorAll('.live-panel')].every((p) => p.dataset.status !== 'pending'),
  debate: () => document.querySelectorAll('#debate-experiment option').length > 3,
  train: () => document.getElementById('view-train').dataset.status !== 'loading',
  image: () => document.querySelectorAll('#image-top5 .top5-row').length === 5 && document.querySelectorAll('#image-grid .image-tile').length > 0,
  localization: () => document.querySelector('#loc-toy-chart svg') !== null,
};

// Text nodes (visible ones) that show an exponent or more than 6 decimals, and the horizontal overflow.
function audit() {
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('[hidden], script, style, option') || !p.getClientRects().length) continue;
    const t = n.textContent;
    if (/\d(?:\.\d+)?e[+-−]?\d/i.test(t) || /\d\.\d{7,}/.test(t)) bad.push(t.trim().slice(0, 80));
  }
  return { overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth, bad };
}

if (SKIP) test('screens at 390 and 1280 px', { skip: SKIP }, () => {});
else describe('screens at 390 and 1280 px', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  for (const view of Object.keys(READY)) {
    test(`${view}: no overflow, no raw numbers at 390 and 1280 px`, { timeout: TIMEOUT }, async () => {
      const page = await openRecordingPage(ctx, `${server.url}/web/#view=${view}`);
      await page.waitForFunction(READY[view], null, { timeout: TIMEOUT });
      if (view === 'debate') {
        // the summary of a (short) run with every number unfolded: where 17-digit values used to show
        await page.fill('#debate-n', '10');
        await page.locator('#debate-n').dispatchEvent('change');
        await page.click('#debate-run');
        await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('view-debate').dataset.status), null, { timeout: TIMEOUT });
        assert.equal(await page.getAttribute('#view-debate', 'data-status'), 'done');
        await page.click('.all-numbers-box summary');
      }
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        await page.waitForTimeout(300);
        const a = await page.evaluate(audit);
        await page.screenshot({ path: path.join(OUT, `screen-${view}-${width}.png`), fullPage: true });
        assert.ok(a.overflow <= 0, `${view} at ${width} px scrolls sideways by ${a.overflow} px`);
        assert.deepEqual(a.bad, [], `${view} at ${width} px shows raw numbers`);
      }
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }
});
