// job-eta.test.mjs — a long job says its time left beside its pass count (issue 29): RISE with 8,000 masks on the
// cat (minutes here) shows "about … left" once it has run 5 s, from its rate so far; Cancel stops it.
// Run: node --test tests/e2e/job-eta.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, imageLabMissing } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 240_000;

test('RISE (8,000 masks): the progress line gives the time left', { timeout: TIMEOUT, skip: imageLabMissing(REPO) }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm&risen=8000`);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.status === 'ready' && document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });
    await page.selectOption('#image-method', 'rise'); // selecting a slow method starts it once
    await page.waitForFunction(() => !document.getElementById('image-job').hidden, null, { timeout: TIMEOUT });
    await page.waitForFunction(() => /about .+ left/.test(document.getElementById('image-job-text').textContent), null, { timeout: TIMEOUT });
    const text = await page.textContent('#image-job-text');
    const m = /([\d,]+) \/ 8,000 · about ((\d+ h )?(\d+ min ?)?(\d+ s)?) left/.exec(text);
    assert.ok(m, text);
    const done = Number(m[1].replace(/,/g, ''));
    assert.ok(done > 0 && done < 8000, text);
    await page.click('#image-cancel');
    await page.waitForFunction(() => document.getElementById('image-job').hidden, null, { timeout: TIMEOUT });
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
