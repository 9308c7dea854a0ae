// own-model.test.mjs — the pure helpers of "Your model" (web/analysis/own-model.js) and the store that keeps a
// model in the browser only when asked (web/runtime/own-model-store.js, with an in-memory CacheStorage); which models
// ONNX Runtime Web runs instead of the core (imageInput, coreGaps) and what the panel then offers (views/own-model/methods.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkModelFile, looksLikeOnnx, parseLabels, defaultLabels, symbolicSize, summaryFacts, MAX_MODEL_BYTES, imageInput, coreGaps } from '../../web/analysis/own-model.js';
import { methodAvailable, engineSentence, unavailableWhy, OWN_METHODS } from '../../web/views/own-model/methods.js';
import { keepModel, keptModel, forgetModel, OWN_CACHE } from '../../web/runtime/own-model-store.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('file checks: empty, too large, and what can start an ONNX protobuf', () => {
  assert.match(checkModelFile({ name: 'a.onnx', size: 0 }), /is empty/);
  assert.match(checkModelFile({ name: 'big.onnx', size: MAX_MODEL_BYTES + 1 }), /up to 200 MB/);
  assert.equal(checkModelFile({ name: 'ok.onnx', size: 1000 }), '');
  const onnx = fs.readFileSync(path.join(ROOT, 'tests/fixtures/onnx/squeezenet1_1/model.onnx'));
  assert.equal(looksLikeOnnx(onnx.subarray(0, 16)), true);
  const png = fs.readFileSync(path.join(ROOT, 'web/images/cat.png'));
  for (const [what, b] of [['text', Buffer.from('hello world')], ['png', png.subarray(0, 16)], ['zip', Buffer.from([0x50, 0x4b, 3, 4])],
    ['safetensors', Buffer.from([0x40, 0, 0, 0, 0, 0, 0, 0, 0x7b])], ['one byte', Buffer.from([8])]]) {
    assert.equal(looksLikeOnnx(new Uint8Array(b)), false, what);
  }
});

test('labels: exact, short, long, the ImageNet background line, CRLF and blank lines', () => {
  assert.deepEqual(parseLabels('a\nb\nc\n', 3), { labels: ['a', 'b', 'c'], note: '' });
  assert.deepEqual(parseLabels('a\r\n\r\n b \r\n', 3).labels, ['a', 'b', 'class 2']);
  assert.match(parseLabels('a\nb', 3).note, /2 lines for 3 classes/);
  const long = parseLabels('a\nb\nc\nd', 2);
  assert.deepEqual(long.labels, ['a', 'b']);
  assert.match(long.note, /the first 2 are used/);
  const imagenet = fs.readFileSync(path.join(ROOT, 'models/image/labels.txt'), 'utf8');
  const p = parseLabels(imagenet, 1000);
  assert.equal(p.labels[0], 'tench, Tinca tinca');
  assert.match(p.note, /background/);
  assert.equal(parseLabels(imagenet, 1001).labels[0], 'background');
  assert.deepEqual(defaultLabels(2), ['class 0', 'class 1']);
  assert.equal(parseLabels('x'.repeat(1000), 1).labels[0].length, 200);
});

test('symbolic input size and the summary facts', () => {
  assert.equal(symbolicSize({ inputs: [{ shape: [1, 3, 224, 224] }] }), false);
  assert.equal(symbolicSize({ inputs: [{ shape: ['batch', 3, 'h', 'w'] }] }), true);
  assert.equal(symbolicSize({ inputs: [{ shape: [1, 3] }] }), false);
  const facts = summaryFacts({
    producer: 'pytorch 1.13', opsets: { 'ai.onnx': 13 }, inputs: [{ name: 'x', type: 'FLOAT', shape: [1, 3, 8, 8] }],
    outputs: [{ name: 'y', type: 'FLOAT', shape: [1, 2] }], classes: 2, parameters: 1234, nodes: 3,
    operators: { Relu: 1, Conv: 2 }, spatial_layers: [{ name: 'c' }], auto_layer: 'c',
  }, { name: 'm.onnx', bytes: 2048 });
  const get = (l) => facts.find((f) => f.label === l)?.value;
  assert.equal(get('Operators'), 'Conv 2, Relu 1');
  assert.equal(get('Parameters'), '1,234');
  assert.equal(get('Inputs'), 'x FLOAT [1, 3, 8, 8]');
  assert.match(get('Spatial layers'), /^1 feature map \(the default CAM layer: c\)$/);
  // a ViT: its token layers are counted apart from the 4-D maps (the patch embedding's Conv output)
  const vit = summaryFacts({ operators: {}, spatial_layers: [{ name: 'conv', class_tokens: 0 }, { name: 't1', class_tokens: 1 }, { name: 't2', class_tokens: 1 }],
    auto_layer: 't2', attention: [{}, {}] }, { name: 'v.onnx', bytes: 1 });
  assert.equal(vit.find((f) => f.label === 'Spatial layers').value, '1 feature map and 2 token layers read as a patch grid (the default CAM layer: t2)');
  assert.match(vit.find((f) => f.label === 'Attention').value, /^2 layers .*AttnLRP and CP-LRP/);
});

