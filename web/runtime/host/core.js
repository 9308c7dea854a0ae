// core.js — the WebAssembly core of this worker, loaded once and shared by every lab's handlers; and the
// small helpers every lab uses to call it (fetch with readable errors, sha256 check).
// No DOM.
//
// Contract:
//   loadCore() → Promise<Module>: imports ../../gen/attnlab_core.mjs once per worker (a failed load is retried next
//     time; the promise is kept on globalThis, so a second instance of this module — a test importing the source into
//     a worker whose script is bundled, scripts/page-bundle.mjs — gets the same core), with
//     the core's threads of this worker (coreThreads) started as Emscripten's pthread pool.
//   coreThreads({ isolated, name, search, hardwareConcurrency }) → integer ≥ 1: the threads of this worker's core
//     (core/parallel/parallel_for.h). 1 where the page is not cross-origin isolated (shared memory cannot reach
//     another worker there), in a pool worker (named attnlab-pool-…: the pool itself is the parallelism) and in the
//     image host (labs=image…: ONNX Runtime's own threads do its heavy work); else the page's threads= (passed in
//     this worker's URL by lab-runtime.js; threads=1 opts out), by default every core (hardwareConcurrency), at
//     most MAX_CORE_THREADS. (A replaced worker with a pthread pool closes ≈ 2 s after terminate(), not at once:
//     tests/e2e/worker-abort.test.mjs waits for it.)
//   interruptWord(Module) → { buffer: SharedArrayBuffer, index } | null: the core's interrupt word
//     (core/parallel/interrupt.h) as an Int32Array index into the instance's shared memory, which the worker hands to
//     the page so that WorkerChannel.fail() stops a call in flight at the core's next check (terminate() alone lets it
//     run up to 2 s); null where the memory is not shared with the page (not cross-origin isolated) or the build has
//     no such binding.
//   coreIfLoaded() → Promise<Module | null>: the core when a load was started (awaited), else null (loads nothing).
//   requireApi(Module, name, what): throws a readable "rebuild the core" Error when Module[name] is missing.
//   warmHeap(Module, bytes) → bytes written: a block of `bytes` taken from the core's heap, written once and given back,
//     so that the calls after it find those pages in memory (the first explanation after a model loaded paid for them
//     in page faults: 25–35 ms of stories260K's first "next", docs/BENCHMARKS.md); 0 where the heap cannot give them.
//   fetchOk(url, what) → Promise<Response>; an HTTP or network failure → Error naming `what` and the path.
//   checkSha256(bytes, expected, what): throws when a 64-hex `expected` does not match (no-op without one, or
//     without crypto.subtle).
import { sha256Hex } from '../model-cache.js';
import { meterOn, meterModule } from './meter.js';

const CORE_URL = new URL('../../gen/attnlab_core.mjs', import.meta.url);
export const MAX_CORE_THREADS = 8;
const CORE = Symbol.for('attnlab.core'); // globalThis[CORE]: the worker's Promise<Module>, or undefined

export function coreThreads({ isolated = false, name = '', search = '', hardwareConcurrency = 1 } = {}) {
  if (!isolated || name.startsWith('attnlab-pool-')) return 1;
  const q = new URLSearchParams(search);
  if ((q.get('labs') ?? '').split(',').includes('image')) return 1;
  const cores = Math.max(1, Math.floor(Number(hardwareConcurrency)) || 1);
  const asked = Math.floor(Number(q.get('threads')));
  return Math.min(MAX_CORE_THREADS, asked > 0 ? asked : cores, cores);
}

// Emscripten's glue tests `buffer instanceof SharedArrayBuffer`; where the page is not isolated Chromium makes shared
// wasm memory but hides the constructor's name, so it is named from such a memory (one 64 KiB page, then dropped).
function nameSharedArrayBuffer() {
  if (typeof SharedArrayBuffer === 'undefined') {
    globalThis.SharedArrayBuffer = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer.constructor;
  }
}

export function loadCore() {
  globalThis[CORE] ??= (async () => {
    let createModule;
    try {
      ({ default: createModule } = await import(CORE_URL.href));
    } catch (e) {
      throw new Error(
        `The WebAssembly core is missing or broken (${CORE_URL.pathname}): ${e.message}. ` +
          'Build it with `bash scripts/build-wasm.sh` (or `npm run serve`, which builds it).',
      );
    }
    nameSharedArrayBuffer();
    const threads = coreThreads({
      isolated: Boolean(globalThis.crossOriginIsolated), name: globalThis.name ?? '',
      search: globalThis.location?.search ?? '', hardwareConcurrency: globalThis.navigator?.hardwareConcurrency ?? 1,
    });
    const Module = await createModule({ locateFile: (file) => new URL(file, CORE_URL).href, attnlabPoolSize: threads - 1 });
    if (typeof Module.setThreads === 'function') Module.setThreads(threads);
    return meterOn() ? meterModule(Module) : Module; // measurement only (meter.js)
  })().catch((e) => {
    globalThis[CORE] = undefined;
    throw e;
  });
  return globalThis[CORE];
}

export function interruptWord(Module, isolated = Boolean(globalThis.crossOriginIsolated)) {
  const buffer = Module?.wasmMemory?.buffer;
  if (!isolated || typeof Module?.interruptWord !== 'function' || typeof SharedArrayBuffer === 'undefined' ||
      !(buffer instanceof SharedArrayBuffer)) return null;
  const address = Module.interruptWord();
  return Number.isInteger(address) && address > 0 && address % 4 === 0 && address < buffer.byteLength
    ? { buffer, index: address / 4 } : null;
}

export function coreIfLoaded() {
  return globalThis[CORE] ? globalThis[CORE].catch(() => null) : Promise.resolve(null);
}

export function requireApi(Module, name, what) {
  if (typeof Module?.[name] !== 'function') {
    throw new Error(`This build of the WebAssembly core has no ${what} (${name}); rebuild it (bash scripts/build-wasm.sh).`);
  }
}

export function warmHeap(Module, bytes) {
  const p = typeof Module?._malloc === 'function' ? Module._malloc(bytes) : 0;
  if (!p) return 0;
  Module.HEAPU8.fill(0, p, p + bytes);
  Module._free(p);
  return bytes;
}

export async function fetchOk(url, what) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`Could not fetch ${what} (${url.pathname}): ${e.message}`);
  }
  if (!res.ok) throw new Error(`Could not fetch ${what} (${url.pathname}): HTTP ${res.status}`);
  return res;
}

export async function checkSha256(bytes, expected, what) {
  if (typeof expected !== 'string' || !/^[0-9a-f]{64}$/i.test(expected)) return;
  if (!globalThis.crypto?.subtle) return; // not a secure context: nothing to check with
  const hex = await sha256Hex(bytes, globalThis.crypto.subtle);
  if (hex !== expected.toLowerCase()) {
    throw new Error(`${what} does not match its sha256 in the manifest (got ${hex.slice(0, 12)}…, expected ${expected.slice(0, 12)}…).`);
  }
}
