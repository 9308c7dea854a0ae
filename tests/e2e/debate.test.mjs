// debate.test.mjs — browser end-to-end test of the debate experiments (headless Chromium via playwright-core).
//
// Starts scripts/serve.mjs in-process on port 0 and checks:
//   - live panels under a typed sentence: the adversarial JSD equals the native CLI's
//     (`build/attnlab experiment adversarial` on a one-line TSV, seed 1: the live sentence is instance 0)
//     to 1e-6; every other live panel is either drawn (and, where the panel shows a number, it matches the
//     CLI too) or says "not available in this build" — never blank, never an error;
//   - the Debate tab: adversarial on N = 20 shows progress, completes, its summary equals the CLI's on the
//     same 20 sentences, the figure is drawn and the CSV / JSON downloads hold the 20 rows;
//   - Cancel stops a full-test-set run between chunks and shows the partial result, with downloads;
//   - every other experiment of the build runs on N = 6 in the Debate tab, draws its figure (or says it has
//     none), and every number of its summary equals the CLI's (plausibility with the shipped SST trees, its
//     figure with the plausibility-vs-faithfulness plane from the ERASER run before it); one that skips every
//     sentence (it needs something the page does not have) says why (screenshots tests/e2e/out/debate-NAME.png);
//   - on sst2-transformer (picker label "transformer, 2 layers × 4 heads"): attention-flow (Abnar & Zuidema's
//     per-layer plot), head-ablation (Michel's bars and pruning curve) and kendall run on N = 12, draw their
//     figures, and every number of their summaries equals the CLI's on the same sentences;
//   - the URL holds view / experiment / model / N / seed; an unknown experiment in a link falls back;
//   - a pool of 3 workers (workers=3) gives exactly the rows of one worker (workers=1): the CSV downloads are
//     byte for byte equal (kendall, N = 45), and a link's out-of-range workers= is named in #link-notice.
// Saves tests/e2e/out/live-panels.png, debate.png and debate-cancelled.png (look at them).
// Skips — with the reason printed — only when web/gen, the sst2-tanh model, the data set or the CLI is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, downloadBytes } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { LIVE_PARAMS } from '../../web/experiments-info.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL = 'sst2-tanh';
const MODEL_DIR = path.join(REPO, 'models/text', MODEL);
const DATA = path.join(REPO, 'models/text/data/sst2-test.tsv');
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const SENTENCE = 'A gripping story with superb acting, though the ending is a bit weak.';
const TIMEOUT = 240_000;
const LIVE = ['adversarial', 'permutation', 'erase-max', 'erase-until-flip', 'eraser'];
// Experiments with a figure in the Debate tab (others say so and still show their numbers).
const FIGURES = ['kendall', 'permutation', 'adversarial', 'erase-max', 'erase-until-flip', 'eraser', 'randomization', 'plausibility',
  'attention-flow', 'head-ablation', 'conicity', 'impermissible'];
const TRANSFORMER = 'sst2-transformer';
// The SST trees shipped with the test set (human rationales for plausibility; the page reads the same file).
const TREES = path.join(REPO, 'models/text/data/sst2-test-trees.txt');
// The impermissible experiment's words: the page passes the shipped strong-sentiment lexicon (issue 32); so does the CLI here.
const LEXICON = path.join(REPO, 'models/text/data/sst2-strong-lexicon.txt');
const cliParams = (name) => (name === 'impermissible' ? { words: fs.readFileSync(LEXICON, 'utf8').split(/\s+/).filter(Boolean).join(' ') } : {});

const missing = [];
if (!fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.mjs'))) missing.push('web/gen (bash scripts/build-wasm.sh)');
if (!fs.existsSync(path.join(MODEL_DIR, 'config.json'))) missing.push(`models/text/${MODEL}`);
if (!fs.existsSync(DATA)) missing.push('models/text/data/sst2-test.tsv');
if (!fs.existsSync(CLI)) missing.push('build/attnlab (cmake -S . -B build && cmake --build build)');
const SKIP = missing.length ? `the debate browser test needs ${missing.join(', ')}` : false;

// The experiments this wasm build has (the page must agree with it).
async function wasmExperimentNames() {
  const { default: createModule } = await import(path.join(REPO, 'web/gen/attnlab_core.mjs'));
  const Module = await createModule({ wasmBinary: fs.readFileSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) });
  return Module.catalogue().experiments.filter((e) => e.per_instance).map((e) => e.name);
}

