// The wasm OnnxLab ("Your model", wasm/onnx_bindings.cpp) against the native CLI on a committed torchvision
// fixture (squeezenet1_1, seeded weights, 112² input; tests/fixtures/onnx/): onnxInfo = `onnx-info`, and on the
// cat photo (web/images/cat.png, written as a PPM for the CLI) the logits and the maps of Grad-CAM, EigenCAM and
// integrated gradients = `explain-onnx` (and AblationCAM; the sanity check's first map = explain's) (the CLI's Grad-CAM is checked against PyTorch in onnx_core_cli.test.mjs).
// Negative control: the same photo with another input scaling must differ. Plans run through logitsOf. Bad files
// and bad options: readable Errors. ~5 s.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PNG } from 'pngjs';
import { CLI, ROOT, hasWasm, loadCore } from './parity-lib.mjs';

const FX = path.join(ROOT, 'tests/fixtures/onnx/squeezenet1_1/model.onnx');
const skip = !hasWasm() ? 'web/gen not built' : !fs.existsSync(CLI) ? 'build/attnlab missing' : false;
const lastJson = (text) => JSON.parse(text.trim().split('\n').pop());
const relErr = (a, b) => {
  let d = 0, s = 0;
  for (let i = 0; i < b.length; i++) { d = Math.max(d, Math.abs(a[i] - b[i])); s = Math.max(s, Math.abs(b[i])); }
  return d / (s || 1);
};

function catPhoto() {
  const png = PNG.sync.read(fs.readFileSync(path.join(ROOT, 'web/images/cat.png')));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-wasm-'));
  const ppm = path.join(dir, 'cat.ppm');
  const rgb = Buffer.alloc(png.width * png.height * 3);
  for (let i = 0; i < png.width * png.height; i++) for (let c = 0; c < 3; c++) rgb[3 * i + c] = png.data[4 * i + c];
  fs.writeFileSync(ppm, Buffer.concat([Buffer.from(`P6\n${png.width} ${png.height}\n255\n`), rgb]));
  // alpha is 255 in cat.png, so the PPM and the RGBA give the same pixels
  assert.ok(png.data.every((v, i) => i % 4 !== 3 || v === 255));
  return { rgba: new Uint8Array(png.data), width: png.width, height: png.height, ppm };
}
const cli = (args) => lastJson(execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 1 << 26 }));

test('onnxInfo equals `attnlab onnx-info`', { skip }, async () => {
  const M = await loadCore();
  const info = M.onnxInfo(new Uint8Array(fs.readFileSync(FX)));
  assert.deepEqual(info, cli(['onnx-info', '--model', FX]));
  assert.equal(info.runnable, true);
  assert.equal(info.classes, 10);
});