test('imageInput: a photo\'s input or why not; coreGaps: what the core lacks', () => {
  const one = (type, shape) => ({ inputs: [{ name: 'x', type, shape }] });
  assert.deepEqual(imageInput(one('FLOAT', [1, 3, 64, 64])), { ok: true, name: 'x', C: 3, H: 64, W: 64, batchFree: false });
  assert.deepEqual(imageInput(one('FLOAT', ['N', 1, 'h', 'w']), 96), { ok: true, name: 'x', C: 1, H: 96, W: 96, batchFree: true });
  assert.deepEqual(imageInput(one('FLOAT', ['N', '?', '?', '?'])), { ok: true, name: 'x', C: 3, H: 224, W: 224, batchFree: true });
  assert.equal(imageInput(one('FLOAT', [])).ok, true); // no shape declared: the core's defaults
  assert.equal(imageInput(one('INT64', [1, 64])).why, 'it expects INT64 [1, 64] (input ‘x’), not an image: an image classifier takes one FLOAT input [1, C, H, W] with C = 1 or 3');
  assert.match(imageInput(one('FLOAT', [1, 64])).why, /^it expects FLOAT \[1, 64\] \(input ‘x’\), not an image/);
  assert.match(imageInput(one('FLOAT', [1, 4, 32, 32])).why, /not an image/);
  assert.match(imageInput(one('FLOAT', [2, 3, 32, 32])).why, /input batch 2/);
  assert.match(imageInput(one('FLOAT', [1, 3, 32, 48])).why, /square input; this model wants 32×48/);
  assert.match(imageInput({ inputs: [] }).why, /exactly one graph input, this model has 0/);
  assert.deepEqual(coreGaps({ opsets: { 'ai.onnx': 13 }, unsupported: ['LRN (2)'] }), { missing: ['LRN (2)'], opset: null });
  assert.deepEqual(coreGaps({ opsets: { 'ai.onnx': 21 }, unsupported: ['Shrink (1)'] }), { missing: ['Shrink (1)'], opset: null });
  assert.deepEqual(coreGaps({ opsets: { 'ai.onnx': 22 }, unsupported: [] }), { missing: [], opset: 22 });
  assert.deepEqual(coreGaps({ opsets: { 'ai.onnx': 18 }, unsupported: [] }), { missing: [], opset: null });
  assert.deepEqual(coreGaps({ opsets: { 'com.example': 1 }, unsupported: [] }), { missing: [], opset: 0 });
});

