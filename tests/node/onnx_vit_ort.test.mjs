// onnx_vit_ort.test.mjs — a vision transformer the core cannot run still gets its attention maps in "Your model":
// the torchvision ViT fixture (tests/fixtures/onnx/vit_tiny) with a Shrink (λ 0: the identity) on its input — an
// operator the core does not implement, ONNX Runtime Web does — goes through Module.exposeAttention (the distributions the core finds made graph outputs),
// ONNX Runtime Web (wasm EP, 1 thread) on the fixture's reference input, and Module.vitMapFromAttention:
//   - the core's static finder still lists the 2 attention layers of the model it refuses;
//   - ORT's logits = PyTorch's (reference.json) to 1e-5; 'attention' and 'rollout' maps = PyTorch's re-implementation
//     (reference.json) to 1e-4 of max |map|, over the 6 × 6 grid; negative controls: another method's reference, and
//     the maps of the input with 500 pixels changed, are told apart;
//   - refused with a message: a gradient method ('chefer'), distributions that are not square, a file that is not ONNX.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-web';
import onnxPkg from 'onnx-proto';
import { ROOT, hasWasm, loadCore } from './parity-lib.mjs';

const { onnx } = onnxPkg;
ort.env.wasm.numThreads = 1;
const fx = path.join(ROOT, 'tests/fixtures/onnx/vit_tiny');
const relErr = (a, b) => {
  let d = 0, s = 0;
  for (let i = 0; i < b.length; i++) { d = Math.max(d, Math.abs(a[i] - b[i])); s = Math.max(s, Math.abs(b[i])); }
  return a.length === b.length ? d / (s || 1) : Infinity;
};

test('a ViT only ONNX Runtime runs: its attention maps through exposed outputs = PyTorch', { skip: hasWasm() ? false : 'web/gen missing' }, async (t) => {
  const M = await loadCore();
  const ref = JSON.parse(readFileSync(path.join(fx, 'reference.json'), 'utf8'));
  const m = onnx.ModelProto.decode(readFileSync(path.join(fx, 'model.onnx')));
  for (const n of m.graph.node) n.input = n.input.map((v) => (v === 'image' ? 'image_shrunk' : v));
  const lambd = { name: 'lambd', type: onnx.AttributeProto.AttributeType.FLOAT, f: 0 }; // the default is 0.5
  m.graph.node.unshift(onnx.NodeProto.create({ opType: 'Shrink', input: ['image'], output: ['image_shrunk'], name: 'shrink', attribute: [lambd] }));
  const bytes = onnx.ModelProto.encode(m).finish();

  const info = M.onnxInfo(bytes);
  assert.equal(info.runnable, false);
  assert.deepEqual(info.unsupported, ['Shrink (1)']);
  assert.equal(info.attention.length, 2, 'the static finder still sees the attention');

  const exposed = M.exposeAttention(bytes);
  assert.equal(exposed.outputs.length, 2);
  const session = await ort.InferenceSession.create(exposed.bytes);
  t.after(() => session.release());
  const run = async (x) => {
    const out = await session.run({ image: new ort.Tensor('float32', x, ref.input_shape) }, ['logits', ...exposed.outputs]);
    const tensors = exposed.outputs.map((name) => ({ name, dims: out[name].dims, data: Float32Array.from(out[name].data) }));
    return { logits: Array.from(out.logits.data), tensors };
  };
  const input = Float32Array.from(ref.input);
  const r = await run(input);
  assert.ok(relErr(r.logits, ref.logits) < 1e-5, `ORT logits vs PyTorch ${relErr(r.logits, ref.logits)}`);
  const maps = {};
  for (const method of ['attention', 'rollout']) {
    maps[method] = M.vitMapFromAttention(method, r.tensors);
    assert.deepEqual(maps[method].map_shape, ref.grid);
    assert.equal(maps[method].tokens, ref.tokens);
    assert.equal(maps[method].layers, 2);
    const e = relErr(Array.from(maps[method].map), ref.maps[method]);
    console.log(`vit_tiny with a Shrink, through ORT: ${method} map vs PyTorch ${e.toExponential(2)}`);
    assert.ok(e < 1e-4, `${method}: ${e}`);
  }
  assert.ok(relErr(Array.from(maps.attention.map), ref.maps.rollout) > 1e-2, 'negative control: another method');
  const moved = input.slice();
  for (let k = 0; k < 500; k++) moved[k * 13] += 2;
  const rm = M.vitMapFromAttention('rollout', (await run(moved)).tensors);
  assert.ok(relErr(Array.from(rm.map), ref.maps.rollout) > 1e-4, 'negative control: a changed input changes the map');

  assert.throws(() => M.vitMapFromAttention('chefer', r.tensors), /needs more than the attention of one forward pass/);
  const flat = r.tensors.map((x) => ({ ...x, dims: [1, x.data.length] }));
  assert.throws(() => M.vitMapFromAttention('rollout', flat), /is not a square \[heads, positions, positions\] map/);
  assert.throws(() => M.vitMapFromAttention('rollout', [{ name: 'a', dims: [1, 2, 2], data: new Float32Array(3) }]), /must have/);
  assert.throws(() => M.exposeAttention(new Uint8Array([1, 2, 3, 4])), /not an ONNX model|malformed/);
});
