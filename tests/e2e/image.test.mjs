// image.test.mjs — browser end-to-end test of the Image lab (headless Debian Chromium via playwright-core).
//
// Starts scripts/serve.mjs in-process on port 0 and checks, on the wasm backend (backend=wasm):
//   - #view=image&image=cat: the top-1 label is "Egyptian cat" (measured: 94.6 %; the next is 2.6 %) and its
//     probability equals an independent Node run (pngjs decode → the core's preprocessImage → onnxruntime-web
//     in Node) to 1e-4; the 224² input the page shows equals that preprocessing; top-5 has five rows.
//   - dog_segmentation: the CAM's peak (data-peak-x/y of #image-canvas) lies on the dog in the Oxford-IIIT
//     trimap (label 0 = pet), looked up here through the preprocessing geometry (shorter side → 256, centre
//     224 crop, nearest neighbour), and the page's pointing game agrees (when the core has it); the readout says the
//     peak in words, the chance level beside the pointing game equals a brute-force count from the mask file, and
//     the tiles' colour bars follow the chosen colormap.
//   - bad input: a text file, a corrupt PNG, a zero-byte file, a cut JPEG, a valid 30000×30000 PNG, an SVG with
//     a script (which never runs), a text file renamed .png → a readable message, the previous photo stays; tiny
//     (10×10), transparent, huge (8000×8000) and 1×100000 PNGs, a PNG named .jpg and an animated GIF (its first
//     frame) are classified with a note; an EXIF-rotated JPEG (orientation 6) is decoded upright at the capped
//     size; the gallery still works afterwards.
//   - the slow methods: Score-CAM starts with a progress bar and Cancel stops it (when the core has plans).
//   - a truncated model file (a throw-away models/ tree) gives a clear message; the other views keep working.
// ONE test forces backend=webgpu with --enable-unsafe-webgpu (SwiftShader: slow, so a single forward pass):
// ORT must report the WebGPU EP (section data-ep) and the top-1 must equal the wasm path's.
// Screenshots: tests/e2e/out/image-*.png (look at them).
// Skips — with the reason printed — when web/gen has no image API or models/image is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { launchChromium, openRecordingPage, CHROMIUM_ARGS } from './browser.mjs';
import { pngSolid, pngSingleColour, gifAnimated } from './image-files.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const GEN = path.join(REPO, 'web/gen/attnlab_core.mjs');
const GEN_WASM = path.join(REPO, 'web/gen/attnlab_core.wasm');
// Embind names live in the .wasm (its data section), not in the .mjs glue.
const coreHas = (name) => fs.existsSync(GEN_WASM) && fs.readFileSync(GEN_WASM).includes(name);
const MANIFEST = path.join(REPO, 'models/image/manifest.json');
const TIMEOUT = 180_000;
const EXPECTED_CAT = 'Egyptian cat';

const missing = [];
if (!fs.existsSync(GEN) || !coreHas('ImageLab')) {
  missing.push('web/gen/attnlab_core.mjs with the image API (bash scripts/build-wasm.sh)');
}
if (!fs.existsSync(MANIFEST)) missing.push('models/image/manifest.json (bash models/tools/convert-mobilenet.sh)');
const SKIP = missing.length ? `the image browser test needs ${missing.join(' and ')}` : false;

