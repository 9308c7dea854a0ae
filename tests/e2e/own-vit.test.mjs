// own-vit.test.mjs — a vision transformer in "Your model" (Images tab), in headless Debian Chromium.
// The torchvision VisionTransformer fixture (tests/fixtures/onnx/vit_tiny: seeded weights, 48² input, 8² patches, 2
// layers, 3 heads; its maps are checked against PyTorch in tests/core/test_onnx_vit.cpp) chosen with the file picker
// on #view=image&image=cat&backend=wasm:
//   - the summary says it has 2 attention layers;
//   - rollout and Chefer relevance are drawn over the 6 × 6 patch grid (layer "attention"), and each map equals
//     `build/attnlab explain-onnx --method rollout|chefer` on the same photo (cat.png as a PPM) to 1e-5; negative
//     control: rollout's map against Chefer's CLI map must differ; the line under the map names the attention read;
//     AttnLRP and CP-LRP likewise (control: each against the other's / Chefer's CLI map), with the conservation line;
//   - the sanity check of the Chefer map shuffles every weight of the model (and says so) and draws two tiles with ρ;
//   - Grad-CAM at `auto` reads the last block's input tokens as [24, 6, 6] and equals the CLI; the layer picker says
//     so and lists the token layers;
//   - a CNN (the squeezenet fixture) loaded next offers no attention method: the three options are disabled, their
//     title says why, and a link asking for rollout shows RISE's Compute button instead (the URL keeps the choice);
//   - then the same ViT with an operator the core lacks (a Shrink of λ 0 on its input) runs on ONNX Runtime Web: its
//     attention and rollout maps (the attention returned as extra outputs) equal the CLI's on the original; only those
//     two, RISE and occlusion are enabled, and "Which method?" ranks the two attention maps.
// Screenshots: tests/e2e/out/own-vit.png, own-vit-ort.png. Skips when web/gen lacks OnnxLab or build/attnlab is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, imageLabMissing } from './browser.mjs';
import { catPpm, lastJson, relErr, waitOwnMap } from './own-card.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const CLI = path.join(REPO, 'build/attnlab');
const VIT = path.join(REPO, 'tests/fixtures/onnx/vit_tiny/model.onnx');
const CNN = path.join(REPO, 'tests/fixtures/onnx/squeezenet1_1/model.onnx');
const WASM = path.join(REPO, 'web/gen/attnlab_core.wasm');
const TIMEOUT = 180_000;
const SKIP = imageLabMissing(REPO)
  || (!fs.existsSync(WASM) || !fs.readFileSync(WASM).includes('modelInput') ? 'web/gen has no OnnxLab (bash scripts/build-wasm.sh)' : false)
  || (!fs.existsSync(CLI) ? 'build/attnlab missing' : false);

