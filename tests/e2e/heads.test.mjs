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
  // The drawn lines, read back from the bands (one <path> per head and opacity band: its segments in d, the same
  // lines as "from-to" pairs in data-lines): [{head, from, to, opacity, y1, y2}], and the svg's opacity scale.
  const lines = (page) => page.$eval('.hv-svg', (svg) => {
    const out = [];
    for (const p of svg.querySelectorAll('.hv-lines path')) {
      const pairs = p.dataset.lines.split(' ').map((x) => x.split('-').map(Number));
      const segs = [...p.getAttribute('d').matchAll(/M([-\d.]+) ([-\d.]+)L([-\d.]+) ([-\d.]+)/g)].map((m) => [Number(m[2]), Number(m[4])]);
      if (segs.length !== pairs.length) throw new Error(`a band has ${segs.length} segments and ${pairs.length} pairs`);
      pairs.forEach(([from, to], k) => out.push({ head: Number(p.parentNode.dataset.head), from, to,
        opacity: Number(p.getAttribute('stroke-opacity')), y1: segs[k][0], y2: segs[k][1] }));
    }
    return { lines: out, scale: Number(svg.dataset.opacityScale) };
  });
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

  // One head's bands against the CLI's weights: every line of opacity ≥ 0.00005 drawn once, none other, at its
  // weight × scale to two significant digits (≤ 5 %), each segment at its tokens' rows.
  function assertLayerHead({ lines: got, scale }, layer, head) {
    const A = expected.attention_layers[layer][head];
    const n = A.length;
    assert.equal(n, expected.tokens.length + 1);
    assert.ok(scale >= 1, 'the opacity scale makes the largest weight opaque');
    const drawn = new Map();
    const rowY = { from: new Map(), to: new Map() };
    let d = 0;
    for (const l of got) {
      assert.equal(l.head, head);
      const key = `${l.from}-${l.to}`;
      assert.ok(!drawn.has(key), `line ${key} drawn twice`);
      drawn.set(key, l);
      for (const [side, i, yy] of [['from', l.from, l.y1], ['to', l.to, l.y2]]) {
        if (!rowY[side].has(i)) rowY[side].set(i, yy);
        assert.equal(rowY[side].get(i), yy, `the ${side} end of row ${i} at one height`);
      }
      const want = Math.min(1, A[l.from][l.to] * scale);
      d = Math.max(d, Math.abs(l.opacity - want) / want);
    }
    for (const side of ['from', 'to']) {
      const ys = [...rowY[side]].sort((a, b) => a[0] - b[0]).map(([, yy]) => yy);
      assert.ok(ys.every((yy, k) => k === 0 || yy > ys[k - 1]), `${side} rows top to bottom in token order`);
    }
    let expectedLines = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (Math.min(1, A[i][j] * scale) >= 0.00005) ++expectedLines;
    assert.equal(drawn.size, expectedLines, `the lines of opacity ≥ 0.00005 of ${n} × ${n}`);
    assert.ok(d <= 0.05, `layer ${layer + 1} head ${head + 1}: stroke opacity vs the CLI's weight × scale off by ${(100 * d).toFixed(2)} %`);
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
    const visible = await page.$$eval('.hv-hl path', (ls) => ls.map((l) => ({ from: Number(l.dataset.from), to: Number(l.dataset.to), weight: Number(l.dataset.weight) })));
    assert.equal(visible.length, expected.tokens.length + 1);
    assert.ok(visible.every((l) => l.from === 2), `the highlighted lines come from query rows ${[...new Set(visible.map((l) => l.from))]}, not 2 only`);
    // the hovered row's weights exactly (the bands carry them to two digits)
    const dRow = Math.max(...visible.map((l) => Math.abs(l.weight - expected.attention_layers[0][0][2][l.to])));
    assert.ok(dRow <= 1e-5, `hovered row 2: max |Δweight| vs the CLI = ${dRow}`);
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
    const shown = await lines(page);
    assertLayerHead(shown, 0, 2);
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
    // the head view exports as vector SVG (page-tools' export bar on its .chart): every drawn line a segment
    await page.locator('.hv-chart .export-svg').click();
    const svg = await page.waitForFunction(() => window.__attnlabLastSvg, null, { timeout: 10_000 }).then((h) => h.jsonValue());
    const exported = [...svg.matchAll(/data-lines="([^"]*)"/g)].flatMap((m) => m[1].split(' '));
    assert.equal(exported.length, shown.lines.length);
    assert.equal((svg.match(/L[-\d.]+ [-\d.]+/g) ?? []).length, shown.lines.length, 'one segment per drawn line');

    // a fresh page from the link restores layer 2, heads 2 and 4
    const link = `#model=${MODEL}&text=${encodeURIComponent(SENTENCE)}&hlayer=2&hheads=2,4`;
    const again = await openPage(link);
    await waitHeads(again);
    assert.equal(await again.inputValue('#hv-layer'), '1');
    const got = await lines(again);
    assert.deepEqual([...new Set(got.lines.map((l) => l.head))], [1, 3]);
    assertLayerHead({ ...got, lines: got.lines.filter((l) => l.head === 1) }, 1, 1);
    assertLayerHead({ ...got, lines: got.lines.filter((l) => l.head === 3) }, 1, 3);
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