// --- a tiny PNG encoder (solid or given RGBA), for the bad-input fixtures; no files are written to the repo
async function nodeReference(file) {
  const { default: createModule } = await import(GEN);
  const core = await createModule({ wasmBinary: fs.readFileSync(GEN_WASM) });
  const ort = await import('onnxruntime-web');
  const manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  const model = manifest.models[0];
  const png = PNG.sync.read(fs.readFileSync(path.join(REPO, 'web/images', file)));
  const input = core.preprocessImage(new Uint8Array(png.data), png.width, png.height);
  const session = await ort.InferenceSession.create(path.join(REPO, 'models/image', model.files.onnx.path));
  const out = await session.run({ image: new ort.Tensor('float32', input, [1, 3, 224, 224]) });
  const logits = out.logits.data;
  const m = Math.max(...logits);
  const e = Array.from(logits, (v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  let top = 0;
  for (let i = 1; i < e.length; i++) if (e[i] > e[top]) top = i;
  await session.release?.();
  return { input, top, prob: e[top] / sum };
}

// A JPEG stored 2000×1000 (left half red, right half blue) with EXIF orientation 6.
// A file classified by an ImageClient of its own in the page: the decoded size and the RGB of the 224 × 224
// model input (res.display) at the given [x, y] points.
function decodedPixels(page, bytes, type, points) {
  return page.evaluate(async ({ bytes, type, points }) => {
    const { ImageClient } = await import('./runtime/image-client.js');
    const c = new ImageClient();
    await c.load({ override: 'wasm' });
    const r = await c.classify({ blob: new Blob([new Uint8Array(bytes)], { type }) });
    c.terminate();
    return { w: r.width, h: r.height, at: points.map(([x, y]) => Array.from(r.display.subarray(4 * (y * 224 + x), 4 * (y * 224 + x) + 3))) };
  }, { bytes: Array.from(bytes), type, points });
}

function rotatedJpeg() {
  const w = 2000;
  const h = 1000;
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) data.set(x < w / 2 ? [230, 20, 20, 255] : [20, 20, 230, 255], 4 * (y * w + x));
  }
  const base = jpeg.encode({ data, width: w, height: h }, 90).data;
  const tiff = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0];
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const len = payload.length + 2;
  return Buffer.concat([base.subarray(0, 2), Buffer.from([0xff, 0xe1, len >> 8, len & 255, ...payload]), base.subarray(2)]);
}

