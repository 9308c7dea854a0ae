// ort-backend.js — which ONNX Runtime Web backend runs the image CNN, and loading the matching ORT bundle.
//
// Contract (no DOM; works in a worker and, with injected fakes, in Node):
//   parseBackendOverride(search) → 'wasm' | 'webgpu' | null   from a URL query/hash string (`backend=…`);
//                                  anything else (absent, 'auto', garbage) → null.
//   chooseBackend({ gpu, override, crossOriginIsolated, hardwareConcurrency, threads })
//       → Promise<{ backend: 'webgpu' | 'wasm', reason, numThreads, adapter, adapterInfo, bundle }>
//     gpu      navigator.gpu (or undefined). WebGPU is chosen when requestAdapter() yields an adapter whose
//              info.isFallbackAdapter is false (a software adapter such as SwiftShader is ~100× slower than
//              wasm, so it is not used unless forced). Otherwise threaded wasm.
//     override 'wasm' | 'webgpu' | null: forces that backend ('webgpu' with no adapter at all → an Error that
//              says so; a fallback adapter is accepted when forced).
//     wasm:    numThreads = min(4, hardwareConcurrency) when crossOriginIsolated (SharedArrayBuffer available),
//              else 1; `threads` (1…16, from the URL's threads=) overrides the count when isolated (benchmarks
//              compare 1 and 2 threads with it). WebGPU: numThreads 1 (the wasm part only does the glue).
//     reason   a human sentence for the page ("WebGPU adapter … (hardware)", "no WebGPU: …, using …").
//     bundle   the ORT file to import: 'ort.webgpu.min.mjs' for WebGPU, 'ort.wasm.min.mjs' for wasm — two
//              different bundles (the WebGPU bundle's own wasm EP is ~5× slower), so switching means loading
//              the other one.
//   batchSizeFor(backend) → network inputs per ORT run in a perturbation plan (wasm 8, webgpu 32).
//   describeAdapter(info) → 'vendor architecture device description' of a GPUAdapterInfo (its non-empty parts), or
//     'unnamed adapter' / 'unknown adapter'.
//   loadOrt(choice, baseUrl) → Promise<ort>: imports `${baseUrl}${choice.bundle}`, sets ort.env.wasm.wasmPaths =
//     baseUrl, numThreads, and for WebGPU env.webgpu.adapter = the chosen adapter.
//   warmUp(ort, choice) → Promise<boolean>: on wasm, a session on WARM_UP_MODEL (then released), so ORT fetches,
//     compiles and starts its 13.9 MB runtime while the real model still downloads and is verified (issue 29: the
//     runtime started only with the model's session, ≈ 0.5 s later on a cold open); ORT starts its runtime once, and
//     the model's createSession joins it. True when it ran; false on WebGPU (its device is made per session) or when
//     ORT refused (the model's own session then says why).
//   WARM_UP_MODEL  67 bytes of ONNX: one Identity on a float[1] (onnx.helper, opset 13, IR 7; tests/js/ort-warm-up.test.mjs
//     runs it).
//   createSession(ort, bytes, choice) → Promise<{ session, ep }>: an InferenceSession on exactly one EP (no
//     silent fallback: ORT throws when that EP cannot start). ep is what ORT reports: 'webgpu' only when ORT
//     created its WebGPU device (env.webgpu.device set), else 'wasm'.

export const BACKENDS = Object.freeze(['wasm', 'webgpu']);