test('OnnxLab maps equal `explain-onnx` on the same photo; another scaling differs', { skip }, async () => {
  const M = await loadCore();
  const photo = catPhoto();
  const planar = M.preprocessImage(photo.rgba, photo.width, photo.height);
  const lab = new M.OnnxLab(new Uint8Array(fs.readFileSync(FX)));
  try {
    const info = lab.info();
    assert.deepEqual(info.input_shape, [1, 3, 112, 112]);
    const logits = lab.setPhoto(planar, 'imagenet');
    for (const [method, extra] of [['gradcam', []], ['eigencam', []], ['integrated-gradients', ['--steps', '4']]]) {
      const want = cli(['explain-onnx', '--model', FX, '--image', photo.ppm, '--method', method, ...extra]);
      const got = lab.explain(method, 'auto', -1, method === 'integrated-gradients' ? { steps: 4 } : {});
      assert.equal(got.class, want.class);
      assert.equal(got.layer, want.layer);
      assert.deepEqual(got.map_shape, want.map_shape);
      assert.ok(got.map instanceof Float32Array);
      assert.ok(relErr(got.map, want.map) < 1e-5, `${method}: map off by ${relErr(got.map, want.map)}`);
      assert.ok(relErr(logits, want.logits) < 1e-5, 'logits');
      if (method === 'integrated-gradients') assert.deepEqual(Object.keys(got.completeness).sort(), ['sum', 'target']);
    }
    // negative control: 0–1 scaling is another input, so other logits than the CLI's imagenet run
    const want = cli(['explain-onnx', '--model', FX, '--image', photo.ppm, '--method', 'gradcam']);
    const unit = lab.setPhoto(planar, 'unit');
    assert.ok(relErr(unit, want.logits) > 1e-3, 'unit scaling must change the logits');
    const unitCli = cli(['explain-onnx', '--model', FX, '--image', photo.ppm, '--method', 'gradcam', '--preprocess', 'unit']);
    assert.ok(relErr(unit, unitCli.logits) < 1e-5);
    // plans: logitsOf uses the same scaling; a deletion plan's first point is the photo's probability
    assert.ok(relErr(lab.logitsOf(planar, 1), unit) < 1e-6);
    const act = lab.layerActivation(info.auto_layer);
    assert.deepEqual([act.k, act.h, act.w], info.spatial_layers.at(-1).shape);
    const map = M.upsampleMap(lab.explain('gradcam').map, act.h, act.w, 224, 224);
    const plan = M.planDeletion(planar, map, want.class, 4);
    for (let s = 0; s < plan.count(); s++) plan.acceptN(s, 1, lab.logitsOf(plan.inputs(s, 1), 1));
    const curve = JSON.parse(plan.resultJson());
    plan.delete();
    const e = unit.map((v) => Math.exp(v - Math.max(...unit)));
    assert.ok(Math.abs(curve.y[0] - e[want.class] / e.reduce((a, b) => a + b, 0)) < 1e-6);
    assert.equal(curve.x.length, 5);
    // the sanity check: the same map first, then the shuffled network's; AblationCAM = the CLI's too
    const mid = '/features/features.9/Concat_output_0';
    const sane = lab.sanity('gradcam', mid, want.class, 3);
    assert.ok(relErr(sane.map, lab.explain('gradcam', mid, want.class).map) < 1e-6);
    assert.equal(sane.randomized_map.length, sane.map.length);
    assert.ok(sane.shuffled > 0 && sane.spearman < 0.999, JSON.stringify({ shuffled: sane.shuffled, rho: sane.spearman }));
    // after the last spatial layer comes only pooling: no weight to shuffle, the map cannot change
    assert.equal(lab.sanity('gradcam', 'auto', want.class, 3).shuffled, 0);
    const abl = cli(['explain-onnx', '--model', FX, '--image', photo.ppm, '--method', 'ablationcam', '--preprocess', 'unit']);
    assert.ok(relErr(lab.explain('ablationcam').map, abl.map) < 1e-5, 'AblationCAM');
  } finally {
    lab.delete();
  }
});

test('bad models and bad arguments are readable Errors', { skip }, async () => {
  const M = await loadCore();
  assert.throws(() => M.onnxInfo(new Uint8Array(fs.readFileSync(path.join(ROOT, 'README.md')))), /not an ONNX model/);
  const bytes = new Uint8Array(fs.readFileSync(FX));
  assert.throws(() => new M.OnnxLab(bytes.subarray(0, bytes.length >> 1)), /truncat|ends|past|short/i);
  assert.throws(() => new M.OnnxLab('model'), /model must be a Uint8Array/);
  const lab = new M.OnnxLab(bytes);
  try {
    assert.throws(() => lab.explain('gradcam'), /no photo/);
    const planar = new Float32Array(3 * 224 * 224).fill(128);
    assert.throws(() => lab.setPhoto(planar.subarray(1)), /3·224·224/);
    assert.throws(() => lab.setPhoto(planar, 'bgr'), /imagenet, unit, raw or signed/);
    lab.setPhoto(planar);
    assert.throws(() => lab.explain('score'), /unknown method 'score'/);
    assert.throws(() => lab.explain('gradcam', 'no-such-layer'), /no tensor named 'no-such-layer'/);
    assert.throws(() => lab.explain('gradcam', 'auto', 10), /out of range/);
    assert.throws(() => lab.explain('smoothgrad', 'auto', -1, { samples: 'many' }), /samples must be a number in \[1, 1000\]/);
    assert.throws(() => lab.explain('smoothgrad', 'auto', -1, { noise: 2 }), /noise must be a number/);
    assert.equal(lab.explain('smoothgrad', 'auto', -1, { samples: 2 }).map.length, 112 * 112);
  } finally {
    lab.delete();
  }
});
