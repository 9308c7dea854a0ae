// own-model.test.mjs — "Your model" in the Images tab (views/own-model-view.js), in headless Debian Chromium.
// A torchvision squeezenet1_1 fixture (tests/fixtures/onnx/squeezenet1_1: seeded weights, 10 classes, 112² input) is
// chosen with the file picker on #view=image&image=cat&backend=wasm:
//   - the graph summary shows its classes and operators; Grad-CAM at the default layer is drawn, and the map (at
//     layer resolution) and the top-1 class equal `build/attnlab explain-onnx` on the same photo (cat.png as a PPM)
//     to 1e-5 — the CLI is checked against PyTorch in tests/node/onnx_core_cli.test.mjs; a negative control: the
//     CLI with another input scaling gives another map;
//   - the sanity check (weights after the layer shuffled) draws two maps and ρ (and says "nothing to shuffle" at the
//     last layer); integrated gradients shows its completeness line; occlusion started and cancelled; RISE (50
//     masks) runs as a job with progress;
//     the deletion and insertion curves are drawn (two charts, AUC in the legend) with ROAD's MoRF / LeRF means
//     beside them; a labels file names the classes;
//   - a model dropped together with its labels file is loaded and named by them;
//   - bad input: a text file, a truncated model, a model with two inputs (ONNX's test_add), a model with a
//     subgraph (test_loop11: Loop, refused by the reader): a readable message each, the loaded model stays, and the
//     shipped MobileNetV2 still classifies the next demo photo;
//   - the worker of your model with its heap filled (browser.mjs fillWasmHeap) fails on the next map: only that
//     worker is replaced (the Images tab's keeps its own), the message keeps the model, "Load it again" restores it;
//   - the shipped MobileNetV2 loaded as "your model" (0–255 scaling) gets ImageNet's labels and the Images tab's top-1;
//   - "Keep this model in this browser": after a reload "Load it" brings the model back; unticking the box forgets it.
//   - a model the core cannot run (tests/fixtures/onnx/instancenorm_net: InstanceNormalization) runs through ONNX
//     Runtime Web: the sentence names the missing operator, only RISE and occlusion are offered, the photo's logits
//     equal ORT in Node on the core's model input (Module.modelInput) to 1e-5, another scaling gives other logits (the
//     negative control) and the page's logits follow it; RISE (64 masks) draws a map, deletion / insertion / ROAD
//     their curves; a model with opset 22 (opset22_net) runs through ORT too; the squeezenet loaded next gets Grad-CAM
//     again (the URL's method was kept). Bad input: int64 token ids (ONNX's test_tril), a 2-D float input
//     (test_softmax_example) — "… expects …, not an image"; an operator neither runs (customop_net) — both refusals.
// Screenshots: tests/e2e/out/own-model.png, own-model-ort.png. Skips when web/gen lacks OnnxLab; the CLI comparison
// skips when build/attnlab is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { launchChromium, openRecordingPage, imageLabMissing, hostWorkers, fillWasmHeap } from './browser.mjs';
import { catPpm, lastJson, relErr, waitOwnMap } from './own-card.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { loadCore } from '../node/parity-lib.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const CLI = path.join(REPO, 'build/attnlab');
const FX = path.join(REPO, 'tests/fixtures/onnx/squeezenet1_1/model.onnx');
const VIT = path.join(REPO, 'tests/fixtures/onnx/vit_tiny/model.onnx');
const ONNX_NODE = '/usr/share/libonnx-testdata/data/node';
const WASM = path.join(REPO, 'web/gen/attnlab_core.wasm');
const TIMEOUT = 180_000;
const ORT_FX = (name) => path.join(REPO, 'tests/fixtures/onnx', name, 'model.onnx');
const SKIP = imageLabMissing(REPO)
  || (!fs.existsSync(WASM) || !fs.readFileSync(WASM).includes('modelInput') ? 'web/gen has no OnnxLab / modelInput (bash scripts/build-wasm.sh)' : false);
const NO_CLI = !fs.existsSync(CLI) ? 'build/attnlab missing' : false;


