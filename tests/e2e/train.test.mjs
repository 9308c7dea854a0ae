// train.test.mjs — browser end-to-end test of the Train view (headless Chromium via playwright-core).
//
// Starts scripts/serve.mjs in-process on port 0 twice: on the repository, and on a copy whose sst2-train / dev / test are
// their first 2,000 / 300 / 300 sentences (the page trains whatever the manifest lists; an epoch in seconds — CI time).
// The three trainings compared with the CLI below run on that copy, the CLI on the same cut files; Cancel on the whole set.
// Checks:
//   - training uniform attention, seed 50, 1 epoch in the page: both progress bars move, the per-epoch dev
//     accuracy and F1 equal the native CLI's (`build/attnlab train-text … --attention uniform --seed 50
//     --epochs 1 --min-count 1 --storage f32`, last stdout line metrics.dev) to 1e-9, the test metrics are
//     shown next to the shipped models', the downloads hold the CLI's metrics and its weights (to 1e-4),
//     and the model becomes selectable in the Text and Debate pickers without a reload; the Text view then
//     explains with it (probability = the CLI's explain-text on the CLI-trained model, to 1e-4);
//   - while it trains, the Text view still answers (requests run between training steps);
//   - Cancel during epoch 1: no model is kept (a notice says so, the pickers are unchanged) and the page
//     keeps working;
//   - a transformer (1 layer × 4 heads, dot, seed 50, 1 epoch): its dev accuracy / F1 equal the CLI's on the command
//     the page prints (`same_as`: train-text --encoder transformer --layers 1 … --optimizer adamw …), it is listed
//     as a transformer next to the shipped models, and the Text view explains with it and draws its head view
//     (1 layer, 4 heads); prints the page's epoch time next to the CLI's;
//   - a model-consistent adversary of sst2-tanh (λ 1, seed 50, 1 epoch on the 2,000 sentences): progress with
//     the dev TVD / JSD to the base equal to the CLI's (`build/attnlab experiment adversarial-training
//     --model models/text/sst2-tanh --data sst2-dev.tsv --param train=sst2-train.tsv --param 'lambdas=[1]'
//     --param epochs=1 --seed 50`, to 1e-4; accuracy / F1 to one sentence), the TVD-vs-JSD scatter, the
//     download, and the model in the Text picker (it explains). Prints the page's epoch time next to the CLI's.
//   - the debate's fourth round (issue 32), on the first 300 / 200 / 200 sentences: an Orthogonal LSTM, a Diversity LSTM
//     (λ 0.5 by default) and deceptive attention (λ 1; the 454 words of the shipped lexicon, fetched by the page) train 1
//     epoch each; the pickers, the comparison table and the model info name the kind; the deceptive model explains with
//     its conicity.
// Saves tests/e2e/out/train.png, train-text.png, train-cancelled.png and train-adversary.png (look at them).
// Skips — with the reason printed — only when web/gen, the shipped data sets or the CLI is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, downloadBytes } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATA = path.join(REPO, 'models/text/data');
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const NAME = 'trained-uniform-seed50';
const SENTENCE = 'A gripping story with superb acting, though the ending is a bit weak.';

