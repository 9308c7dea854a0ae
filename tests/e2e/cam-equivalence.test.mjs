// cam-equivalence.test.mjs — the CAM identity line on the real page (headless Chromium):
//   - Images view (wasm ORT backend, dog_segmentation, top-1 class, then another class of the top-5): the shown
//     "class score (logit) = X; mean of CAM + bias = … = Y" has X = Y to the shown 4 decimals (one unit of the
//     last place allowed for rounding: X is ONNX Runtime's logit, Y the core's CAM on ORT's features), and
//     Grad-CAM's factor is 1/49 (7 × 7 positions) to 1e-4 relative;
//   - Localization view, shipped models/cnn/gap: every probe's logit equals its mean of CAM + bias to the shown
//     precision; the shipped GMP model is the control — there the two numbers differ (the line says why).
// Saves tests/e2e/out/cam-equivalence-image.png and cam-equivalence-loc.png. Run: node --test
// tests/e2e/cam-equivalence.test.mjs. Skips when web/gen or models/image is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, imageLabMissing } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const TIMEOUT = 240_000;
const SKIP = imageLabMissing(REPO);
const LAST_PLACE = 1e-4; // 4 decimals shown

function shownNumbers(text) {
  const m = /class score \(logit\) = (-?\d+\.\d{4}); mean of CAM \+ bias = (-?\d+\.\d{4}) ([+−]) (\d+\.\d{4}) = (-?\d+\.\d{4})/.exec(text);
  assert.ok(m, `no identity line in: ${text}`);
  return { logit: Number(m[1]), mean: Number(m[2]), bias: (m[3] === '−' ? -1 : 1) * Number(m[4]), sum: Number(m[5]) };
}

if (SKIP) test('CAM identity in the page', { skip: SKIP }, () => {});
else describe('CAM identity in the page', { timeout: 10 * 60_000 }, () => {
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

  test('Images view: ORT logit = mean of the core CAM + bias; Grad-CAM = ReLU(CAM)/49', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=dog_segmentation&method=gradcam&backend=wasm`);
    const waitLine = (cls) => page.waitForFunction((c) => {
      const s = document.getElementById('view-image');
      const e = document.getElementById('image-equivalence');
      return s.dataset.status === 'error' || (e.dataset.logit && (c === null || e.dataset.cls === String(c)));
    }, cls, { timeout: TIMEOUT });
    await waitLine(null);
    assert.notEqual(await page.locator('#view-image').getAttribute('data-status'), 'error', await page.textContent('#image-message'));
    const check = async () => {
      const text = await page.textContent('#image-equivalence');
      const n = shownNumbers(text);
      assert.ok(Math.abs(n.logit - n.sum) <= LAST_PLACE + 1e-9, `logit ${n.logit} vs mean of CAM + bias ${n.sum}`);
      assert.ok(Math.abs(n.mean + n.bias - n.sum) <= LAST_PLACE + 1e-9, text);
      const scale = Number(await page.getAttribute('#image-equivalence', 'data-scale'));
      const expected = Number(await page.getAttribute('#image-equivalence', 'data-expected'));
      assert.equal(expected, 1 / 49);
      assert.ok(Math.abs(scale - expected) <= 1e-4 * expected, `Grad-CAM factor ${scale} vs 1/49`);
      assert.match(text, /Grad-CAM = 0\.0204\d? × ReLU\(CAM\) \(1\/49 = 0\.02041: /);
      return { n, text };
    };
    const first = await check();
    // another class of the top-5: its own logit and map, the identity again
    const cls0 = await page.getAttribute('#image-canvas', 'data-class');
    await page.locator('#image-top5 [data-index]').nth(2).click();
    await page.waitForFunction((c) => document.getElementById('image-canvas').dataset.class !== c, cls0, { timeout: TIMEOUT });
    await page.waitForFunction((t) => document.getElementById('image-equivalence').textContent !== t && document.getElementById('image-equivalence').dataset.logit,
      first.text, { timeout: TIMEOUT });
    const second = await check();
    assert.notEqual(second.n.logit, first.n.logit, 'another class has another logit');
    await page.locator('#image-results').screenshot({ path: path.join(OUT, 'cam-equivalence-image.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Localization view: logit = mean of CAM + bias for GAP, not for GMP', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=localization`);
    await page.waitForFunction(() => [...document.querySelectorAll('#loc-shipped option')].some((o) => o.value === 'gap'), null, { timeout: TIMEOUT });
    const load = async (name) => {
      await page.selectOption('#loc-shipped', name);
      await page.waitForFunction((n) => new RegExp(`models/cnn/${n}\\b`).test(document.getElementById('loc-model-info').textContent) &&
        document.getElementById('loc-equivalence').dataset.head && !document.getElementById('loc-shipped').disabled, name, { timeout: TIMEOUT });
      const eq = page.locator('#loc-equivalence');
      return {
        text: await eq.textContent(),
        head: await eq.getAttribute('data-head'),
        logits: (await eq.getAttribute('data-logits')).split(' ').map(Number),
        sums: (await eq.getAttribute('data-cam-plus-bias')).split(' ').map(Number),
      };
    };
    const gap = await load('gap');
    assert.equal(gap.head, 'gap');
    assert.equal(gap.logits.length, 6);
    for (let i = 0; i < 6; i++) assert.ok(Math.abs(gap.logits[i] - gap.sums[i]) <= LAST_PLACE + 1e-9, `probe ${i + 1}: ${gap.logits[i]} vs ${gap.sums[i]}`);
    const n = shownNumbers(gap.text);
    assert.ok(Math.abs(n.logit - n.sum) <= LAST_PLACE + 1e-9, gap.text);
    assert.match(gap.text, /16 × 16 feature resolution/);
    await page.locator('#loc-probes').screenshot({ path: path.join(OUT, 'cam-equivalence-loc-probes.png') });
    await page.locator('#loc-equivalence').screenshot({ path: path.join(OUT, 'cam-equivalence-loc.png') });
    // control: a GMP head pools by the maximum; the mean of its map + bias is not its logit
    const gmp = await load('gmp');
    assert.equal(gmp.head, 'gmp');
    const far = gmp.logits.filter((l, i) => Math.abs(l - gmp.sums[i]) > 100 * LAST_PLACE).length;
    assert.ok(far >= 5, `GMP: ${gmp.logits} vs ${gmp.sums}`);
    assert.match(gmp.text, /identity is GAP’s/);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
