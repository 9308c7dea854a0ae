// The wasm OnnxLab ("Your model", wasm/onnx_bindings.cpp) against the native CLI on a committed torchvision
// fixture (squeezenet1_1, seeded weights, 112² input; tests/fixtures/onnx/): onnxInfo = `onnx-info`, and on the
// cat photo (web/images/cat.png, written as a PPM for the CLI) the logits and the maps of Grad-CAM, EigenCAM and
// integrated gradients = `explain-onnx` (and AblationCAM; the sanity check's first map = explain's) (the CLI's Grad-CAM is checked against PyTorch in onnx_core_cli.test.mjs).
// Negative control: the same photo with another input scaling must differ. Plans run through logitsOf. Bad files
// and bad options: readable Errors. Module.modelInput (the model input for ONNX Runtime Web, "Your model"'s engine
// 'ort') equals what OnnxLab feeds: a Flatten-only probe's logits are its input (tests/fixtures/onnx/flatten_probe*,
// models/tools/onnx-fixtures/make_ort_only_fixtures.py); the summaries of the models only ORT runs. ~5 s.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PNG } from 'pngjs';
import { CLI, ROOT, hasWasm, loadCore } from './parity-lib.mjs';
import { coreGaps, imageInput, textModelWhy } from '../../web/analysis/own-model.js';

const FX = path.join(ROOT, 'tests/fixtures/onnx/squeezenet1_1/model.onnx');
const skip = !hasWasm() ? 'web/gen not built' : !fs.existsSync(CLI) ? 'build/attnlab missing' : false;
const skipWasm = !hasWasm() ? 'web/gen not built' : false;
const fixture = (name) => new Uint8Array(fs.readFileSync(path.join(ROOT, 'tests/fixtures/onnx', name, 'model.onnx')));
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

