// text.test.mjs — browser end-to-end test of the text view (headless Chromium via playwright-core).
//
// Starts scripts/serve.mjs in-process on port 0, opens /web/ and checks: the shown probability equals
// the native CLI's (`build/attnlab explain-text`) to 1e-4, one cell per token in every row, the empty-text
// hint, markup shown literally, emoji/CJK/Arabic layout, binary garbage and a lone surrogate, the 100k-character limit notice with the page
// staying responsive, the URL hash round trip, and a BiLSTM's conicity line (none for a transformer). Saves tests/e2e/out/text.png (look at it).
// Skips — with the reason printed — only when web/gen (the wasm build) or the sst2-tanh model is missing.
// ATTNLAB_E2E_MODELS=/path/to/models serves another models/ tree (for trying throw-away models).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { displayToken } from '../../web/analysis/display.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODELS = path.resolve(process.env.ATTNLAB_E2E_MODELS ?? path.join(REPO, 'models'));
const MODEL = 'sst2-tanh';
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const SENTENCE = 'A gripping story with superb acting, though the ending is a bit weak.';
const TIMEOUT = 120_000;

const missing = [];
if (!fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.mjs')) || !fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm'))) {
  missing.push('web/gen/attnlab_core.{mjs,wasm} (build it: bash scripts/build-wasm.sh)');
}
if (!fs.existsSync(path.join(MODELS, 'text/manifest.json')) || !fs.existsSync(path.join(MODELS, 'text', MODEL, 'config.json'))) {
  missing.push(`the ${MODEL} model under ${path.relative(REPO, MODELS) || MODELS}/text/ (manifest.json + ${MODEL}/)`);
}
const SKIP = missing.length ? `the browser test needs ${missing.join(' and ')}` : false;

