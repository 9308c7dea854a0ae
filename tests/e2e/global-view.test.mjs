// global-view.test.mjs — browser end-to-end test of the Global view (headless Chromium via playwright-core).
//
// Starts scripts/serve.mjs in-process on port 0 and checks: the view opens from a link (#view=global&gvmodel=sst2-tanh);
// its top word, score, contextual score and count equal `build/attnlab global-view --model models/text/sst2-tanh
// --data models/text/data/sst2-train.tsv` to 1e-5 (the page computes it in wasm); search finds a word with its rank
// and score (= the CLI's); hovering a map point names a word; clicking one shows training sentences with the word
// in <mark>; gvword / gvmodel / gvn round-trip through a reload of the URL; the CSV export holds every ranked word
// (header + count_total lines, first line = the CLI's top word); the map has SVG / PNG export buttons; a non-additive
// model (sst2-dot, a transformer) shows the one-sentence reason; the HAN model's sentence level ranks sentences;
// at 390 px nothing scrolls sideways; no console errors. Saves tests/e2e/out/global-view.png (1280 px) and
// global-view-390.png — look at them. Skips — with the reason printed — when web/gen (with globalViewStart),
// build/attnlab or the models are missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const TRAIN = path.join(REPO, 'models/text/data/sst2-train.tsv');
const TOL = 1e-5;
const TIMEOUT = 300_000;

const missing = [];
const wasm = path.join(REPO, 'web/gen/attnlab_core.wasm');
if (!fs.existsSync(wasm) || !fs.readFileSync(wasm).includes('globalViewStart')) missing.push('web/gen with the global view binding (bash scripts/build-wasm.sh)');
if (!fs.existsSync(CLI)) missing.push('build/attnlab (the native CLI)');
for (const m of ['sst2-tanh', 'sst2-dot', 'imdb-han']) if (!fs.existsSync(path.join(REPO, 'models/text', m, 'config.json'))) missing.push(`models/text/${m}`);
const SKIP = missing.length ? `the Global view browser test needs ${missing.join(' and ')}` : false;

