// core.js — the WebAssembly core of this worker, loaded once and shared by every lab's handlers; and the
// small helpers every lab uses to call it (fetch with readable errors, sha256 check).
// No DOM.
//
// Contract:
//   loadCore() → Promise<Module>: imports ../../gen/attnlab_core.mjs once (a failed load is retried next time).
//   coreIfLoaded() → Promise<Module | null>: the core when a load was started (awaited), else null (loads nothing).
//   requireApi(Module, name, what): throws a readable "rebuild the core" Error when Module[name] is missing.
//   fetchOk(url, what) → Promise<Response>; an HTTP or network failure → Error naming `what` and the path.
//   checkSha256(bytes, expected, what): throws when a 64-hex `expected` does not match (no-op without one, or
//     without crypto.subtle).
import { sha256Hex } from '../model-cache.js';
import { meterOn, meterModule } from './meter.js';

const CORE_URL = new URL('../../gen/attnlab_core.mjs', import.meta.url);
let corePromise = null;

export function loadCore() {
  corePromise ??= (async () => {
    let createModule;
    try {
      ({ default: createModule } = await import(CORE_URL.href));
    } catch (e) {
      throw new Error(
        `The WebAssembly core is missing or broken (${CORE_URL.pathname}): ${e.message}. ` +
          'Build it with `bash scripts/build-wasm.sh` (or `npm run serve`, which builds it).',
      );
    }
    const Module = await createModule({ locateFile: (file) => new URL(file, CORE_URL).href });
    return meterOn() ? meterModule(Module) : Module; // measurement only (meter.js)
  })().catch((e) => {
    corePromise = null;
    throw e;
  });
  return corePromise;
}

export function coreIfLoaded() {
  return corePromise ? corePromise.catch(() => null) : Promise.resolve(null);
}

export function requireApi(Module, name, what) {
  if (typeof Module?.[name] !== 'function') {
    throw new Error(`This build of the WebAssembly core has no ${what} (${name}); rebuild it (bash scripts/build-wasm.sh).`);
  }
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
