// focus.test.mjs — keyboard focus (issue 29): the file pickers (a label around a hidden file input: lesson file,
// photo, model, labels) show a focus ring when tabbed to; after a Debate run started and finished from the
// keyboard the focus is on Run again, not on the page body. Run: node --test tests/e2e/focus.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 180_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen';

// Tabs from `from` until the file input `id` has the focus; → the outline of its label.
async function tabTo(page, from, id) {
  await page.focus(from);
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((x) => document.activeElement?.id === x, id)) {
      return page.evaluate((x) => {
        const cs = getComputedStyle(document.getElementById(x).closest('label'));
        return { style: cs.outlineStyle, width: parseFloat(cs.outlineWidth) };
      }, id);
    }
  }
  throw new Error(`Tab never reached #${id}`);
}

test('file pickers show keyboard focus; a Debate run gives the focus back to Run', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm`);
    for (const [from, id] of [['#lesson-select', 'lesson-file'], ['.gallery-item[data-image=bird_segmentation]', 'image-file']]) {
      const o = await tabTo(page, from, id);
      assert.ok(o.style !== 'none' && o.width >= 2, `#${id}'s label shows the focus (${o.style} ${o.width}px)`);
    }
    await page.click('#own-model > summary');
    const m = await tabTo(page, '#own-model > summary', 'own-file');
    assert.ok(m.style !== 'none', 'the model picker shows the focus');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'own-labels');
    assert.notEqual(await page.evaluate(() => getComputedStyle(document.getElementById('own-labels').closest('label')).outlineStyle), 'none');

    await page.evaluate(() => { location.hash = '#view=debate&n=3&workers=1'; });
    await page.waitForFunction(() => !document.getElementById('debate-run').disabled, null, { timeout: TIMEOUT });
    await page.focus('#debate-run');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('view-debate').dataset.status === 'done', null, { timeout: TIMEOUT });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'debate-run', 'the focus is on Run again');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
