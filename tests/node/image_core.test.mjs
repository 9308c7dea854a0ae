// image_core.test.mjs — the image half of the wasm core (wasm/image_bindings.cpp, contract in docs/DESIGN.md
// "Image core API") loaded from web/gen/attnlab_core.{mjs,wasm} with createModule({ wasmBinary }).
// Checks: sizes and types are validated with clear JS Errors; maps, resampling and colours equal hand
// computations (the same cases as tests/core/test_image_*.cpp); plans round-trip through the one protocol
// (count / inputs / accept / done / result / resultJson) with fake networks written here in JS, give the
// hand-computable occlusion map and deletion AUC, and the same result for different batch splits.
// Synthetic data only (no model files). Skips when web/gen is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MJS = path.join(process.env.ATTNLAB_WASM_DIR ? path.resolve(process.env.ATTNLAB_WASM_DIR) : path.join(ROOT, 'web/gen'), 'attnlab_core.mjs');
const WASM = path.join(process.env.ATTNLAB_WASM_DIR ? path.resolve(process.env.ATTNLAB_WASM_DIR) : path.join(ROOT, 'web/gen'), 'attnlab_core.wasm');
const have = fs.existsSync(MJS) && fs.existsSync(WASM);
const S = 224;
const P = S * S;

let M;
async function core() {
  if (!M) {
    const { default: createModule } = await import(pathToFileURL(MJS).href);
    M = await createModule({ wasmBinary: fs.readFileSync(WASM) });
  }
  return M;
}

