// own-text-debate.test.mjs — browser end-to-end test of "The debate on your model" (views/own-text/debate.js) on the
// Text tab's "Your model" with the shipped stories260K: the link's text is explained, then the kendall, erase-max,
// erase-until-flip and permutation panels draw their rows, whose numbers are the CLI's (`attnlab experiment NAME --model
// models/text/stories260K --data` on a one-line TSV of the text; 1e-5; removed counts equal); the layer picker runs them
// on another layer (= --layer K−1) and writes otdlayer; the adversarial search with 2 steps gives the CLI's max JSD; a
// long search shows its estimated progress and Cancel stops it, after which a short one runs again; a folded panel is in
// the link (otdclosed) and does not run. When another helper has committed a BERT-shaped fixture
// (tests/fixtures/onnx-text/bert*/ with model.onnx + tokenizer.json), its files are chosen on the Text tab and the
// kendall panel runs on it (else that test skips, saying why). No console errors. Prints each panel's time in the page;
// saves tests/e2e/out/own-text-debate-1366.png and -390.png (look at them). No wall-clock assertions.
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
const MODEL_DIR = path.join(REPO, 'models/text/stories260K');
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const WASM = path.join(REPO, 'web/gen/attnlab_core.wasm');
const FIXTURES = path.join(REPO, 'tests/fixtures/onnx-text');
const TEXT = 'Once upon a time, there was a little girl';

const missing = [];
if (!fs.existsSync(WASM) || !fs.readFileSync(WASM).includes('OnnxTextLab')) missing.push('web/gen with OnnxTextLab (bash scripts/build-wasm.sh)');
if (!fs.existsSync(path.join(MODEL_DIR, 'model.onnx'))) missing.push('models/text/stories260K');
if (!fs.existsSync(CLI)) missing.push('build/attnlab');
const SKIP = missing.length ? `the debate-on-your-model test needs ${missing.join(' and ')}` : false;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ot-debate-e2e-'));
function cliRow(name, dir, text, extra = []) {
  const tsv = path.join(tmp, 'one.tsv');
  fs.writeFileSync(tsv, `0\t${text}\n`);
  const out = path.join(tmp, 'out.json');
  execFileSync(CLI, ['experiment', name, '--model', dir, '--data', tsv, '--out', out, ...extra], { stdio: 'pipe' });
  return JSON.parse(fs.readFileSync(out, 'utf8')).rows[0];
}

// A BERT-shaped fixture folder, when one is committed.
function bertFixture() {
  if (!fs.existsSync(FIXTURES)) return null;
  for (const d of fs.readdirSync(FIXTURES).sort()) {
    const dir = path.join(FIXTURES, d);
    if (/bert/i.test(d) && !/roberta/i.test(d) && fs.existsSync(path.join(dir, 'model.onnx')) && fs.existsSync(path.join(dir, 'tokenizer.json'))) return dir;
  }
  return null;
}

const near = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b));