export function parseBackendOverride(search) {
  const s = String(search ?? '').replace(/^[?#]/, '');
  const v = new URLSearchParams(s).get('backend');
  return BACKENDS.includes(v) ? v : null;
}

export function batchSizeFor(backend) {
  return backend === 'webgpu' ? 32 : 8;
}

export function describeAdapter(info) {
  if (!info) return 'unknown adapter';
  const parts = [info.vendor, info.architecture, info.device, info.description].filter((x) => x);
  return parts.length ? parts.join(' ') : 'unnamed adapter';
}

async function findAdapter(gpu) {
  if (!gpu || typeof gpu.requestAdapter !== 'function') return { adapter: null, why: 'this browser has no WebGPU (navigator.gpu)' };
  let adapter = null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return { adapter: null, why: `WebGPU requestAdapter failed (${e?.message ?? e})` };
  }
  if (!adapter) return { adapter: null, why: 'WebGPU gave no adapter' };
  // adapter.info (Chrome ≥ 127); older: requestAdapterInfo().
  let info = adapter.info ?? null;
  if (!info && typeof adapter.requestAdapterInfo === 'function') {
    try { info = await adapter.requestAdapterInfo(); } catch { info = null; }
  }
  const fallback = Boolean(info?.isFallbackAdapter ?? adapter.isFallbackAdapter);
  return { adapter, info: info ?? {}, fallback };
}

export async function chooseBackend({ gpu, override = null, crossOriginIsolated = false, hardwareConcurrency = 1, threads: forced = 0 } = {}) {
  const auto = Math.max(1, Math.min(4, Number(hardwareConcurrency) || 1));
  const asked = Number.isInteger(forced) && forced >= 1 && forced <= 16 ? forced : 0;
  const threads = crossOriginIsolated ? asked || auto : 1;
  const wasm = (reason) => ({
    backend: 'wasm',
    reason,
    numThreads: threads,
    adapter: null,
    adapterInfo: null,
    bundle: 'ort.wasm.min.mjs',
  });
  const threadNote = crossOriginIsolated
    ? `${threads} thread${threads === 1 ? '' : 's'}${asked ? ' (threads= in the URL)' : ''}`
    : '1 thread (the page is not cross-origin isolated)';
  if (override === 'wasm') return wasm(`WebAssembly, ${threadNote} — forced by backend=wasm in the URL`);

  const found = await findAdapter(gpu);
  if (override === 'webgpu') {
    if (!found.adapter) throw new Error(`backend=webgpu was asked for, but ${found.why}.`);
    return {
      backend: 'webgpu',
      reason: `WebGPU on ${describeAdapter(found.info)}${found.fallback ? ' (a software fallback adapter: slow)' : ''} — forced by backend=webgpu in the URL`,
      numThreads: 1,
      adapter: found.adapter,
      adapterInfo: found.info,
      bundle: 'ort.webgpu.min.mjs',
    };
  }
  if (found.adapter && !found.fallback) {
    return {
      backend: 'webgpu',
      reason: `WebGPU on ${describeAdapter(found.info)} (a hardware adapter)`,
      numThreads: 1,
      adapter: found.adapter,
      adapterInfo: found.info,
      bundle: 'ort.webgpu.min.mjs',
    };
  }
  const why = found.adapter ? `the WebGPU adapter (${describeAdapter(found.info)}) is a software fallback` : found.why;
  return wasm(`WebAssembly, ${threadNote} — ${why}`);
}

export async function loadOrt(choice, baseUrl) {
  const base = String(baseUrl).endsWith('/') ? String(baseUrl) : `${baseUrl}/`;
  let ort;
  try {
    ort = await import(`${base}${choice.bundle}`);
  } catch (e) {
    throw new Error(`Could not load ONNX Runtime Web (${base}${choice.bundle}): ${e.message}. Install it with \`npm ci\`.`);
  }
  ort = ort.default && ort.default.InferenceSession ? ort.default : ort;
  ort.env.wasm.wasmPaths = base;
  ort.env.wasm.numThreads = choice.numThreads;
  if (choice.backend === 'webgpu' && choice.adapter) ort.env.webgpu.adapter = choice.adapter;
  return ort;
}

export const WARM_UP_MODEL = Object.freeze([8, 7, 18, 0, 58, 55, 10, 16, 10, 1, 120, 18, 1, 121, 34, 8, 73, 100, 101, 110,
  116, 105, 116, 121, 18, 1, 119, 90, 15, 10, 1, 120, 18, 10, 10, 8, 8, 1, 18, 4, 10, 2, 8, 1, 98, 15, 10, 1, 121, 18, 10,
  10, 8, 8, 1, 18, 4, 10, 2, 8, 1, 66, 4, 10, 0, 16, 13]);

export async function warmUp(ort, choice) {
  if (choice.backend !== 'wasm') return false;
  try {
    const session = await ort.InferenceSession.create(Uint8Array.from(WARM_UP_MODEL), { executionProviders: ['wasm'] });
    await session.release?.();
    return true;
  } catch {
    return false;
  }
}

export async function createSession(ort, bytes, choice) {
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: [choice.backend],
    graphOptimizationLevel: 'all',
  });
  const ep = choice.backend === 'webgpu' && ort.env.webgpu?.device ? 'webgpu' : 'wasm';
  return { session, ep };
}
