// which-method.test.mjs — "Which method?" (issue 30) in the Text tab on sst2-transformer: the live ERASER panel
// scores all fourteen measures (attention, gradient, leave-one-out, IG, the transformer's readings, AttnLRP, CP-LRP,
// value zeroing, ALTI, random; signed ones ranked most positive first) with the native CLI's values, ranks them by the chosen metric (comprehensiveness:
// higher first; sufficiency: lower first), names the most faithful one, and keeps the reader's metric across
// sentences; a BiLSTM's panel ranks its five.
// Run: node --test tests/e2e/which-method.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { label } from '../../web/experiments-info.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'build/attnlab');
const MODEL = path.join(REPO, 'models/text/sst2-transformer');
const TEXT = 'The plot is awful, but the acting is superb.';
const TIMEOUT = 240_000;
const SKIP = !fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? 'needs web/gen'
  : !fs.existsSync(CLI) ? 'needs build/attnlab' : !fs.existsSync(path.join(MODEL, 'config.json')) ? 'needs models/text/sst2-transformer' : false;

function cliEraserRow(text, model) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-which-'));
  try {
    fs.writeFileSync(path.join(dir, 'data.tsv'), `1\t${text}\n`);
    execFileSync(CLI, ['experiment', 'eraser', '--model', model, '--data', path.join(dir, 'data.tsv'), '--out', path.join(dir, 'out.json'), '--seed', '1',
      '--param', 'ranking=signed'],
      { stdio: ['ignore', 'ignore', 'ignore'] });
    return JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8')).rows[0];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const PANEL = '.live-panel[data-experiment="eraser"]';

async function shown(page) {
  return page.$$eval(`${PANEL} .eraser-table tbody tr`, (trs) => trs.map((tr) => ({
    measure: tr.dataset.measure,
    rank: tr.querySelector('td.rank').textContent,
    c: Number(tr.querySelectorAll('td.aopc')[0].dataset.value),
    s: Number(tr.querySelectorAll('td.aopc')[1].dataset.value),
  })));
}

async function waitEraser(page) {
  await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.status === 'ready', PANEL, { timeout: TIMEOUT });
}

test('Which method? ranks every measure on the typed sentence, by the chosen metric', { timeout: TIMEOUT * 2, skip: SKIP }, async () => {
  const cli = cliEraserRow(TEXT, MODEL);
  const names = Object.keys(cli.measures);
  assert.equal(names.length, 14, 'the transformer has fourteen measures');
  for (const m of ['attnlrp', 'cp_lrp', 'value_zeroing', 'alti', 'relevance', 'random']) assert.ok(names.includes(m), m);
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1200, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=text&model=sst2-transformer&text=${encodeURIComponent(TEXT)}`);
    await waitEraser(page);
    let rows = await shown(page);
    assert.equal(rows.length, 14);
    for (const r of rows) {
      assert.ok(Math.abs(r.c - cli.measures[r.measure].aopc_comprehensiveness) < 1e-6, `${r.measure} comprehensiveness: page ${r.c} vs CLI`);
      assert.ok(Math.abs(r.s - cli.measures[r.measure].aopc_sufficiency) < 1e-6, `${r.measure} sufficiency: page ${r.s} vs CLI`);
    }
    // comprehensiveness (the default): higher first, ranks 1.., the verdict names the top non-random method
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].c >= rows[i].c, `comprehensiveness order at ${i}`);
    assert.equal(rows[0].rank, '1');
    const best = rows.find((r) => r.measure !== 'random');
    const line = await page.textContent(`${PANEL} .which-line`);
    assert.ok(line.includes(`On this sentence ${label(best.measure)} is the most faithful`), line);
    assert.match(line, /\d+ of 13 methods beat random/);
    assert.equal(await page.getAttribute(`${PANEL} button[data-metric=comprehensiveness]`, 'aria-pressed'), 'true');
    // sufficiency: lower first
    await page.click(`${PANEL} button[data-metric=sufficiency]`);
    rows = await shown(page);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].s <= rows[i].s, `sufficiency order at ${i}`);
    assert.equal(await page.getAttribute(`${PANEL} button[data-metric=sufficiency]`, 'aria-pressed'), 'true');
    // the redraw keeps the keyboard focus on the button pressed (not on the page body)
    assert.equal(await page.evaluate(() => document.activeElement?.dataset?.metric), 'sufficiency');
    const bestS = rows.find((r) => r.measure !== 'random');
    assert.ok((await page.textContent(`${PANEL} .which-line`)).includes(`On this sentence ${label(bestS.measure)} is the most faithful`));
    // negative control: the two orders differ on this sentence (the switch does something)
    const orderC = [...rows].sort((a, b) => b.c - a.c).map((r) => r.measure);
    assert.notDeepEqual(rows.map((r) => r.measure), orderC);
    // the choice is kept for the next sentence; a BiLSTM ranks its five
    await page.evaluate(() => { location.hash = '#view=text&model=sst2-tanh&text=' + encodeURIComponent('A masterpiece: moving, funny and beautifully shot.'); });
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.status === 'pending', PANEL, { timeout: TIMEOUT }).catch(() => {});
    await waitEraser(page);
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .eraser-table tbody tr`).length === 5, PANEL, { timeout: TIMEOUT });
    rows = await shown(page);
    assert.deepEqual(rows.map((r) => r.measure).sort(), ['attention', 'gradient', 'integrated_gradients', 'leave_one_out', 'random']);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].s <= rows[i].s, `kept metric: sufficiency order at ${i}`);
    assert.equal(await page.getAttribute(`${PANEL} button[data-metric=sufficiency]`, 'aria-pressed'), 'true');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