if (SKIP) test('a vision transformer in Your model', { skip: SKIP }, () => {});
else describe('a vision transformer in Your model', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  let dir;
  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1200, height: 1000 } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-vit-'));
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const waitMap = (page, method) => waitOwnMap(page, method, TIMEOUT);
  const cli = (ppm, method) => lastJson(execFileSync(CLI, ['explain-onnx', '--model', VIT, '--image', ppm, '--method', method], { encoding: 'utf8' }));
  const shownMap = (page) => page.evaluate(() => Array.from(document.getElementById('own-model').ownLastMap));

  test('rollout and Chefer relevance over the patch grid equal the CLI; the sanity check; a CNN offers neither', async () => {
    const ppm = catPpm(REPO, dir);
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=image&image=cat&backend=wasm&omethod=rollout&csteps=10&risen=64`);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });
    await page.click('#own-model > summary');
    await page.setInputFiles('#own-file', VIT);
    let ds = await waitMap(page, 'rollout');
    assert.match(await page.textContent('#own-summary'), /Attention\s*2 layers \(a transformer/);
    assert.match(await page.textContent('#own-summary'), /Spatial layers\s*1 feature map and \d+ token layers read as a patch grid/);
    const rollout = cli(ppm, 'rollout');
    const chefer = cli(ppm, 'chefer');
    assert.equal(ds.layer, 'attention');
    assert.equal(ds.mapShape, '6×6');
    assert.equal(ds.class, String(rollout.class));
    let got = await shownMap(page);
    assert.ok(relErr(got, rollout.map) < 1e-5, `rollout off the CLI's by ${relErr(got, rollout.map)}`);
    assert.ok(relErr(got, chefer.map) > 1e-2, 'negative control: rollout must differ from Chefer relevance');
    assert.match(await page.textContent('#own-map-info'), /with Attention rollout at its attention \(2 layers, 3 heads, 37 tokens with the class token\) \(map 6×6\)/);

    await page.selectOption('#own-method', 'chefer');
    ds = await waitMap(page, 'chefer');
    got = await shownMap(page);
    assert.ok(relErr(got, chefer.map) < 1e-5, `Chefer relevance off the CLI's by ${relErr(got, chefer.map)}`);
    assert.match(page.url(), /omethod=chefer/);
    // AttnLRP and CP-LRP: the class's logit split over the pixels, summed per patch, = the CLI's; the line says
    // what the pixels carry
    for (const method of ['attnlrp', 'cp-lrp']) {
      await page.selectOption('#own-method', method);
      ds = await waitMap(page, method);
      const want = cli(ppm, method);
      assert.equal(ds.mapShape, '6×6');
      got = await shownMap(page);
      assert.ok(relErr(got, want.map) < 1e-5, `${method} off the CLI's by ${relErr(got, want.map)}`);
      assert.ok(relErr(got, (method === 'attnlrp' ? cli(ppm, 'cp-lrp') : chefer).map) > 1e-2, `${method}: negative control`);
      assert.match(await page.textContent('#own-map-info'), new RegExp(`the pixels carry ${want.conservation.pixels.toFixed(3).replace('-', '\\-')} of the logit`));
    }
    await page.selectOption('#own-method', 'chefer');
    await waitMap(page, 'chefer');
    await page.click('#own-sanity-run');
    await page.waitForSelector('#own-sanity p[data-spearman]', { timeout: TIMEOUT });
    assert.equal(await page.locator('#own-sanity .image-tile').count(), 2);
    assert.match(await page.textContent('#own-sanity'), /Every weight of the model was shuffled \(\d+ tensors/);
    await page.locator('#own-model').screenshot({ path: path.join(OUT, 'own-vit.png') });

    // Grad-CAM at `auto`: the last block's input tokens read as [D, 6, 6] (pytorch-grad-cam's ViT recipe)
    await page.selectOption('#own-method', 'gradcam');
    ds = await waitMap(page, 'gradcam');
    const gradcam = cli(ppm, 'gradcam');
    assert.equal(ds.layer, gradcam.layer);
    assert.match(ds.layer, /encoder_layer_1\/ln_1/);
    assert.equal(ds.mapShape, '6×6');
    got = await shownMap(page);
    assert.ok(relErr(got, gradcam.map) < 1e-5, `Grad-CAM off the CLI's by ${relErr(got, gradcam.map)}`);
    assert.match(await page.textContent('#own-layer option[value="auto"]'), /the last attention block’s input tokens/);
    assert.match(await page.textContent('#own-layer'), /tokens as 24×6×6/);

    // A CNN next, with Chefer relevance chosen: no attention, so the five attention methods are disabled with the
    // reason, and RISE stands in.
    await page.selectOption('#own-method', 'chefer');
    await waitMap(page, 'chefer');
    await page.setInputFiles('#own-file', CNN);
    await page.waitForFunction(() => /squeezenet|model\.onnx/.test(document.getElementById('own-summary').textContent)
      && !/Attention/.test(document.getElementById('own-summary').textContent), null, { timeout: TIMEOUT });
    const options = await page.evaluate(() => Array.from(document.querySelectorAll('#own-method option'))
      .filter((o) => ['attention', 'rollout', 'chefer', 'attnlrp', 'cp-lrp'].includes(o.value)).map((o) => ({ disabled: o.disabled, title: o.title })));
    assert.equal(options.length, 5);
    for (const o of options) {
      assert.equal(o.disabled, true);
      assert.match(o.title, /needs a transformer’s attention, and no attention was found in this model/);
    }
    await page.waitForSelector('#own-compute', { timeout: TIMEOUT });
    assert.equal(await page.inputValue('#own-method'), 'rise');
    assert.match(page.url(), /omethod=chefer/);

    // The same ViT with an operator the core lacks (a Shrink of λ 0 — the identity — on its input): ONNX Runtime Web
    // runs it, the attention the core finds comes back as extra outputs, and the attention and rollout maps equal the
    // CLI's on the original model; the gradient methods are disabled.
    const shrunk = path.join(dir, 'vit-shrink.onnx');
    const onnxPkg = (await import('onnx-proto')).default;
    const m = onnxPkg.onnx.ModelProto.decode(fs.readFileSync(VIT));
    for (const n of m.graph.node) n.input = n.input.map((v) => (v === 'image' ? 'image_shrunk' : v));
    m.graph.node.unshift(onnxPkg.onnx.NodeProto.create({ opType: 'Shrink', input: ['image'], output: ['image_shrunk'], name: 'shrink',
      attribute: [{ name: 'lambd', type: onnxPkg.onnx.AttributeProto.AttributeType.FLOAT, f: 0 }] }));
    fs.writeFileSync(shrunk, onnxPkg.onnx.ModelProto.encode(m).finish());
    await page.setInputFiles('#own-file', shrunk);
    await page.waitForFunction(() => /Shrink/.test(document.getElementById('own-engine')?.textContent ?? ''), null, { timeout: TIMEOUT });
    assert.match(await page.textContent('#own-engine'), /^The core cannot run Shrink \(1\), so gradients and CAMs are not available .*; so do the attention and rollout maps of its 2 attention layers/);
    const enabled = await page.evaluate(() => [...document.getElementById('own-method').options].filter((o) => !o.disabled).map((o) => o.value));
    assert.deepEqual(enabled, ['attention', 'rollout', 'rise', 'occlusion']);
    for (const method of ['rollout', 'attention']) {
      await page.selectOption('#own-method', method);
      ds = await waitMap(page, method);
      assert.equal(ds.layer, 'attention');
      assert.equal(ds.mapShape, '6×6');
      got = await shownMap(page);
      const want = method === 'rollout' ? rollout : cli(ppm, 'attention');
      assert.ok(relErr(got, want.map) < 1e-5, `${method} through ORT off the CLI's by ${relErr(got, want.map)}`);
      assert.ok(relErr(got, (method === 'rollout' ? cli(ppm, 'attention') : rollout).map) > 1e-2, `${method}: negative control`);
    }
    // "Which method?" on it ranks the two attention maps (their curves on ORT's forward passes)
    await page.click('#own-which-run');
    await page.waitForSelector('#own-which .which-line', { timeout: TIMEOUT });
    const ranked = await page.$$eval('#own-which tr[data-method]', (rows) => rows.map((r) => r.dataset.method).sort());
    assert.deepEqual(ranked, ['attention', 'rollout']);
    assert.match(await page.textContent('#own-which'), /No random baseline: it is drawn over a layer’s grid/);
    await page.locator('#own-model').screenshot({ path: path.join(OUT, 'own-vit-ort.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
