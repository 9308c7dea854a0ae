// coreThreads (web/runtime/host/core.js): how many threads a worker's wasm core gets; warmHeap: the heap written once.
import test from 'node:test';
import assert from 'node:assert/strict';
import { coreThreads, MAX_CORE_THREADS, interruptWord, warmHeap } from '../../web/runtime/host/core.js';

test('not cross-origin isolated: one thread, whatever is asked', () => {
  assert.equal(coreThreads({ isolated: false, search: '?labs=text&threads=4', hardwareConcurrency: 8 }), 1);
});

test('isolated: every core by default (at most MAX_CORE_THREADS); the URL threads= overrides, threads=1 opts out', () => {
  assert.equal(coreThreads({ isolated: true, search: '?labs=text', hardwareConcurrency: 4 }), 4);
  assert.equal(coreThreads({ isolated: true, search: '?labs=text', hardwareConcurrency: 16 }), MAX_CORE_THREADS);
  assert.equal(coreThreads({ isolated: true, search: '?threads=0', hardwareConcurrency: 3 }), 3);
  assert.equal(coreThreads({ isolated: true, search: '?labs=text&threads=1', hardwareConcurrency: 8 }), 1);
  assert.equal(coreThreads({ isolated: true, search: '?labs=text&threads=2', hardwareConcurrency: 8 }), 2);
  assert.equal(coreThreads({ isolated: true, search: '?labs=text&threads=64', hardwareConcurrency: 64 }), MAX_CORE_THREADS);
  assert.equal(coreThreads({ isolated: true, search: '?labs=text&threads=8', hardwareConcurrency: 2 }), 2);
  assert.equal(coreThreads({ isolated: true, search: '?threads=3', hardwareConcurrency: undefined }), 1);
  assert.equal(coreThreads({ isolated: true, search: '?labs=text', hardwareConcurrency: 0 }), 1);
});

test('a pool worker and the image host keep one thread', () => {
  assert.equal(coreThreads({ isolated: true, name: 'attnlab-pool-2', search: '?labs=text&threads=4', hardwareConcurrency: 8 }), 1);
  assert.equal(coreThreads({ isolated: true, search: '?labs=image,runtime&threads=4', hardwareConcurrency: 8 }), 1);
  assert.equal(coreThreads({ isolated: true, search: '?labs=ownModel,runtime&threads=4', hardwareConcurrency: 8 }), 4);
});

test('interruptWord: an Int32Array index into the shared memory, or null where the page cannot reach it', () => {
  const shared = { wasmMemory: { buffer: new SharedArrayBuffer(4096) }, interruptWord: () => 1024 };
  assert.deepEqual(interruptWord(shared, true), { buffer: shared.wasmMemory.buffer, index: 256 });
  assert.equal(interruptWord(shared, false), null, 'not cross-origin isolated');
  assert.equal(interruptWord({ ...shared, interruptWord: undefined }, true), null, 'a build without the binding');
  assert.equal(interruptWord({ wasmMemory: { buffer: new ArrayBuffer(4096) }, interruptWord: () => 1024 }, true), null, 'unshared memory');
  assert.equal(interruptWord({ ...shared, interruptWord: () => 1026 }, true), null, 'not 4-aligned');
  assert.equal(interruptWord({ ...shared, interruptWord: () => 4096 }, true), null, 'outside the memory');
  assert.equal(interruptWord(null, true), null);
});


test('warmHeap writes a block of the heap once and gives it back; 0 where the heap cannot give it', () => {
  const heap = new Uint8Array(64).fill(7);
  const freed = [];
  const M = { HEAPU8: heap, _malloc: (n) => (n <= 48 ? 8 : 0), _free: (p) => freed.push(p) };
  assert.equal(warmHeap(M, 32), 32);
  assert.deepEqual([...heap.subarray(8, 40)], new Array(32).fill(0));
  assert.equal(heap[7], 7);
  assert.equal(heap[40], 7);
  assert.deepEqual(freed, [8]);
  assert.equal(warmHeap(M, 60), 0, 'a block the heap refuses');
  assert.equal(warmHeap({}, 32), 0, 'a core without malloc');
  assert.deepEqual(freed, [8]);
});