function cliExplain(modelName, text) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing — build it: cmake -S . -B build && cmake --build build`);
  const out = execFileSync(CLI, ['explain-text', '--model', path.join(MODELS, 'text', modelName), '--text', text], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

// Skipped as one counted test (a skipped suite would show "skipped 0" in the summary).
if (SKIP) test('text view in the browser', { skip: SKIP }, () => {});
else describe('text view in the browser', { timeout: 15 * 60_000 }, () => {
  let server;
  let ctx;
  let serveRoot;
  let manifest;

  before(async () => {
    manifest = JSON.parse(fs.readFileSync(path.join(MODELS, 'text/manifest.json'), 'utf8'));
    let root = REPO;
    if (process.env.ATTNLAB_E2E_MODELS) {
      // A throw-away root: the real web/ and node_modules/, another models/.
      serveRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-e2e-root-'));
      fs.symlinkSync(path.join(REPO, 'web'), path.join(serveRoot, 'web'));
      fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(serveRoot, 'node_modules'));
      fs.symlinkSync(MODELS, path.join(serveRoot, 'models'));
      root = serveRoot;
    }
    server = await startServer({ port: 0, root });
    ctx = await launchChromium({ viewport: { width: 1200, height: 900 } });
    fs.mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
    if (serveRoot) fs.rmSync(serveRoot, { recursive: true, force: true });
  });

  // A page that records uncaught errors and console errors; the test fails if any appear.
  const openPage = (hash = '') => openRecordingPage(ctx, `${server.url}/web/${hash}`);

  async function waitSettled(page, wanted = 'ready') {
    await page.waitForFunction(
      () => ['ready', 'empty', 'error'].includes(document.querySelector('#view-text')?.dataset.status),
      null,
      { timeout: 90_000 },
    );
    const status = await page.locator('#view-text').getAttribute('data-status');
    if (status !== wanted) {
      const msg = await page.locator('#text-message').textContent();
      assert.fail(`expected status "${wanted}", got "${status}" (message: ${msg})`);
    }
  }

  async function cellsPerRow(page) {
    return page.$$eval('.measure-row', (rows) =>
      rows.map((r) => ({
        measure: r.dataset.measure,
        cells: Array.from(r.querySelectorAll('.tokens > .tok'), (c) => c.textContent),
      })),
    );
  }

  async function assertRowsMatch(page, expected) {
    const rows = await cellsPerRow(page);
    assert.deepEqual(rows.map((r) => r.measure), ['attention', 'gradient', 'leave_one_out', 'integrated_gradients']);
    // Cells show the token as written (-lrb- → "(", `` → “: web/analysis/display.js).
    for (const r of rows) assert.deepEqual(r.cells, expected.tokens.map(displayToken), `row ${r.measure}: one cell per token, in order`);
  }

  async function assertNoHorizontalOverflow(page) {
    const o = await page.evaluate(() => ({
      doc: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      rows: Array.from(document.querySelectorAll('.tokens'), (t) => t.scrollWidth - t.clientWidth),
    }));
    assert.ok(o.doc <= 0, `page scrolls horizontally by ${o.doc}px`);
    for (const r of o.rows) assert.ok(r <= 0, `a token row overflows by ${r}px`);
  }

  test('first open: the default sentence is explained, no errors', { timeout: TIMEOUT }, async () => {
    const page = await openPage();
    await waitSettled(page);
    assert.ok((await page.inputValue('#text-input')).length > 0);
    assert.equal(await page.isVisible('#text-message'), false);
    assert.equal(await page.isVisible('#app-message'), false);
    const names = await page.$$eval('#model-select option', (os) => os.map((o) => o.value));
    assert.deepEqual(names, manifest.models.map((m) => m.name));
    assert.equal(await page.inputValue('#model-select'), MODEL);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('typed sentence: probability equals the native CLI; one cell per token in each row', { timeout: TIMEOUT }, async () => {
    const expected = cliExplain(MODEL, SENTENCE);
    const page = await openPage(`#model=${MODEL}&text=`);
    await waitSettled(page, 'empty');
    await page.locator('#text-input').pressSequentially(SENTENCE, { delay: 5 }); // types: exercises debounce + stale drops
    await waitSettled(page);
    const shown = Number(await page.locator('#probability').getAttribute('data-probability'));
    assert.ok(Math.abs(shown - expected.probability) <= 1e-4, `page ${shown} vs CLI ${expected.probability}`);
    await assertRowsMatch(page, expected);
    // Hover titles carry the exact numbers.
    const title = await page.locator('.measure-row[data-measure=attention] .tok').first().getAttribute('title');
    assert.match(title, /Attention: \d/);
    const att = await page.$$eval('.measure-row[data-measure=attention] .tok', (cs) => cs.map((c) => Number(c.dataset.value)));
    att.forEach((v, i) => assert.ok(Math.abs(v - expected.attention[i]) < 1e-4, `attention[${i}] ${v} vs ${expected.attention[i]}`));
    // Kendall tau is shown for each non-attention row.
    const taus = await page.$$eval('.measure-row .measure-tau', (els) => els.map((e) => e.textContent));
    assert.equal(taus.length, 4);
    for (const t of taus.slice(1)) assert.match(t, /τ/);
    await assertNoHorizontalOverflow(page);
    await page.screenshot({ path: path.join(OUT, 'text.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // Issue 32: a BiLSTM's conicity (Mohankumar et al. 2020) beside the attention row, as explain-text gives it; none
  // for a transformer (its conicity is null).
  test('conicity: shown for a BiLSTM (= the CLI\'s, in [0, 1]), absent for a transformer', { timeout: TIMEOUT }, async () => {
    const text = 'The acting is superb, but the plot is a mess.';
    const expected = cliExplain(MODEL, text);
    const page = await openPage(`#model=${MODEL}&text=${encodeURIComponent(text)}`);
    await waitSettled(page);
    const line = page.locator('#token-rows .conicity-line');
    assert.equal(await line.count(), 1);
    const c = Number(await line.getAttribute('data-conicity'));
    assert.ok(c >= 0 && c <= 1, `conicity ${c} in [0, 1]`);
    assert.ok(Math.abs(c - expected.conicity) <= 1e-4, `page ${c} vs CLI ${expected.conicity}`);
    assert.match(await line.textContent(), new RegExp(`^Conicity of the hidden states: ${c.toFixed(3)} — how parallel the hidden states are: near 1, ` +
      'permuting attention changes little \\(Mohankumar et al\\. 2020\\)\\.$'));
    // just above the attention row, inside the card
    assert.equal(await page.$eval('#token-rows .conicity-line', (p) => p.nextElementSibling?.firstElementChild?.dataset.measure), 'attention');
    await assertNoHorizontalOverflow(page);
    const transformer = manifest.models.find((m) => m.encoder === 'transformer');
    if (transformer) {
      await page.selectOption('#model-select', transformer.name);
      await page.waitForFunction((m) => document.getElementById('text-status').textContent.startsWith(m), transformer.name, { timeout: 90_000 });
      await waitSettled(page);
      assert.equal(await page.locator('#token-rows .conicity-line').count(), 0, `${transformer.name}: no conicity line`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // Round four on another data set (issue 32): agnews-ortho explains with its conicity (= the CLI's); the "Try:"
  // sentences follow the picked model's data set (news for AG News, movie lines for SST-2) and a chip explains itself.
  test('the Try sentences follow the model\'s data set; agnews-ortho\'s conicity = the CLI\'s', { timeout: TIMEOUT }, async () => {
    const text = 'Stocks fell as the bank raised interest rates.';
    const expected = cliExplain('agnews-ortho', text);
    const page = await openPage(`#model=agnews-ortho&text=${encodeURIComponent(text)}`);
    await waitSettled(page);
    const c = Number(await page.getAttribute('#token-rows .conicity-line', 'data-conicity'));
    assert.ok(Math.abs(c - expected.conicity) <= 1e-4, `page ${c} vs CLI ${expected.conicity}`);
    const chips = () => page.$$eval('#view-text .examples button.example', (bs) => bs.map((b) => b.textContent));
    const news = await chips();
    assert.equal(news.length, 4);
    assert.match(news[0], /^Oil prices rose/);
    await page.click('#view-text .examples button.example >> nth=0');
    await page.waitForFunction((t) => document.getElementById('text-input').value === t, news[0]);
    await waitSettled(page);
    assert.equal(await page.locator('#token-rows .measure-row[data-measure="attention"] .tok').count() > 0, true);
    await page.selectOption('#model-select', 'sst2-tanh');
    await page.waitForFunction(() => /^A masterpiece/.test(document.querySelector('#view-text .examples button.example')?.textContent ?? ''));
    assert.equal((await chips()).length, 4, 'the chips are replaced, not added');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('empty text shows the hint, not an error', { timeout: TIMEOUT }, async () => {
    const page = await openPage(`#text=${encodeURIComponent('a fine film')}`);
    await waitSettled(page);
    await page.fill('#text-input', '');
    await waitSettled(page, 'empty');
    assert.equal(await page.isVisible('#text-hint'), true);
    assert.equal(await page.isVisible('#text-message'), false);
    assert.equal(await page.isVisible('#text-results'), false);
    await page.fill('#text-input', '   \n  ');
    await waitSettled(page, 'empty');
    assert.equal(await page.isVisible('#text-hint'), true);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('markup in the text is shown literally, never parsed', { timeout: TIMEOUT }, async () => {
    const text = '<b>bold</b> <img src=x onerror="window.__pwned=1"> movie';
    const expected = cliExplain(MODEL, text);
    const page = await openPage();
    await waitSettled(page);
    await page.fill('#text-input', text);
    await waitSettled(page);
    await assertRowsMatch(page, expected);
    assert.equal(await page.locator('.measure-rows .tok *, .measure-rows b, .measure-rows img, #text-results img').count(), 0);
    const all = (await page.locator('.measure-row[data-measure=attention] .tokens').textContent()) ?? '';
    assert.match(all, /</);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('emoji, CJK and Arabic render without breaking the layout', { timeout: TIMEOUT }, async () => {
    const text = 'I loved it 😀👍🏽 とても良い映画でした 这部电影很好 هذا الفيلم رائع جدا and the ending 🎬!';
    const expected = cliExplain(MODEL, text);
    const page = await openPage();
    await waitSettled(page);
    await page.fill('#text-input', text);
    await waitSettled(page);
    await assertRowsMatch(page, expected);
    await assertNoHorizontalOverflow(page);
    // Every cell isolates its direction; the token order stays the sentence order.
    const bidi = await page.$$eval('.measure-row .tok', (cs) => cs.every((c) => c.dir === 'auto' && getComputedStyle(c).unicodeBidi === 'isolate'));
    assert.ok(bidi);
    const shown = Number(await page.locator('#probability').getAttribute('data-probability'));
    assert.ok(Math.abs(shown - expected.probability) <= 1e-4);
    await page.screenshot({ path: path.join(OUT, 'text-unicode.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // docs/RELIABILITY.md "Bad input, end to end": binary garbage and a lone surrogate are explained (or give the
  // hint), stay in the box as typed, and raise no error; the link holds the surrogate as U+FFFD.
  test('binary garbage and a lone surrogate: explained, kept in the box, no error', { timeout: TIMEOUT }, async () => {
    const page = await openPage();
    await waitSettled(page);
    const garbage = `${Array.from({ length: 400 }, (_, i) => String.fromCharCode(1 + ((i * 97 + 13) % 255))).join('').replace(/\r/g, '')} good`;
    await page.fill('#text-input', garbage);
    await page.waitForFunction(() => document.querySelector('#view-text').dataset.status !== 'pending', null, { timeout: 90_000 });
    await waitSettled(page);
    assert.equal(await page.inputValue('#text-input'), garbage, 'the text stays as typed');
    let n = (await cellsPerRow(page))[0].cells.length;
    assert.ok(n > 0 && n <= 200, `${n} tokens shown`);
    // The lone surrogates are made in the page (the DevTools protocol would carry them as U+FFFD), as typing does.
    await page.evaluate(() => {
      const box = document.querySelector('#text-input');
      box.value = `a good film ${String.fromCharCode(0xd800)} with a lone surrogate ${String.fromCharCode(0xdfff)} indeed`;
      box.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => document.querySelector('#view-text').dataset.status !== 'pending', null, { timeout: 90_000 });
    await waitSettled(page);
    assert.deepEqual(await page.evaluate(() => { const v = document.querySelector('#text-input').value; return [v.charCodeAt(12), v.charCodeAt(36)]; }),
      [0xd800, 0xdfff], 'the lone surrogates stay in the box');
    n = (await cellsPerRow(page))[0].cells.length;
    assert.ok(n >= 8 && n <= 12, `${n} tokens shown`);
    const link = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('text'));
    assert.equal(link, 'a good film \uFFFD with a lone surrogate \uFFFD indeed');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('100k characters: the limit notice shows and the page stays responsive', { timeout: TIMEOUT }, async () => {
    const page = await openPage();
    await waitSettled(page);
    const unit = 'the film is long but good , ';
    const long = unit.repeat(Math.ceil(100_000 / unit.length)).slice(0, 100_000);
    // Watch the main thread while the long text is processed: a 10 ms timer records the view's status at each tick.
    // The work runs in the worker, so the main thread keeps ticking while the view says 'pending' (no wall-clock
    // limit: a blocked main thread would record no tick in that state at all, however fast the machine).
    await page.evaluate(() => {
      window.__ticks = [];
      window.__tick = setInterval(() => window.__ticks.push(document.querySelector('#view-text').dataset.status), 10);
    });
    await page.fill('#text-input', long);
    await waitSettled(page);
    const ticks = await page.evaluate(() => {
      clearInterval(window.__tick);
      return window.__ticks;
    });
    const busy = ticks.filter((st) => st === 'pending').length;
    console.log(`# 100k characters: ${busy} of ${ticks.length} timer ticks while the view was pending`);
    assert.ok(busy >= 3, `the main thread ran timers while the worker computed (${busy} of ${ticks.length} ticks in 'pending')`);
    const notice = await page.locator('#text-notice').textContent();
    assert.equal(await page.isVisible('#text-notice'), true);
    assert.match(notice, /first 200 of [\d,]+ tokens/);
    const rows = await cellsPerRow(page);
    for (const r of rows) assert.equal(r.cells.length, 200, `row ${r.measure}`);
    assert.ok((await page.evaluate(() => location.href.length)) < 5000, 'the long text must stay out of the URL');
    // Still usable: a short text replaces it and the notice goes away.
    await page.fill('#text-input', 'a fine film');
    await waitSettled(page);
    assert.equal(await page.isVisible('#text-notice'), false);
    assert.equal((await cellsPerRow(page))[0].cells.length, 3);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('the URL hash round-trips: a link restores text and model, edits update the link', { timeout: TIMEOUT }, async () => {
    const other = manifest.models.find((m) => m.name !== MODEL) ?? manifest.models[0];
    const text = 'not bad at all — 映画 & friends?';
    const page = await openPage(`#view=text&model=${encodeURIComponent(other.name)}&text=${encodeURIComponent(text)}`);
    await waitSettled(page);
    assert.equal(await page.inputValue('#text-input'), text);
    assert.equal(await page.inputValue('#model-select'), other.name);
    const expected = cliExplain(other.name, text);
    const shown = Number(await page.locator('#probability').getAttribute('data-probability'));
    assert.ok(Math.abs(shown - expected.probability) <= 1e-4, `${other.name}: page ${shown} vs CLI ${expected.probability}`);

    // Edits are mirrored into the hash …
    await page.selectOption('#model-select', MODEL);
    await page.fill('#text-input', 'a quietly moving film');
    await waitSettled(page);
    const hash = await page.evaluate(() => location.hash);
    const params = new URLSearchParams(hash.slice(1));
    assert.equal(params.get('text'), 'a quietly moving film');
    assert.equal(params.get('model'), null, 'the default model is left out of the link');
    // … so a reload reproduces the view.
    await page.reload();
    await waitSettled(page);
    assert.equal(await page.inputValue('#text-input'), 'a quietly moving film');
    assert.equal(await page.inputValue('#model-select'), MODEL);
    // Editing the hash by hand updates the page.
    await page.evaluate((m) => {
      location.hash = `model=${m}&text=${encodeURIComponent('terrible')}`;
    }, other.name);
    await page.waitForFunction(() => document.querySelector('#text-input').value === 'terrible');
    await waitSettled(page);
    assert.equal(await page.inputValue('#model-select'), other.name);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // A throw-away served tree: a copy of web/ (optionally without gen/) and a models/text/ with the given
  // manifest plus a copy of sst2-tanh. Copies, not links: the server refuses links that leave a mount.
  function makeRoot({ gen, manifest: m }) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-e2e-broken-'));
    fs.cpSync(path.join(REPO, 'web'), path.join(root, 'web'), {
      recursive: true,
      filter: (src) => gen || !src.startsWith(path.join(REPO, 'web', 'gen')),
    });
    if (m) {
      fs.mkdirSync(path.join(root, 'models/text'), { recursive: true });
      fs.writeFileSync(path.join(root, 'models/text/manifest.json'), JSON.stringify(m));
      fs.cpSync(path.join(MODELS, 'text', MODEL), path.join(root, 'models/text', MODEL), { recursive: true });
    }
    return root;
  }

  async function withServer(root, fn) {
    const s = await startServer({ port: 0, root });
    const page = await ctx.newPage();
    try {
      await fn(page, s.url);
    } finally {
      await page.close();
      await s.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }

  test('failures show clear messages and the page keeps working', { timeout: TIMEOUT }, async () => {
    const tanh = manifest.models.find((m) => m.name === MODEL);
    const messageOf = (page) => page.locator('#text-message').textContent();

    // No model list at all.
    await withServer(makeRoot({ gen: true, manifest: null }), async (page, url) => {
      await page.goto(`${url}/web/`);
      await waitSettled(page, 'error');
      assert.match(await messageOf(page), /model list .*HTTP 404/);
    });

    // The WebAssembly core was never built.
    await withServer(makeRoot({ gen: false, manifest: { models: [tanh] } }), async (page, url) => {
      await page.goto(`${url}/web/`);
      await waitSettled(page, 'error');
      assert.match(await messageOf(page), /WebAssembly core is missing.*build-wasm\.sh/s);
    });

    // Wrong checksum, missing weights — then a good model still works.
    const broken = [
      { ...tanh, name: 'bad-sha', sha256: { ...tanh.sha256, weights: '0'.repeat(64) } },
      { ...tanh, name: 'no-weights', path: 'nowhere/' },
      tanh,
    ];
    await withServer(makeRoot({ gen: true, manifest: { models: broken } }), async (page, url) => {
      await page.goto(`${url}/web/#model=bad-sha&text=fine`);
      await waitSettled(page, 'error');
      assert.match(await messageOf(page), /does not match its sha256/);
      await page.selectOption('#model-select', 'no-weights');
      await waitSettled(page, 'error');
      assert.match(await messageOf(page), /no-weights.*models\/text\/nowhere\/.*HTTP 404/);
      await page.selectOption('#model-select', MODEL);
      await waitSettled(page);
      assert.equal(await page.isVisible('#text-message'), false);
      assert.equal(await page.isVisible('#text-results'), true);
    });
  });

  test('an unknown model in the link falls back with a message', { timeout: TIMEOUT }, async () => {
    const page = await openPage('#model=no-such-model&text=fine');
    await waitSettled(page);
    assert.equal(await page.inputValue('#model-select'), 'sst2-tanh', 'the default model, not the first in the list (issue 15)');
    assert.match(await page.locator('#text-notice').textContent(), /not available here; showing sst2-tanh instead/);
    await page.close();
  });
});