function cliView() {
  const out = execFileSync(CLI, ['global-view', '--model', path.join(REPO, 'models/text/sst2-tanh'), '--data', TRAIN, '--top', '20'],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

const close = (a, b, what, tol = TOL) => assert.ok(Math.abs(a - b) <= tol, `${what}: page ${a} vs CLI ${b}`);

if (SKIP) test('global view in the browser', { skip: SKIP }, () => {});
else describe('global view in the browser', { timeout: 20 * 60_000 }, () => {
  let server;
  let ctx;
  let native;

  before(async () => {
    native = cliView();
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    fs.mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  const openPage = (hash) => openRecordingPage(ctx, `${server.url}/web/${hash}`);
  async function settled(page, wanted = 'ready') {
    await page.waitForFunction(
      () => ['ready', 'unsupported', 'error', 'cancelled'].includes(document.querySelector('#view-global')?.dataset.status),
      null, { timeout: TIMEOUT },
    );
    const status = await page.locator('#view-global').getAttribute('data-status');
    if (status !== wanted) assert.fail(`expected "${wanted}", got "${status}" (${await page.locator('#gv-message').textContent()})`);
  }
  // the page's table cells are rounded to 3 decimals; the exact values are read from the worker's view via search
  const hitOf = (page) => page.locator('#gv-found li.gv-exact').first();

  test('opens from a link; top word, search, map, examples, URL, CSV equal the CLI', async () => {
    const page = await openPage('#view=global&gvmodel=sst2-tanh');
    assert.ok(await page.locator('.view-tab[data-view=global]').isVisible());
    await settled(page);
    assert.match(await page.locator('[data-lead=global]').textContent(), /query/);

    // the top word = the CLI's, its score / contextual score / count equal
    const top = native.words[0];
    const firstRow = page.locator('.gv-top tr[data-text]').first();
    assert.equal(await firstRow.getAttribute('data-text'), top.text);
    const cells = await firstRow.locator('td').allTextContents();
    assert.equal(cells[0], '1');
    close(Number(cells[2].replace('\u2212', '-')), top.score, 'top score (3 decimals)', 5e-4);
    assert.equal(Number(cells[4]), top.count);

    // search: the exact item's rank and score (full precision in data-score) equal the CLI's
    for (const [k, w] of [[0, top], [3, native.words[3]]]) {
      await page.locator('#gv-search').fill(w.text);
      const hit = hitOf(page);
      assert.equal(await hit.getAttribute('data-rank'), String(k + 1));
      close(Number(await hit.getAttribute('data-score')), w.score, `score of ${w.text}`);
      assert.match(await hit.textContent(), new RegExp(`seen ${w.count} time`));
    }
    await page.locator('#gv-search').fill('zzzqqq');
    assert.match(await page.locator('#gv-found').textContent(), /not among/);

    // hover a map point → its word; click → example sentences with the word marked
    await page.locator('#gv-search').fill('');
    const dot = page.locator('#gv-map circle.gv-dot').nth(3);
    await dot.hover({ force: true });
    await page.waitForFunction(() => !document.querySelector('#gv-tip').hidden);
    const i = Number(await dot.getAttribute('data-i'));
    assert.match(await page.locator('#gv-tip').textContent(), /score [-−]?\d+\.\d{3}.*count \d+/);
    await dot.click({ force: true });
    const word = await page.locator('#gv-search').inputValue();
    assert.ok(word.length > 0, 'clicking a point selects its word');
    assert.match(await page.locator('#gv-tip').textContent(), new RegExp(word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.ok(i >= 0);
    await page.waitForSelector('#gv-examples .gv-example mark, #gv-examples p', { timeout: 60_000 });

    // a word with many training uses: examples with the word highlighted
    await page.locator('.gv-top tr[data-text] button').nth(1).click();
    await page.waitForSelector('#gv-examples .gv-example mark', { timeout: 60_000 });
    const marked = await page.locator('#gv-examples .gv-example mark').first().textContent();
    assert.equal(marked.toLowerCase(), native.words[1].text.toLowerCase());
    assert.ok(await page.locator('#gv-map circle.gv-selected').count() === 1);

    // the map: query arrow, equal-score lines, export buttons
    assert.equal(await page.locator('#gv-map .gv-query line').count(), 1);
    assert.ok(await page.locator('#gv-map .gv-contours line').count() >= 2);
    await page.waitForSelector('#gv-map .export-bar .export-svg', { timeout: 10_000 });

    // the list size and the word in the URL; a reload restores them
    await page.locator('#gv-n').selectOption('50');
    const url = page.url();
    assert.match(url, /gvword=/);
    assert.match(url, /gvn=50/);
    const again = await openPage(new URL(url).hash);
    await settled(again);
    assert.equal(await again.locator('#gv-search').inputValue(), native.words[1].text);
    assert.equal(await again.locator('.gv-top tr[data-text]').count(), 50);
    assert.equal(await again.locator('#gv-model-select').inputValue(), 'sst2-tanh');

    // CSV: every ranked word, the CLI's top word first
    const [download] = await Promise.all([again.waitForEvent('download'), again.locator('#gv-csv').click()]);
    const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\r\n');
    assert.equal(csv[0], 'rank,text,score,contextual_score,count,predicted_class');
    assert.equal(csv.length, native.count_total + 1);
    const first = csv[1].split(',');
    assert.equal(first[1], top.text);
    close(Number(first[2]), top.score, 'CSV score');
    close(Number(first[3]), top.contextual_score, 'CSV contextual score');

    await page.screenshot({ path: path.join(OUT, 'global-view.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    assert.deepEqual(again.errors, []);
  });

  test('non-additive models say why; HAN sentence level; 390 px', async () => {
    const page = await openPage('#view=global&gvmodel=sst2-dot');
    await settled(page, 'unsupported');
    assert.match(await page.locator('#gv-message').textContent(), /dot attention/);
    await page.locator('#gv-model-select').selectOption('sst2-transformer');
    await settled(page, 'unsupported');
    assert.match(await page.locator('#gv-message').textContent(), /transformer/);

    await page.locator('#gv-model-select').selectOption('imdb-han');
    await settled(page);
    assert.ok(await page.locator('#gv-level').isVisible());
    await page.locator('#gv-level input[value=sentence]').check();
    await settled(page);
    assert.match(page.url(), /gvlevel=sentence/);
    assert.match(await page.locator('#gv-rank-sub').textContent(), /closest to u_s/);
    assert.match(await page.locator('#gv-rank-sub').textContent(), /first 500/);
    assert.ok((await page.locator('.gv-top tr[data-text]').first().getAttribute('data-text')).includes(' '));

    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#gv-level input[value=word]').check();
    await settled(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at 390 px`);
    await page.screenshot({ path: path.join(OUT, 'global-view-390.png'), fullPage: true });

    // the toy link opens the Localization view
    await page.locator('#gv-toy-link').click();
    assert.match(page.url(), /view=localization/);
    assert.ok(await page.locator('#loc-toy-card').isVisible());
    assert.deepEqual(page.errors, []);
  });
});
