// The shipped image model (models/image/) is what its manifest says, and it computes what the TFLite model computes:
//  (a) every file in the manifest has the recorded byte size and sha256; labels.txt has 1001 lines;
//  (b) on the lossless demo photos of tests/fixtures/image/tflite_int8_reference.json (exact centre 224×224 crops), the
//      ONNX float logits agree with the independent integer-exact TFLite reference (tflite_int8_reference.py): same
//      top-1, and |dequantised uint8 logit − float logit| within LOGIT_MAX_ABS (max) / LOGIT_MEAN_ABS (mean) over the
//      classes whose uint8 value is not saturated (0 or 255). Two negative controls show the check can fail: the same
//      graph with TF SAME padding put on the wrong side (top/left) for the stride-2 convolutions, and with a
//      perturbed first-layer bias;
//  (c) top-1 ≥ 0.80 on a fixed 100-photo subset of ../shared/data/imagenet_samples (every 10th; shorter side 256, so
//      the preprocessing is an exact centre crop), and the ONNX top-1 equals the integer reference's (fixture
//      "subset") on ≥ 95 of them;
//  (d) the head file: weight · GAP(features) + bias reproduces the ONNX logits (max abs diff ≤ 1e-3);
//  plus output shapes, the ReLU6 range of the features, and batch-size independence.
// Tolerances (the reference requantises every layer, the float graph does not; one uint8 logit step is 0.0989):
// measured on the 5 fixture photos max |Δ| 0.42, per-photo mean |Δ| ≤ 0.083; on 100 imagenet_samples photos (every
// 10th) max |Δ| ≤ 0.91 and per-photo mean ≤ 0.145, top-1 equal on 98/100. Bars: max 1.0, mean 0.15 (≥ 1.8× margin on
// the fixture photos). The controls land far outside: wrong-side padding max 5.3 / mean 0.95, first-layer bias ± 0.3
// max 1.7 / mean > 0.2. (c) also checks that the ONNX top-1 equals the reference's on ≥ 95 of the 100 photos.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import onnxPkg from 'onnx-proto';
import { convert } from '../../models/tools/tflite-to-onnx.mjs';
import { readTflite } from '../../models/tools/tflite-reader.mjs';
import { decodeImageFile, centerCropRgb, centerCropBox, hwcToChw255, readImagenetSamples } from '../../scripts/lib/image-files.mjs';
import { readImageHead } from '../../web/runtime/image-head.js';

const { onnx } = onnxPkg;
ort.env.wasm.numThreads = 1;

const root = path.resolve(import.meta.dirname, '../..');
const dir = path.join(root, 'models/image');
const dataDir = path.resolve(root, '../shared/data');
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const model = manifest.models.find((m) => m.name === 'mobilenet_v2');
const fixture = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/image/tflite_int8_reference.json'), 'utf8'));
const onnxBytes = fs.readFileSync(path.join(dir, model.files.onnx.path));

const LOGIT_MAX_ABS = 1.0;
const LOGIT_MEAN_ABS = 0.15;
const S = 224, PIX = 3 * S * S, C = 1001, K = 1280;

const argmax = (a) => { let b = 0; for (let i = 1; i < a.length; i++) if (a[i] > a[b]) b = i; return b; };

/** Runs the model on n images stacked in x → { logits, features } (Float32Arrays). */
async function run(session, x, n) {
  const out = await session.run({ image: new ort.Tensor('float32', x, [n, 3, S, S]) });
  assert.deepEqual(out.logits.dims, [n, C]);
  assert.deepEqual(out.features.dims, [n, K, 7, 7]);
  return { logits: out.logits.data, features: out.features.data };
}

/** The fixture photos' inputs, decoded here (PNG, lossless) and cropped as the fixture says. */
function fixtureInputs() {
  const x = new Float32Array(fixture.items.length * PIX);
  fixture.items.forEach((it, i) => {
    const im = decodeImageFile(path.join(dataDir, it.source));
    assert.deepEqual(centerCropBox(im.width, im.height, S), it.crop, `${it.name}: crop box`);
    x.set(hwcToChw255(centerCropRgb(im.rgba, im.width, im.height, S), S), i * PIX);
  });
  return x;
}

