// onnx_vit.test.mjs — the torchvision ViT fixture (tests/fixtures/onnx/vit_tiny, models/tools/onnx-fixtures/
// make_vit_fixture.py) through the native CLI and ONNX Runtime Web (in Node, wasm EP, 1 thread) on its reference input:
//   - the CLI's logits equal ORT's and PyTorch's (reference.json) to 1e-5 of max |logit|; negative control: ORT on the
//     input with one pixel changed by 1 gives logits the same comparison sees (> 1e-5);
//   - `explain-onnx --method attention|rollout|chefer`: layer "attention", map_shape [6, 6], the maps equal the
//     reference's (our PyTorch re-implementation) to 1e-4 of max |map|; onnx-info lists 2 attention layers;
//   - Grad-CAM at `auto` is at the last block's input tokens and equals the reference's (pytorch-grad-cam's recipe);
//   - a CNN (the squeezenet fixture) asked for rollout: exit status 1 and the message, and onnx-info lists none.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';

ort.env.wasm.numThreads = 1;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/attnlab');
const fx = path.join(root, 'tests/fixtures/onnx/vit_tiny');
const cnn = path.join(root, 'tests/fixtures/onnx/squeezenet1_1/model.onnx');
const skip = existsSync(cli) ? false : 'build/attnlab missing';
const lastJson = (text) => JSON.parse(text.trim().split('\n').pop());
const relErr = (a, b) => {
  let d = 0, s = 0;
  for (let i = 0; i < b.length; i++) { d = Math.max(d, Math.abs(a[i] - b[i])); s = Math.max(s, Math.abs(b[i])); }
  return a.length === b.length ? d / (s || 1) : Infinity;
};

test('a ViT: CLI logits = ONNX Runtime = PyTorch; its attention maps = PyTorch; a CNN is refused', { skip }, async (t) => {
  const ref = JSON.parse(readFileSync(path.join(fx, 'reference.json'), 'utf8'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-vit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const input = Float32Array.from(ref.input);
  const f32 = path.join(dir, 'input.f32');
  writeFileSync(f32, Buffer.from(input.buffer));

  const session = await ort.InferenceSession.create(path.join(fx, 'model.onnx'));
  t.after(() => session.release());
  const run = async (x) => Array.from((await session.run({ image: new ort.Tensor('float32', x, ref.input_shape) })).logits.data);
  const ortLogits = await run(input);
  const moved = input.slice();
  moved[1234] += 1;
  const ortMoved = await run(moved);

  const maps = {};
  for (const method of ['attention', 'rollout', 'chefer']) {
    maps[method] = lastJson(execFileSync(cli, ['explain-onnx', '--model', path.join(fx, 'model.onnx'), '--image', f32, '--method', method], { encoding: 'utf8' }));
  }
  const core = maps.rollout.logits;
  const eOrt = relErr(core, ortLogits), eTorch = relErr(core, ref.logits);
  console.log(`vit_tiny: logits core vs ORT ${eOrt.toExponential(2)}, vs PyTorch ${eTorch.toExponential(2)}; ` +
    Object.entries(maps).map(([m, r]) => `${m} map vs PyTorch ${relErr(r.map, ref.maps[m]).toExponential(2)}`).join(', '));
  assert.ok(eOrt < 1e-5, `core vs ORT logits ${eOrt}`);
  assert.ok(eTorch < 1e-5, `core vs PyTorch logits ${eTorch}`);
  assert.ok(relErr(core, ortMoved) > 1e-5, 'negative control: a changed pixel must change the logits past the tolerance');
  for (const [method, r] of Object.entries(maps)) {
    assert.equal(r.layer, 'attention');
    assert.deepEqual(r.map_shape, ref.grid);
    assert.equal(r.class, ref.class);
    assert.equal(r.tokens, ref.tokens);
    assert.ok(relErr(r.map, ref.maps[method]) < 1e-4, `${method}: ${relErr(r.map, ref.maps[method])}`);
  }
  assert.ok(relErr(maps.attention.map, ref.maps.rollout) > 1e-2, 'negative control: another method\'s reference must differ');
  // Grad-CAM at `auto`: the last block's input tokens as [D, 6, 6] (pytorch-grad-cam's ViT recipe, in the reference)
  const gradcam = lastJson(execFileSync(cli, ['explain-onnx', '--model', path.join(fx, 'model.onnx'), '--image', f32, '--method', 'gradcam'], { encoding: 'utf8' }));
  assert.equal(gradcam.layer, ref.token_layer);
  assert.ok(relErr(gradcam.map, ref.gradcam_tokens) < 1e-4, `Grad-CAM on the tokens: ${relErr(gradcam.map, ref.gradcam_tokens)}`);

  assert.equal(lastJson(execFileSync(cli, ['onnx-info', '--model', path.join(fx, 'model.onnx')], { encoding: 'utf8' })).attention.length, 2);
  assert.equal(lastJson(execFileSync(cli, ['onnx-info', '--model', cnn], { encoding: 'utf8' })).attention.length, 0);
  const refused = spawnSync(cli, ['explain-onnx', '--model', cnn, '--image', path.join(root, 'web/images/cat.png'), '--method', 'rollout'], { encoding: 'utf8' });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /no attention was found in this model .*the attention methods are for vision transformers/);
});