if (SKIP) test('your model in the browser', { skip: SKIP }, () => {});
else describe('your model in the browser', { timeout: 15 * 60_000 }, () => {
  let server;
  let ctx;
  let dir;
  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1200, height: 1000 } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-model-'));
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  const status = (page) => page.evaluate(() => document.getElementById('own-model').dataset.status);
  // The deletion / insertion curves and ROAD of the RISE map shown: two charts with an AUC, ROAD's MoRF / LeRF in [0, 1].
  async function riseCurves(page) {
    await page.click('#own-curves-run');
    await page.waitForFunction(() => document.querySelectorAll('#own-curves .chart[data-n="1"]').length === 2
      || !document.getElementById('own-message').hidden, null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#own-curves .chart[data-n="1"]').count(), 2, await page.textContent('#own-message'));
    assert.match(await page.textContent('#own-curves'), /RISE — AUC 0\.\d{3}/);
    const road = JSON.parse(await page.getAttribute('#own-curves .own-road', 'data-road'));
    assert.equal(road[0].method, 'rise');
    assert.ok(road[0].morf >= 0 && road[0].morf <= 1 && road[0].lerf >= 0 && road[0].lerf <= 1);
  }

  const waitMap = (page, method) => waitOwnMap(page, method, TIMEOUT);
  async function waitMessage(page, re) {
    await page.waitForFunction(() => !document.getElementById('own-message').hidden, null, { timeout: TIMEOUT });
    const msg = await page.textContent('#own-message');
    assert.match(msg, re);
    return msg;
  }
  // The Images tab on the cat (classified by the shipped model), with the "Your model" card opened.
  async function openCard(extraHash = '') {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm${extraHash}`);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });
    await page.click('#own-model > summary');
    return page;
  }
  // Chooses a model file with the picker and waits for its default Grad-CAM; → the canvas dataset.
  async function chooseModel(page, file = FX) {
    await page.setInputFiles('#own-file', file);
    return waitMap(page, 'gradcam');
  }
  const clearMessage = (page) => page.evaluate(() => { const m = document.getElementById('own-message'); m.textContent = ''; m.hidden = true; });

  test('squeezenet: summary, Grad-CAM = the CLI, IG completeness, RISE, curves, labels', { skip: NO_CLI }, async () => {
    const ppm = catPpm(REPO, dir);
    const page = await openCard('&risen=50');
    const ds = await chooseModel(page);
    const summary = await page.textContent('#own-summary');
    assert.match(summary, /Classes\s*10/);
    assert.match(summary, /Conv \d+/);
    const want = lastJson(execFileSync(CLI, ['explain-onnx', '--model', FX, '--image', ppm, '--method', 'gradcam'], { encoding: 'utf8' }));
    assert.equal(ds.layer, want.layer);
    assert.equal(ds.mapShape, want.map_shape.join('×'));
    assert.equal(ds.class, String(want.class));
    const got = await page.evaluate(() => Array.from(document.getElementById('own-model').ownLastMap));
    assert.ok(relErr(got, want.map) < 1e-5, `Grad-CAM off the CLI's by ${relErr(got, want.map)}`);
    // negative control: the same photo scaled 0–1 is another input, so another map
    const unit = lastJson(execFileSync(CLI, ['explain-onnx', '--model', FX, '--image', ppm, '--method', 'gradcam', '--preprocess', 'unit'], { encoding: 'utf8' }));
    assert.ok(relErr(got, unit.map) > 1e-3, 'another scaling must give another map');

    // the sanity check: at the default layer (only pooling after it) it says there is nothing to shuffle; at an
    // earlier layer it draws two tiles and a Spearman ρ
    await page.click('#own-sanity-run');
    await page.waitForFunction(() => /nothing to shuffle/.test(document.getElementById('own-sanity').textContent), null, { timeout: TIMEOUT });
    await page.selectOption('#own-layer', '/features/features.9/Concat_output_0');
    await waitMap(page, 'gradcam');
    await page.click('#own-sanity-run');
    await page.waitForSelector('#own-sanity p[data-spearman]', { timeout: TIMEOUT });
    assert.equal(await page.locator('#own-sanity .image-tile').count(), 2);
    assert.match(await page.textContent('#own-sanity'), /Every weight after .* was shuffled \(\d+ tensors/);

    await page.selectOption('#own-layer', 'auto');
    await page.selectOption('#own-method', 'integrated-gradients');
    await waitMap(page, 'integrated-gradients');
    assert.match(await page.textContent('#own-map-info'), /Completeness: the attributions sum to/);
    assert.match(page.url(), /omethod=integrated-gradients/);

    // Occlusion (1 + 169 passes) started and cancelled: the job row goes, the Compute button comes back
    await page.selectOption('#own-method', 'occlusion');
    await page.waitForSelector('#own-compute', { timeout: TIMEOUT });
    await page.click('#own-compute');
    await page.waitForFunction(() => /network passes/.test(document.getElementById('own-job-text').textContent), null, { timeout: TIMEOUT });
    await page.click('#own-cancel');
    await page.waitForFunction(() => document.getElementById('own-job').hidden && document.getElementById('own-compute'), null, { timeout: TIMEOUT });
    assert.equal(await page.getAttribute('#own-canvas', 'data-peak-x'), '');

    await page.selectOption('#own-method', 'rise');
    await page.waitForSelector('#own-compute', { timeout: TIMEOUT });
    await page.click('#own-compute');
    await page.waitForFunction(() => !document.getElementById('own-job').hidden, null, { timeout: TIMEOUT });
    await waitMap(page, 'rise');

    await riseCurves(page);

    const labels = path.join(dir, 'labels.txt');
    fs.writeFileSync(labels, Array.from({ length: 10 }, (_, k) => `shape ${k}`).join('\n'));
    await page.setInputFiles('#own-labels', labels);
    await page.waitForFunction(() => /shape \d/.test(document.getElementById('own-top').textContent), null, { timeout: TIMEOUT });
    await page.locator('#own-model').screenshot({ path: path.join(OUT, 'own-model.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // "Which method?" on a user's model: the random baseline is the CLI's (negative control: another seed), every map
  // the model gives directly is scored beside it, the Grad-CAM curves already run are reused (the same AUCs), a method
  // that gives no map is named with its reason, and the verdict names the lowest deletion AUC of the table.
  // On the ViT fixture (48² input, 6 × 6 patches: every pass is cheap, and its attention maps are ranked too).
  test('Which method? ranks every map of your model beside the CLI’s random baseline', { skip: NO_CLI }, async () => {
    const ppm = catPpm(REPO, dir);
    const page = await openCard('&seed=5&csteps=10');
    await chooseModel(page, VIT);
    await page.selectOption('#own-method', 'random');
    const ds = await waitMap(page, 'random');
    const got = await page.evaluate(() => Array.from(document.getElementById('own-model').ownLastMap));
    const cli = (seed) => lastJson(execFileSync(CLI, ['explain-onnx', '--model', VIT, '--image', ppm, '--method', 'random', '--seed', String(seed)], { encoding: 'utf8' }));
    const want = cli(5);
    assert.equal(ds.mapShape, want.map_shape.join('×'));
    assert.deepEqual(got, want.map.map((x) => Math.fround(x)));
    assert.ok(relErr(got, cli(6).map) > 0.1, 'another seed must give another map');

    await page.selectOption('#own-method', 'gradcam');
    await waitMap(page, 'gradcam');
    await page.click('#own-curves-run');
    await page.waitForFunction(() => document.querySelectorAll('#own-curves .chart[data-n="1"]').length === 2, null, { timeout: TIMEOUT });
    const chartAuc = await page.evaluate(() => [...document.querySelectorAll('#own-curves .chart')].map((c) => c.textContent.match(/Grad-CAM — AUC (0\.\d{3})/)?.[1]));
    await page.click('#own-which-run');
    await page.waitForSelector('#own-which .which-line', { timeout: TIMEOUT });
    assert.equal(await status(page), 'ready');
    const rows = await page.evaluate(() => [...document.querySelectorAll('#own-which tr[data-method]')].map((tr) => ({
      method: tr.dataset.method,
      deletion: Number(tr.querySelector('td.auc[data-kind="deletion"]').dataset.value),
      insertion: Number(tr.querySelector('td.auc[data-kind="insertion"]').dataset.value),
    })));
    const methods = rows.map((r) => r.method);
    for (const m of ['gradcam', 'gradcampp', 'layercam', 'eigencam', 'gradient', 'smoothgrad', 'integrated-gradients',
      'attention', 'rollout', 'chefer', 'attnlrp', 'cp-lrp', 'random']) {
      assert.ok(methods.includes(m), `${m} scored (${methods})`);
    }
    assert.ok(!methods.includes('rise') && !methods.includes('occlusion'), 'perturbation maps not computed are not scored');
    const gc = rows.find((r) => r.method === 'gradcam');
    assert.deepEqual([gc.deletion.toFixed(3), gc.insertion.toFixed(3)], chartAuc, 'the curves already run are reused');
    const text = await page.textContent('#own-which');
    if (!methods.includes('cam')) assert.match(text, /CAM: no map \(CAM needs a global-average-pooling \+ linear head/);
    const best = rows.filter((r) => r.method !== 'random').sort((a, b) => a.deletion - b.deletion)[0];
    const line = await page.textContent('#own-which .which-line');
    assert.match(line, new RegExp(`By deletion, ${await page.evaluate((m) => document.querySelector(`#own-method option[value="${m}"]`).textContent, best.method)} is the most faithful`));
    assert.match(line, /maps beat the random map \(0\.\d{3}\)/);
    for (const r of rows) assert.ok(r.deletion >= 0 && r.deletion <= 1 && r.insertion >= 0 && r.insertion <= 1, JSON.stringify(r));
    await page.locator('#own-model').screenshot({ path: path.join(OUT, 'own-which.png') });
    // another class: the ranking of the class before is not shown for it
    await page.locator('#own-top [data-index]').nth(1).click();
    await page.waitForFunction(() => !document.querySelector('#own-which .which-line'), null, { timeout: TIMEOUT });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('bad files: a clear message, the model held stays, the shipped model still works', async () => {
    const page = await openCard();
    // dropped with its labels file, in one drop
    await page.evaluate(async ({ b64, labels }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'model.onnx', { type: 'application/octet-stream' }));
      dt.items.add(new File([labels], 'labels.txt', { type: 'text/plain' }));
      document.getElementById('own-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, { b64: fs.readFileSync(FX).toString('base64'), labels: Array.from({ length: 10 }, (_, k) => `dropped ${k}`).join('\n') });
    await waitMap(page, 'gradcam');
    assert.match(await page.textContent('#own-top'), /dropped \d/);
    const text = path.join(dir, 'notes.onnx');
    fs.writeFileSync(text, 'these are my notes, not a model\n');
    const bytes = fs.readFileSync(FX);
    const cut = path.join(dir, 'cut.onnx');
    fs.writeFileSync(cut, bytes.subarray(0, bytes.length >> 1));
    const cases = [
      [text, /is not an ONNX model/],
      [cut, /could not be read: .*(truncat|ends|past|short)/i],
      [path.join(ONNX_NODE, 'test_add/model.onnx'), /cannot be explained here: .*exactly one graph input/],
      [path.join(ONNX_NODE, 'test_loop11/model.onnx'), /could not be read: .*subgraphs are not supported\./],
      [path.join(ONNX_NODE, 'test_tril/model.onnx'), /cannot be explained here: it expects INT64 \[4, 5\] \(input ‘x’\), not an image: an image classifier takes one FLOAT input/],
      [path.join(ONNX_NODE, 'test_softmax_example/model.onnx'), /cannot be explained here: it expects FLOAT \[1, 3\] \(input ‘x’\), not an image/],
      [ORT_FX('customop_net'), /cannot be explained here: unsupported operators: com\.example\.Scale \(1\); ONNX Runtime Web could not run it either: .*Scale/],
    ];
    for (const [file, re] of cases) {
      if (!fs.existsSync(file)) continue; // libonnx-testdata missing: setup.sh installs it
      await clearMessage(page);
      await page.setInputFiles('#own-file', file);
      const msg = await waitMessage(page, re);
      assert.match(msg, /model\.onnx stays loaded/, `${path.basename(file)}: ${msg}`);
      assert.equal(await status(page), 'ready');
    }
    // the model held still explains, and the shipped MobileNetV2 classifies the next demo photo
    await clearMessage(page);
    await page.selectOption('#own-method', 'gradient');
    await waitMap(page, 'gradient');
    await page.click('#image-gallery [data-image="owl"]');
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'owl'
      && document.getElementById('view-image').dataset.status === 'ready', null, { timeout: TIMEOUT });
    await page.waitForFunction(() => /Owl/.test(document.getElementById('own-caption').textContent), null, { timeout: TIMEOUT });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('the worker of your model runs out of memory: only it is replaced, "Load it again" restores the model', async () => {
    const page = await openCard();
    const before = await chooseModel(page);
    const named = async (name) => {
      for (const w of hostWorkers(page)) if (await w.evaluate(() => self.name) === name) return w;
      return null;
    };
    const own = await named('attnlab-own-model');
    const image = await named('attnlab-image');
    assert.ok(own && image, 'your model and the shipped one run in two host workers');
    await fillWasmHeap(own);
    await page.selectOption('#own-method', 'gradient'); // its allocations fail: the core aborts or throws
    await page.waitForSelector('#own-retry', { timeout: TIMEOUT });
    assert.match(await page.textContent('#own-message'), /Your model \(model\.onnx\) is kept/);
    await page.click('#own-retry');
    await page.waitForFunction(() => document.getElementById('own-message').hidden || !document.getElementById('own-retry'), null, { timeout: TIMEOUT });
    await page.selectOption('#own-method', 'gradcam');
    const after = await waitMap(page, 'gradcam');
    assert.equal(after.class, before.class);
    assert.equal(after.peakX, before.peakX);
    assert.equal(await named('attnlab-image'), image, 'the shipped model kept its worker');
    await page.click('#image-gallery [data-image="owl"]');
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'owl'
      && document.getElementById('view-image').dataset.status === 'ready', null, { timeout: TIMEOUT });
    assert.deepEqual(page.errors.filter((e) => !/Aborted\(/.test(e)), []);
    await page.close();
  });

  test('the shipped MobileNetV2 as your model: ImageNet labels, 0–255 scaling, the same top-1 as the Images tab', async () => {
    const page = await openCard('&oscale=raw');
    const shipped = await page.evaluate(() => document.getElementById('view-image').dataset.top1);
    const ds = await chooseModel(page, path.join(REPO, 'models/image/mobilenet_v2.onnx'));
    assert.match(await page.textContent('#own-notice'), /ImageNet labels assumed \(1001 classes\)/);
    const top1 = await page.evaluate(() => document.querySelector('#own-top [data-top1] .top5-label').textContent);
    assert.equal(top1, shipped);
    assert.equal(ds.mapShape, '7×7');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('kept in the browser only when asked; Load it / Forget it', async () => {
    const page = await openCard();
    assert.equal(await page.isVisible('#own-load-kept'), false);
    await chooseModel(page);
    await page.check('#own-keep');
    await page.waitForFunction(async () => Boolean(await (await caches.open('attnlab-own-model-v1')).match(new URL('own-model/kept.onnx', location.href).href)), null, { timeout: TIMEOUT });
    await page.reload();
    await page.click('#own-model > summary');
    await page.waitForSelector('#own-load-kept', { timeout: TIMEOUT });
    assert.match(await page.textContent('#own-kept'), /Kept from your last visit: model\.onnx/);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });
    await page.click('#own-load-kept');
    await waitMap(page, 'gradcam');
    assert.equal(await page.isChecked('#own-keep'), true);
    await page.uncheck('#own-keep');
    await page.waitForFunction(async () => !(await caches.has('attnlab-own-model-v1')), null, { timeout: TIMEOUT });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // The reference: the core's model input for the cat (Module.modelInput, the same conversion as OnnxLab's; checked
  // against OnnxLab in tests/node/onnx_wasm.test.mjs) run by onnxruntime-web in Node.
  async function ortReference(file, scaling, size) {
    const M = await loadCore();
    const png = PNG.sync.read(fs.readFileSync(path.join(REPO, 'web/images/cat.png')));
    const planar = M.preprocessImage(new Uint8Array(png.data), png.width, png.height);
    const ort = await import('onnxruntime-web');
    const session = await ort.InferenceSession.create(new Uint8Array(fs.readFileSync(file)), { executionProviders: ['wasm'] });
    const x = M.modelInput(planar, 1, scaling, size, 3);
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', x, [1, 3, size, size]) });
    const logits = Array.from(out[session.outputNames[0]].data);
    await session.release();
    return logits;
  }
  const pageLogits = (page) => page.evaluate(() => Array.from(document.getElementById('own-model').ownLogits ?? []));

  test('a model the core cannot run (InstanceNormalization): ONNX Runtime Web runs RISE and the curves', async () => {
    const FXI = ORT_FX('instancenorm_net');
    const page = await openCard('&risen=64');
    await page.setInputFiles('#own-file', FXI);
    await page.waitForFunction(() => document.getElementById('own-compute') || !document.getElementById('own-message').hidden, null, { timeout: TIMEOUT });
    assert.equal(await page.textContent('#own-message'), '');
    assert.equal(await page.textContent('#own-engine'),
      'The core cannot run InstanceNormalization (1), so gradients and CAMs are not available for this model (nor Score-CAM, ' +
      'AblationCAM and the sanity check); RISE, occlusion and the deletion / insertion / ROAD curves run through ONNX Runtime Web.');
    assert.match(await page.textContent('#own-summary'), /Classes\s*10/);
    // the picker: RISE shown (the URL's Grad-CAM cannot run here), only RISE and occlusion enabled, no sanity check
    assert.equal(await page.inputValue('#own-method'), 'rise');
    const options = await page.evaluate(() => [...document.getElementById('own-method').options].map((o) => [o.value, o.disabled]));
    assert.deepEqual(options.filter(([, d]) => !d).map(([m]) => m), ['rise', 'occlusion']);
    assert.equal(await page.isDisabled('#own-sanity-run'), true);
    assert.equal(await page.isDisabled('#own-layer'), true);
    assert.doesNotMatch(page.url(), /omethod=rise/, 'the URL keeps the method the user chose');

    // the photo's logits = ORT in Node on the core's model input; the negative control: 0–1 scaling differs
    const got = await pageLogits(page);
    const want = await ortReference(FXI, 'imagenet', 64);
    assert.equal(got.length, 10);
    assert.ok(relErr(got, want) < 1e-5, `logits off ORT in Node by ${relErr(got, want)}: ${got} vs ${want}`);
    const unit = await ortReference(FXI, 'unit', 64);
    assert.ok(relErr(unit, want) > 1e-2, 'another scaling must give other logits');
    await page.selectOption('#own-scaling', 'unit');
    await page.waitForFunction((w) => {
      const l = document.getElementById('own-model').ownLogits;
      return l && Math.abs(l[0] - w[0]) > 1e-4;
    }, want, { timeout: TIMEOUT });
    await page.waitForSelector('#own-compute', { timeout: TIMEOUT });
    assert.ok(relErr(await pageLogits(page), unit) < 1e-5, 'the page with 0–1 scaling = ORT in Node on the 0–1 input');

    // "Which method?" with no map to rank yet: a notice says what to do
    await page.click('#own-which-run');
    await page.waitForFunction(() => /Nothing to rank yet/.test(document.getElementById('own-notice').textContent), null, { timeout: TIMEOUT });

    // RISE with 64 masks: a map at 224², then deletion + insertion + ROAD
    await page.click('#own-compute');
    const ds = await waitMap(page, 'rise');
    assert.equal(ds.mapShape, '224×224');
    assert.equal(ds.layer, 'input');
    await riseCurves(page);
    // then "Which method?" ranks RISE (its curves reused) and says why there is no random map
    await page.click('#own-which-run');
    await page.waitForSelector('#own-which .which-line', { timeout: TIMEOUT });
    assert.deepEqual(await page.$$eval('#own-which tr[data-method]', (rows) => rows.map((r) => r.dataset.method)), ['rise']);
    assert.match(await page.textContent('#own-which'), /No random baseline: it is drawn over a layer’s grid/);
    await page.locator('#own-model').screenshot({ path: path.join(OUT, 'own-model-ort.png') });

    // opset 22 (the core runs 1–21): through ORT as well
    await page.setInputFiles('#own-file', ORT_FX('opset22_net'));
    await page.waitForFunction(() => /opset 22/.test(document.getElementById('own-engine')?.textContent ?? '')
      || !document.getElementById('own-message').hidden, null, { timeout: TIMEOUT });
    assert.equal(await page.textContent('#own-message'), '');
    assert.match(await page.textContent('#own-engine'), /^The core runs opsets 1–21, this model uses opset 22, so gradients and CAMs are not available/);
    await page.waitForSelector('#own-compute', { timeout: TIMEOUT });
    const o22 = await ortReference(ORT_FX('opset22_net'), 'unit', 64);
    assert.ok(relErr(await pageLogits(page), o22) < 1e-5, 'opset 22 logits = ORT in Node');

    // a model the core runs, next: every method is back (but the attention methods: a CNN has no attention) and the
    // URL's Grad-CAM is drawn
    await chooseModel(page);
    assert.equal(await page.isVisible('#own-engine'), false);
    assert.deepEqual(await page.evaluate(() => [...document.getElementById('own-method').options].filter((o) => o.disabled).map((o) => o.value)),
      ['attention', 'rollout', 'chefer', 'attnlrp', 'cp-lrp']);
    assert.equal(await page.isDisabled('#own-sanity-run'), false);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