/** Compares float logits [n*C] with the fixture → { ok, maxAbs, meanAbs, top1Agree, messages }. */
function compareWithReference(logits) {
  const { scale, zero_point: zp } = fixture.logits;
  let maxAbs = 0, worstMean = 0, top1Agree = true;
  const messages = [];
  fixture.items.forEach((it, i) => {
    const l = logits.subarray(i * C, (i + 1) * C);
    let sum = 0, n = 0, mx = 0;
    it.logits_uint8.forEach((q, k) => {
      if (q === 0 || q === 255) return; // saturated: the float value may lie anywhere beyond
      const e = Math.abs((q - zp) * scale - l[k]);
      sum += e; n++; mx = Math.max(mx, e);
    });
    const mean = sum / n;
    const top1 = argmax(l);
    if (top1 !== it.top5[0]) { top1Agree = false; messages.push(`${it.name}: top-1 ${top1} vs reference ${it.top5[0]}`); }
    if (mx > LOGIT_MAX_ABS) messages.push(`${it.name}: max |Δlogit| ${mx.toFixed(3)} > ${LOGIT_MAX_ABS}`);
    if (mean > LOGIT_MEAN_ABS) messages.push(`${it.name}: mean |Δlogit| ${mean.toFixed(3)} > ${LOGIT_MEAN_ABS}`);
    maxAbs = Math.max(maxAbs, mx);
    worstMean = Math.max(worstMean, mean);
  });
  return { ok: messages.length === 0, maxAbs, meanAbs: worstMean, top1Agree, messages };
}

/** A copy of the ONNX model with `edit(graph)` applied. */
function edited(edit) {
  const m = onnx.ModelProto.decode(onnxBytes);
  edit(m.graph);
  return onnx.ModelProto.encode(m).finish();
}

const haveData = fs.existsSync(path.join(dataDir, 'images')) && fs.existsSync(path.join(dataDir, 'imagenet_samples'));

test('(a) manifest: files match their recorded bytes and sha256; labels has 1001 lines', () => {
  for (const key of ['onnx', 'head', 'labels']) assert.ok(model.files[key], `files.${key} missing`);
  for (const [key, f] of Object.entries(model.files)) {
    const bytes = fs.readFileSync(path.join(dir, f.path));
    assert.equal(bytes.length, f.bytes, `${key}: byte size`);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), f.sha256, `${key}: sha256`);
  }
  const labels = fs.readFileSync(path.join(dir, model.files.labels.path), 'utf8').split('\n');
  if (labels.at(-1) === '') labels.pop();
  assert.equal(labels.length, C);
  assert.equal(labels[0], 'background');
  assert.deepEqual(model.outputs.features.shape, ['N', K, 7, 7]);
  assert.deepEqual(model.outputs.logits.shape, ['N', C]);
});

test('the converter regenerates the shipped ONNX and head byte for byte from the TFLite file', { skip: !haveData && 'no ../shared/data' }, () => {
  const tflite = fs.readFileSync(path.join(dataDir, 'mobilenet_v2_coral/mobilenet_v2_1.0_224_quant.tflite'));
  assert.equal(createHash('sha256').update(tflite).digest('hex'), model.provenance.source.sha256);
  const m = readTflite(tflite);
  assert.equal(m.subgraphs[0].tensors.length, 174);
  assert.equal(m.subgraphs[0].tensors[168].shape.join(','), '1,7,7,1280');
  const out = convert(tflite, { storage: model.provenance.storage });
  assert.equal(createHash('sha256').update(out.onnx).digest('hex'), model.files.onnx.sha256);
  assert.equal(createHash('sha256').update(out.head).digest('hex'), model.files.head.sha256);
  assert.throws(() => readTflite(new Uint8Array(64)), /TFL3/);
  assert.throws(() => convert(tflite, { storage: 'int4' }), /--storage/);
});

test('fixture is self-consistent (top-5 follow from the uint8 logits)', () => {
  assert.ok(fixture.items.length >= 5);
  for (const it of fixture.items) {
    assert.equal(it.logits_uint8.length, C);
    const order = it.logits_uint8.map((q, k) => k).sort((a, b) => it.logits_uint8[b] - it.logits_uint8[a] || a - b);
    assert.deepEqual(order.slice(0, 5), it.top5, it.name);
  }
});

