// curves-scale.test.mjs — deletion / insertion charts scaled to their data, and the near-uniform warning (issue 29).
//   - the cat, explaining its 5th class (a probability of a few tenths of a percent): the CAM's curves run and the
//     charts' y axes stop near the data's largest probability, not at 1 (with a fixed 0–1 axis the curves lie flat on
//     the floor); no near-uniform warning (the model is sure of its top-1);
//   - "Your model" with the seeded, untrained squeezenet fixture (10 classes; top probability 0.14 on the cat, below
//     twice 1/10): the curves carry the near-uniform warning.
// Screenshots: tests/e2e/out/curves-low-class.png, curves-near-uniform.png. Run: node --test tests/e2e/curves-scale.test.mjs
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, imageLabMissing } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 240_000;
const SKIP = imageLabMissing(REPO);
const FX = path.join(REPO, 'tests/fixtures/onnx/squeezenet1_1/model.onnx');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');

// The top of a chart's y axis as drawn (its largest tick label) and the chart's data-y-max.
const axisTop = (page, sel) => page.$eval(sel, (chart) => {
  const ticks = [...chart.querySelectorAll('[aria-label="y-axis tick label"] text')].map((t) => Number(t.textContent.replace('−', '-')));
  return { ticks: Math.max(...ticks), yMax: Number(chart.dataset.yMax) };
});

if (SKIP) test('curves', { skip: SKIP }, () => {});
else describe('deletion / insertion scales', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  test('a low-probability class: the y axis follows its curves', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm`);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.status === 'ready' && document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });
    const fifth = await page.$eval('#image-top5 .top5-row:nth-child(1)', () => {
      const rows = [...document.querySelectorAll('#image-top5 .top5-row')];
      return { index: rows[4].dataset.index, p: Number(rows[4].querySelector('.top5-prob').dataset.value) };
    });
    assert.ok(fifth.p < 0.05, `the 5th class is unlikely (${fifth.p})`);
    await page.click(`#image-top5 .top5-row[data-index="${fifth.index}"]`);
    await page.waitForFunction((i) => document.getElementById('image-canvas').dataset.class === i && document.getElementById('image-canvas').dataset.peakX, fifth.index, { timeout: TIMEOUT });
    await page.click('#image-curves-run');
    await page.waitForFunction(() => document.querySelectorAll('#image-curves .chart[data-n="1"]').length === 2 || !document.getElementById('image-message').hidden, null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#image-curves .chart[data-n="1"]').count(), 2, await page.textContent('#image-message'));
    const ys = await page.evaluate(() => [...document.querySelectorAll('#image-curves .chart')].map((c) => Number(c.dataset.yMax)));
    for (const kind of ['deletion', 'insertion']) {
      const { ticks, yMax } = await axisTop(page, `#image-curves .chart[data-chart=${kind}]`);
      assert.ok(yMax < 0.5, `${kind}: the axis stops at ${yMax}, not 1`);
      assert.ok(ticks <= yMax + 1e-9 && ticks >= yMax / 2, `${kind}: ticks up to ${ticks} of ${yMax}`);
    }
    assert.equal(ys[0], ys[1], 'both charts share the axis');
    assert.equal(await page.locator('#image-curves .curves-uniform').count(), 0, 'no near-uniform warning for a sure model');
    fs.mkdirSync(OUT, { recursive: true });
    await page.locator('#image-curves').screenshot({ path: path.join(OUT, 'curves-low-class.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Your model, untrained: the near-uniform warning follows its top probability', {
    timeout: TIMEOUT, skip: fs.existsSync(FX) ? false : 'needs tests/fixtures/onnx/squeezenet1_1',
  }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm&omethod=gradcam`);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });
    await page.click('#own-model > summary');
    await page.setInputFiles('#own-file', FX);
    await page.waitForFunction(() => (document.getElementById('own-canvas').dataset.peakX && document.getElementById('own-model').dataset.status === 'ready')
      || !document.getElementById('own-message').hidden, null, { timeout: TIMEOUT });
    const top = await page.$eval('#own-top .top5-row .top5-prob', (e) => Number(e.dataset.value));
    await page.click('#own-curves-run');
    await page.waitForFunction(() => document.querySelectorAll('#own-curves .chart[data-n="1"]').length === 2 || !document.getElementById('own-message').hidden, null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#own-curves .chart[data-n="1"]').count(), 2, await page.textContent('#own-message'));
    assert.ok(top < 0.2, `the fixture's top probability (${top}) is below 2 × 1/10`);
    assert.equal(await page.locator('#own-curves .curves-uniform').count(), 1, 'the warning is shown');
    assert.match(await page.textContent('#own-curves .curves-uniform'), /near-uniform.* over 10 classes/);
    await page.locator('#own-curves').screenshot({ path: path.join(OUT, 'curves-near-uniform.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
