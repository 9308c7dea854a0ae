// image-readouts.test.mjs — the Image lab's numbers in words (web/analysis/image-readout.js) on the real page,
// wasm backend: the sanity check shows Spearman ρ with n = 50,176 pixels (and what n/a means when it is n/a) and
// its two tiles' colour bars; deletion + insertion of CAM ends with the explanation-as-mask line in plain words
// ("confidence rose / fell / stayed … when only the highlighted region was kept") and no raw number.
// Run: node --test tests/e2e/image-readouts.test.mjs (≈ 1–2 min on the loaded 2-core machine; it downloads the
// image model into a fresh profile). Skips like image.test.mjs when web/gen or models/image is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, imageLabMissing } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { looksRaw } from '../../web/analysis/format.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const TIMEOUT = 240_000;
const SKIP = imageLabMissing(REPO);

if (SKIP) test('image readouts', { skip: SKIP }, () => {});
else describe('image readouts', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1200, height: 1000 } });
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  test('sanity ρ with its n; the explanation-as-mask line in plain words', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=dog_segmentation&method=cam&backend=wasm&colormap=jet`);
    await page.waitForFunction(() => {
      const s = document.getElementById('view-image');
      return (s.dataset.status === 'ready' && s.dataset.photo === 'dog_segmentation' && document.getElementById('image-canvas').dataset.peakX) ||
        s.dataset.status === 'error';
    }, null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#view-image').getAttribute('data-status'), 'ready', await page.textContent('#image-message'));

    await page.click('#image-sanity-run');
    await page.waitForSelector('#image-sanity .sanity-rho', { timeout: TIMEOUT });
    const rho = await page.textContent('#image-sanity .sanity-rho');
    assert.match(rho, /Spearman ρ between the two maps: ρ (= [-−]?\d\.\d\d|n\/a) · n = 50,176 pixels\./, rho);
    if (/ρ n\/a/.test(rho)) assert.match(rho, /one of the two maps is constant/);
    assert.equal(await page.getAttribute('#image-sanity', 'data-n'), '50176');
    // jet starts at #000080: both tiles' colour bars are in the chosen colormap
    const strips = await page.$$eval('#image-sanity .colorbar-strip', (ss) => ss.map((s) => s.style.background));
    assert.equal(strips.length, 2);
    for (const s of strips) assert.ok(s.includes('rgb(0, 0, 128)'), s);

    await page.click('#image-curves-run');
    await page.waitForFunction(() => /when only the highlighted region was kept/.test(document.getElementById('image-curves').textContent) ||
      !document.getElementById('image-message').hidden, null, { timeout: TIMEOUT });
    const curves = await page.textContent('#image-curves');
    assert.match(curves, /CAM: confidence (rose from|fell from|stayed at) \d+\.\d+ %/, curves);
    assert.doesNotMatch(curves, /an increase|drop \d/);
    const caption = await page.$$eval('#image-curves .chart-caption', (cs) => cs.map((c) => c.textContent).join(' '));
    assert.ok(!looksRaw(caption), caption);
    await page.screenshot({ path: path.join(OUT, 'image-readouts.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