// The native CLI on a TSV file (label<TAB>text lines): {rows, summary}.
function cliExperiment(name, tsvText, { limit, trees, model = MODEL_DIR, params = {} } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-e2e-cli-'));
  try {
    const data = path.join(dir, 'data.tsv');
    fs.writeFileSync(data, tsvText);
    const out = path.join(dir, 'out.json');
    const args = ['experiment', name, '--model', model, '--data', data, '--out', out, '--seed', '1'];
    if (limit) args.push('--limit', String(limit));
    if (trees) args.push('--trees', trees);
    for (const [k, v] of Object.entries(params)) args.push('--param', `${k}=${v}`);
    execFileSync(CLI, args, { stdio: ['ignore', 'ignore', 'ignore'] });
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: page ${a} vs CLI ${b} (tolerance ${tol})`);

// The page's summary table ([data-key, data-value] per row) against the CLI's summary: every numeric leaf the page
// shows (n and seconds aside) equals the CLI's to 1e-6 relative. Returns how many were compared.
function compareSummary(name, shown, cli) {
  const walk = (v) => v && typeof v === 'object' && (!Array.isArray(v) || v.some((x) => x && typeof x === 'object'));
  const leaves = (o, pre = '') => Object.entries(o).flatMap(([k, v]) => (walk(v) ? leaves(v, `${pre}${k}.`) : [[`${pre}${k}`, v]]));
  const want = new Map(leaves(cli));
  let compared = 0;
  for (const [key, text] of shown) {
    const v = want.get(key);
    if (typeof v !== 'number' || key === 'n' || key === 'seconds') continue;
    close(Number(text), v, 1e-6 * Math.max(1, Math.abs(v)), `${name} summary ${key}`);
    compared++;
  }
  return compared;
}

if (SKIP) test('debate experiments in the browser', { skip: SKIP }, () => {});
else describe('debate experiments in the browser', { timeout: 20 * 60_000 }, () => {
  let server;
  let ctx;
  let available;

  before(async () => {
    available = new Set(await wasmExperimentNames());
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
    fs.mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  // A page that records uncaught errors and console errors; the test fails if any appear.
  const openPage = (hash = '') => openRecordingPage(ctx, `${server.url}/web/${hash}`);

  const panel = (name) => `.live-panel[data-experiment="${name}"]`;

  async function waitPanelsSettled(page) {
    await page.waitForFunction(
      (names) => names.every((n) => {
        const s = document.querySelector(`.live-panel[data-experiment="${n}"]`)?.dataset.status;
        return s && s !== 'pending';
      }),
      LIVE,
      { timeout: 120_000 },
    );
  }

  async function waitDebate(page, statuses) {
    await page.waitForFunction((st) => st.includes(document.querySelector('#view-debate')?.dataset.status), statuses, { timeout: 180_000 });
    return page.locator('#view-debate').getAttribute('data-status');
  }

  test('live panels on a typed sentence: adversarial JSD equals the CLI; other panels drawn or "not available"', { timeout: TIMEOUT }, async () => {
    const page = await openPage(`#model=${MODEL}&text=`);
    await page.waitForFunction(() => document.querySelector('#view-text')?.dataset.status === 'empty', null, { timeout: 90_000 });
    await page.locator('#text-input').pressSequentially(SENTENCE, { delay: 5 });
    await page.waitForFunction(() => document.querySelector('#view-text')?.dataset.status === 'ready', null, { timeout: 90_000 });
    await waitPanelsSettled(page);

    const tsv = `1\t${SENTENCE}\n`;
    // (a) adversarial: the shown JSD is the CLI's max_jsd for the same sentence, seed and instance index.
    assert.ok(available.has('adversarial'), 'this build has the adversarial experiment');
    assert.equal(await page.locator(panel('adversarial')).getAttribute('data-status'), 'ready');
    const cliAdv = cliExperiment('adversarial', tsv).rows[0];
    const jsd = page.locator(`${panel('adversarial')} [data-stat="jsd"] .stat-value`);
    const shown = Number(await jsd.getAttribute('data-value'));
    close(shown, cliAdv.max_jsd, 1e-6, 'adversarial max JSD');
    assert.equal(await jsd.textContent(), cliAdv.max_jsd.toFixed(4), 'the number on screen');
    const tvd = Number(await page.locator(`${panel('adversarial')} [data-stat="tvd"] .stat-value`).getAttribute('data-value'));
    close(tvd, cliAdv.tvd, 1e-6, 'adversarial TVD');
    assert.match(await page.locator(panel('adversarial')).textContent(), /ln 2 = 0\.693 is the maximum/);
    // The adversarial strip: one cell under each token of the attention strip, same tokens as the token rows.
    const rowTokens = await page.$$eval('.measure-row[data-measure=attention] .tok', (cs) => cs.map((c) => c.textContent));
    const pairs = await page.$$eval(`${panel('adversarial')} .strip-pair`, (ps) => ps.map((p) => Array.from(p.querySelectorAll('.tok'), (c) => [c.dataset.strip, c.textContent])));
    assert.equal(pairs.length, rowTokens.length);
    pairs.forEach((p, i) => assert.deepEqual(p, [['attention', rowTokens[i]], ['adversarial', rowTokens[i]]]));
    const adv = await page.$$eval(`${panel('adversarial')} .tok[data-strip=adversarial]`, (cs) => cs.map((c) => Number(c.dataset.value)));
    adv.forEach((v, i) => close(v, cliAdv.adversarial_attention[i], 1e-4, `adversarial attention[${i}]`));

    // (b)–(e): drawn and equal to the CLI where available, "not available in this build" otherwise.
    for (const name of LIVE.slice(1)) {
      const status = await page.locator(panel(name)).getAttribute('data-status');
      const text = await page.locator(panel(name)).textContent();
      assert.ok(text.length > 40, `${name}: the panel has a title and an explanation`);
      if (!available.has(name)) {
        assert.equal(status, 'unavailable', name);
        assert.match(text, /not available in this build/i, name);
        continue;
      }
      assert.equal(status, 'ready', `${name}: ${text.slice(0, 300)}`);
      const cli = cliExperiment(name, tsv, { params: LIVE_PARAMS[name] ?? {} }).rows[0];  // the page's live parameters
      if (name === 'permutation') {
        const med = Number(await page.locator(`${panel(name)} [data-stat="median"] .stat-value`).getAttribute('data-value'));
        close(med, cli.median_delta, 1e-6, 'permutation median |Δŷ|');
        assert.equal(await page.locator(`${panel(name)} svg`).count() > 0, true);
      } else if (name === 'erase-max') {
        close(Number(await page.locator(`${panel(name)} tr[data-erased=max] td[data-value]`).getAttribute('data-value')), cli.jsd_max, 1e-6, 'erase-max JSD (max)');
        close(Number(await page.locator(`${panel(name)} tr[data-erased=random] td[data-value]`).getAttribute('data-value')), cli.jsd_random, 1e-6, 'erase-max JSD (random)');
      } else if (name === 'erase-until-flip') {
        for (const r of ['attention', 'gradient', 'random']) {
          if (!cli[r]) continue;
          assert.equal(Number(await page.locator(`${panel(name)} tr[data-ranking=${r}]`).getAttribute('data-removed')), cli[r].removed, `erase-until-flip ${r}`);
        }
        assert.equal(await page.locator(`${panel(name)} svg`).count() > 0, true);
      } else if (name === 'eraser') {
        for (const [m, v] of Object.entries(cli.measures ?? {})) {
          const tds = page.locator(`${panel(name)} tr[data-measure="${m}"] td.aopc`);
          close(Number(await tds.nth(0).getAttribute('data-value')), v.aopc_comprehensiveness, 1e-6, `eraser ${m} AOPC comprehensiveness`);
          close(Number(await tds.nth(1).getAttribute('data-value')), v.aopc_sufficiency, 1e-6, `eraser ${m} AOPC sufficiency`);
        }
      }
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `page scrolls horizontally by ${overflow}px`);
    await page.locator('#live-panels').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUT, 'live-panels.png'), fullPage: true });
    assert.deepEqual(page.errors, []);

    // A one-token sentence: every panel settles (drawn, skipped with a reason, or unavailable).
    await page.fill('#text-input', 'superb');
    await page.waitForFunction(() => document.querySelector('#view-text')?.dataset.status === 'ready', null, { timeout: 90_000 });
    await waitPanelsSettled(page);
    for (const name of LIVE) {
      const status = await page.locator(panel(name)).getAttribute('data-status');
      assert.ok(['ready', 'skipped', 'unavailable'].includes(status), `${name} on one token: ${status}`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Debate tab: adversarial on N = 20 shows progress, completes, matches the CLI and offers the downloads', { timeout: TIMEOUT }, async () => {
    const page = await openPage('#view=debate&experiment=adversarial&n=20');
    assert.equal(await waitDebate(page, ['idle', 'error']), 'idle', await page.locator('#debate-message').textContent());
    assert.equal(await page.inputValue('#debate-experiment'), 'adversarial');
    assert.equal(await page.inputValue('#debate-n'), '20');
    assert.equal(await page.inputValue('#debate-seed'), '1');
    assert.equal(await page.inputValue('#debate-model'), MODEL);
    assert.equal(await page.isVisible('#view-text'), false);

    // Record the progress bar while it runs.
    await page.evaluate(() => {
      window.__progress = [];
      const bar = document.querySelector('#debate-progress');
      new MutationObserver(() => window.__progress.push(Number(bar.value))).observe(bar, { attributes: true });
      const watch = setInterval(() => {
        window.__progress.push(Number(bar.value));
        if (document.querySelector('#view-debate').dataset.status !== 'running') clearInterval(watch);
      }, 20);
    });
    await page.click('#debate-run');
    assert.equal(await page.locator('#view-debate').getAttribute('data-status'), 'running');
    assert.equal(await page.isDisabled('#debate-run'), true);
    assert.equal(await page.isEnabled('#debate-cancel'), true);
    assert.equal(await waitDebate(page, ['done', 'error', 'cancelled']), 'done', await page.locator('#debate-message').textContent());
    const seen = await page.evaluate(() => window.__progress);
    assert.ok(seen.some((v) => v > 0 && v < 20), `intermediate progress was shown (${[...new Set(seen)].join(', ')})`);
    assert.equal(Number(await page.locator('#debate-progress').getAttribute('value')), 20);
    assert.equal(await page.locator('#debate-result').getAttribute('data-rows'), '20');
    assert.equal(await page.locator('#debate-result').getAttribute('data-partial'), 'false');
    assert.match(await page.locator('#debate-result-state').textContent(), /Complete: 20 sentences/);

    // The summary equals the CLI's on the same 20 sentences.
    const cli = cliExperiment('adversarial', fs.readFileSync(DATA, 'utf8'), { limit: 20 });
    const mean = JSON.parse(await page.locator('.headline-item[data-label="mean max JSD"] .headline-value').getAttribute('data-value'));
    close(mean, cli.summary.mean_max_jsd, 1e-6, 'mean max JSD over 20');
    const frac = JSON.parse(await page.locator('.headline-item[data-label="sentences with max JSD > 0.4"] .headline-value').getAttribute('data-value'));
    assert.equal(frac, cli.summary['fraction_jsd_above_0.4']);
    // Beside it, the number's spread over the seed study's 6 training seeds of sst2-tanh (whole test set).
    const seedsSummary = JSON.parse(fs.readFileSync(path.join(REPO, 'models/text/seeds/summary.json'), 'utf8'));
    const spread = page.locator('.headline-item[data-label="mean max JSD"] .headline-seeds');
    const want = seedsSummary['sst2-tanh']['adversarial: mean max JSD'];
    assert.deepEqual(JSON.parse(await spread.getAttribute('data-value')), [want.mean, want.std, want.n]);
    assert.match(await spread.textContent(), /over 6 training seeds \(whole test set\): 0\.\d{3} ± 0\.\d{3}/);
    assert.match(await page.locator('.headline-item[data-label="sentences with max JSD > 0.4"] .headline-seeds').textContent(), /\d %/);
    // The figure: the max-JSD histogram over the 20 sentences.
    assert.equal(await page.locator('[data-chart="adversarial"]').getAttribute('data-n'), '20');
    assert.ok((await page.locator('#debate-figure svg').count()) > 0);

    // Downloads: CSV and JSON with the 20 rows (+ summary).
    const grab = async (sel) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
      const { name, bytes } = await downloadBytes(download);
      return { name, text: bytes.toString('utf8') };
    };
    const csv = await grab('#debate-csv');
    assert.match(csv.name, /^attnlab-adversarial-sst2-tanh-sst2-test-n20-seed1\.csv$/);
    const lines = csv.text.trim().split('\r\n');
    assert.equal(lines.length, 21, 'header + 20 rows');
    const header = lines[0].split(',');
    assert.deepEqual(header.slice(0, 3), ['index', 'label', 'predicted']);
    assert.ok(header.includes('max_jsd') && header.at(-1) === 'text');
    const col = header.indexOf('max_jsd');
    close(Number(lines[1].split(',')[col]), cli.rows[0].max_jsd, 1e-6, 'CSV row 0 max_jsd');
    const json = JSON.parse((await grab('#debate-json')).text);
    assert.equal(json.rows.length, 20);
    assert.equal(json.experiment, 'adversarial');
    assert.equal(json.partial, false);
    close(json.summary.mean_max_jsd, cli.summary.mean_max_jsd, 1e-6, 'JSON summary');
    assert.equal(typeof json.rows[0].text, 'string');

    // The URL holds the settings.
    const params = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
    assert.equal(params.get('view'), 'debate');
    assert.equal(params.get('n'), '20');
    await page.fill('#debate-seed', '7');
    await page.locator('#debate-seed').dispatchEvent('change');
    await page.selectOption('#debate-model', 'sst2-dot');
    const p2 = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
    assert.equal(p2.get('seed'), '7');
    assert.equal(p2.get('model'), 'sst2-dot');
    await page.screenshot({ path: path.join(OUT, 'debate.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Cancel stops a full run between chunks and shows the partial result', { timeout: TIMEOUT }, async () => {
    const page = await openPage('#view=debate&experiment=adversarial&n=1821');
    assert.equal(await waitDebate(page, ['idle', 'error']), 'idle');
    await page.click('#debate-run');
    await page.waitForFunction(() => Number(document.querySelector('#debate-result')?.dataset.rows) >= 10, null, { timeout: 120_000 });
    await page.click('#debate-cancel');
    assert.equal(await waitDebate(page, ['cancelled', 'done', 'error']), 'cancelled');
    const rows = Number(await page.locator('#debate-result').getAttribute('data-rows'));
    assert.ok(rows >= 10 && rows < 1821, `rows ${rows}`);
    assert.equal(await page.locator('#debate-result').getAttribute('data-partial'), 'true');
    assert.match(await page.locator('#debate-result-state').textContent(), new RegExp(`Partial result: cancelled after ${rows} of 1821`));
    assert.equal(await page.getAttribute('#debate-csv', 'download'), `attnlab-adversarial-sst2-tanh-sst2-test-n${rows}-seed1-partial.csv`);
    assert.equal(await page.locator('[data-chart="adversarial"]').getAttribute('data-n'), String(rows));
    assert.equal(await page.isEnabled('#debate-run'), true);
    assert.equal(await page.isDisabled('#debate-cancel'), true);
    await page.screenshot({ path: path.join(OUT, 'debate-cancelled.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // Every other experiment of this build through the Debate tab on a few sentences: it completes, draws its
  // figure, and every number of its summary equals the CLI's summary of the same sentences.
  test('Debate tab: every experiment of this build runs on N = 6; its summary equals the CLI\'s', { timeout: 600_000 }, async () => {
    const N = 6;
    const data = fs.readFileSync(DATA, 'utf8');
    const page = await openPage('#view=debate');
    assert.equal(await waitDebate(page, ['idle', 'error']), 'idle');
    const options = await page.$$eval('#debate-experiment option', (os) => os.map((o) => o.value));
    assert.deepEqual(new Set(options), available, 'the picker lists exactly the experiments of this build');
    for (const name of options.filter((n) => n !== 'adversarial')) {
      await page.selectOption('#debate-experiment', name);
      await page.fill('#debate-n', String(N));
      await page.locator('#debate-n').dispatchEvent('change');
      await page.click('#debate-run');
      assert.equal(await waitDebate(page, ['done', 'error', 'cancelled']), 'done', `${name}: ${await page.locator('#debate-message').textContent()}`);
      assert.equal(await page.locator('#debate-result').getAttribute('data-rows'), String(N), name);
      const stateText = await page.locator('#debate-result-state').textContent();
      if (await page.locator('#debate-result').getAttribute('data-skipped') === String(N)) {
        // An experiment that cannot run in the page (e.g. it needs other models): every row says why.
        assert.match(stateText, /all skipped by the experiment: \S/, `${name}: ${stateText}`);
        continue;
      }
      if (FIGURES.includes(name)) {
        const drawn = await page.$$eval('#debate-figure .chart', (cs) => cs.map((c) => Number(c.dataset.n)));
        assert.ok(drawn.length > 0 && drawn.every((n) => n > 0), `${name}: the figure is drawn (${drawn})`);
        assert.ok((await page.locator('#debate-figure svg').count()) > 0, `${name}: an SVG chart`);
      } else {
        assert.match(await page.locator('#debate-figure').textContent(), /no figure on this page yet/, `${name}: says it has no figure`);
      }
      const headline = await page.$$eval('.headline-value', (vs) => vs.map((v) => v.textContent));
      assert.ok(headline.every((t) => !/n\/a/.test(t)) || name === 'kendall', `${name}: headline numbers ${headline}`);
      // Every numeric leaf of the summary shown on the page equals the CLI's.
      // The page shows each key in words and the value rounded; the exact key and value are in data-key / data-value.
      const shown = await page.$$eval('#debate-all-numbers tr', (trs) => trs.map((tr) => [tr.dataset.key, tr.querySelector('td').dataset.value]));
      if (name === 'plausibility') {
        // ERASER ran earlier in this loop on the same model: each measure is placed on both axes.
        const plane = page.locator('#debate-figure .chart[data-chart="plausibility-vs-faithfulness"]');
        assert.equal(await plane.getAttribute('data-n'), '5', 'plausibility vs faithfulness: one dot per measure');
      }
      // the two experiments of the debate's fourth round say their summary in one sentence too (issue 32)
      const words = await page.locator('#debate-headline .headline-words').allTextContents();
      if (name === 'conicity') assert.match(words.join(), /^The hidden states’ mean conicity is 0\.\d{3} — how parallel/);
      if (name === 'impermissible') {
        assert.match(words.join(), /^Attention on the impermissible words: \d+\.\d %; predictions that change when those words are deleted: \d+\.\d % \(over the 2 sentences that have one\)\.$/);
        assert.equal(await page.locator('#debate-figure .chart[data-chart=impermissible]').getAttribute('data-n'), '2', 'the 2 of 6 sentences with a lexicon word');
      }
      const cli = cliExperiment(name, data, { limit: N, trees: name === 'plausibility' ? TREES : null, params: cliParams(name) }).summary;
      const compared = compareSummary(name, shown, cli);
      assert.ok(compared >= 3, `${name}: compared ${compared} summary numbers`);
      await page.locator('#debate-result').screenshot({ path: path.join(OUT, `debate-${name}.png`) });
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('Debate tab on the transformer: attention-flow, head-ablation and kendall draw their figures and equal the CLI', { timeout: 600_000 }, async () => {
    const N = 12;
    const data = fs.readFileSync(DATA, 'utf8');
    const page = await openPage(`#view=debate&model=${TRANSFORMER}`);
    assert.equal(await waitDebate(page, ['idle', 'error']), 'idle');
    assert.equal(await page.inputValue('#debate-model'), TRANSFORMER);
    assert.match(await page.locator(`#debate-model option[value="${TRANSFORMER}"]`).textContent(), /transformer, 2 layers × 4 heads/);
    for (const name of ['attention-flow', 'head-ablation', 'kendall']) {
      await page.selectOption('#debate-experiment', name);
      await page.fill('#debate-n', String(N));
      await page.locator('#debate-n').dispatchEvent('change');
      await page.click('#debate-run');
      assert.equal(await waitDebate(page, ['done', 'error', 'cancelled']), 'done', `${name}: ${await page.locator('#debate-message').textContent()}`);
      assert.equal(await page.locator('#debate-result').getAttribute('data-skipped'), '0', name);
      const drawn = await page.$$eval('#debate-figure .chart', (cs) => cs.map((c) => [c.dataset.chart, Number(c.dataset.n)]));
      // kendall: the two histograms, then each later reading's mean τ beside attention's (2 + 3 × 10 dots)
      const charts = name === 'kendall' ? 3 : 2;
      assert.ok(drawn.length === charts && drawn.every(([, n]) => n > 0), `${name}: ${charts} charts drawn (${JSON.stringify(drawn)})`);
      if (name === 'kendall') assert.deepEqual(drawn[2], ['kendall-readings', 32]);
      const headline = await page.$$eval('.headline-value', (vs) => vs.map((v) => v.textContent));
      assert.ok(headline.length >= 3 && headline.every((t) => !/n\/a/.test(t)), `${name}: headline numbers ${headline}`);
      const shown = await page.$$eval('#debate-all-numbers tr', (trs) => trs.map((tr) => [tr.dataset.key, tr.querySelector('td').dataset.value]));
      const cli = cliExperiment(name, data, { limit: N, model: path.join(REPO, 'models/text', TRANSFORMER) }).summary;
      const compared = compareSummary(name, shown, cli);
      assert.ok(compared >= (name === 'kendall' ? 40 : 12), `${name}: compared ${compared} summary numbers`);  // kendall: its readings' too
      await page.locator('#debate-result').screenshot({ path: path.join(OUT, `debate-transformer-${name}.png`) });
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('an unknown experiment in a link falls back with a notice; tabs switch views', { timeout: TIMEOUT }, async () => {
    const page = await openPage('#view=debate&experiment=no-such-experiment');
    await waitDebate(page, ['idle', 'error']);
    assert.equal(await page.inputValue('#debate-experiment'), 'adversarial');
    assert.match(await page.locator('#debate-notice').textContent(), /not available in this build/);
    await page.click('.view-tab[data-view="text"]');
    assert.equal(await page.isVisible('#view-text'), true);
    assert.equal(await page.isVisible('#view-debate'), false);
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('view'), null);
    await page.click('.view-tab[data-view="debate"]');
    assert.equal(await page.isVisible('#view-debate'), true);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a pool of workers gives the rows of one worker, in the same order (CSV byte for byte)', { timeout: TIMEOUT }, async () => {
    const csvOf = async (workers) => {
      const page = await openPage(`#view=debate&experiment=kendall&model=${MODEL}&n=45&workers=${workers}`);
      await waitDebate(page, ['idle']);
      await page.click('#debate-run');
      assert.equal(await waitDebate(page, ['done', 'error', 'cancelled']), 'done');
      assert.equal(await page.locator('#view-debate').getAttribute('data-workers'), String(workers));
      assert.equal(await page.locator('#debate-result').getAttribute('data-rows'), '45');
      const csv = await page.evaluate(async () => (await fetch(document.getElementById('debate-csv').href)).text());
      const summary = await page.locator('#debate-all-numbers').textContent();
      assert.deepEqual(page.errors, []);
      await page.close();
      return { csv, summary };
    };
    const one = await csvOf(1);
    const three = await csvOf(3);
    assert.ok(one.csv.length > 1000, 'a CSV of 45 rows');
    assert.equal(three.csv, one.csv);
    assert.equal(three.summary, one.summary);
    const page = await openPage('#view=debate&workers=99');
    await waitDebate(page, ['idle']);
    assert.match(await page.locator('#link-notice').textContent(), /workers=99 in the link is above the largest value, 16: 16 is used/);
    await page.close();
  });
});
