// report.test.mjs — "Save report" of the Images and Debate tabs, opened offline (issue 29): the Images report
// holds the top-5 (in the page and as numbers) and the numbers of every map computed (its 0–1 values on a grid,
// the hottest point), leaves out the maps never computed and the controls that only work in the page (pickers,
// "Compute" buttons); the Debate report's CSV / JSON buttons still download the run. Run:
// node --test tests/e2e/report.test.mjs
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

// Saves the report of the page's view; → { file, html }.
async function saveReport(page, dir, name) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#report-export')]);
  const file = path.join(dir, name);
  await dl.saveAs(file);
  return { file, html: fs.readFileSync(file, 'utf8') };
}

if (SKIP) test('reports', { skip: SKIP }, () => {});
else describe('reports', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  let off;
  let tmp;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    off = await launchChromium({ acceptDownloads: true });
    await off.setOffline(true);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-report-'));
  });
  after(async () => {
    await ctx?.closeAndClean();
    await off?.closeAndClean();
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('Images: the top-5 and every computed map\'s numbers; no uncomputed map, no dead control', { timeout: TIMEOUT, skip: imageLabMissing(REPO) }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm`);
    await page.waitForFunction(() => {
      const s = document.getElementById('view-image');
      return (s.dataset.status === 'ready' && s.dataset.photo === 'cat') || s.dataset.status === 'error';
    }, null, { timeout: TIMEOUT });
    // the four fast maps drawn in the grid
    await page.waitForFunction(() => document.querySelectorAll('#image-grid .image-tile.tile-ready').length >= 4, null, { timeout: TIMEOUT });
    const top5 = await page.$$eval('#image-top5 .top5-row', (rows) => rows.map((r) => r.dataset.label));
    assert.equal(top5.length, 5);
    const { file, html } = await saveReport(page, tmp, 'image.html');
    assert.ok(!/Choose a photo|Choose a model|drop one here/.test(html), 'no picker in the report');
    assert.ok(!/<button/i.test(html), 'no button in the report');
    assert.ok(!/No curves yet|Randomise the classifier|Your model: explain/.test(html), 'no card with nothing computed in it');
    const p2 = await off.newPage();
    await p2.goto(`file://${file}`);
    // the top-5 is shown, in order, with its probabilities
    assert.deepEqual(await p2.$$eval('.top5-row', (rows) => rows.map((r) => r.querySelector('.top5-label').textContent)), top5);
    assert.match(await p2.textContent('.top5-row .top5-prob'), /\d+\.\d %/);
    // only computed maps: the four fast ones, not Score-CAM / RISE / occlusion (never computed)
    const tiles = await p2.$$eval('.image-tile', (ts) => ts.map((t) => t.dataset.method));
    assert.deepEqual(tiles.sort(), ['cam', 'gradcam', 'gradcampp', 'random']);
    const data = JSON.parse(await p2.textContent('#attnlab-report-data'));
    assert.equal(data.view, 'image');
    assert.deepEqual(data.image.top5.map((t) => t.label), top5);
    for (const t of data.image.top5) assert.ok(t.prob > 0 && t.prob <= 1, `probability ${t.prob}`);
    assert.ok(data.image.top5[0].prob > 0.5, 'the cat is the top-1');
    const methods = data.image.maps.map((m) => m.method).sort();
    assert.deepEqual(methods, ['cam', 'gradcam', 'gradcampp', 'random']);
    for (const m of data.image.maps) {
      assert.equal(m.class, data.image.top5[0].index);
      assert.equal(m.grid.size * m.grid.size, m.grid.values.length);
      assert.ok(m.grid.values.every((x) => x >= 0 && x <= 1), `${m.method}: 0–1 values`);
      assert.ok(Math.max(...m.grid.values) > 0.5, `${m.method}: a map with a hot part`);
      assert.ok(Number.isInteger(m.peak.x) && Number.isInteger(m.peak.y));
    }
    await p2.close();
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Global view: the report keeps the words of its tables (they are buttons in the page)', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=global&gvmodel=sst2-tanh`);
    await page.waitForFunction(() => ['ready', 'error', 'unsupported'].includes(document.getElementById('view-global').dataset.status), null, { timeout: TIMEOUT });
    const words = await page.$$eval('.gv-top tr[data-text]', (rs) => rs.slice(0, 5).map((r) => r.dataset.text));
    assert.equal(words.length, 5);
    const { file, html } = await saveReport(page, tmp, 'global.html');
    assert.ok(!/<button/i.test(html), 'no button in the report');
    const p2 = await off.newPage();
    await p2.goto(`file://${file}`);
    const cells = await p2.$$eval('.gv-top tr[data-text]', (rs) => rs.slice(0, 5).map((r) => r.textContent));
    words.forEach((w, i) => assert.ok(cells[i].includes(w), `row ${i + 1} shows "${w}": ${cells[i]}`));
    await p2.close();
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Debate: the report\'s CSV / JSON buttons download the run', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=debate&experiment=adversarial&n=5&workers=1`);
    await page.waitForFunction(() => !document.getElementById('debate-run').disabled, null, { timeout: TIMEOUT });
    await page.click('#debate-run');
    await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('view-debate').dataset.status), null, { timeout: TIMEOUT });
    assert.equal(await page.getAttribute('#view-debate', 'data-status'), 'done');
    const { file } = await saveReport(page, tmp, 'debate.html');
    const p2 = await off.newPage();
    await p2.goto(`file://${file}`);
    for (const id of ['debate-csv', 'debate-json']) {
      assert.match(await p2.getAttribute(`#${id}`, 'href'), /^data:/, `${id} has a link`);
      const [dl] = await Promise.all([p2.waitForEvent('download'), p2.click(`#${id}`)]);
      const text = fs.readFileSync(await dl.path(), 'utf8');
      if (id === 'debate-csv') assert.equal(text.trim().split(/\r?\n/).length, 6, 'header + 5 rows');
      else assert.equal(JSON.parse(text).rows.length, 5);
    }
    await p2.close();
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
