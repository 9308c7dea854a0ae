// own-model.test.mjs — the pure helpers of "Your model" (web/analysis/own-model.js) and the store that keeps a
// model in the browser only when asked (web/runtime/own-model-store.js, with an in-memory CacheStorage).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkModelFile, looksLikeOnnx, parseLabels, defaultLabels, symbolicSize, summaryFacts, MAX_MODEL_BYTES } from '../../web/analysis/own-model.js';
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
  assert.match(get('Spatial layers'), /default CAM layer: c/);
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
