// runtime.js — requests about the worker itself, for every lab's host (the page's diagnostics and the endurance
// test, tests/e2e/endurance.test.mjs). No DOM.
//
// Requests (protocol: worker-channel.js):
//   memory {} → {wasm_heap_bytes, js_heap_bytes, core_loaded, core_threads}: the core's WebAssembly memory (its size: it only
//     grows, so it is the high-water mark of the heap — a leak shows as growth over many requests), the worker's
//     JS heap when the browser tells it (performance.memory; null otherwise), and whether the core was loaded
//     (memory does not load it: wasm_heap_bytes is 0 before), and the threads the core runs on (host/core.js
//     coreThreads; null before it is loaded).
import { coreIfLoaded } from '../host/core.js';

async function memory() {
  const Module = await coreIfLoaded();
  return {
    // The memory itself: with threads the glue refreshes its HEAPU8 view lazily, after a growth it may be stale.
    wasm_heap_bytes: (Module?.wasmMemory ?? Module?.HEAPU8)?.buffer?.byteLength ?? 0,
    js_heap_bytes: globalThis.performance?.memory?.usedJSHeapSize ?? null,
    core_loaded: Boolean(Module),
    core_threads: typeof Module?.threads === 'function' ? Module.threads() : null,
  };
}

export const runtimeLab = { name: 'runtime', handlers: { memory } };
