// global-tip.test.mjs — the Global view's hover readout belongs to the map it was read from (issue 29): hover a dot
// of sst2-tanh's map, switch the model to agnews-tanh: the new map is drawn and the old readout is gone; its
// equal-score labels use the typographic minus.
// Run: node --test tests/e2e/global-tip.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 240_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen';

test('a new model\'s map does not keep the old map\'s hover readout', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=global&gvmodel=sst2-tanh`);
    const ready = (m) => page.waitForFunction((model) => document.getElementById('view-global').dataset.status === 'ready'
      && document.getElementById('gv-status').textContent.startsWith(model) && document.querySelector('#gv-map circle.gv-dot'), m, { timeout: TIMEOUT });
    await ready('sst2-tanh');
    const dot = page.locator('#gv-map circle.gv-dot').nth(3);
    // the pointer rests on the dot while the model changes (keyboard, a link): its pointerover, and no pointerout —
    // the real mouse would only send one when it moves again
    await dot.dispatchEvent('pointerover');
    await page.waitForFunction(() => !document.querySelector('#gv-tip').hidden);
    const before = await page.textContent('#gv-tip');
    await page.locator('#gv-model-select').selectOption('agnews-tanh');
    await ready('agnews-tanh');
    assert.equal(await page.isHidden('#gv-tip'), true, `the old readout stays: "${before}"`);
    // the equal-score lines' labels show negative scores with the typographic minus, like every number on the page
    const levels = await page.$$eval('#gv-map .gv-contours text', (ts) => ts.map((t) => t.textContent));
    assert.ok(levels.length >= 2 && levels.every((t) => !/-\d/.test(t)), levels.join(' | '));
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