function near(a, b, tol, what) {
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b} (tol ${tol})`);
}
function nearArray(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) near(got[i], want[i], tol, `${what}[${i}]`);
}
const sigmoid = (x) => 1 / (1 + Math.exp(-x));

test('image core: preprocessImage / preprocessMask geometry and errors', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  const w = 300, h = 256;
  const rgba = new Uint8Array(w * h * 4);
  for (let i = 0; i < rgba.length; i++) rgba[i] = (i * 2654435761) >>> 24;
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  const img = m.preprocessImage(rgba, w, h);
  assert.ok(img instanceof Float32Array);
  assert.equal(img.length, 3 * P);
  const x0 = (w - S) >> 1, y0 = (h - S) >> 1;
  let mismatches = 0;
  for (let c = 0; c < 3; c++)
    for (let y = 0; y < S; y++)
      for (let x = 0; x < S; x++) mismatches += img[c * P + y * S + x] !== rgba[((y + y0) * w + x + x0) * 4 + c];
  assert.equal(mismatches, 0, 'shorter side 256 -> exact centre crop');
  // ImageData.data is a Uint8ClampedArray: accepted too; alpha 0 -> white
  const clear = m.preprocessImage(new Uint8ClampedArray(256 * 256 * 4), 256, 256);
  assert.equal(clear[0], 255);
  const labels = new Uint8Array(w * h).map((_, i) => i % w);
  const mask = m.preprocessMask(labels, w, h);
  assert.ok(mask instanceof Uint8Array);
  assert.equal(mask.length, P);
  assert.equal(mask[5], 5 + x0);
  assert.throws(() => m.preprocessImage(new Uint8Array(100), w, h), /rgba must have width·height·4 = 307200 values, got 100/);
  assert.throws(() => m.preprocessImage(new Float32Array(w * h * 4), w, h), /rgba must be a Uint8Array or Uint8ClampedArray/);
  assert.throws(() => m.preprocessImage(rgba, 0, h), /not supported/);
  assert.throws(() => m.preprocessMask(new Uint8Array(3), w, h), /labels must have width·height = 76800 values, got 3/);
});

test('image core: ImageLab logits, softmax and maps equal hand computations', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  // K = 2, 2×2 maps F0 = [[1,2],[3,4]], F1 = [[0,1],[1,0]]; W = [[1,-2],[0.5,1]], b = [0.1,-0.2]
  const lab = new m.ImageLab(new Float32Array([1, -2, 0.5, 1]), new Float32Array([0.1, -0.2]), 2, 2);
  try {
    const f = new Float32Array([1, 2, 3, 4, 0, 1, 1, 0]);
    nearArray(lab.logits(f, 1, 2, 2), [2.5 - 1 + 0.1, 1.25 + 0.5 - 0.2], 1e-6, 'logits');
    const two = new Float32Array([...f, ...f.map((v) => 2 * v)]);
    nearArray(lab.logits(two, 2, 2, 2), [1.6, 1.55, 3.1, 3.3], 1e-6, 'batched logits');
    const p = lab.softmax(new Float32Array([0, Math.log(3)]), 1);
    nearArray(p, [0.25, 0.75], 1e-6, 'softmax');
    nearArray(lab.map('cam', f, 2, 2, 0, 0), [1, 0, 1, 4], 1e-6, 'cam');
    nearArray(lab.map('gradcam', f, 2, 2, 0, 0), [0.25, 0, 0.25, 1], 1e-6, 'gradcam');
    nearArray(lab.map('gradcampp', f, 2, 2, 0, 0), [1 / 4.5, 2 / 4.5, 3 / 4.5, 4 / 4.5], 1e-6, 'gradcampp c0');
    const w0 = 0.5 / 3.25, w1 = 0.4;
    nearArray(lab.map('gradcampp', f, 2, 2, 1, 0), [w0, 2 * w0 + w1, 3 * w0 + w1, 4 * w0], 1e-6, 'gradcampp c1');
    const r1 = lab.map('random', f, 2, 2, 0, 7), r2 = lab.map('random', f, 2, 2, 1, 7);
    assert.deepEqual(Array.from(r1), Array.from(r2), 'random map depends on the seed only');
    assert.deepEqual(m.catalogue().image.feature_methods, ['cam', 'gradcam', 'gradcampp', 'random']);
    assert.throws(() => lab.map('cam', new Float32Array(100), 2, 2, 0, 0), /features must have K·h·w = 8 values, got 100/);
    assert.throws(() => lab.map('cam', f, 2, 2, 2, 0), /classIndex must be in 0..1, got 2/);
    assert.throws(() => lab.map('lime', f, 2, 2, 0, 0), /unknown map method 'lime'/);
    assert.throws(() => lab.logits(f, 2, 2, 2), /features must have N·K·h·w = 16 values, got 8/);
    assert.throws(() => lab.map('cam', [1, 2, 3, 4, 0, 1, 1, 0], 2, 2, 0, 0), /features must be a Float32Array/);
    assert.throws(() => new m.ImageLab(new Float32Array(3), new Float32Array(2), 2, 2), /weight must have C·K = 4 values, got 3/);
    const rnd = lab.randomized(5), rnd2 = lab.randomized(5);
    try {
      assert.notDeepEqual(Array.from(rnd.map('cam', f, 2, 2, 0, 0)), [1, 0, 1, 4]);
      assert.deepEqual(Array.from(rnd.map('cam', f, 2, 2, 0, 0)), Array.from(rnd2.map('cam', f, 2, 2, 0, 0)));
    } finally {
      rnd.delete();
      rnd2.delete();
    }
  } finally {
    lab.delete();
  }
});

test('image core: CAM = Grad-CAM · h·w on a random head (property)', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  let s = 12345;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const C = 5, K = 16, h = 7, w = 7;
  const lab = new m.ImageLab(Float32Array.from({ length: C * K }, () => rand() - 0.5), new Float32Array(C), C, K);
  try {
    const f = Float32Array.from({ length: K * h * w }, () => Math.max(0, rand() - 0.3));
    const cam = lab.map('cam', f, h, w, 3, 0), gc = lab.map('gradcam', f, h, w, 3, 0);
    for (let i = 0; i < h * w; i++) near(gc[i] * h * w, Math.max(0, cam[i]), 1e-5, `position ${i}`);
  } finally {
    lab.delete();
  }
});

test('image core: upsample, normalise, colour maps, overlay', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  const r = [0, 0.25, 0.75, 1];
  const up = m.upsampleMap(new Float32Array([0, 1, 2, 3]), 2, 2, 4, 4);
  for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) near(up[y * 4 + x], 2 * r[y] + r[x], 1e-6, `up ${x},${y}`);
  assert.throws(() => m.upsampleMap(new Float32Array(5), 2, 2, 4, 4), /map must have h·w = 4 values, got 5/);
  assert.deepEqual(Array.from(m.normalizeMap(new Float32Array([2, 4, 6]))), [0, 0.5, 1]);
  assert.deepEqual(Array.from(m.normalizeMap(new Float32Array([3, 3]))), [0, 0]);
  const c = m.colorizeMap(new Float32Array([0, 1]), 1, 2, 'viridis');
  assert.ok(c instanceof Uint8ClampedArray);
  assert.deepEqual(Array.from(c), [68, 1, 84, 255, 253, 231, 37, 255]);
  assert.deepEqual(Array.from(m.colorizeMap(new Float32Array([0, 1]), 1, 2, undefined)), Array.from(c), 'viridis is the default');
  const img = new Float32Array([10, 20, 30, 40, 50, 60]);
  assert.deepEqual(Array.from(m.overlayMap(img, new Float32Array([0, 1]), 1, 2, 0, 'gray')), [10, 30, 50, 255, 20, 40, 60, 255]);
  assert.deepEqual(Array.from(m.overlayMap(img, new Float32Array([0, 1]), 1, 2, 1, 'inferno')), [0, 0, 4, 255, 252, 255, 164, 255]);
  assert.throws(() => m.overlayMap(img, new Float32Array([0, 1]), 1, 2, 0.5, 'rainbow'), /unknown colormap 'rainbow'/);
  assert.throws(() => m.overlayMap(new Float32Array(5), new Float32Array([0, 1]), 1, 2, 0.5, 'jet'), /image must have 3·H·W = 6 values, got 5/);
});

// Runs a plan: batches of the given sizes (cycled), fed in the given order; net(images, n) -> logits.
function runPlan(plan, net, sizes, { reverse = false, classes = 1001 } = {}) {
  const chunks = [];
  for (let start = 0, b = 0; start < plan.count(); b++) {
    const n = Math.min(sizes[b % sizes.length], plan.count() - start);
    chunks.push([start, n]);
    start += n;
  }
  if (reverse) chunks.reverse();
  for (const [start, n] of chunks) {
    const inputs = plan.inputs(start, n);
    assert.equal(inputs.length, n * 3 * P);
    const logits = net(inputs, n);
    if (classes === 1001) plan.accept(start, logits);
    else plan.acceptN(start, n, logits);
  }
  assert.ok(plan.done());
}

test('image core: occlusion plan round trip gives the hand-computed map', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  const image = new Float32Array(3 * P).fill(60);
  const q = 100 * S + 100;
  image[q] = 228;
  // logit 0 = (R(100,100) − 128)/10, the other 1000 logits 0
  const net = (inputs, n) => {
    const l = new Float32Array(n * 1001);
    for (let i = 0; i < n; i++) l[i * 1001] = (inputs[i * 3 * P + q] - 128) / 10;
    return l;
  };
  const plan = m.planOcclusion(image, 0, 32, 32);
  try {
    assert.equal(plan.count(), 1 + 7 * 7);
    assert.throws(() => plan.result(), /plan not done: 0 of 50 inputs accepted/);
    assert.throws(() => plan.inputs(48, 5), /inputs 48..53 are outside the plan's 50 inputs/);
    assert.throws(() => plan.accept(0, new Float32Array(1000)), /logits must have n·1001 values/);
    runPlan(plan, net, [8]);
    const map = plan.result();
    assert.equal(map.length, P);
    const drop = Math.exp(10) / (Math.exp(10) + 1000) - 1 / 1001;
    for (const [y, x, want] of [[100, 100, drop], [96, 96, drop], [127, 127, drop], [95, 100, 0], [0, 0, 0], [128, 100, 0]])
      near(map[y * S + x], want, 1e-6, `occlusion (${y},${x})`);
    const again = m.planOcclusion(image, 0, 32, 32);
    try {
      runPlan(again, net, [3, 17], { reverse: true });
      assert.deepEqual(Array.from(again.result()), Array.from(map), 'batch split does not matter');
    } finally {
      again.delete();
    }
  } finally {
    plan.delete();
  }
});

test('image core: deletion plan AUC on a bright-pixel network (acceptN, 2 classes)', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  // bright (255) pixels at every 4th index, 0 elsewhere; P(class 0) = (k + 1)/(B + 2), k = bright pixels left
  const image = new Float32Array(3 * P);
  const saliency = new Float32Array(P);
  for (let i = 0; i < P; i += 4) {
    for (let c = 0; c < 3; c++) image[c * P + i] = 255;
    saliency[i] = 1;
  }
  const B = P / 4;
  const net = (inputs, n) => {
    const l = new Float32Array(n * 2);
    for (let i = 0; i < n; i++) {
      let k = 0;
      for (let j = 0; j < P; j++) k += inputs[i * 3 * P + j] > 200;
      l[2 * i] = Math.log(k + 1);
      l[2 * i + 1] = Math.log(B - k + 1);
    }
    return l;
  };
  const plan = m.planDeletion(image, saliency, 0, 4);
  try {
    assert.equal(plan.count(), 5);
    runPlan(plan, net, [2], { classes: 2 });
    const r = JSON.parse(plan.resultJson());
    const p0 = (B + 1) / (B + 2), p1 = 1 / (B + 2);
    nearArray(r.x, [0, 0.25, 0.5, 0.75, 1], 1e-12, 'x');
    nearArray(r.y, [p0, p1, p1, p1, p1], 1e-6, 'y');
    near(r.auc, 0.25 * ((p0 + p1) / 2 + 3 * p1), 1e-6, 'auc');
    assert.equal(plan.result().length, 0, 'metric plans have no map');
  } finally {
    plan.delete();
  }
  assert.throws(() => m.planDeletion(image, new Float32Array(10), 0, 4), /saliency must have 224·224 = 50176 values, got 10/);
  assert.throws(() => m.planInsertion(new Float32Array(10), saliency, 0, 4), /image must have 3·224·224 = 150528 values, got 10/);
});

test('image core: RISE / Score-CAM / explanation-mask plans', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  const image = new Float32Array(3 * P).fill(228);
  const a = m.planRise(image, 3, 20, 7, 0.5, 11), b = m.planRise(image, 3, 20, 7, 0.5, 11);
  try {
    assert.equal(a.count(), 20);
    assert.deepEqual(Array.from(a.inputs(4, 2)), Array.from(b.inputs(4, 2)), 'seeded');
    const inp = a.inputs(0, 20);
    let mean = 0;
    for (let i = 0; i < 20; i++) for (let j = 0; j < P; j++) mean += (inp[i * 3 * P + j] - 128) / 100;
    near(mean / (20 * P), 0.5, 0.1, 'mask mean ≈ p');
  } finally {
    a.delete();
    b.delete();
  }
  assert.throws(() => m.planRise(image, 3, 20, 0, 0.5, 11), /cells must be in 1..224, got 0/);
  const features = new Float32Array(3 * 49).fill(1);
  const sc = m.planScoreCam(image, features, 7, 7, 0);
  try {
    assert.equal(sc.count(), 3);
  } finally {
    sc.delete();
  }
  assert.throws(() => m.planScoreCam(image, new Float32Array(50), 7, 7, 0), /multiple of h·w = 49/);
  // explanation mask: saliency 1 at one pixel -> masked image = grey except that pixel
  const sal = new Float32Array(P);
  sal[7] = 2;
  const em = m.planExplanationMask(image, sal, 0);
  try {
    const net = (inputs, n) => {
      const l = new Float32Array(n * 1001);
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < P; j++) s += inputs[i * 3 * P + j] - 128;
        l[i * 1001] = s / P / 100;
      }
      return l;
    };
    runPlan(em, net, [1]);
    const r = JSON.parse(em.resultJson());
    const soft = (z) => Math.exp(z) / (Math.exp(z) + 1000);
    near(r.original, soft(1), 1e-6, 'original');
    near(r.masked, soft(1 / P), 1e-6, 'masked');
    near(r.drop, (soft(1) - soft(1 / P)) / soft(1), 1e-6, 'drop');
    assert.equal(r.increase, false);
  } finally {
    em.delete();
  }
});

test('image core: localisation metrics, spearman, erasing', { skip: !have && 'no web/gen' }, async () => {
  const m = await core();
  const map = new Float32Array(P);
  map[50 * S + 50] = 1;
  const mask = new Uint8Array(P);
  mask[50 * S + 53] = 1;
  assert.equal(m.pointingGame(map, mask, 1, 0), false);
  assert.equal(m.pointingGame(map, mask, 1, 3), true);
  near(m.energyInMask(map, mask, 1), 0, 1e-12, 'energy');
  mask[50 * S + 50] = 1;
  near(m.energyInMask(map, mask, 1), 1, 1e-12, 'energy');
  near(m.maskIoU(map, mask, 1, 0.5), 0.5, 1e-12, 'iou');
  near(m.spearmanMaps(new Float32Array([1, 2, 3]), new Float32Array([3, 2, 1])), -1, 1e-12, 'spearman');
  assert.throws(() => m.spearmanMaps(new Float32Array(3), new Float32Array(2)), /b must have the same number of values as a \(3\)/);
  assert.throws(() => m.pointingGame(map, new Uint8Array(5), 1, 0), /mask must have 224·224 = 50176 values, got 5/);
  const image = Float32Array.from({ length: 3 * P }, (_, i) => i % 251);
  const map01 = Float32Array.from({ length: P }, (_, i) => (i % 10) / 10);
  const out = m.eraseRegion(image, map01, 0.75, 'grey');
  for (let c = 0; c < 3; c++)
    for (let i = 0; i < P; i += 97) assert.equal(out[c * P + i], map01[i] > 0.75 ? 128 : image[c * P + i], `pixel ${c},${i}`);
  assert.throws(() => m.eraseRegion(image, map01, 0.5, 'zero'), /unknown fill 'zero'/);
});
