// ort-warm-up.test.mjs — web/runtime/ort-backend.js warmUp / WARM_UP_MODEL under onnxruntime-web in Node: the 67
// bytes are a model ORT runs (an Identity: y = x), warmUp runs it on wasm and does nothing on WebGPU; negative
// controls: the bytes cut short are refused by ORT, and warmUp then answers false instead of throwing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { WARM_UP_MODEL, warmUp } from '../../web/runtime/ort-backend.js';

const ort = await import('onnxruntime-web');
ort.env.wasm.numThreads = 1;

test('the warm-up model is an Identity ORT runs', async () => {
  const session = await ort.InferenceSession.create(Uint8Array.from(WARM_UP_MODEL), { executionProviders: ['wasm'] });
  const out = await session.run({ x: new ort.Tensor('float32', new Float32Array([3.5]), [1]) });
  assert.deepEqual([...out.y.data], [3.5]);
  await session.release();
});

test('warmUp runs it on wasm, skips WebGPU, and never throws', async () => {
  assert.equal(await warmUp(ort, { backend: 'wasm' }), true);
  assert.equal(await warmUp(ort, { backend: 'webgpu' }), false);
  const broken = { ...ort, InferenceSession: { create: () => ort.InferenceSession.create(Uint8Array.from(WARM_UP_MODEL.slice(0, 40)), { executionProviders: ['wasm'] }) } };
  await assert.rejects(broken.InferenceSession.create(), 'negative control: ORT refuses the bytes cut short');
  assert.equal(await warmUp(broken, { backend: 'wasm' }), false);
});
