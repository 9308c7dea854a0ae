// image-backend.test.mjs — web/runtime/ort-backend.js: the backend choice (WebGPU only on a hardware adapter,
// threaded wasm otherwise, URL overrides), with fake navigator.gpu objects; and the batch sizes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { chooseBackend, parseBackendOverride, batchSizeFor } from '../../web/runtime/ort-backend.js';

const gpuWith = (adapter) => ({ requestAdapter: async () => adapter });
const hardware = { info: { vendor: 'nvidia', architecture: 'ampere', isFallbackAdapter: false } };
const swiftshader = { info: { vendor: 'google', device: 'SwiftShader', isFallbackAdapter: true } };

test('a hardware adapter gives WebGPU with its bundle', async () => {
  const c = await chooseBackend({ gpu: gpuWith(hardware), crossOriginIsolated: true, hardwareConcurrency: 8 });
  assert.equal(c.backend, 'webgpu');
  assert.equal(c.bundle, 'ort.webgpu.min.mjs');
  assert.equal(c.adapter, hardware);
  assert.match(c.reason, /nvidia/);
});

test('a fallback (software) adapter gives threaded wasm, min(4, cores) threads', async () => {
  const c = await chooseBackend({ gpu: gpuWith(swiftshader), crossOriginIsolated: true, hardwareConcurrency: 8 });
  assert.equal(c.backend, 'wasm');
  assert.equal(c.bundle, 'ort.wasm.min.mjs');
  assert.equal(c.numThreads, 4);
  assert.match(c.reason, /fallback/);
  const two = await chooseBackend({ gpu: gpuWith(swiftshader), crossOriginIsolated: true, hardwareConcurrency: 2 });
  assert.equal(two.numThreads, 2);
});

test('no navigator.gpu, no adapter, or a throwing requestAdapter → wasm with the reason', async () => {
  for (const gpu of [undefined, gpuWith(null), { requestAdapter: async () => { throw new Error('boom'); } }]) {
    const c = await chooseBackend({ gpu, crossOriginIsolated: true, hardwareConcurrency: 2 });
    assert.equal(c.backend, 'wasm');
    assert.ok(c.reason.length > 10);
  }
});

test('without cross-origin isolation wasm runs one thread', async () => {
  const c = await chooseBackend({ gpu: undefined, crossOriginIsolated: false, hardwareConcurrency: 16 });
  assert.equal(c.numThreads, 1);
  assert.match(c.reason, /not cross-origin isolated/);
});

test('an old adapter without .info uses requestAdapterInfo()', async () => {
  const old = { requestAdapterInfo: async () => ({ vendor: 'amd', isFallbackAdapter: false }) };
  const c = await chooseBackend({ gpu: gpuWith(old), crossOriginIsolated: true, hardwareConcurrency: 4 });
  assert.equal(c.backend, 'webgpu');
});

test('override wasm skips WebGPU even on a hardware adapter', async () => {
  let asked = false;
  const gpu = { requestAdapter: async () => { asked = true; return hardware; } };
  const c = await chooseBackend({ gpu, override: 'wasm', crossOriginIsolated: true, hardwareConcurrency: 2 });
  assert.equal(c.backend, 'wasm');
  assert.equal(asked, false);
  assert.match(c.reason, /forced/);
});

test('override webgpu accepts a fallback adapter, and fails clearly without one', async () => {
  const c = await chooseBackend({ gpu: gpuWith(swiftshader), override: 'webgpu' });
  assert.equal(c.backend, 'webgpu');
  assert.match(c.reason, /fallback.*forced/);
  await assert.rejects(chooseBackend({ gpu: undefined, override: 'webgpu' }), /backend=webgpu.*no WebGPU/);
});

test('parseBackendOverride reads backend= from a query or hash', () => {
  assert.equal(parseBackendOverride('?backend=wasm'), 'wasm');
  assert.equal(parseBackendOverride('#view=image&backend=webgpu'), 'webgpu');
  assert.equal(parseBackendOverride('?backend=auto'), null);
  assert.equal(parseBackendOverride('?backend=cuda'), null);
  assert.equal(parseBackendOverride(''), null);
  assert.equal(parseBackendOverride(undefined), null);
});

test('batch sizes per backend', () => {
  assert.equal(batchSizeFor('wasm'), 8);
  assert.equal(batchSizeFor('webgpu'), 32);
});

test('threads= overrides the wasm thread count only on a cross-origin isolated page', async () => {
  const forced = await chooseBackend({ gpu: undefined, override: 'wasm', crossOriginIsolated: true, hardwareConcurrency: 2, threads: 1 });
  assert.equal(forced.numThreads, 1);
  assert.match(forced.reason, /threads= in the URL/);
  const auto = await chooseBackend({ gpu: undefined, override: 'wasm', crossOriginIsolated: true, hardwareConcurrency: 2, threads: 0 });
  assert.equal(auto.numThreads, 2);
  const bad = await chooseBackend({ gpu: undefined, override: 'wasm', crossOriginIsolated: true, hardwareConcurrency: 8, threads: 99 });
  assert.equal(bad.numThreads, 4);
  const notIsolated = await chooseBackend({ gpu: undefined, override: 'wasm', crossOriginIsolated: false, hardwareConcurrency: 8, threads: 4 });
  assert.equal(notIsolated.numThreads, 1);
});