test('onnxInfo of a text model (stories260K) = `onnx-info`: kind text, what the text path found; the Images tab points to the Text tab', { skip }, async () => {
  const M = await loadCore();
  const file = path.join(ROOT, 'models/text/stories260K/model.onnx');
  const info = M.onnxInfo(new Uint8Array(fs.readFileSync(file)));
  assert.deepEqual(info, cli(['onnx-info', '--model', file]));
  assert.equal(info.kind, 'text');
  assert.equal(info.runnable, true);
  assert.equal(info.error, '');
  assert.deepEqual([info.text.causal, info.text.output, info.text.outputs, info.text.attention_layers], [true, 'logits', 512, 5]);
  assert.match(textModelWhy(info), /^This is a text model \(it reads token ids: input ‘input_ids’\), not an image classifier: open it on the Text tab/);
  // the control: an image classifier stays kind image, with no text section
  const img = M.onnxInfo(new Uint8Array(fs.readFileSync(FX)));
  assert.equal(img.kind, 'image');
  assert.equal(img.text, undefined);
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
    // cam: squeezenet's last spatial layer (its final ReLU) is followed by global average pooling alone, so CAM applies
    for (const [method, extra] of [['gradcam', []], ['eigencam', []], ['cam', []], ['gradient-x-input', []],
      ['integrated-gradients', ['--steps', '4']]]) {
      const want = cli(['explain-onnx', '--model', FX, '--image', photo.ppm, '--method', method, ...extra]);
      const got = lab.explain(method, 'auto', -1, method === 'integrated-gradients' ? { steps: 4 } : {});
      assert.equal(got.class, want.class);
      assert.equal(got.layer, want.layer);
      assert.deepEqual(got.map_shape, want.map_shape);
      assert.ok(got.map instanceof Float32Array);
      assert.ok(relErr(got.map, want.map) < 1e-5, `${method}: map off by ${relErr(got.map, want.map)}`);
      assert.ok(relErr(logits, want.logits) < 1e-5, 'logits');
      if (method === 'integrated-gradients') assert.deepEqual(Object.keys(got.completeness).sort(), ['sum', 'target']);
      if (method === 'gradient-x-input') assert.ok(Math.abs(got.sum - want.sum) <= 1e-5 * Math.abs(want.sum), 'sum');
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

test('modelInput = what OnnxLab feeds the model (Flatten probes, colour and grey, every scaling, batches)', { skip: skipWasm }, async () => {
  const M = await loadCore();
  const photo = catPhoto();
  const planar = M.preprocessImage(photo.rgba, photo.width, photo.height);
  const other = Float32Array.from(planar, (v, i) => planar[planar.length - 1 - i]); // another photo: the crop reversed
  const both = new Float32Array(2 * planar.length);
  both.set(planar);
  both.set(other, planar.length);
  for (const [name, C] of [['flatten_probe', 3], ['flatten_probe_grey', 1]]) {
    const lab = new M.OnnxLab(fixture(name));
    try {
      assert.deepEqual(lab.info().input_shape, [1, C, 16, 16]);
      for (const scaling of ['imagenet', 'unit', 'signed', 'raw']) {
        const fed = lab.setPhoto(planar, scaling); // Flatten: the logits are the model input
        const got = M.modelInput(planar, 1, scaling, 16, C);
        assert.ok(got instanceof Float32Array && got.length === C * 256);
        assert.deepEqual(Array.from(got), Array.from(fed), `${name} ${scaling}`);
        assert.deepEqual(Array.from(M.modelInput(both, 2, scaling, 16, C)), Array.from(lab.logitsOf(both, 2)), `${name} ${scaling}, n = 2`);
      }
      // negative control: another scaling is another input
      const unit = lab.setPhoto(planar, 'unit');
      assert.ok(relErr(M.modelInput(planar, 1, 'imagenet', 16, C), unit) > 0.5);
    } finally {
      lab.delete();
    }
  }
  // at 224 no resize: unit is v / 255 and raw is the crop itself; grey is the mean of R, G, B
  const unit224 = M.modelInput(planar, 1, 'unit', 224);
  const P = 224 * 224;
  for (const i of [0, 777, 3 * P - 1]) assert.ok(Math.abs(unit224[i] - planar[i] / 255) < 1e-7);
  assert.deepEqual(Array.from(M.modelInput(planar, 1, 'raw', 224, 3)), Array.from(planar));
  const grey = M.modelInput(planar, 1, 'raw', 224, 1);
  for (const i of [0, 12345, P - 1]) assert.ok(Math.abs(grey[i] - (planar[i] + planar[P + i] + planar[2 * P + i]) / 3) < 1e-4);
  // bad arguments: readable Errors
  assert.throws(() => M.modelInput(planar, 1, 'bgr', 64), /imagenet, unit, raw or signed/);
  assert.throws(() => M.modelInput(planar.subarray(1), 1, 'unit', 64), /n·3·224·224/);
  assert.throws(() => M.modelInput(planar, 2, 'unit', 64), /n·3·224·224 = 301056 values, got 150528/);
  assert.throws(() => M.modelInput(planar, 1, 'unit', 0), /size must be an integer/);
  assert.throws(() => M.modelInput(planar, 1, 'unit', 64, 2), /channels must be 1 or 3/);
  assert.throws(() => M.modelInput(Array.from(planar), 1, 'unit', 64), /images must be a Float32Array/);
});

test('models only ONNX Runtime Web runs: onnxInfo says what the core lacks; inputs that are not images', { skip: skipWasm }, async () => {
  const M = await loadCore();
  const inorm = M.onnxInfo(fixture('instancenorm_net'));
  assert.equal(inorm.runnable, false);
  assert.deepEqual(inorm.unsupported, ['InstanceNormalization (1)']);
  assert.deepEqual(coreGaps(inorm), { missing: ['InstanceNormalization (1)'], opset: null });
  assert.deepEqual(imageInput(inorm), { ok: true, name: 'image', C: 3, H: 64, W: 64, batchFree: true });
  const o22 = M.onnxInfo(fixture('opset22_net'));
  assert.equal(o22.runnable, false);
  assert.match(o22.error, /opset 22 of the default domain is outside the supported range 1 to 21/);
  assert.deepEqual(coreGaps(o22), { missing: [], opset: 22 });
  assert.deepEqual(coreGaps(M.onnxInfo(fixture('customop_net'))).missing, ['com.example.Scale (1)']);
  // a model the core runs has no gaps (the control)
  const probe = M.onnxInfo(fixture('flatten_probe'));
  assert.equal(probe.runnable, true);
  assert.deepEqual(coreGaps(probe), { missing: [], opset: null });
  const node = '/usr/share/libonnx-testdata/data/node';
  if (!fs.existsSync(node)) return; // libonnx-testdata: setup.sh installs it
  const info = (name) => M.onnxInfo(new Uint8Array(fs.readFileSync(path.join(node, name, 'model.onnx'))));
  const mod = info('test_mod_int64_fmod'); // an operator the core lacks, listed
  assert.deepEqual(mod.unsupported, ['Mod (1)']);
  const tril = info('test_tril'); // Trilu is implemented (issue 28), the input still is no image
  assert.deepEqual(tril.unsupported, []);
  assert.match(imageInput(tril).why, /^it expects INT64 \[4, 5\] \(input ‘x’\), not an image/);
  // integer inputs the text path does not run either: still an image refusal, text_error says why
  assert.equal(tril.kind, 'image');
  assert.match(tril.text_error, /the model expects \[4,5\]/);
  assert.match(imageInput(info('test_softmax_example')).why, /^it expects FLOAT \[1, 3\] \(input ‘x’\), not an image/);
});
