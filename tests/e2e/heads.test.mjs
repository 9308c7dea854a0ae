// heads.test.mjs — browser end-to-end test of the head view and model view (views/heads-view.js) with the shipped
// transformer: open the page with sst2-transformer selected, type a sentence, check that the head view draws
// n × n lines (n = T + 1 positions, [CLS] first) for the chosen head with the weights of the native CLI
// (`build/attnlab explain-text` attention_layers, 1e-5), that hovering a token keeps only its row, that the
// layer picker switches layers, that a model-view thumbnail opens its layer and head and writes them to the URL,
// and that the URL restores the selection in a fresh page; a BiLSTM model shows the one-sentence note instead.
// No console errors. Saves tests/e2e/out/heads-1280.png and heads-390.png (look at them).
// Skips — with the reason printed — only when web/gen, build/attnlab or the sst2-transformer model is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL = 'sst2-transformer';
const MODEL_DIR = path.join(REPO, 'models/text', MODEL);
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const SENTENCE = 'A gripping story, though the ending is weak.';
const TIMEOUT = 120_000;

const missing = [];
if (!fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.mjs'))) missing.push('web/gen (bash scripts/build-wasm.sh)');
if (!fs.existsSync(path.join(MODEL_DIR, 'config.json'))) missing.push(`models/text/${MODEL}`);
if (!fs.existsSync(CLI)) missing.push('build/attnlab');
const SKIP = missing.length ? `the head-view test needs ${missing.join(' and ')}` : false;

const cliExplain = (text) => JSON.parse(execFileSync(CLI, ['explain-text', '--model', MODEL_DIR, '--text', text, '--ig-steps', '0'],
  { encoding: 'utf8', maxBuffer: 64 << 20 }).trim().split('\n').at(-1));

if (SKIP) test('head view in the browser', { skip: SKIP }, () => {});
else describe('head view in the browser', { timeout: 5 * 60_000 }, () => {
  let server;
  let ctx;
  let expected;

  before(async () => {
    expected = cliExplain(SENTENCE);
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1280, height: 900 } });
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  const openPage = (hash) => openRecordingPage(ctx, `${server.url}/web/${hash}`);
  const waitHeads = async (page, wanted = 'ready') => {
    await page.waitForFunction((w) => [w, 'error'].includes(document.querySelector('#heads-panel')?.dataset.heads),
      wanted, { timeout: 60_000 });
    const got = await page.locator('#heads-panel').getAttribute('data-heads');
    if (got !== wanted) assert.fail(`heads panel: expected ${wanted}, got ${got} (${await page.locator('#heads-panel').textContent()})`);
  };
  // The drawn lines: [{head, from, to, weight}].
  const lines = (page) => page.$$eval('.hv-lines path', (ls) => ls.map((l) => ({
    head: Number(l.parentNode.dataset.head), from: Number(l.closest('.hv-from').dataset.from), to: Number(l.dataset.to), weight: Number(l.dataset.weight),
    opacity: Number(l.getAttribute('stroke-opacity')), scale: Number(l.ownerSVGElement.dataset.opacityScale),
  })));
  // Resolves once the element's box has not moved for 5 consecutive animation frames.
  const waitStill = (page, selector) => page.evaluate((sel) => new Promise((resolve, reject) => {
    let last = '';
    let still = 0;
    let frames = 0;
    const tick = () => {
      const r = document.querySelector(sel)?.getBoundingClientRect();
      const key = r ? `${r.x},${r.y},${r.width},${r.height}` : '';
      still = key && key === last ? still + 1 : 0;
      last = key;
      if (still >= 5) resolve();
      else if (++frames > 600) reject(new Error(`${sel} kept moving`));
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }), selector);
  const hash = async (page) => new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));

  function assertLayerHead(got, layer, head) {
    const A = expected.attention_layers[layer][head];
    const n = A.length;
    assert.equal(n, expected.tokens.length + 1);
    assert.equal(got.length, n * n, `${n} × ${n} lines for one head`);
    let d = 0;
    for (const l of got) {
      assert.equal(l.head, head);
      d = Math.max(d, Math.abs(l.weight - A[l.from][l.to]));
      assert.ok(l.scale >= 1 && Math.abs(l.opacity - Math.min(1, l.weight * l.scale)) < 1e-3, 'stroke opacity ∝ weight');
    }
    assert.ok(d <= 1e-5, `layer ${layer + 1} head ${head + 1}: max |Δweight| vs the CLI = ${d}`);
  }

  test('type a sentence: one head draws n × n lines; layers switch; a thumbnail opens its head; the URL restores it', { timeout: TIMEOUT }, async () => {
    const page = await openPage(`#model=${MODEL}&text=&hheads=1`);
    await page.waitForFunction(() => document.querySelector('#view-text')?.dataset.status === 'empty', null, { timeout: 60_000 });
    await page.locator('#text-input').fill(SENTENCE);
    await waitHeads(page);
    assert.equal(await page.inputValue('#hv-layer'), '0');
    assertLayerHead(await lines(page), 0, 0);
    const pressed = await page.$$eval('.hv-head', (bs) => bs.map((b) => b.getAttribute('aria-pressed')));
    assert.deepEqual(pressed, ['true', 'false', 'false', 'false']);

    // hover a query token: only its n lines stay visible. The other panels are still filling in when the head view
    // is ready; a layout shift under a resting pointer moves the hover to a neighbour, so wait for the text view
    // to be done and the token to stay put for a few frames before pointing at it.
    await page.waitForFunction(() => document.querySelector('#view-text')?.dataset.status === 'ready', null, { timeout: 60_000 });
    await waitStill(page, '.hv-tok[data-side=from][data-index="2"]');
    await page.locator('.hv-tok[data-side=from][data-index="2"]').hover();
    assert.equal(await page.$eval('.hv-lines', (g) => getComputedStyle(g).display), 'none');
    const visible = await page.$$eval('.hv-hl path', (ls) => ls.map((l) => Number(l.dataset.from)));
    assert.equal(visible.length, expected.tokens.length + 1);
    assert.ok(visible.every((f) => f === 2), `the highlighted lines come from query rows ${[...new Set(visible)]}, not 2 only`);
    assert.match(await page.locator('.hv-readout').textContent(), /attends most to/);
    // keyboard: focus moves along the column and the readout follows
    await page.locator('.hv-tok[data-side=from][data-index="2"]').focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.index), '3');

    // switch layers with the picker
    await page.selectOption('#hv-layer', '1');
    assertLayerHead(await lines(page), 1, 0);
    assert.equal((await hash(page)).get('hlayer'), '2');

    // model view: L × H thumbnails; clicking layer 1, head 3 opens it
    assert.equal(await page.locator('.mv-thumb').count(), expected.attention_layers.length * expected.attention_layers[0].length);
    assert.equal(await page.locator('.mv-extra[data-kind=rollout]').count(), expected.attention_layers.length);
    await page.locator('.mv-thumb[data-layer="0"][data-head="2"]').click();
    assertLayerHead(await lines(page), 0, 2);
    const h = await hash(page);
    assert.equal(h.get('hlayer'), null, 'layer 1 is the default, left out of the link');
    assert.equal(h.get('hheads'), '3');
    assert.equal(await page.getAttribute('.mv-thumb[data-layer="0"][data-head="2"]', 'aria-pressed'), 'true');
    // rollout / flow [CLS] columns, labelled, one cell per token
    for (const kind of ['raw', 'rollout', 'flow']) {
      assert.equal(await page.locator(`.mv-cls-table >> nth=0 >> td[data-kind=${kind}]`).count(), expected.tokens.length);
    }
    const flowTop = await page.$$eval('.mv-cls-table', (ts) => Array.from(ts.at(-1).querySelectorAll('td[data-kind=flow]'), (c) => Number(c.dataset.value)));
    flowTop.forEach((v, i) => assert.ok(Math.abs(v - expected.flow[i]) < 1e-5, `flow[${i}] ${v} vs CLI ${expected.flow[i]}`));
    await page.screenshot({ path: path.join(OUT, 'heads-1280.png'), fullPage: true });
    // the head view exports as vector SVG (page-tools' export bar on its .chart): every line a path
    await page.locator('.hv-chart .export-svg').click();
    const svg = await page.waitForFunction(() => window.__attnlabLastSvg, null, { timeout: 10_000 }).then((h) => h.jsonValue());
    assert.equal((svg.match(/<path /g) ?? []).length, (expected.tokens.length + 1) ** 2);

    // a fresh page from the link restores layer 2, heads 2 and 4
    const link = `#model=${MODEL}&text=${encodeURIComponent(SENTENCE)}&hlayer=2&hheads=2,4`;
    const again = await openPage(link);
    await waitHeads(again);
    assert.equal(await again.inputValue('#hv-layer'), '1');
    const got = await lines(again);
    assert.equal(got.length, 2 * (expected.tokens.length + 1) ** 2);
    assertLayerHead(got.filter((l) => l.head === 1), 1, 1);
    assertLayerHead(got.filter((l) => l.head === 3), 1, 3);
    assert.deepEqual(await again.$$eval('.hv-head', (bs) => bs.map((b) => b.getAttribute('aria-pressed'))), ['false', 'true', 'false', 'true']);
    assert.deepEqual(again.errors, []);
    await again.close();
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('390 px wide: readable, no horizontal page scroll; a BiLSTM shows the one-sentence note', { timeout: TIMEOUT }, async () => {
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/web/#model=${MODEL}&text=${encodeURIComponent(SENTENCE)}&hlayer=2`);
    await waitHeads(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `page scrolls horizontally by ${overflow}px`);
    const svgWidth = await page.$eval('.hv-svg', (s) => s.getBoundingClientRect().width);
    assert.ok(svgWidth >= 280, `head view is ${svgWidth}px wide`);
    await page.locator('#heads-panel').screenshot({ path: path.join(OUT, 'heads-390.png') });
    await page.selectOption('#model-select', 'sst2-tanh');
    await waitHeads(page, 'na');
    assert.match(await page.locator('.heads-na').textContent(), /BiLSTM/);
    assert.equal(await page.locator('.heads-card').isVisible(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