test('ONNX model agrees with the TFLite integer reference; head and batching are consistent', { skip: !haveData && 'no ../shared/data' }, async (t) => {
  const session = await ort.InferenceSession.create(onnxBytes);
  const x = fixtureInputs();
  const n = fixture.items.length;
  const { logits, features } = await run(session, x, n);

  await t.test('(b) float logits vs dequantised uint8 logits: same top-1, within the stated tolerance', (st) => {
    const r = compareWithReference(logits);
    st.diagnostic(`max |Δ| ${r.maxAbs.toFixed(3)}, worst per-photo mean |Δ| ${r.meanAbs.toFixed(3)}`);
    assert.ok(r.ok, r.messages.join('; '));
    assert.ok(r.top1Agree);
  });

  await t.test('(b) features: GAP at the reference’s 8 strongest channels within 0.4 (7 % of the ReLU6 range)', () => {
    fixture.items.forEach((it, i) => {
      it.features_gap_top8.channels.forEach((ch, j) => {
        let m = 0;
        for (let p = 0; p < 49; p++) m += features[(i * K + ch) * 49 + p];
        m /= 49;
        assert.ok(Math.abs(m - it.features_gap_top8.values[j]) < 0.4, `${it.name} ch ${ch}: ${m} vs ${it.features_gap_top8.values[j]}`);
      });
    });
  });

  await t.test('features are in the ReLU6 range and not all zero', () => {
    let mn = Infinity, mx = -Infinity;
    for (const v of features) { if (v < mn) mn = v; if (v > mx) mx = v; }
    assert.ok(mn >= 0 && mx <= 6 && mx > 1, `features in [${mn}, ${mx}]`);
  });

  await t.test('(d) head: weight·GAP(features) + bias reproduces the logits (≤ 1e-3)', () => {
    const head = readImageHead(fs.readFileSync(path.join(dir, model.files.head.path)));
    assert.deepEqual([head.C, head.K], [C, K]);
    const W = head.weight, b = head.bias;
    let worst = 0;
    for (let i = 0; i < n; i++) {
      const gap = new Float64Array(K);
      for (let k = 0; k < K; k++) { let s = 0; for (let p = 0; p < 49; p++) s += features[(i * K + k) * 49 + p]; gap[k] = s / 49; }
      for (let c = 0; c < C; c++) {
        let s = b[c];
        for (let k = 0; k < K; k++) s += W[c * K + k] * gap[k];
        worst = Math.max(worst, Math.abs(s - logits[i * C + c]));
      }
    }
    assert.ok(worst <= 1e-3, `max |head − ONNX| = ${worst}`);
  });

  await t.test('batch size does not change the result (N = 1 vs row 0 of N = 5)', async () => {
    const one = await run(session, x.subarray(0, PIX), 1);
    let worst = 0;
    for (let c = 0; c < C; c++) worst = Math.max(worst, Math.abs(one.logits[c] - logits[c]));
    assert.ok(worst < 1e-4, `max diff ${worst}`);
  });

  await t.test('negative control: SAME padding on the wrong side (stride-2 convs) fails the check', async (st) => {
    let changed = 0;
    const bad = edited((g) => {
      for (const nd of g.node) {
        if (nd.opType !== 'Conv') continue;
        const pads = nd.attribute.find((a) => a.name === 'pads'), strides = nd.attribute.find((a) => a.name === 'strides');
        if (Number(strides.ints[0]) === 2) { pads.ints = pads.ints.map(Number); [pads.ints[0], pads.ints[2]] = [pads.ints[2], pads.ints[0]]; [pads.ints[1], pads.ints[3]] = [pads.ints[3], pads.ints[1]]; changed++; }
      }
    });
    assert.ok(changed >= 4, `only ${changed} stride-2 convolutions`);
    const s2 = await ort.InferenceSession.create(bad);
    const r = compareWithReference((await run(s2, x, n)).logits);
    await s2.release();
    st.diagnostic(`max |Δ| ${r.maxAbs.toFixed(3)}, worst per-photo mean |Δ| ${r.meanAbs.toFixed(3)}, top-1 agrees: ${r.top1Agree}`);
    assert.ok(r.maxAbs > LOGIT_MAX_ABS || r.meanAbs > LOGIT_MEAN_ABS, `the tolerance check should fail (max ${r.maxAbs}, mean ${r.meanAbs})`);
  });

  await t.test('negative control: a perturbed first-layer bias fails the check', async (st) => {
    const bad = edited((g) => {
      const conv0 = g.node.find((nd) => nd.opType === 'Conv');
      const init = g.initializer.find((i) => i.name === conv0.input[2]);
      const raw = init.rawData;
      const b = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
      for (let i = 0; i < b.length; i++) b[i] += 0.3 * (i % 2 ? 1 : -1); // ≈ 13 quantisation steps of that layer's output, 5 % of ReLU6
      init.rawData = new Uint8Array(b.buffer);
    });
    const s2 = await ort.InferenceSession.create(bad);
    const r = compareWithReference((await run(s2, x, n)).logits);
    await s2.release();
    st.diagnostic(`max |Δ| ${r.maxAbs.toFixed(3)}, worst per-photo mean |Δ| ${r.meanAbs.toFixed(3)}, top-1 agrees: ${r.top1Agree}`);
    assert.ok(r.maxAbs > LOGIT_MAX_ABS || r.meanAbs > LOGIT_MEAN_ABS, `the tolerance check should fail (max ${r.maxAbs}, mean ${r.meanAbs})`);
  });

  await session.release();
});