if (SKIP) test('the debate on your model in the browser', { skip: SKIP }, () => {});
else describe('the debate on your model in the browser', { timeout: 8 * 60_000 }, () => {
  let server;
  let ctx;
  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const panel = (page, name) => page.locator(`#ot-debate .live-panel[data-experiment="${name}"]`);
  const waitDebate = async (page) => {
    await page.waitForFunction(() => document.querySelector('#ot-debate')?.dataset.status === 'ready', null, { timeout: 180_000 });
  };
  const panelStatus = (page, name) => panel(page, name).getAttribute('data-status');
  const value = async (loc) => Number(await loc.getAttribute('data-value'));
  const hash = async (page) => new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
  // The numbers the four automatic panels show, read from the page.
  const shown = async (page) => ({
    tau_gradient: await value(panel(page, 'kendall').locator('[data-stat="tau-gradient"] .stat-value')),
    tau_loo: await value(panel(page, 'kendall').locator('[data-stat="tau-loo"] .stat-value')),
    jsd_max: await value(panel(page, 'erase-max').locator('tr[data-erased="max"] td[data-value]')),
    jsd_random: await value(panel(page, 'erase-max').locator('tr[data-erased="random"] td[data-value]')),
    removed: Object.fromEntries(await panel(page, 'erase-until-flip').locator('tr[data-ranking]').evaluateAll(
      (trs) => trs.map((tr) => [tr.dataset.ranking, Number(tr.dataset.removed)]))),
    median: Number(await panel(page, 'permutation').locator('.chart').getAttribute('data-median')),
    ms: Object.fromEntries(await page.locator('#ot-debate .live-panel[data-ms]').evaluateAll(
      (ps) => ps.map((p) => [p.dataset.experiment, Number(p.dataset.ms)]))),
  });
  const compare = (got, extra, what) => {
    const k = cliRow('kendall', MODEL_DIR, TEXT, extra);
    const m = cliRow('erase-max', MODEL_DIR, TEXT, extra);
    const u = cliRow('erase-until-flip', MODEL_DIR, TEXT, extra);
    const p = cliRow('permutation', MODEL_DIR, TEXT, extra);
    assert.ok(near(got.tau_gradient, k.tau_gradient), `${what}: τ gradient ${got.tau_gradient} vs ${k.tau_gradient}`);
    assert.ok(near(got.tau_loo, k.tau_loo), `${what}: τ loo ${got.tau_loo} vs ${k.tau_loo}`);
    assert.ok(near(got.jsd_max, m.jsd_max) && near(got.jsd_random, m.jsd_random), `${what}: erase-max`);
    for (const r of ['attention', 'gradient', 'attention_x_gradient', 'leave_one_out', 'random']) {
      assert.equal(got.removed[r], u[r].removed, `${what}: erase-until-flip ${r}`);
    }
    assert.ok(near(got.median, p.median_delta), `${what}: permutation median ${got.median} vs ${p.median_delta}`);
    return { k, u };
  };

  test('stories260K: the four panels equal the CLI, another layer, the adversarial search with Cancel, Which method?', async () => {
    const url = `${server.url}/web/#view=text&otmodel=stories260K&ottext=${encodeURIComponent(TEXT)}`;
    const page = await openRecordingPage(ctx, url);
    await waitDebate(page);
    for (const name of ['kendall', 'erase-max', 'erase-until-flip', 'permutation']) assert.equal(await panelStatus(page, name), 'ready', name);
    const sub = await page.locator('#ot-debate .ot-debate-sub').textContent();
    assert.match(sub, /greedy next token/);
    assert.match(sub, /BOS/);
    assert.match(sub, /held fixed/);
    const last = await shown(page);
    const { k } = compare(last, [], 'the last layer');
    // Negative control: the panels' numbers are not any layer's — layer 2's CLI row differs from what is shown.
    const other = cliRow('kendall', MODEL_DIR, TEXT, ['--layer', '1']);
    assert.ok(!near(other.tau_gradient, last.tau_gradient) || !near(other.tau_loo, last.tau_loo), 'layer 2 must differ from the last');
    console.log(`# stories260K in the page (ms in the worker): ${JSON.stringify(last.ms)}; τ gradient ${k.tau_gradient}`);
    await page.screenshot({ path: path.join(OUT, 'own-text-debate-full-1366.png'), fullPage: true });
    await page.locator('#ot-debate').screenshot({ path: path.join(OUT, 'own-text-debate-1366.png') });

    // The layer picker: layer 2 (= --layer 1), in the link.
    await page.locator('#ot-debate-layer').selectOption('2');
    await page.waitForFunction(() => document.querySelector('#ot-debate')?.dataset.status === 'pending', null, { timeout: 10_000 }).catch(() => {});
    await waitDebate(page);
    assert.equal((await hash(page)).get('otdlayer'), '2');
    compare(await shown(page), ['--layer', '1'], 'layer 2');

    // The adversarial search, 2 steps: the CLI's row.
    await page.locator('#ot-debate-layer').selectOption('0');
    await waitDebate(page);
    await panel(page, 'adversarial').locator('#ot-adv-steps').fill('2');
    await page.locator('#ot-adv-run').click();
    await page.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('#ot-debate .live-adversarial')?.dataset.status), null, { timeout: 180_000 });
    assert.equal(await panelStatus(page, 'adversarial'), 'ready', await panel(page, 'adversarial').locator('.panel-state').textContent());
    const adv = cliRow('adversarial', MODEL_DIR, TEXT, ['--param', 'steps=2']);
    const jsd = await value(panel(page, 'adversarial').locator('[data-stat="jsd"] .stat-value'));
    assert.ok(near(jsd, adv.max_jsd), `adversarial max JSD ${jsd} vs ${adv.max_jsd}`);
    await panel(page, 'adversarial').screenshot({ path: path.join(OUT, 'own-text-debate-adversarial-1366.png') });

    // "Which method?" (ERASER on the text, on request): every method's AOPC = the CLI's row; the verdict names one.
    assert.equal(await panelStatus(page, 'eraser'), 'idle');
    await page.locator('#ot-eraser-run').click();
    await page.waitForFunction(() => ['ready', 'error', 'skipped'].includes(document.querySelector('#ot-debate .live-eraser')?.dataset.status), null, { timeout: 180_000 });
    assert.equal(await panelStatus(page, 'eraser'), 'ready', await panel(page, 'eraser').locator('.panel-state').textContent());
    const er = cliRow('eraser', MODEL_DIR, TEXT);
    const aopc = Object.fromEntries(await panel(page, 'eraser').locator('.eraser-table tr[data-measure]').evaluateAll(
      (trs) => trs.map((tr) => [tr.dataset.measure, [...tr.querySelectorAll('td.aopc')].map((td) => Number(td.dataset.value))])));
    assert.deepEqual(Object.keys(aopc).sort(), Object.keys(er.measures).sort());
    for (const [m, [c, su]] of Object.entries(aopc)) {
      assert.ok(near(c, er.measures[m].aopc_comprehensiveness) && near(su, er.measures[m].aopc_sufficiency), `eraser ${m}: ${c}, ${su} vs the CLI`);
    }
    assert.match(await panel(page, 'eraser').locator('.which-line').textContent(), /is the most faithful/);
    await panel(page, 'eraser').screenshot({ path: path.join(OUT, 'own-text-debate-eraser-1366.png') });
    const advMs = Number(await panel(page, 'adversarial').getAttribute('data-ms'));
    console.log(`# stories260K adversarial, 2 steps: ${advMs} ms in the worker`);
    assert.equal((await hash(page)).get('otdsteps'), '2');

    // A long search: estimated progress, then Cancel; a short one runs again afterwards.
    await panel(page, 'adversarial').locator('#ot-adv-steps').fill('2000');
    await page.locator('#ot-adv-run').click();
    await page.waitForFunction(() => /of about/.test(document.querySelector('#ot-adv-progress-text')?.textContent ?? ''), null, { timeout: 120_000 });
    assert.equal(await page.locator('#ot-adv-cancel').isVisible(), true);
    await page.locator('#ot-adv-cancel').click();
    assert.equal(await panelStatus(page, 'adversarial'), 'idle');
    assert.match(await panel(page, 'adversarial').locator('.panel-state').textContent(), /Cancelled/);
    assert.equal(await page.locator('#ot-adv-progress').isVisible(), false);
    await panel(page, 'adversarial').locator('#ot-adv-steps').fill('1');
    await page.locator('#ot-adv-run').click();
    await page.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('#ot-debate .live-adversarial')?.dataset.status), null, { timeout: 180_000 });
    assert.equal(await panelStatus(page, 'adversarial'), 'ready');
    // The explanation above is unharmed (it runs in the other worker).
    assert.equal(await page.locator('#own-text').getAttribute('data-status'), 'ready');

    // A folded panel is in the link and does not run on the next text.
    await panel(page, 'permutation').locator('summary').click();
    await page.waitForFunction(() => /permutation/.test(location.hash), null, { timeout: 5_000 });
    assert.equal((await hash(page)).get('otdclosed'), 'permutation');
    const workers = () => page.evaluate(async () => (await import('./runtime/lab-runtime.js')).hostChannels()
      .find((c) => c.name === 'attnlab-own-text-debate')?.started ?? 0);
    const started = await workers();
    await page.locator('#ot-text').fill('Tom had a big red ball');
    await page.waitForFunction(() => document.querySelector('#ot-debate')?.dataset.status === 'pending', null, { timeout: 10_000 }).catch(() => {});
    await waitDebate(page);
    assert.equal(await panelStatus(page, 'permutation'), 'closed');
    assert.equal(await panelStatus(page, 'kendall'), 'ready');
    // Negative control of the next check: a new text typed after the panels finished keeps the debate worker.
    assert.equal(await workers(), started, 'the panels had finished: their worker is kept');

    // Next while the panels still run the step before: their worker is stopped (a fresh one runs the new step's
    // panels), so the explanation above has the cores to itself; the panels end ready for the new step, no error.
    await page.evaluate(async () => {
      window.debateChannel = (await import('./runtime/lab-runtime.js')).hostChannels().find((c) => c.name === 'attnlab-own-text-debate');
    });
    await page.locator('#ot-next').click();
    await page.waitForFunction(() => window.debateChannel.busy &&
      document.querySelector('#ot-debate .live-kendall')?.dataset.status === 'pending', null, { timeout: 60_000, polling: 10 });
    await page.locator('#ot-next').click();
    await page.waitForFunction(() => document.querySelector('#ot-debate')?.dataset.status === 'pending', null, { timeout: 10_000 }).catch(() => {});
    await waitDebate(page);
    assert.equal(await workers(), started + 1, 'the panels of the step before were stopped with their worker');
    for (const name of ['kendall', 'erase-max', 'erase-until-flip']) assert.equal(await panelStatus(page, name), 'ready', name);
    assert.equal((await hash(page)).get('otnext'), '2');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('390 px: the panels fit, screenshot', async () => {
    const small = await ctx.browser()?.newContext?.({ viewport: { width: 390, height: 844 } }) ?? null;
    const page = small ? await small.newPage() : await ctx.newPage();
    if (!small) await page.setViewportSize({ width: 390, height: 844 });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${server.url}/web/#view=text&otmodel=stories260K&ottext=${encodeURIComponent(TEXT)}`);
    await waitDebate(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `horizontal overflow ${overflow}px`);
    await page.locator('#ot-debate').screenshot({ path: path.join(OUT, 'own-text-debate-390.png') });
    assert.deepEqual(errors, []);
    await page.close();
    await small?.close();
  });

  const bert = bertFixture();
  test('a BERT-shaped fixture dropped on the Text tab: the kendall panel runs', { skip: bert ? false : 'no BERT-shaped fixture committed under tests/fixtures/onnx-text (another helper makes them)' }, async () => {
    const files = ['model.onnx', 'tokenizer.json', 'config.json'].map((f) => path.join(bert, f)).filter((f) => fs.existsSync(f));
    const text = 'the acting is superb but the plot is a mess';
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=text&ottext=${encodeURIComponent(text)}`);
    await page.locator('#own-text > summary').click();
    await page.locator('#ot-files').setInputFiles(files);
    await waitDebate(page);
    assert.equal(await panelStatus(page, 'kendall'), 'ready', await panel(page, 'kendall').locator('.panel-state').textContent());
    const k = cliRow('kendall', bert, text);
    const tau = await value(panel(page, 'kendall').locator('[data-stat="tau-gradient"] .stat-value'));
    assert.ok(Number.isNaN(tau) ? k.tau_gradient === null || k.tau_gradient === undefined : near(tau, k.tau_gradient), `BERT τ ${tau} vs ${k.tau_gradient}`);
    assert.match(await page.locator('#ot-debate .ot-debate-sub').textContent(), /\[CLS\]/);
    await page.locator('#ot-debate').screenshot({ path: path.join(OUT, 'own-text-debate-bert-1366.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
