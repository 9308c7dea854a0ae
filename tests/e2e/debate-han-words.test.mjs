// debate-han-words.test.mjs — the Debate on a HAN model from a link (issue 29): the link's imdb-han is kept (the Text
// tab, behind it, does not swap it for a flat model); erase-until-flip's headline has S&S's five rankings, leave-one-out
// among them (the registry's experiment on the HAN: until 2026-12-06 the HAN's own copy had no leave-one-out and a note
// said so), no bare "n/a", and the rows are called documents, not sentences, in the description, the headline and the
// figure. Run: node --test tests/e2e/debate-han-words.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 240_000;
const SKIP = !fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? 'needs web/gen'
  : !fs.existsSync(path.join(REPO, 'models/text/imdb-han/config.json')) ? 'needs models/text/imdb-han' : false;

test('HAN erase-until-flip: documents, and a reason instead of n/a', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=debate&model=imdb-han&experiment=erase-until-flip&level=sentence&n=2&workers=1`);
    await page.waitForFunction(() => !document.getElementById('debate-run').disabled, null, { timeout: TIMEOUT });
    assert.equal(await page.inputValue('#debate-model'), 'imdb-han', 'the link\'s HAN model is kept');
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('model'), 'imdb-han');
    assert.match(await page.textContent('#debate-about'), /For each document and ranking/);
    await page.click('#debate-run');
    await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('view-debate').dataset.status), null, { timeout: TIMEOUT });
    assert.equal(await page.getAttribute('#view-debate', 'data-status'), 'done', await page.textContent('#debate-message'));
    const values = await page.$$eval('.headline-item .headline-value', (vs) => vs.map((v) => v.textContent.trim()));
    assert.ok(values.length >= 4 && !values.includes('n/a'), `headline: ${values.join(' | ')}`);
    const labels = await page.$$eval('.headline-item', (vs) => vs.map((v) => v.dataset.label));
    assert.ok(labels.some((l) => /leave-one-out/.test(l)), labels.join(' | '));
    assert.equal(labels.length, 5, labels.join(' | '));
    assert.doesNotMatch(await page.textContent('#debate-result'), /ranking here/);
    const figure = await page.textContent('#debate-figure');
    assert.match(figure, /documents whose decision flips/);
    assert.ok(!/\bsentences?\b/.test(figure), `the figure says documents: ${figure.slice(0, 300)}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