const missing = [];
if (!fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.mjs'))) missing.push('web/gen (bash scripts/build-wasm.sh)');
for (const f of ['sst2-train.tsv', 'sst2-dev.tsv', 'sst2-test.tsv']) {
  if (!fs.existsSync(path.join(DATA, f))) missing.push(`models/text/data/${f}`);
}
if (!fs.existsSync(CLI)) missing.push('build/attnlab (cmake -S . -B build && cmake --build build)');
const SKIP = missing.length ? `the train browser test needs ${missing.join(', ')}` : false;


// safetensors → { header, tensor(name) → Float32Array } (F32 only).
function safetensors(buf) {
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const tensor = (name) => {
    const [s, e] = header[name].data_offsets;
    return Float32Array.from({ length: (e - s) / 4 }, (_, i) => buf.readFloatLE(8 + n + s + 4 * i));
  };
  return { header, tensor };
}

// The page's weights and the CLI's: same tensors (names, shapes, F32); the values agree to 1e-4 (wasm and
// native round differently in the last bits; the metrics above are equal).
function assertSameWeights(page, native) {
  const a = safetensors(page);
  const b = safetensors(native);
  assert.deepEqual(a.header, b.header, 'same tensor names, shapes, dtypes and offsets');
  for (const name of Object.keys(b.header).filter((k) => k !== '__metadata__')) {
    const x = a.tensor(name);
    const y = b.tensor(name);
    let max = 0;
    for (let i = 0; i < x.length; i++) max = Math.max(max, Math.abs(x[i] - y[i]));
    assert.ok(max <= 1e-4, `${name}: max |page − CLI| = ${max}`);
  }
}
const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: page ${a} vs CLI ${b} (tolerance ${tol})`);
const lastJson = (out) => JSON.parse(out.trim().split('\n').at(-1));

// A served copy of the repository whose manifest's sst2-train / dev / test are their first cut[name] sentences (an epoch
// in seconds instead of the 6,920 sentences' tens): web/ and node_modules linked, sst2-tanh (the adversary's base, the
// Text view's first model) and the shipped lexicon copied. Returns { root, data } (data: the cut TSVs' folder).
function servedCopy(prefix, cut) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.symlinkSync(path.join(REPO, 'web'), path.join(root, 'web'));
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
  const text = path.join(root, 'models/text');
  fs.mkdirSync(path.join(text, 'data'), { recursive: true });
  for (const d of ['image', 'cnn']) {
    fs.mkdirSync(path.join(root, 'models', d), { recursive: true });
    fs.copyFileSync(path.join(REPO, 'models', d, 'manifest.json'), path.join(root, 'models', d, 'manifest.json'));
  }
  fs.cpSync(path.join(REPO, 'models/text/sst2-tanh'), path.join(text, 'sst2-tanh'), { recursive: true });
  fs.copyFileSync(path.join(DATA, 'sst2-strong-lexicon.txt'), path.join(text, 'data/sst2-strong-lexicon.txt'));
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'models/text/manifest.json'), 'utf8'));
  manifest.datasets = manifest.datasets.filter((d) => cut[d.name]).map((d) => {
    const bytes = Buffer.from(fs.readFileSync(path.join(DATA, `${d.name}.tsv`), 'utf8').split('\n').slice(0, cut[d.name]).join('\n') + '\n');
    fs.writeFileSync(path.join(text, 'data', `${d.name}.tsv`), bytes);
    return { ...d, n: cut[d.name], bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') };
  });
  fs.writeFileSync(path.join(text, 'manifest.json'), JSON.stringify(manifest));
  return { root, data: path.join(text, 'data') };
}

if (SKIP) test('Train view in the browser', { skip: SKIP }, () => {});
else describe('Train view in the browser', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  let cut; // the served copy with 2,000 / 300 / 300 sentences (the trainings of the first, second and fourth test)
  let cutServer;
  let cliDir;
  let cli; // the native CLI's result on the same data, seed and epochs

  before(async () => {
    cut = servedCopy('attnlab-e2e-train-cut-', { 'sst2-train': 2000, 'sst2-dev': 300, 'sst2-test': 300 });
    // The reference: the native CLI on the same sentence-level data (the shipped copies are unchanged).
    cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-e2e-train-'));
    cli = lastJson(execFileSync(CLI, ['train-text', '--train', path.join(cut.data, 'sst2-train.tsv'), '--dev', path.join(cut.data, 'sst2-dev.tsv'),
      '--out', cliDir, '--attention', 'uniform', '--seed', '50', '--epochs', '1', '--min-count', '1', '--storage', 'f32'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    server = await startServer({ port: 0, root: REPO });
    cutServer = await startServer({ port: 0, root: cut.root });
    ctx = await launchChromium({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
    fs.mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
    await cutServer?.close();
    if (cut) fs.rmSync(cut.root, { recursive: true, force: true });
    if (cliDir) fs.rmSync(cliDir, { recursive: true, force: true });
  });

  // srv: the cut copy unless a test needs the whole training set
  async function openPage(hash = '', srv = cutServer) {
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      // errors, and chart-library warnings (Observable Plot marks its chart with ⚠ when it warns)
      if (m.type() === 'error' || (m.type() === 'warning' && /^Warning:/.test(m.text()))) errors.push(`console: ${m.text()}`);
    });
    page.errors = errors;
    await page.goto(`${srv.url}/web/${hash}`);
    return page;
  }

  async function waitTrain(page, statuses, timeout = 240_000) {
    await page.waitForFunction((st) => st.includes(document.querySelector('#view-train')?.dataset.status), statuses, { timeout });
    return page.locator('#view-train').getAttribute('data-status');
  }

  async function waitText(page) {
    await page.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('#view-text')?.dataset.status), null, { timeout: 120_000 });
    assert.equal(await page.locator('#view-text').getAttribute('data-status'), 'ready', await page.locator('#text-message').textContent());
  }

  const modelOptions = (page, sel) => page.$$eval(`${sel} option`, (os) => os.map((o) => o.value));

  test('uniform, seed 50, 1 epoch: progress, dev accuracy = the CLI\'s, test metrics, downloads, then explain with it', { timeout: 300_000 }, async () => {
    const page = await openPage('#view=train&epochs=1');
    assert.equal(await waitTrain(page, ['idle', 'error']), 'idle', await page.locator('#train-message').textContent());
    assert.equal(await page.inputValue('#train-attention'), 'uniform');
    assert.equal(await page.inputValue('#train-seed'), '50');
    assert.equal(await page.inputValue('#train-epochs'), '1');
    assert.deepEqual(await page.$$eval('#train-seeds button', (bs) => bs.map((b) => Number(b.textContent))),
      [50, 257, 500231, 100078, 12504, 90754789, 8988812, 2]);
    assert.match(await page.locator('#view-train .train-note').textContent(), /a reload forgets it/);

    // Record both bars while it runs.
    await page.evaluate(() => {
      window.__bars = [];
      const a = document.querySelector('#train-epoch-progress');
      const b = document.querySelector('#train-progress');
      const watch = setInterval(() => {
        window.__bars.push([Number(a.value), Number(a.max), Number(b.value)]);
        if (['done', 'cancelled', 'error'].includes(document.querySelector('#view-train').dataset.status)) clearInterval(watch);
      }, 50);
    });
    await page.click('#train-run');
    assert.equal(await page.locator('#view-train').getAttribute('data-status'), 'running');
    assert.equal(await page.isDisabled('#train-run'), true);
    assert.equal(await page.isEnabled('#train-cancel'), true);
    assert.equal(await waitTrain(page, ['done', 'cancelled', 'error']), 'done', await page.locator('#train-message').textContent());
    const bars = await page.evaluate(() => window.__bars);
    assert.ok(bars.some(([v, max]) => v > 0 && v < max && max > 10), `the epoch bar moved (${JSON.stringify(bars.slice(0, 5))}…)`);
    assert.ok(bars.some(([, , all]) => all > 0 && all < 1), 'the overall bar moved');
    assert.equal(Number(await page.locator('#train-progress').getAttribute('value')), 1);
    assert.equal(await page.locator('#view-train').getAttribute('data-model'), NAME);

    // Dev metrics of epoch 1 = the CLI's (same data, seed, recipe), exactly up to printing.
    const row = page.locator('.epoch-table tr[data-epoch="1"]');
    const num = async (loc) => Number(await loc.getAttribute('data-value'));
    close(await num(row.locator('td.num').nth(1)), cli.metrics.dev.accuracy, 1e-9, 'dev accuracy, epoch 1');
    close(await num(row.locator('td.num').nth(2)), cli.metrics.dev.f1, 1e-9, 'dev F1, epoch 1');
    assert.ok(await row.evaluate((tr) => tr.classList.contains('best')), 'epoch 1 is the kept epoch');
    assert.equal(await page.locator('[data-chart="train-dev"]').getAttribute('data-n'), '1');
    assert.ok(Number(await page.locator('[data-chart="train-loss"]').getAttribute('data-n')) > 5, 'loss points drawn');

    // Test metrics next to the shipped models'.
    const models = await page.$$eval('.compare-table tbody tr', (trs) => trs.map((tr) => tr.dataset.model));
    assert.deepEqual(models[0], NAME);
    const shippedSst2 = JSON.parse(fs.readFileSync(path.join(REPO, 'models/text/manifest.json'), 'utf8')).models
      .filter((m) => (m.dataset ?? 'sst2') === 'sst2').map((m) => m.name).sort();
    assert.ok(shippedSst2.includes('sst2-tanh') && shippedSst2.includes('sst2-transformer'), shippedSst2.join(', '));
    assert.deepEqual(models.slice(1).sort(), shippedSst2, 'every shipped SST-2 model, and only those');
    const trained = page.locator(`.compare-table tr[data-model="${NAME}"]`);
    close(await num(trained.locator('[data-metric="dev_accuracy"]')), cli.metrics.dev.accuracy, 1e-9, 'dev accuracy in the table');
    const testAcc = await num(trained.locator('[data-metric="test_accuracy"]'));
    const testF1 = await num(trained.locator('[data-metric="test_f1"]'));
    assert.ok(testAcc > 0.55 && testAcc < 0.95 && testF1 > 0.5 && testF1 < 0.95, `test acc ${testAcc}, F1 ${testF1}`);
    assert.match(await page.locator('#train-result-title').textContent(), new RegExp(`${NAME}: test accuracy \\d+\\.\\d %, F1 0\\.\\d{3}`));
    // The CLI's test metrics of its model equal the page's.
    const cliTest = lastJson(execFileSync(CLI, ['eval-text', '--model', cliDir, '--data', path.join(cut.data, 'sst2-test.tsv')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    close(testAcc, cliTest.accuracy, 1e-9, 'test accuracy');
    close(testF1, cliTest.f1, 1e-9, 'test F1');

    // Downloads: config.json (with both metrics) and the weights — the same bytes the CLI wrote.
    const grab = async (sel) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
      return downloadBytes(download);
    };
    const config = await grab('#train-download-config');
    assert.equal(config.name, 'config.json');
    const cfg = JSON.parse(config.bytes.toString('utf8'));
    assert.equal(cfg.attention, 'uniform');
    assert.equal(cfg.metrics.dev.accuracy, cli.metrics.dev.accuracy);
    assert.equal(cfg.metrics.test.accuracy, testAcc);
    const weights = await grab('#train-download-weights');
    assert.equal(weights.name, 'model.safetensors');
    assertSameWeights(weights.bytes, fs.readFileSync(path.join(cliDir, 'model.safetensors')));
    await page.screenshot({ path: path.join(OUT, 'train.png'), fullPage: true });

    // The URL holds the settings.
    const params = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
    assert.equal(params.get('view'), 'train');
    assert.equal(params.get('epochs'), '1');

    // Selectable without a reload: in the Debate picker, and in the Text picker — explain with it.
    assert.ok((await modelOptions(page, '#debate-model')).includes(NAME), 'in the Debate picker');
    await page.click('.view-tab[data-view="text"]');
    assert.ok((await modelOptions(page, '#model-select')).includes(NAME), 'in the Text picker');
    await page.fill('#text-input', SENTENCE);
    await waitText(page);
    await page.selectOption('#model-select', NAME);
    await page.waitForFunction((n) => document.querySelector('#view-text').dataset.status === 'ready' &&
      document.querySelector('#text-status').textContent.startsWith(n), NAME, { timeout: 120_000 });
    const p = Number(await page.locator('#probability').getAttribute('data-probability'));
    const cliExplain = lastJson(execFileSync(CLI, ['explain-text', '--model', cliDir, '--text', SENTENCE], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    close(p, cliExplain.probability, 1e-4, 'probability with the trained model');
    assert.match(await page.locator('#model-info').textContent(), /Trained in this page/);
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('model'), NAME);
    await page.screenshot({ path: path.join(OUT, 'train-text.png'), fullPage: false });

    // "Explain with it" from the Train tab opens the Text lab with it.
    await page.selectOption('#model-select', 'sst2-tanh');
    await page.click('.view-tab[data-view="train"]');
    await page.click('#train-open');
    assert.equal(await page.isVisible('#view-text'), true);
    assert.equal(await page.inputValue('#model-select'), NAME);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a 1-layer transformer, dot, seed 50, 1 epoch: dev metrics = the CLI\'s, then its head view in the Text lab', { timeout: 300_000 }, async () => {
    const TNAME = 'trained-transformer1-dot-seed50';
    const page = await openPage('#view=train&trainkind=transformer&attention=tanh&tlayers=1&epochs=1');
    assert.equal(await waitTrain(page, ['idle', 'error']), 'idle', await page.locator('#train-message').textContent());
    assert.equal(await page.isVisible('#train-layers'), true);
    assert.equal(await page.inputValue('#train-layers'), '1');
    assert.deepEqual(await page.$$eval('#train-attention option', (os) => os.map((o) => o.value)), ['dot', 'uniform']);
    assert.equal(await page.inputValue('#train-attention'), 'dot', 'tanh from the link shows as dot for a transformer');
    const t0 = Date.now();
    await page.click('#train-run');
    assert.equal(await waitTrain(page, ['done', 'cancelled', 'error']), 'done', await page.locator('#train-message').textContent());
    const pageSeconds = (Date.now() - t0) / 1000;
    assert.equal(await page.locator('#view-train').getAttribute('data-model'), TNAME);
    assert.match(await page.locator('#train-title').textContent(), /transformer: 1 layer × 4 heads · dot self-attention/);

    // The CLI on the command the page gives (its same_as), with --out replaced.
    const note = await page.locator('#train-result-note').textContent();
    const same = note.match(/The same model from the command line: build\/attnlab (train-text .*)\.$/);
    assert.ok(same, `the result names the CLI command (${note})`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-e2e-train-tf-'));
    const args = same[1].split(' ').slice(1).map((a) => a.replace('../shared/data/sst2/', `${cut.data}/sst2-`).replace(/^DIR$/, dir));
    assert.ok(args.includes('transformer') && args.includes('adamw'), args.join(' '));
    const c0 = Date.now();
    const native = lastJson(execFileSync(CLI, ['train-text', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const cliSeconds = (Date.now() - c0) / 1000;
    console.log(`# transformer, 1 layer, 1 epoch: page ${pageSeconds.toFixed(1)} s (with the test pass) vs CLI ${cliSeconds.toFixed(1)} s`);
    const row = page.locator('.epoch-table tr[data-epoch="1"]');
    const num = async (loc) => Number(await loc.getAttribute('data-value'));
    close(await num(row.locator('td.num').nth(1)), native.metrics.dev.accuracy, 1e-9, 'dev accuracy, epoch 1');
    close(await num(row.locator('td.num').nth(2)), native.metrics.dev.f1, 1e-9, 'dev F1, epoch 1');
    const trained = page.locator(`.compare-table tr[data-model="${TNAME}"]`);
    assert.equal((await trained.locator('td').nth(1).textContent()).trim(), 'dot (transformer)');
    close(await num(trained.locator('[data-metric="test_accuracy"]')), native.metrics.test.accuracy, 1e-9, 'test accuracy');

    // The Text lab explains with it and shows its one layer of 4 heads.
    await page.click('#train-open');
    await page.fill('#text-input', SENTENCE);
    await page.waitForFunction((n) => document.querySelector('#view-text').dataset.status === 'ready' &&
      document.querySelector('#text-status').textContent.startsWith(n), TNAME, { timeout: 120_000 });
    await page.waitForFunction(() => ['ready', 'error', 'na'].includes(document.querySelector('#heads-panel')?.dataset.heads), null, { timeout: 60_000 });
    assert.equal(await page.locator('#heads-panel').getAttribute('data-heads'), 'ready', await page.locator('#heads-panel').textContent());
    assert.deepEqual(await page.$$eval('#hv-layer option', (os) => os.map((o) => o.value)), ['0']);
    assert.equal(await page.locator('.hv-head').count(), 4);
    const p = Number(await page.locator('#probability').getAttribute('data-probability'));
    const cliExplain = lastJson(execFileSync(CLI, ['explain-text', '--model', dir, '--text', SENTENCE], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    close(p, cliExplain.probability, 1e-4, 'probability with the trained transformer');
    await page.screenshot({ path: path.join(OUT, 'train-transformer.png'), fullPage: false });
    assert.deepEqual(page.errors, []);
    fs.rmSync(dir, { recursive: true, force: true });
    await page.close();
  });

  test('Cancel during epoch 1 keeps no model; the Text view answered while it trained and keeps working', { timeout: 180_000 }, async () => {
    const page = await openPage('#view=train&attention=tanh&trainseed=257&epochs=2', server);
    assert.equal(await waitTrain(page, ['idle', 'error']), 'idle');
    assert.equal(await page.inputValue('#train-attention'), 'tanh');
    assert.equal(await page.inputValue('#train-seed'), '257');
    assert.ok(await page.locator('#train-seeds button[data-seed="257"]').evaluate((b) => b.classList.contains('selected')));
    const before = await modelOptions(page, '#model-select');
    await page.click('#train-run');
    await page.waitForFunction(() => Number(document.querySelector('#train-epoch-progress').value) >= 10, null, { timeout: 90_000 });

    // While it trains: the Text view explains (its requests run between training steps).
    await page.click('.view-tab[data-view="text"]');
    await page.fill('#text-input', 'superb acting');
    await waitText(page);
    assert.equal(await page.locator('#view-train').getAttribute('data-status'), 'running', 'still training');

    await page.click('.view-tab[data-view="train"]');
    assert.match(await page.locator('#train-epoch-text').textContent(), /^epoch 1 \/ 2 ·/, 'still in epoch 1 when cancelling');
    await page.click('#train-cancel');
    assert.equal(await waitTrain(page, ['cancelled', 'done', 'error'], 60_000), 'cancelled');
    assert.match(await page.locator('#train-notice').textContent(), /cancelled during epoch 1.*no model was kept/i);
    assert.equal(await page.locator('#view-train').getAttribute('data-model'), '');
    assert.equal(await page.isVisible('#train-result'), false);
    assert.deepEqual(await modelOptions(page, '#model-select'), before, 'no model added to the Text picker');
    assert.ok(!(await modelOptions(page, '#debate-model')).some((n) => n.startsWith('trained-')), 'nor to the Debate picker');
    assert.equal(await page.isEnabled('#train-run'), true);
    assert.equal(await page.isDisabled('#train-cancel'), true);
    await page.screenshot({ path: path.join(OUT, 'train-cancelled.png'), fullPage: true });

    // The page keeps working.
    await page.click('.view-tab[data-view="text"]');
    await page.fill('#text-input', 'a dull , lifeless film');
    await waitText(page);
    // the drawn result is this sentence's (its tokens), not an earlier one's
    await page.waitForFunction(() => /lifeless/.test(document.querySelector('.measure-row[data-measure=attention] .tokens')?.textContent ?? ''), null, { timeout: 60_000 });
    assert.equal(await page.locator('#prediction-label').textContent(), 'negative');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('model-consistent adversary of sst2-tanh, λ 1, seed 50, 1 epoch: dev TVD / JSD = the CLI\'s, scatter, Text picker', { timeout: 420_000 }, async () => {
    const ADV = 'trained-adversary-sst2-tanh-lambda1-seed50';
    const t0 = Date.now();
    const cliOut = lastJson(execFileSync(CLI, ['experiment', 'adversarial-training', '--model', path.join(REPO, 'models/text/sst2-tanh'),
      '--data', path.join(cut.data, 'sst2-dev.tsv'), '--out', path.join(cliDir, 'adversary.json'), '--seed', '50',
      '--param', `train=${path.join(cut.data, 'sst2-train.tsv')}`, '--param', 'lambdas=[1]', '--param', 'epochs=1'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const cliWall = (Date.now() - t0) / 1000;
    const ref = cliOut.curve[0];

    const page = await openPage('#view=train&trainkind=adversary&epochs=1');
    assert.equal(await waitTrain(page, ['idle', 'error']), 'idle', await page.locator('#train-message').textContent());
    assert.equal(await page.inputValue('#train-kind'), 'adversary');
    assert.equal(await page.inputValue('#train-base'), 'sst2-tanh');
    assert.equal(await page.inputValue('#train-lambda'), '1');
    assert.deepEqual(await page.$$eval('#train-base option', (os) => os.map((o) => o.value)),
      ['sst2-deceptive', 'sst2-diversity', 'sst2-dot', 'sst2-ortho', 'sst2-tanh'], 'SST-2 BiLSTM bases with learned attention');
    assert.equal(await page.isVisible('#train-attention'), false, 'no attention choice: the base decides');
    assert.equal(await page.isVisible('#train-lambda'), true);
    const before = await modelOptions(page, '#model-select');

    await page.evaluate(() => {
      window.__bars = [];
      window.__t = { click: performance.now() };
      const a = document.querySelector('#train-epoch-progress');
      const watch = setInterval(() => {
        window.__bars.push([Number(a.value), Number(a.max)]);
        const st = document.querySelector('#view-train').dataset.status;
        if (st === 'testing' && !window.__t.testing) window.__t.testing = performance.now();
        if (['done', 'cancelled', 'error'].includes(st)) {
          window.__t.done = performance.now();
          clearInterval(watch);
        }
      }, 50);
    });
    await page.click('#train-run');
    assert.match(await page.locator('#train-title').textContent(), /adversary of sst2-tanh: λ 1 · seed 50 · 1 epoch/);
    assert.equal(await waitTrain(page, ['done', 'cancelled', 'error'], 360_000), 'done', await page.locator('#train-message').textContent());
    const bars = await page.evaluate(() => window.__bars);
    assert.ok(bars.some(([v, max]) => v > 0 && v < max && max > 10), 'the epoch bar moved');
    assert.equal(await page.locator('#view-train').getAttribute('data-model'), ADV);

    // Per-epoch dev comparison with the base = the CLI's on the same data, seed and λ.
    const row = page.locator('.epoch-table tr[data-epoch="1"]');
    const num = async (loc) => Number(await loc.getAttribute('data-value'));
    close(await num(row.locator('[data-metric="tvd"]')), ref.tvd_mean, 1e-4, 'dev TVD to the base, epoch 1');
    close(await num(row.locator('[data-metric="jsd"]')), ref.jsd_mean, 1e-4, 'dev JSD to the base, epoch 1');
    close(await num(row.locator('td.num').nth(1)), ref.accuracy, 1.5e-3, 'dev accuracy, epoch 1');
    close(await num(row.locator('td.num').nth(2)), ref.f1, 3e-3, 'dev F1, epoch 1');
    assert.match(await page.locator('#train-progress-text').textContent(), /Done: 1 epoch/);
    assert.match(await page.locator('#train-result-title').textContent(), new RegExp(`${ADV}: test TVD 0\\.\\d{3} and JSD 0\\.\\d{3} to sst2-tanh`));

    // The scatter and the table of adversaries (one so far).
    assert.equal(await page.isVisible('#train-adversaries'), true);
    assert.equal(await page.locator('[data-chart="adversary-curve"]').getAttribute('data-n'), '1');
    const advRow = page.locator(`.adversary-table tr[data-model="${ADV}"]`);
    const testTvd = await num(advRow.locator('[data-metric="tvd"]'));
    const testJsd = await num(advRow.locator('[data-metric="jsd"]'));
    assert.ok(testTvd > 0 && testTvd < 1 && testJsd > 0 && testJsd <= Math.log(2), `test TVD ${testTvd}, JSD ${testJsd}`);

    // Download: config.json records the adversary.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#train-download-config')]);
    const cfg = JSON.parse((await downloadBytes(download)).bytes.toString('utf8'));
    assert.equal(cfg.attention, 'tanh');
    assert.equal(cfg.training.lambda, 1);
    assert.equal(cfg.training.base, 'sst2-tanh');
    assert.equal(cfg.metrics.test.tvd_mean, testTvd);
    await page.screenshot({ path: path.join(OUT, 'train-adversary.png'), fullPage: true });
    const params = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
    assert.equal(params.get('trainkind'), 'adversary');

    // Selectable without a reload; it explains.
    await page.click('.view-tab[data-view="text"]');
    const after = await modelOptions(page, '#model-select');
    assert.deepEqual(after.filter((n) => !before.includes(n)), [ADV], 'in the Text picker');
    await page.fill('#text-input', SENTENCE);
    await waitText(page);
    await page.selectOption('#model-select', ADV);
    await page.waitForFunction((n) => document.querySelector('#view-text').dataset.status === 'ready' &&
      document.querySelector('#text-status').textContent.startsWith(n), ADV, { timeout: 120_000 });
    const p = Number(await page.locator('#probability').getAttribute('data-probability'));
    assert.ok(p >= 0 && p <= 1);
    assert.match(await page.locator('#model-info').textContent(), /Model-consistent adversary of sst2-tanh/);

    const t = await page.evaluate(() => window.__t);
    console.log(`# adversary, 1 epoch on 2,000 sentences + dev comparison: page (Chromium) ${((t.testing - t.click) / 1000).toFixed(1)} s ` +
      `(then ${((t.done - t.testing) / 1000).toFixed(1)} s test comparison and load); CLI ${cliOut.seconds.toFixed(1)} s ` +
      `(training + dev comparison; ${cliWall.toFixed(1)} s wall with loading)`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
  // Issue 32: the debate's fourth round as kinds of model. A served copy whose manifest's sst2-train / dev / test are the
  // first 300 / 200 / 200 sentences (an epoch in seconds); the lexicon is the shipped one. Each kind trains 1 epoch and
  // its entry says what it is: the pickers' labels, the comparison table, the model info; the deceptive model's words
  // are the 454 of the lexicon (fetched by the page), and it explains with a conicity line.
  test('round four: an Orthogonal LSTM, a Diversity LSTM (λ 0.5) and deceptive attention (λ 1, the lexicon) train; the entry says the kind', { timeout: 300_000 }, async () => {
    const { root } = servedCopy('attnlab-e2e-round4-', { 'sst2-train': 300, 'sst2-dev': 200, 'sst2-test': 200 });
    let small;
    try {
      small = await startServer({ port: 0, root });

      const page = await ctx.newPage();
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
      page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
      await page.goto(`${small.url}/web/#view=train&epochs=1&trainseed=50`);
      assert.equal(await waitTrain(page, ['idle', 'error']), 'idle', await page.locator('#train-message').textContent());
      const kinds = [
        { kind: 'ortho', name: 'trained-ortho-tanh-seed50', label: 'Orthogonal LSTM + tanh attention', table: 'tanh (Orthogonal LSTM)' },
        { kind: 'diversity', name: 'trained-diversity0.5-tanh-seed50', label: 'Diversity LSTM + tanh attention', table: 'tanh (Diversity LSTM, λ 0.5)',
          lambda: '0.5' },
        { kind: 'deceptive', name: 'trained-deceptive1-tanh-seed50', label: 'BiLSTM + tanh attention · deceptive (Pruthi et al.)',
          table: 'tanh (deceptive, λ 1)', lambda: '1' },
      ];
      for (const k of kinds) {
        await page.selectOption('#train-kind', k.kind);
        assert.equal(await page.inputValue('#train-attention'), 'tanh', `${k.kind}: learned attention (the link's uniform shows as tanh)`);
        assert.equal(await page.isVisible('#train-penalty'), Boolean(k.lambda), `${k.kind}: λ control`);
        if (k.lambda) assert.equal(await page.inputValue('#train-penalty'), k.lambda, `${k.kind}: the paper's λ by default`);
        assert.equal(await page.isVisible('#train-words'), k.kind === 'deceptive');
        if (k.kind === 'deceptive') {
          await page.waitForFunction(() => /^454 words: the shipped strong-sentiment lexicon/.test(document.querySelector('#train-words-info').textContent), null, { timeout: 30_000 });
          assert.match(await page.inputValue('#train-words'), /^abhorrent abomination /);
          assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('trainkind'), 'deceptive');
        }
        await page.click('#train-run');
        assert.equal(await waitTrain(page, ['done', 'cancelled', 'error']), 'done', `${k.kind}: ${await page.locator('#train-message').textContent()}`);
        if (k.kind === 'deceptive') assert.match(await page.locator('#train-title').textContent(), /λ 1, 454 impermissible words/);
        assert.equal(await page.locator('#view-train').getAttribute('data-model'), k.name);
        assert.ok((await page.locator(`.compare-table tr[data-model="${k.name}"]`).textContent()).includes(k.table), `${k.kind}: the table names the kind`);
        const label = await page.$eval(`#model-select option[value="${k.name}"]`, (o) => o.textContent);
        assert.ok(label.startsWith(`${k.name} — ${k.label} ·`), `${k.kind}: Text picker "${label}"`);
        assert.equal(await page.$eval(`#debate-model option[value="${k.name}"]`, (o) => o.textContent), `${k.name} — ${k.label}`);
      }
      // the deceptive model in the Text lab: its description names the kind; a BiLSTM, so its conicity is shown
      await page.click('#train-open');
      await page.waitForFunction((n) => document.querySelector('#view-text').dataset.status === 'ready' &&
        document.querySelector('#text-status').textContent.startsWith(n), kinds[2].name, { timeout: 120_000 });
      assert.match(await page.locator('#model-info').textContent(), /deceptive attention \(Pruthi et al\. 2020: −λ·log\(1 − attention on the 454 words of the shipped strong-sentiment lexicon\), λ = 1\)/);
      const c = Number(await page.locator('#token-rows .conicity-line').getAttribute('data-conicity'));
      assert.ok(c >= 0 && c <= 1, `conicity ${c}`);
      assert.deepEqual(page.errors, []);
      await page.close();
    } finally {
      await small?.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
