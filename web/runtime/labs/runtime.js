// runtime.js — requests about the worker itself, for every lab's host (the page's diagnostics and the endurance
// test, tests/e2e/endurance.test.mjs). No DOM.
//
// Requests (protocol: worker-channel.js):
//   memory {} → {wasm_heap_bytes, js_heap_bytes, core_loaded}: the core's WebAssembly memory (its size: it only
//     grows, so it is the high-water mark of the heap — a leak shows as growth over many requests), the worker's
//     JS heap when the browser tells it (performance.memory; null otherwise), and whether the core was loaded
//     (memory does not load it: wasm_heap_bytes is 0 before).
import { coreIfLoaded } from '../host/core.js';

async function memory() {
  const Module = await coreIfLoaded();
  return {
    wasm_heap_bytes: Module?.HEAPU8?.buffer?.byteLength ?? 0,
    js_heap_bytes: globalThis.performance?.memory?.usedJSHeapSize ?? null,
    core_loaded: Boolean(Module),
  };
}

export const runtimeLab = { name: 'runtime', handlers: { memory } };
