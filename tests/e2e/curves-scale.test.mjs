// curves-scale.test.mjs — deletion / insertion charts scaled to their data, and the near-uniform warning (issue 29).
//   - the cat, explaining its 5th class (a probability of a few tenths of a percent): the CAM's curves run and the
//     charts' y axes stop near the data's largest probability, not at 1 (with a fixed 0–1 axis the curves lie flat on
//     the floor); no near-uniform warning (the model is sure of its top-1);
//   - "Your model" with the seeded, untrained squeezenet fixture (10 classes; top probability 0.14 on the cat, below
//     twice 1/10): the curves carry the near-uniform warning.
//   - "Which method?" on the cat: every fast map ranked by deletion / insertion against the random map, Cancel.
// Screenshots: tests/e2e/out/curves-low-class.png, curves-near-uniform.png, image-which-method.png. Run: node --test tests/e2e/curves-scale.test.mjs
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
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm&csteps=10`);
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

  // "Which method?" for a photo (issue 30): the fast maps and the random baseline scored by deletion / insertion on
  // the cat's top-1, ranked; a pair of curves already run is reused; Grad-CAM ranks like CAM (on MobileNetV2's last
  // layer Grad-CAM = ReLU(CAM) / 49, the Images tab's identity, so their pixel orders agree wherever CAM > 0); Cancel
  // keeps what was scored.
  test('Which method? on a photo: every fast map ranked by deletion and insertion against the random map', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm&method=cam&csteps=10`);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.status === 'ready' && document.getElementById('image-canvas').dataset.peakX, null, { timeout: TIMEOUT });
    // Cancel at the first progress line: nothing scored, and it says so.
    await page.click('#image-which-run');
    await page.waitForFunction(() => /network passes/.test(document.getElementById('image-job-text').textContent), null, { timeout: TIMEOUT });
    await page.click('#image-cancel');
    await page.waitForFunction(() => document.getElementById('image-job').hidden, null, { timeout: TIMEOUT });
    assert.match(await page.textContent('#image-which'), /No map could be scored|Cancelled/);
    // CAM's curves first (the single-map button), then every map.
    await page.click('#image-curves-run');
    await page.waitForFunction(() => document.querySelectorAll('#image-curves .chart[data-n="1"]').length === 2, null, { timeout: TIMEOUT });
    const camLegend = await page.$$eval('#image-curves .chart', (cs) => cs.map((c) => c.textContent.match(/CAM — AUC (\d\.\d{3})/)?.[1]));
    await page.click('#image-which-run');
    await page.waitForFunction(() => document.querySelector('#image-which table') && document.getElementById('image-job').hidden, null, { timeout: TIMEOUT });
    const rows = await page.$$eval('#image-which tr[data-method]', (trs) => trs.map((tr) => ({
      method: tr.dataset.method,
      deletion: Number(tr.querySelector('td.auc[data-kind=deletion]').dataset.value),
      insertion: Number(tr.querySelector('td.auc[data-kind=insertion]').dataset.value),
      rd: Number(tr.querySelector('td.rank[data-kind=deletion]').textContent),
      ri: Number(tr.querySelector('td.rank[data-kind=insertion]').textContent),
    })));
    assert.deepEqual(rows.map((r) => r.method).sort(), ['cam', 'gradcam', 'gradcampp', 'random']);
    for (let k = 1; k < rows.length; k++) assert.ok(rows[k - 1].deletion <= rows[k].deletion, 'ranked by deletion, lowest first');
    assert.deepEqual(rows.map((r) => r.rd), [1, 2, 3, 4]);
    const byIns = [...rows].sort((a, b) => b.insertion - a.insertion);
    for (const r of rows) assert.equal(r.ri, byIns.indexOf(r) + 1, `${r.method}: insertion rank`);
    // the CAM pair was reused, not run again: the same AUCs as its legend
    const cam = rows.find((r) => r.method === 'cam');
    assert.equal(cam.deletion.toFixed(3), camLegend[0]);
    assert.equal(cam.insertion.toFixed(3), camLegend[1]);
    const grad = rows.find((r) => r.method === 'gradcam');
    assert.ok(Math.abs(grad.deletion - cam.deletion) < 0.01 && Math.abs(grad.insertion - cam.insertion) < 0.01,
      `Grad-CAM ${grad.deletion} / ${grad.insertion} vs CAM ${cam.deletion} / ${cam.insertion}`);
    // the verdict counts the maps that beat the random map, as the table shows them
    const random = rows.find((r) => r.method === 'random');
    const beat = rows.filter((r) => r.method !== 'random' && r.deletion < random.deletion).length;
    assert.ok(beat >= 1, 'some map beats the random map by deletion on the cat');
    const text = await page.textContent('#image-which');
    assert.match(text, new RegExp(`By deletion, .* is the most faithful .*${beat} of 3 maps beat the random map`));
    assert.match(text, /Not scored: Score-CAM, RISE, Occlusion/);
    // the "same to 4 decimals" line is there exactly when the two pairs agree that closely
    const tie = Math.abs(grad.deletion - cam.deletion) < 5e-5 && Math.abs(grad.insertion - cam.insertion) < 5e-5;
    const groups = JSON.parse(await page.getAttribute('#image-which .which-same', 'data-groups', { timeout: 1000 }).catch(() => '[]'));
    assert.equal(groups.some((g) => g.includes('cam') && g.includes('gradcam')), tie, JSON.stringify(groups));
    assert.equal(/score the same to 4 decimals/.test(text), groups.length > 0);
    // every scored map's curves are drawn
    assert.equal(await page.locator('#image-curves .chart[data-n="4"]').count(), 2);
    await page.locator('#image-which').screenshot({ path: path.join(OUT, 'image-which-method.png') });
    // The curves ran at the link's 10 steps (csteps; the tests use 10 for speed, the default is RISE's 50): other steps
    // drop them from the chart and the ranking (curves of two resolutions are not ranked side by side), and the URL
    // keeps the new value.
    await page.fill('#image-curve-steps', '20');
    await page.dispatchEvent('#image-curve-steps', 'change');
    await page.waitForFunction(() => !document.querySelector('#image-which table'), null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#image-curves .chart[data-n]').count(), 0, 'the 10-step curves are not drawn at 20 steps');
    assert.match(await page.evaluate(() => location.hash), /csteps=20/);
    // The card's other number fields take a value the same way, without an error (they once threw: their handler's
    // local `v` hid the view's).
    await page.fill('#image-rise-n', '500');
    await page.dispatchEvent('#image-rise-n', 'change');
    await page.fill('#image-seed', '7');
    await page.dispatchEvent('#image-seed', 'change');
    await page.fill('#image-erase-steps', '12'); // above its range: clamped to 8
    await page.dispatchEvent('#image-erase-steps', 'change');
    const hash = await page.evaluate(() => location.hash);
    for (const want of [/risen=500/, /seed=7/, /erasesteps=8/]) assert.match(hash, want);
    assert.equal(await page.inputValue('#image-erase-steps'), '8');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Your model, untrained: the near-uniform warning follows its top probability', {
    timeout: TIMEOUT, skip: fs.existsSync(FX) ? false : 'needs tests/fixtures/onnx/squeezenet1_1',
  }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm&omethod=gradcam&csteps=10`);
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
