// layout.test.mjs — small things a reader notices (issue 29): at 1,366 px the seven tabs stay on one line; the Images
// grid's caption names the same pass counts as its tiles (occlusion 170, not 169). Run: node --test tests/e2e/layout.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, imageLabMissing } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 180_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen';

test('one line of tabs at 1,366 px; the grid caption and tiles agree on the passes', { timeout: TIMEOUT, skip: SKIP || imageLabMissing(REPO) }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm`);
    const tops = await page.$$eval('.view-tab', (ts) => ts.map((t) => Math.round(t.getBoundingClientRect().top)));
    assert.equal(tops.length, 7);
    assert.equal(new Set(tops).size, 1, `the tabs sit on ${new Set(tops).size} lines`);
    await page.waitForFunction(() => document.querySelector('#image-grid .image-tile[data-method=occlusion]'), null, { timeout: TIMEOUT });
    for (const m of ['scorecam', 'occlusion']) {
      const caption = await page.textContent(`#image-passes-${m}`);
      const tile = await page.textContent(`#image-grid .image-tile[data-method=${m}] .image-tile-sub`);
      assert.equal(tile, `${caption} passes`, `${m}: caption ${caption}, tile "${tile}"`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