test('(c) top-1 ≥ 0.80 on every 10th imagenet_samples photo (exact centre crop)', { skip: !haveData && 'no ../shared/data' }, async (t) => {
  const samples = readImagenetSamples(dataDir).filter((s, i) => i % 10 === 0);
  assert.equal(samples.length, 100);
  const session = await ort.InferenceSession.create(onnxBytes);
  const ref = fixture.subset ? new Map(fixture.subset.items.map((it) => [it.name, it.top5[0]])) : null;
  let correct = 0, agree = 0;
  const B = 10;
  for (let start = 0; start < samples.length; start += B) {
    const batch = samples.slice(start, start + B);
    const x = new Float32Array(batch.length * PIX);
    batch.forEach((s, i) => {
      const im = decodeImageFile(s.file);
      assert.equal(Math.min(im.width, im.height), 256, `${s.name}: shorter side`);
      x.set(hwcToChw255(centerCropRgb(im.rgba, im.width, im.height, S), S), i * PIX);
    });
    const { logits } = await run(session, x, batch.length);
    batch.forEach((s, i) => {
      const top1 = argmax(logits.subarray(i * C, (i + 1) * C));
      if (top1 === s.coralIndex) correct++;
      if (ref && top1 === ref.get(path.basename(s.name, '.jpg'))) agree++;
    });
  }
  await session.release();
  const top1 = correct / samples.length;
  t.diagnostic(`top-1 ${top1} on ${samples.length} photos; top-1 equal to the int reference's on ${agree}`);
  assert.ok(top1 >= 0.8, `top-1 ${top1}`);
  assert.ok(ref, 'fixture has no subset section');
  assert.equal(ref.size, samples.length);
  assert.ok(agree >= 95, `ONNX top-1 equals the TFLite reference's on only ${agree} of ${samples.length} photos`);
});

test('image-files helpers: centre crop box, alpha over white, planar layout, bad input', () => {
  // 4×3 RGBA image, pixel value = its index; size-2 crop → left 1, top 0
  const W = 4, H = 3, rgba = new Uint8Array(W * H * 4);
  for (let i = 0; i < W * H; i++) rgba.set([i, 100 + i, 200 + i, 255], 4 * i);
  rgba[4 * 1 + 3] = 0;        // pixel (x=1, y=0) fully transparent → white
  rgba[4 * 2 + 3] = 128;      // pixel (x=2, y=0) half transparent
  assert.deepEqual(centerCropBox(W, H, 2), { left: 1, top: 0, size: 2 });
  const crop = centerCropRgb(rgba, W, H, 2);
  assert.deepEqual([...crop.subarray(0, 3)], [255, 255, 255]);
  assert.deepEqual([...crop.subarray(3, 6)], [2, 102, 202].map((c) => Math.round((c * 128 + 255 * 127) / 255)));
  assert.deepEqual([...crop.subarray(6, 12)], [5, 105, 205, 6, 106, 206]);
  const chw = hwcToChw255(crop, 2);
  assert.deepEqual([...chw.subarray(0, 4)], [255, crop[3], 5, 6]);          // R plane
  assert.deepEqual([...chw.subarray(8, 12)], [255, crop[5], 205, 206]);     // B plane
  assert.throws(() => centerCropRgb(rgba, W, H, 5), /smaller than/);
  assert.throws(() => centerCropRgb(rgba.subarray(1), W, H, 2), /expected/);
  assert.throws(() => hwcToChw255(new Uint8Array(5), 2), /expected 12 bytes/);
});

test('decodeImageFile: grey PNG expanded to RGBA; JPEG decoded; other files rejected', { skip: !haveData && 'no ../shared/data' }, () => {
  const m = decodeImageFile(path.join(dataDir, 'images/bird_segmentation_mask.png'));
  assert.equal(m.rgba.length, m.width * m.height * 4);
  const vals = new Set();
  for (let i = 0; i < m.rgba.length; i += 4) {
    assert.ok(m.rgba[i] === m.rgba[i + 1] && m.rgba[i] === m.rgba[i + 2] && m.rgba[i + 3] === 255);
    vals.add(m.rgba[i]);
  }
  assert.deepEqual([...vals].sort(), [0, 1, 2, 3]);  // class indices, as the data README says
  const j = decodeImageFile(path.join(dataDir, 'images/owl.jpg'));
  assert.equal(j.width, 512);
  assert.equal(j.rgba.length, j.width * j.height * 4);
  assert.throws(() => decodeImageFile(path.join(dataDir, 'README.md')), /not a JPEG or PNG/);
});
