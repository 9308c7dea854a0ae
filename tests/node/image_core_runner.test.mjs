// The wasm core's OnnxRunner (wasm/onnx_bindings.cpp) on the shipped MobileNetV2 gives ONNX Runtime Web's features
// and logits: the Images tab classifies a cold open's first photo with it while ORT's session is made
// (web/runtime/labs/image-model.js), so the first map and top-5 must be those ORT would give. Inputs: the cat photo
// as the page prepares it (Module.preprocessImage) and a seeded random input. Negative control: the runner's outputs
// for another photo are far from ORT's for the cat. Also: a value asked for by name is returned, and bad calls
// answer with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import * as ort from 'onnxruntime-web';
import { ROOT, loadCore, hasWasm } from './parity-lib.mjs';

ort.env.wasm.numThreads = 1;
const MODEL = path.join(ROOT, 'models/image/mobilenet_v2.onnx');
const TOL = 1e-3; // float32 sums in another order over 3.5 M weights; measured max |Δ| 3.5e-5 (features), 6e-6 (logits)

const maxAbs = (a, b) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
const argmax = (a) => a.reduce((b, v, i) => (v > a[b] ? i : b), 0);

test('the core runs the shipped MobileNetV2 as ONNX Runtime does', { skip: !hasWasm() && 'needs web/gen' }, async () => {
  const M = await loadCore();
  const bytes = new Uint8Array(fs.readFileSync(MODEL));
  const photo = (name) => {
    const png = PNG.sync.read(fs.readFileSync(path.join(ROOT, 'web/images', name)));
    return M.preprocessImage(new Uint8Array(png.data), png.width, png.height);
  };
  let seed = 12345;
  const random = Float32Array.from({ length: 3 * 224 * 224 }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 256));
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const runner = new M.OnnxRunner(bytes);
  try {
    const outs = {};
    for (const [name, x] of [['cat', photo('cat.png')], ['random', random]]) {
      const o = await session.run({ image: new ort.Tensor('float32', x.slice(), [1, 3, 224, 224]) });
      const r = runner.run(x, ['features', 'logits']);
      assert.deepEqual(r.features.dims, [1, 1280, 7, 7]);
      assert.deepEqual(r.logits.dims, [1, 1001]);
      const df = maxAbs(r.features.data, o.features.data), dl = maxAbs(r.logits.data, o.logits.data);
      assert.ok(df < TOL && dl < TOL, `${name}: features max |Δ| ${df}, logits ${dl}`);
      assert.equal(argmax(r.logits.data), argmax(o.logits.data), `${name}: top-1`);
      outs[name] = { core: r.logits.data, ort: o.logits.data };
    }
    // negative control: another input's logits are far from the cat's
    assert.ok(maxAbs(outs.random.core, outs.cat.ort) > 1, 'the comparison can fail');
    // a value asked for by name; the others of the pass are not kept
    const first = runner.run(random, ['op0_conv_0']);
    assert.deepEqual(first.op0_conv_0.dims, [1, 32, 112, 112]);
    assert.throws(() => runner.run(random, ['no_such_value']), /no float value named 'no_such_value'/);
    assert.throws(() => runner.run(random.subarray(0, 10), ['logits']), /C·H·W = 150528/);
    assert.throws(() => runner.run(random, 'logits'), /names must be an array/);
  } finally {
    runner.delete();
    await session.release();
  }
  assert.throws(() => new M.OnnxRunner(new Uint8Array([1, 2, 3])), /./, 'a file that is no model is refused');
});