test('the attention methods: offered for a model with attention, refused with the reason for one without', () => {
  const attention = OWN_METHODS.filter((m) => m.kind === 'attention').map((m) => m.name);
  assert.deepEqual(attention, ['attention', 'rollout', 'chefer', 'attnlrp', 'cp-lrp']);
  const onCnn = OWN_METHODS.filter((m) => methodAvailable(m.name, 'core', 0)).map((m) => m.name);
  assert.deepEqual(onCnn, OWN_METHODS.map((m) => m.name).filter((n) => !attention.includes(n)));
  assert.equal(attention.every((n) => methodAvailable(n, 'core', 12)), true);
  // ORT returns the attention the core found as extra outputs: the forward-only maps; none without attention
  assert.deepEqual(attention.filter((n) => methodAvailable(n, 'ort', 12)), ['attention', 'rollout']);
  assert.deepEqual(attention.filter((n) => methodAvailable(n, 'ort', 0)), []);
  assert.match(unavailableWhy('rollout', 'core'), /^Attention rollout needs a transformer’s attention, and no attention was found in this model/);
  const facts = summaryFacts({ operators: {}, inputs: [], outputs: [], attention: Array(12).fill({}) }, { name: 'vit.onnx', bytes: 1 });
  assert.match(facts.find((f) => f.label === 'Attention').value, /^12 layers \(a transformer: attention, rollout, Chefer/);
  const ortFacts = summaryFacts({ operators: {}, inputs: [], outputs: [], attention: Array(2).fill({}) }, { name: 'vit.onnx', bytes: 1, engine: 'ort' });
  assert.match(ortFacts.find((f) => f.label === 'Attention').value, /^2 layers \(a transformer: attention and rollout \(run by ONNX Runtime Web\)/);
  assert.equal(summaryFacts({ operators: {}, inputs: [], outputs: [], attention: [] }, { name: 'cnn.onnx', bytes: 1 })
    .some((f) => f.label === 'Attention'), false);
  // a text model's view says its attention itself (per token, not over patches): left out on request
  assert.equal(summaryFacts({ operators: {}, inputs: [], outputs: [], attention: Array(5).fill({}) }, { name: 'model.onnx', bytes: 1, attention: false })
    .some((f) => f.label === 'Attention'), false);
});

test('an ORT-run model: only RISE and occlusion, and the sentence that says why', () => {
  const offered = OWN_METHODS.filter((m) => methodAvailable(m.name, 'ort')).map((m) => m.name);
  assert.deepEqual(offered, ['rise', 'occlusion']);
  assert.match(engineSentence({ missing: ['Shrink (1)'], summary: { attention: [{}, {}] } }),
    /run through ONNX Runtime Web; so do the attention and rollout maps of its 2 attention layers \(the core finds them/);
  assert.equal(OWN_METHODS.every((m) => methodAvailable(m.name, 'core', 2)), true);
  assert.match(unavailableWhy('gradcam'), /Grad-CAM needs a layer’s activations and gradients/);
  assert.match(unavailableWhy('smoothgrad'), /needs the model’s gradients/);
  assert.match(unavailableWhy('scorecam'), /Score-CAM needs a layer/);
  assert.equal(engineSentence({ missing: ['InstanceNormalization (1)'] }),
    'The core cannot run InstanceNormalization (1), so gradients and CAMs are not available for this model (nor Score-CAM, ' +
    'AblationCAM and the sanity check); RISE, occlusion and the deletion / insertion / ROAD curves run through ONNX Runtime Web.');
  assert.match(engineSentence({ missing: ['LRN (2)', 'Resize (1)', 'Mod (3)'] }), /^The core cannot run LRN \(2\), Resize \(1\) and Mod \(3\), so/);
  assert.match(engineSentence({ missing: [], opset: 22 }), /^The core runs opsets 1–21, this model uses opset 22, so/);
});

class FakeCache {
  constructor() { this.map = new Map(); }
  async put(k, res) { this.map.set(k, new Response(await res.arrayBuffer(), { headers: res.headers })); }
  async match(k) { return this.map.get(k)?.clone(); }
  async delete(k) { return this.map.delete(k); }
}
function fakeCaches() {
  const stores = new Map();
  return {
    stores,
    open: async (n) => { if (!stores.has(n)) stores.set(n, new FakeCache()); return stores.get(n); },
    delete: async (n) => stores.delete(n),
  };
}

test('the store keeps a model only when asked, with its labels, and forgets it', async () => {
  const caches = fakeCaches();
  assert.equal(await keptModel({ caches }), null);
  const bytes = new Uint8Array([8, 7, 1, 2, 3]);
  await keepModel({ name: 'my model ü.onnx', bytes, labels: ['a', 'b'] }, { caches });
  const k = await keptModel({ caches });
  assert.equal(k.name, 'my model ü.onnx');
  assert.deepEqual([...k.bytes], [...bytes]);
  assert.deepEqual(k.labels, ['a', 'b']);
  await keepModel({ name: 'other.onnx', bytes }, { caches }); // replaces, without labels
  assert.equal((await keptModel({ caches })).labels, null);
  await forgetModel({ caches });
  assert.equal(caches.stores.has(OWN_CACHE), false);
  assert.equal(await keptModel({ caches }), null);
  // no Cache API: nothing kept, nothing thrown
  assert.equal(await keptModel({ caches: null }), null);
});

test('a small model\'s size reads in KB, not "0.0 MB" (issue 29)', () => {
  const facts = summaryFacts({ operators: {}, inputs: [], outputs: [] }, { name: 'tiny.onnx', bytes: 22 * 1024 });
  assert.equal(facts.find((f) => f.label === 'File').value, 'tiny.onnx (22 KB)');
});
