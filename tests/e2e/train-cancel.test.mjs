// train-cancel.test.mjs — after Cancel the Train tab's bars do not look frozen mid-run (issue 29): the epoch bar's line
// says the run was cancelled and where, and both bars are greyed. Run: node --test tests/e2e/train-cancel.test.mjs
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

test('Cancel: the bars say where the run stopped', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=train&epochs=2`);
    await page.waitForFunction(() => !document.getElementById('train-run').disabled, null, { timeout: TIMEOUT });
    await page.click('#train-run');
    await page.waitForFunction(() => Number(document.getElementById('train-epoch-progress').value) > 0, null, { timeout: TIMEOUT });
    await page.click('#train-cancel');
    await page.waitForFunction(() => ['cancelled', 'done', 'error'].includes(document.getElementById('view-train').dataset.status), null, { timeout: TIMEOUT });
    assert.equal(await page.getAttribute('#view-train', 'data-status'), 'cancelled');
    assert.match(await page.textContent('#train-epoch-text'), /^cancelled in epoch 1 at batch \d+ \/ \d+/);
    assert.equal(await page.evaluate(() => ['train-epoch-progress', 'train-progress'].every((id) => document.getElementById(id).classList.contains('stopped'))), true);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