if (SKIP) test('image view in the browser', { skip: SKIP }, () => {});
else describe('image view in the browser', { timeout: 20 * 60_000 }, () => {
  let server;
  let ctx;
  let wasmTop1 = null;

  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1200, height: 1000 } });
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  const openPage = (c, hash) => openRecordingPage(c, `${server.url}/web/${hash}`);

  // Waits until the view has classified `photo` and is idle; returns the section's dataset.
  async function waitPhoto(page, photo, timeout = TIMEOUT) {
    await page.waitForFunction((p) => {
      const s = document.getElementById('view-image');
      return (s.dataset.status === 'ready' && s.dataset.photo === p) || s.dataset.status === 'error';
    }, photo, { timeout });
    const ds = await page.evaluate(() => ({ ...document.getElementById('view-image').dataset }));
    const msg = await page.textContent('#image-message');
    assert.equal(ds.status, 'ready', `the view failed: ${msg}`);
    return ds;
  }

  async function waitPeak(page) {
    await page.waitForFunction(() => document.getElementById('image-canvas').dataset.peakX, null, { timeout: TIMEOUT });
    return page.evaluate(() => ({ ...document.getElementById('image-canvas').dataset }));
  }

  test('cat: top-1 label and probability as in Node; the model input equals the core preprocessing', async () => {
    const ref = await nodeReference('cat.png');
    const page = await openPage(ctx, '#view=image&image=cat&backend=wasm');
    const ds = await waitPhoto(page, 'cat');
    assert.equal(ds.modelCache, 'miss', 'a fresh profile downloads the model');
    assert.equal(ds.top1, EXPECTED_CAT);
    assert.equal(Number(ds.top1Index), ref.top, 'the same class as the Node reference');
    const rows = await page.$$eval('#image-top5 .top5-row', (els) => els.map((e) => e.textContent));
    assert.equal(rows.length, 5);
    assert.match(rows[0], new RegExp(EXPECTED_CAT));
    const shown = await page.$eval('#image-top5 .top5-row[data-top1] .top5-prob', (e) => e.textContent);
    assert.ok(Math.abs(parseFloat(shown) - ref.prob * 100) < 0.051, `shown ${shown} vs Node ${(ref.prob * 100).toFixed(3)} %`);
    // The exact probability, from the worker, through the page's own client.
    const exact = await page.evaluate(async () => {
      const { ImageClient } = await import('./runtime/image-client.js');
      const c = new ImageClient();
      await c.load({ override: 'wasm' });
      const blob = await (await fetch('images/cat.png')).blob();
      const r = await c.classify({ blob });
      // ORT's session, made once asked for (or after 1.5 s): the same photo again, now by ONNX Runtime
      const { ep } = await c.session();
      const r2 = await c.classify({ blob });
      c.terminate();
      return {
        prob: r.top5[0].prob, index: r.top5[0].index, display: Array.from(r.display.subarray(0, 224 * 4 * 3)), headCheck: r.headCheck,
        engine: r.engine, ep, ort: { engine: r2.engine, prob: r2.top5[0].prob, index: r2.top5[0].index, headCheck: r2.headCheck },
      };
    });
    // A cold worker classifies its first photo with the core's own executor while ORT starts; both engines agree
    // with the Node reference (ORT in Node) and the core's head agrees with each engine's logits.
    assert.equal(exact.engine, 'core', 'the first photo of a fresh worker is run by the core');
    assert.equal(exact.ep, 'wasm');
    assert.equal(exact.ort.engine, 'onnxruntime', 'once the session is made, ORT runs the network');
    for (const [who, r] of [['core', exact], ['ORT', exact.ort]]) {
      assert.equal(r.index, ref.top, who);
      assert.ok(Math.abs(r.prob - ref.prob) < 1e-4, `${who}: page ${r.prob} vs Node ${ref.prob}`);
      assert.ok(r.headCheck < 1e-3, `${who}: core head logits vs the network's logits: max diff ${r.headCheck}`);
    }
    // the first rows of the displayed crop are the rounded model input
    const n = 224 * 224;
    let maxDiff = 0;
    for (let i = 0; i < 224 * 3; i++) {
      for (let ch = 0; ch < 3; ch++) maxDiff = Math.max(maxDiff, Math.abs(exact.display[4 * i + ch] - ref.input[ch * n + i]));
    }
    assert.ok(maxDiff <= 0.5 + 1e-6, `display vs preprocessImage: ${maxDiff}`);
    const peak = await waitPeak(page);
    assert.equal(peak.method, 'cam');
    // the first map made, ORT's session follows and the backend line names its execution provider
    await page.waitForFunction(() => document.getElementById('view-image').dataset.ep, null, { timeout: TIMEOUT });
    assert.equal(await page.getAttribute('#view-image', 'data-ep'), 'wasm');
    assert.match(await page.textContent('#image-backend'), /ORT execution provider: wasm/);
    wasmTop1 = ds.top1;
    await page.screenshot({ path: path.join(OUT, 'image.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('dog_segmentation: the CAM peak lies on the dog (mask label 0 = pet)', async () => {
    const page = await openPage(ctx, '#view=image&image=dog_segmentation&method=cam&backend=wasm');
    const ds = await waitPhoto(page, 'dog_segmentation');
    assert.match(ds.top1, /Samoyed/);
    assert.equal(ds.modelCache, 'hit', 'the second page of this profile reads the model from the Cache API');
    const peak = await waitPeak(page);
    const x = Number(peak.peakX);
    const y = Number(peak.peakY);
    const mask = PNG.sync.read(fs.readFileSync(path.join(REPO, 'web/images/dog_segmentation_mask.png')));
    // 128² → shorter side 256 (scale 2), centre crop offset (256 − 224) / 2 = 16; nearest, half-pixel centres
    const scale = 256 / Math.min(mask.width, mask.height);
    const ox = (Math.round(mask.width * scale) - 224) / 2;
    const oy = (Math.round(mask.height * scale) - 224) / 2;
    const sx = Math.floor((x + ox + 0.5) / scale);
    const sy = Math.floor((y + oy + 0.5) / scale);
    const label = mask.data[4 * (sy * mask.width + sx)];
    assert.equal(label, 0, `the CAM peak (${x}, ${y}) maps to mask pixel (${sx}, ${sy}) with label ${label}, not the pet`);
    if (peak.pointing) assert.equal(peak.pointing, 'hit');
    assert.ok(await page.isVisible('.image-mask-canvas'), 'the mask is shown');
    // The readout in words, and the pointing game's chance level: the share of the 224² crop within 15 px of
    // the pet, counted here by brute force from the mask file through the same geometry.
    const info = await page.textContent('#image-map-info');
    assert.ok(info.includes(`hottest point at x = ${x}, y = ${y} of the 224 × 224 crop the network sees`), info);
    if (peak.pointing) {
      const on = new Uint8Array(224 * 224);
      for (let yy = 0; yy < 224; yy++) {
        for (let xx = 0; xx < 224; xx++) {
          const mx = Math.floor((xx + ox + 0.5) / scale);
          const my = Math.floor((yy + oy + 0.5) / scale);
          on[yy * 224 + xx] = mask.data[4 * (my * mask.width + mx)] === 0 ? 1 : 0;
        }
      }
      let near = 0;
      let area = 0;
      for (let yy = 0; yy < 224; yy++) {
        for (let xx = 0; xx < 224; xx++) {
          area += on[yy * 224 + xx];
          let hit = false;
          for (let dy = -15; dy <= 15 && !hit; dy++) {
            for (let dx = -15; dx <= 15 && !hit; dx++) {
              const u = xx + dx, w = yy + dy;
              hit = dx * dx + dy * dy <= 225 && u >= 0 && u < 224 && w >= 0 && w < 224 && on[w * 224 + u] === 1;
            }
          }
          if (hit) near++;
        }
      }
      const chance = await page.evaluate(() => ({ ...document.querySelector('#image-map-info .point-chance').dataset }));
      assert.ok(Math.abs(Number(chance.chance) - near / 224 ** 2) < 0.002, `chance ${chance.chance} vs brute force ${near / 224 ** 2}`);
      assert.ok(Math.abs(Number(chance.maskShare) - area / 224 ** 2) < 0.002, `mask share ${chance.maskShare} vs ${area / 224 ** 2}`);
      assert.match(info, /Chance level: a map whose hottest point falls on a random pixel hits \d+\.\d % of the time/);
      assert.match(info, /Centre-point baseline \(hottest point always at x = 112, y = 112\): (hit|miss)/);
      assert.match(await page.textContent('#image-grid .image-tile[data-method="cam"] .image-tile-sub'), /pointing: hit \(chance \d+ %\)/);
    }
    // every ready tile's colour bar is drawn in the chosen colormap (inferno starts at #000004)
    await page.selectOption('#image-colormap', 'inferno');
    await page.waitForFunction(() => {
      const strips = [...document.querySelectorAll('#image-grid .image-tile .colorbar-strip')];
      return strips.length > 0 && strips.every((st) => st.style.background.includes('rgb(0, 0, 4)'));
    }, null, { timeout: TIMEOUT });
    await page.screenshot({ path: path.join(OUT, 'image-dog.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('bad input: messages, notes, and the page keeps working', async () => {
    const page = await openPage(ctx, '#view=image&image=bird&backend=wasm');
    const first = await waitPhoto(page, 'bird');
    const upload = async (name, mimeType, buffer) => {
      await page.setInputFiles('#image-file', { name, mimeType, buffer });
    };
    const message = () => page.textContent('#image-message');

    await upload('notes.txt', 'text/plain', Buffer.from('not a photo at all'));
    await page.waitForFunction(() => !document.getElementById('image-message').hidden);
    assert.match(await message(), /notes\.txt.*is not an image/);
    assert.equal((await page.evaluate(() => document.getElementById('view-image').dataset.photo)), 'bird');

    const corrupt = Buffer.concat([pngSolid(64, 64, () => [1, 2, 3, 255]).subarray(0, 60), Buffer.alloc(200, 7)]);
    await upload('broken.png', 'image/png', corrupt);
    await page.waitForFunction(() => /could not/.test(document.getElementById('image-message').textContent), null, { timeout: TIMEOUT });
    assert.match(await message(), /corrupt|could not be decoded/);
    assert.match(await message(), /previous photo stays/);
    assert.equal(await page.evaluate(() => document.getElementById('view-image').dataset.top1), first.top1);

    // each of these: a clear message, the bird stays shown (its top-1), nothing else changes
    const refused = async (name, type, bytes, pattern) => {
      await page.evaluate(() => { document.getElementById('image-message').textContent = ''; });
      await upload(name, type, bytes);
      await page.waitForFunction(() => document.getElementById('image-message').textContent !== '', null, { timeout: TIMEOUT });
      assert.match(await message(), pattern, name);
      assert.match(await message(), /previous photo stays/, name);
      assert.equal(await page.evaluate(() => document.getElementById('view-image').dataset.top1), first.top1, name);
      assert.equal(await page.evaluate(() => document.getElementById('view-image').dataset.status), 'ready', name);
    };
    await refused('empty.png', 'image/png', Buffer.alloc(0), /“empty\.png” is empty/);
    const goodJpeg = jpeg.encode({ data: Buffer.alloc(64 * 64 * 4, 128), width: 64, height: 64 }, 90).data;
    await refused('cut.jpg', 'image/jpeg', Buffer.concat([goodJpeg.subarray(0, 200), Buffer.alloc(100, 0x55)]), /could not be decoded/);
    // a valid 30000×30000 one-colour PNG (2.7 MB): refused from its header, before anything is decoded
    await refused('wall.png', 'image/png', pngSingleColour(30000, 30000, [30, 140, 200]), /too large to decode \(30000×30000 px; the limit is 400 megapixels\)/);
    // an SVG holding a script: never decoded (a document, not a photo), so its script cannot run
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><script>parent.__svgRan = self.__svgRan = 1;</script><rect width="100" height="100" fill="red"/></svg>';
    await refused('drawing.svg', 'image/svg+xml', Buffer.from(svg), /SVG drawing .* not a photo/);
    assert.equal(await page.evaluate(() => window.__svgRan), undefined, 'the SVG\'s script did not run');
    // a text file renamed to .png: its bytes decide
    await refused('notes.png', 'image/png', Buffer.from('just some words, renamed to .png'), /not an image the page can read: its bytes are not PNG/);

    // a 1×100000 PNG: decoded at 1×1024, then the 224×224 crop of the resize to 256 wide (only the crop is computed)
    await upload('thread.png', 'image/png', pngSolid(1, 100000, () => [90, 160, 30, 255]));
    await waitPhoto(page, 'upload');
    assert.match(await page.textContent('#image-notice'), /1×100000 px\): decoded at 1×1024/);
    // a PNG named .jpg: read as a PNG, and said so
    await upload('really-a-png.jpg', 'image/jpeg', pngSolid(300, 200, (x) => [x % 256, 90, 200, 255]));
    await page.waitForFunction(() => /says it is JPEG .* its bytes are PNG/.test(document.getElementById('image-notice').textContent), null, { timeout: TIMEOUT });
    // an animated GIF (3 frames: red, green, blue): the first frame (red) is classified, and the notice says so
    await upload('blink.gif', 'image/gif', gifAnimated(300, 240, [1, 2, 3]));
    await page.waitForFunction(() => /animated GIF \(3 frames\): only its first frame/.test(document.getElementById('image-notice').textContent), null, { timeout: TIMEOUT });
    assert.equal(await page.evaluate(() => document.getElementById('view-image').dataset.status), 'ready');
    const frame = await decodedPixels(page, gifAnimated(300, 240, [1, 2, 3]), 'image/gif', [[112, 112]]);
    assert.deepEqual(frame.at[0], [255, 0, 0], 'the first frame (red) is the one classified');

    await upload('tiny.png', 'image/png', pngSolid(10, 10, (x) => [200, 30 + 20 * x, 40, 255]));
    await waitPhoto(page, 'upload');
    assert.match(await page.textContent('#image-notice'), /small photo \(10×10/);
    assert.match(await page.textContent('#image-notice'), /not shareable by link/);
    assert.equal(await page.isHidden('#image-message'), true, 'a good photo clears the message');

    await upload('gray.png', 'image/png', pngSolid(300, 260, (x) => [x % 256, x % 256, x % 256, 255]));
    await page.waitForFunction(() => /grayscale/.test(document.getElementById('image-notice').textContent), null, { timeout: TIMEOUT });

    await upload('glass.png', 'image/png', pngSolid(300, 300, (x) => [20, 40, 200, x % 256]));
    await page.waitForFunction(() => /transparent/.test(document.getElementById('image-notice').textContent), null, { timeout: TIMEOUT });

    const t0 = Date.now();
    // The main thread stays responsive: a 10 ms timer keeps ticking while the 64-megapixel photo is decoded and
    // classified (ticks seen while the view is 'loading'; no wall-clock limit).
    await page.evaluate(() => {
      window.__ticks = [];
      window.__tick = setInterval(() => window.__ticks.push(document.getElementById('view-image').dataset.status), 10);
    });
    await upload('huge.png', 'image/png', pngSolid(8000, 8000, (x) => [(x * 7) & 255, 120, 60, 255]));
    await page.waitForFunction(() => /8000×8000/.test(document.getElementById('image-notice').textContent), null, { timeout: TIMEOUT });
    const ticks = await page.evaluate(() => {
      clearInterval(window.__tick);
      return window.__ticks;
    });
    const busy = ticks.filter((st) => st !== 'ready').length;
    console.log(`# huge photo: ${busy} of ${ticks.length} timer ticks while the view was busy`);
    assert.ok(busy >= 3, `the main thread ran timers while the huge photo was processed (${busy} of ${ticks.length} ticks not 'ready')`);
    assert.equal(await page.evaluate(() => document.getElementById('view-image').dataset.status), 'ready');
    console.log(`# huge 8000×8000 PNG classified in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    // EXIF orientation 6 (rotate 90° clockwise), stored 2000×1000 (left half red, right half blue): decoded
    // upright and scaled to 512×1024 (portrait), red on top.
    await upload('rotated.jpg', 'image/jpeg', rotatedJpeg());
    await page.waitForFunction(() => /EXIF orientation \(6\)/.test(document.getElementById('image-notice').textContent), null, { timeout: TIMEOUT });
    assert.match(await page.textContent('#image-caption'), /512×1024 px/);
    const px = await decodedPixels(page, rotatedJpeg(), 'image/jpeg', [[112, 10], [112, 213]]);
    const [top, bottom] = px.at;
    assert.deepEqual([px.w, px.h], [512, 1024]);
    assert.ok(top[0] > 180 && top[2] < 80, `top is red: ${top}`);
    assert.ok(bottom[2] > 180 && bottom[0] < 80, `bottom is blue: ${bottom}`);

    // the gallery still works and the URL never held the uploads
    await page.click('.gallery-item[data-image="owl"]');
    const owl = await waitPhoto(page, 'owl');
    assert.ok(owl.top1.length > 0);
    assert.match(page.url(), /image=owl/);
    await page.screenshot({ path: path.join(OUT, 'image-bad-input.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('slow methods: Score-CAM shows progress and Cancel stops it', async (t) => {
    if (!coreHas('planScoreCam')) return t.skip('the core has no perturbation plans yet (planScoreCam)');
    const page = await openPage(ctx, '#view=image&image=cat&backend=wasm');
    await waitPhoto(page, 'cat');
    await page.selectOption('#image-method', 'scorecam');
    await page.waitForFunction(() => Number(document.getElementById('image-job-progress').value) >= 16, null, { timeout: TIMEOUT });
    const text = await page.textContent('#image-job-text');
    // one pass per feature channel that is not zero on the cat (ReLU6 leaves several hundred of the 1,280 at zero)
    const total = Number(/Score-CAM.*\/ ([\d,]+)/.exec(text)?.[1].replace(/,/g, ''));
    assert.ok(total > 0 && total < 1280, text);
    await page.click('#image-cancel');
    await page.waitForFunction(() => document.getElementById('image-job').hidden, null, { timeout: TIMEOUT });
    assert.match(await page.textContent('#image-map-info'), /1,280 network passes/);
    // a fast method works right after the cancel
    await page.selectOption('#image-method', 'gradcam');
    const peak = await waitPeak(page);
    assert.equal(peak.method, 'gradcam');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a truncated model file: a clear message, no crash', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-image-root-'));
    let srv;
    try {
      fs.symlinkSync(path.join(REPO, 'web'), path.join(root, 'web'));
      fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
      const dir = path.join(root, 'models/image');
      fs.mkdirSync(dir, { recursive: true });
      const manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
      const files = manifest.models[0].files;
      for (const f of Object.values(files)) fs.copyFileSync(path.join(REPO, 'models/image', f.path), path.join(dir, f.path));
      fs.copyFileSync(MANIFEST, path.join(dir, 'manifest.json'));
      const onnx = path.join(dir, files.onnx.path);
      fs.truncateSync(onnx, Math.floor(files.onnx.bytes / 3));
      srv = await startServer({ port: 0, root });
      const c = await launchChromium({ viewport: { width: 1200, height: 900 } });
      try {
        const page = await c.newPage();
        await page.goto(`${srv.url}/web/#view=image&image=cat&backend=wasm`);
        await page.waitForFunction(() => document.getElementById('view-image').dataset.status === 'error', null, { timeout: TIMEOUT });
        const msg = await page.textContent('#image-message');
        assert.match(msg, /could not be loaded: The image model mobilenet_v2\.onnx is corrupt or not the expected file: \d+ bytes instead of \d+/);
        // the other views still work
        await page.click('.view-tab[data-view="text"]');
        assert.equal(await page.isVisible('#view-text'), true);
        await page.close();
      } finally {
        await c.closeAndClean();
      }
    } finally {
      await srv?.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('WebGPU (SwiftShader, forced): ORT runs the WebGPU EP and agrees with wasm on top-1', async () => {
    const gpuCtx = await launchChromium({
      viewport: { width: 1200, height: 1000 },
      args: [...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'), '--enable-unsafe-webgpu'],
    });
    try {
      // the first photo (the owl) may be run by the core while ORT starts; once its session is made, the cat, by ORT
      // (the cat is the photo the wasm test above classified: one photo fewer on SwiftShader than owl → cat → owl)
      const page = await openPage(gpuCtx, '#view=image&image=owl&method=cam&backend=webgpu');
      let ds = await waitPhoto(page, 'owl', 8 * 60_000);
      assert.equal(ds.backend, 'webgpu');
      await page.waitForFunction(() => document.getElementById('view-image').dataset.ep, null, { timeout: 8 * 60_000 });
      await page.click('.gallery-item[data-image="cat"]');
      ds = await waitPhoto(page, 'cat', 8 * 60_000);
      assert.equal(ds.ep, 'webgpu', 'ORT created its WebGPU device');
      assert.doesNotMatch(await page.textContent('#image-caption'), /run by the WebAssembly core/, 'the cat again: run by ORT');
      assert.match(await page.textContent('#image-backend'), /WebGPU/);
      assert.equal(ds.top1, wasmTop1 ?? EXPECTED_CAT);
      await page.screenshot({ path: path.join(OUT, 'image-webgpu.png') });
      assert.deepEqual(page.errors.filter((e) => !/WebGPU|powerPreference/i.test(e)), []);
      await page.close();
    } finally {
      await gpuCtx.closeAndClean();
    }
  });
});
