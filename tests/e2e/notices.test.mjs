// notices.test.mjs — no silent change (issue 29): a value the page cannot use as given is changed *and said*, with
// the number it uses. Debate N typed as −7 / 99,999 / 2.5; a link's n=1000000000 (the link notice and the Debate
// notice name the number the field shows); a link's image=nope (the cat, with a notice that stays); a labels file
// chosen while "Your model" is still loading is applied once it has loaded. Run: node --test tests/e2e/notices.test.mjs
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, imageLabMissing } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 180_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen (bash scripts/build-wasm.sh)';
const FX = path.join(REPO, 'tests/fixtures/onnx/squeezenet1_1/model.onnx');

if (SKIP) test('notices', { skip: SKIP }, () => {});
else describe('notices', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  let tmp;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-notices-'));
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const debateReady = (page) => page.waitForFunction(() => !document.getElementById('debate-n').disabled && document.getElementById('debate-n').max !== '', null, { timeout: TIMEOUT });

  test('Debate N: a typed value out of range is changed and the notice says to what', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=debate`);
    await debateReady(page);
    const max = Number(await page.getAttribute('#debate-n', 'max'));
    assert.ok(max > 1000, `the data set's size (${max})`);
    const type = async (v) => {
      await page.fill('#debate-n', v);
      await page.dispatchEvent('#debate-n', 'change');
      return { field: await page.inputValue('#debate-n'), notice: (await page.isVisible('#debate-notice')) ? await page.textContent('#debate-notice') : '' };
    };
    let r = await type('-7');
    assert.equal(r.field, '1');
    assert.match(r.notice, /N = −7 is below 1: N = 1 .*is used/);
    r = await type('99999');
    assert.equal(r.field, String(max));
    assert.ok(r.notice.includes(`N = 99,999 is more than the ${max.toLocaleString('en')} sentences`) && r.notice.includes(`N = ${max.toLocaleString('en')} (all of them) is used`), r.notice);
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('n'), String(max), 'the URL holds the N used');
    r = await type('2.5');
    assert.equal(r.field, '3');
    assert.match(r.notice, /N = 2\.500 is not a whole number: N = 3 is used/);
    r = await type('40');
    assert.equal(r.field, '40');
    assert.equal(r.notice, '', 'a valid N takes the notice down');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a link\'s n=1000000000: the link notice and the Debate notice name the N the field shows', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=debate&n=1000000000`);
    await debateReady(page);
    const field = await page.inputValue('#debate-n');
    const shown = Number(field).toLocaleString('en');
    await page.waitForFunction((f) => document.getElementById('link-notice-text').textContent.includes(`${f} is used`), field, { timeout: TIMEOUT });
    const link = await page.textContent('#link-notice-text');
    assert.ok(!/1000000 is used|1,000,000 is used/.test(link), link);
    assert.match(link, new RegExp(`n=1000000000 in the link is more than the ${shown} sentences`));
    assert.ok(!(await page.textContent('#debate-notice')).includes('1,000,000'), 'no third number');
    // a HAN model (200 documents): N above its data set is said by the Debate notice, with the field's number
    await page.selectOption('#debate-model', 'imdb-han');
    await page.waitForFunction(() => document.getElementById('debate-n').value === document.getElementById('debate-n').max, null, { timeout: TIMEOUT });
    const han = await page.inputValue('#debate-n');
    assert.ok(Number(han) < Number(field));
    await page.click('#link-notice .link-notice-close');
    await page.fill('#debate-n', String(Number(han) + 50));
    await page.dispatchEvent('#debate-n', 'change');
    assert.ok((await page.textContent('#debate-notice')).includes(`N = ${han} (all of them) is used`), await page.textContent('#debate-notice'));
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a cancelled Debate run is titled by the sentences it ran, not by the N asked', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=debate&experiment=adversarial&n=1821&workers=1`);
    await debateReady(page);
    await page.click('#debate-run');
    await page.waitForFunction(() => Number(document.getElementById('debate-result').dataset.rows) > 0, null, { timeout: TIMEOUT });
    await page.click('#debate-cancel');
    await page.waitForFunction(() => document.getElementById('view-debate').dataset.status === 'cancelled', null, { timeout: TIMEOUT });
    const rows = Number(await page.getAttribute('#debate-result', 'data-rows'));
    assert.ok(rows > 0 && rows < 1821, `${rows} rows`);
    const title = await page.textContent('#debate-result-title');
    assert.ok(title.includes(`first ${rows.toLocaleString('en')} sentence`) && /cancelled — 1,821 asked/.test(title), title);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a link\'s image=nope: the cat, and a notice that stays after it is classified', { timeout: TIMEOUT, skip: imageLabMissing(REPO) }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=nope&backend=wasm`);
    await page.waitForFunction(() => {
      const s = document.getElementById('view-image');
      return (s.dataset.status === 'ready' && s.dataset.photo === 'cat') || s.dataset.status === 'error';
    }, null, { timeout: TIMEOUT });
    assert.equal(await page.getAttribute('#view-image', 'data-photo'), 'cat');
    assert.equal(await page.isVisible('#image-notice'), true, 'the notice is shown');
    assert.match(await page.textContent('#image-notice'), /no demo photo “nope”.*showing the cat/);
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('image'), null, 'the URL names the photo shown (the default)');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Your model: a labels file chosen while the model loads names its classes once it has loaded', {
    timeout: TIMEOUT, skip: imageLabMissing(REPO) || (fs.existsSync(FX) ? false : 'needs tests/fixtures/onnx/squeezenet1_1'),
  }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm`);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });
    await page.click('#own-model > summary');
    const labels = path.join(tmp, 'labels.txt');
    fs.writeFileSync(labels, Array.from({ length: 10 }, (_, k) => `shape ${k}`).join('\n'));
    // the status of the card at the moment the labels file is chosen (it must be mid-load for this test to say anything)
    await page.evaluate(() => document.getElementById('own-labels').addEventListener('change', () => {
      window.__statusAtLabels = document.getElementById('own-model').dataset.status;
    }, { capture: true }));
    await page.setInputFiles('#own-file', FX);
    await page.waitForFunction(() => document.getElementById('own-model').dataset.status === 'loading', null, { timeout: TIMEOUT });
    await page.setInputFiles('#own-labels', labels);
    assert.equal(await page.evaluate(() => window.__statusAtLabels), 'loading', 'the labels were chosen while the model was loading');
    await page.waitForFunction(() => {
      const s = document.getElementById('own-model').dataset.status;
      return (s === 'ready' && document.querySelector('#own-top li, #own-top button')) || s === 'error';
    }, null, { timeout: TIMEOUT });
    await page.waitForFunction(() => document.getElementById('own-canvas').dataset.peakX || !document.getElementById('own-message').hidden, null, { timeout: TIMEOUT });
    assert.match(await page.textContent('#own-top'), /shape \d/, 'the classes carry the chosen labels');
    assert.ok(!/ImageNet labels assumed/.test(await page.textContent('#own-notice')));
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
