// debate-han.test.mjs — browser end-to-end test of the debate experiments on a HAN (document) model
// (headless Chromium via playwright-core; the set-up of debate.test.mjs).
//
// Starts scripts/serve.mjs in-process on port 0 and checks, in the Debate tab with model imdb-han (from the
// manifest's `documents`) on the shipped IMDB sample (models/text/data/imdb-test-200.tsv):
//   - the level picker shows for the HAN model (hidden for sst2-tanh), the experiment picker lists the experiments
//     that run on a HAN (catalogue.han_experiments: the registry's, through the attention-model interface), and the
//     level is in the URL (level=word after choosing it);
//   - erase-max at the sentence level (N = 8) and permutation at the word level (N = 3) complete, draw their
//     figures, and every number of their summaries equals `build/attnlab experiment NAME --model
//     models/text/imdb-han --data models/text/data/imdb-test-200.tsv --limit N --param level=L` (seed 1) to 1e-6
//     relative; the result title names the level and counts documents.
// Saves tests/e2e/out/debate-han-sentence.png and debate-han-word.png (look at them).
// Skips — with the reason printed — only when web/gen, the imdb-han model, the data sample or the CLI is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL = 'imdb-han';
const MODEL_DIR = path.join(REPO, 'models/text', MODEL);
const DATA = path.join(REPO, 'models/text/data/imdb-test-200.tsv');
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const TIMEOUT = 300_000;

const missing = [];
if (!fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.mjs'))) missing.push('web/gen (bash scripts/build-wasm.sh)');
if (!fs.existsSync(path.join(MODEL_DIR, 'config.json'))) missing.push(`models/text/${MODEL}`);
if (!fs.existsSync(DATA)) missing.push('models/text/data/imdb-test-200.tsv');
if (!fs.existsSync(CLI)) missing.push('build/attnlab (cmake -S . -B build && cmake --build build)');
const SKIP = missing.length ? `the HAN debate browser test needs ${missing.join(', ')}` : false;

function cliSummary(name, level, limit) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-e2e-han-'));
  try {
    const out = path.join(dir, 'out.json');
    execFileSync(CLI, ['experiment', name, '--model', MODEL_DIR, '--data', DATA, '--out', out, '--seed', '1',
      '--limit', String(limit), '--param', `level=${level}`], { stdio: ['ignore', 'ignore', 'ignore'] });
    return JSON.parse(fs.readFileSync(out, 'utf8')).summary;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Every numeric leaf shown in #debate-all-numbers (n and seconds aside) equals the CLI's; returns the count.
function compareSummary(what, shown, cli) {
  const walk = (v) => v && typeof v === 'object' && (!Array.isArray(v) || v.some((x) => x && typeof x === 'object'));
  const leaves = (o, pre = '') => Object.entries(o).flatMap(([k, v]) => (walk(v) ? leaves(v, `${pre}${k}.`) : [[`${pre}${k}`, v]]));
  const want = new Map(leaves(cli));
  let compared = 0;
  for (const [key, text] of shown) {
    const v = want.get(key);
    if (typeof v !== 'number' || key === 'n' || key === 'seconds') continue;
    const tol = 1e-6 * Math.max(1, Math.abs(v));
    assert.ok(Math.abs(Number(text) - v) <= tol, `${what} summary ${key}: page ${text} vs CLI ${v}`);
    compared++;
  }
  return compared;
}

if (SKIP) test('HAN debate experiments in the browser', { skip: SKIP }, () => {});
else describe('HAN debate experiments in the browser', { timeout: 15 * 60_000 }, () => {
  let server;
  let ctx;

  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1200, height: 900 } });
    fs.mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  const openPage = (hash = '') => openRecordingPage(ctx, `${server.url}/web/${hash}`);
  async function waitDebate(page, statuses) {
    await page.waitForFunction((st) => st.includes(document.querySelector('#view-debate')?.dataset.status), statuses, { timeout: 240_000 });
    return page.locator('#view-debate').getAttribute('data-status');
  }

  async function runAndCompare(page, name, level, n) {
    await page.selectOption('#debate-experiment', name);
    await page.selectOption('#debate-level', level);
    await page.fill('#debate-n', String(n));
    await page.locator('#debate-n').dispatchEvent('change');
    const hash = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
    assert.equal(hash.get('model'), MODEL);
    assert.equal(hash.get('experiment') ?? 'adversarial', name); // defaults are left out of the URL
    assert.equal(hash.get('level') ?? 'sentence', level, `the level is in the URL (${hash})`);
    await page.click('#debate-run');
    assert.equal(await waitDebate(page, ['done', 'error']), 'done', await page.locator('#debate-message').textContent());
    assert.equal(await page.locator('#debate-result').getAttribute('data-rows'), String(n));
    const title = await page.locator('#debate-result-title').textContent();
    assert.match(title, new RegExp(`${level} level .* first ${n} documents of imdb-test-200`), title);
    const drawn = await page.$$eval('#debate-figure .chart', (cs) => cs.map((c) => Number(c.dataset.n)));
    assert.ok(drawn.length > 0 && drawn.every((k) => k > 0), `${name}: the figure is drawn (${drawn})`);
    const headline = await page.$$eval('.headline-value', (vs) => vs.map((v) => v.textContent));
    assert.ok(headline.length > 0 && headline.every((t) => !/n\/a/.test(t)), `${name}: headline numbers ${headline}`);
    const shown = await page.$$eval('#debate-all-numbers tr', (trs) => trs.map((tr) => [tr.dataset.key, tr.querySelector('td').dataset.value]));
    const compared = compareSummary(`${name} ${level}`, shown, cliSummary(name, level, n));
    assert.ok(compared >= 4, `${name} ${level}: compared ${compared} summary numbers`);
    await page.locator('#view-debate').screenshot({ path: path.join(OUT, `debate-han-${level}.png`) });
  }

  test('imdb-han in the Debate tab: the level picker, erase-max (sentence) and permutation (word) equal the CLI', { timeout: TIMEOUT }, async () => {
    const page = await openPage('#view=debate&model=sst2-tanh');
    assert.equal(await waitDebate(page, ['idle', 'error']), 'idle', await page.locator('#debate-message').textContent());
    assert.equal(await page.isVisible('#debate-level'), false, 'no level picker for a flat model');
    await page.selectOption('#debate-model', MODEL);
    assert.equal(await page.isVisible('#debate-level'), true, 'the level picker shows for a HAN model');
    const names = await page.$$eval('#debate-experiment option', (os) => os.map((o) => o.value));
    assert.deepEqual([...names].sort(), ['adversarial', 'erase-max', 'erase-until-flip', 'kendall', 'permutation']);
    await runAndCompare(page, 'erase-max', 'sentence', 8);
    await runAndCompare(page, 'permutation', 'word', 3);
    assert.deepEqual(page.errors, []);
    await page.close();
    // A link with the level opens with it.
    const again = await openPage('#view=debate&model=imdb-han&experiment=kendall&level=word');
    assert.equal(await waitDebate(again, ['idle', 'error']), 'idle');
    assert.equal(await again.inputValue('#debate-level'), 'word');
    assert.equal(await again.inputValue('#debate-experiment'), 'kendall');
    assert.deepEqual(again.errors, []);
    await again.close();
  });
});
