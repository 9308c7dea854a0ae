// image-model.js — the Image lab's model in one worker: ONNX Runtime Web (MobileNetV2) on the backend chosen
// by ort-backend.js, the core's GAP + linear head (ImageLab) and the labels, loaded once (sha256-checked,
// Cache API); the network forward; and the one current photo. No DOM.
//
// Contract:
//   load(msg, progress) → Promise<L>: {core, ort, session, ep, choice, lab, labels, C, K, bias, batch, model, runner,
//     sessionReady}; loaded once per worker (a failed load is retried); progress(stage, loaded, total, cached) with
//     stage 'core' | 'ort' | 'onnx' | 'head' | 'labels' | 'session' | 'ready' (the steps run side by side, so the
//     stages of the three files and the session interleave; 'ready' comes last). msg: {override: 'wasm'|'webgpu'|null,
//     threads}. L is ready as soon as the core can run the network itself (`runner`, the core's executor on the same
//     ONNX file) or ORT's session is made, whichever comes first: on a cold open ORT's session (its 13.9 MB runtime
//     compiled) is the longest chain, so the first photo is classified by the core while it starts. Until then
//     ort / session / ep are null; L.sessionReady → L once they are set (the runner is then released), or the
//     session's error. The first failure before L is ready is the error (the others are awaited, and a session
//     already made is released); a session that fails later fails the requests that need it.
//   ready() → Promise<L> (Error when not loaded yet)
//   session(L) → Promise<L> with ORT's session (L.sessionReady); openSessionGate(): let ORT's session be made now
//     (while the core can run the network, it waits until the first map is made or a request needs ORT, ≤ 1.5 s)
//   forward(L, input [n·3·224·224], n, wantFeatures) → {features [n·K·h·w] | null, logits [n·C], fh, fw, engine}:
//     engine 'onnxruntime', or 'core' for one image while ORT's session is not made yet
//   top(L, probs, k) → [{index, label, prob}]
//   (bias: the classifier head's bias [C], as read from the head file)
//   photo: {current} — the photo being explained ({imageId, input, features, fh, fw, logits (ORT's), probs, mask224,
//     positiveLabel}); need(imageId) → it, or an Error when another photo replaced it; newImageId().
//   checkClass(L, c) → c, or an Error for an index out of range.
import { chooseBackend, loadOrt, createSession, batchSizeFor, warmUp } from '../ort-backend.js';
import { fetchVerified } from '../model-cache.js';
import { readImageHead } from '../image-head.js';
import { loadCore } from '../host/core.js';
import { errText } from '../host/host.js';
import { topK, S } from '../image/decode.js';

const MANIFEST_URL = new URL('../../../models/image/manifest.json', import.meta.url);
const ORT_BASE = new URL('../../../vendor/ort/', import.meta.url);

let loaded = null;
// ORT's session is made once this opens: when the first map of a photo is made (openSessionGate), when a request
// needs ORT, or SESSION_GATE_MS after the model is ready, whichever comes first.
const sessionGate = {};
sessionGate.promise = new Promise((resolve) => { sessionGate.open = resolve; });
export const openSessionGate = () => sessionGate.open();
const SESSION_GATE_MS = 1500;
export const photo = { current: null };
let nextImageId = 1;
export const newImageId = () => nextImageId++;

export function load(msg, progress) {
  loaded ??= loadModel(msg, progress).catch((e) => {
    loaded = null; // a failed load can be retried
    throw e;
  });
  return loaded;
}

export function need(imageId) {
  const cur = photo.current;
  if (!cur || cur.imageId !== imageId) throw new Error('That photo is no longer loaded; pick it again.');
  return cur;
}

export function checkClass(L, c) {
  if (!Number.isInteger(c) || c < 0 || c >= L.C) throw new Error(`Class index ${c} is out of range 0…${L.C - 1}.`);
  return c;
}

// What depends on what (the rest runs side by side, so a cold open waits for the longest chain, not the sum:
// core ∥ model list → (ONNX file ∥ head ∥ labels) ∥ ORT's bundle → ORT session (its wasm download + compile) ∥ head).
const mark = (name) => globalThis.performance?.mark?.(`image: ${name}`); // the timeline of tests/bench/cold-start.mjs --trace

export async function loadModel(msg, progress) {
  mark('load');
  progress('core', 0, 0);
  const corePromise = loadCore().then((core) => {
    if (typeof core.ImageLab !== 'function' || typeof core.preprocessImage !== 'function') {
      throw new Error('This WebAssembly core has no image API (ImageLab); rebuild it with `bash scripts/build-wasm.sh`.');
    }
    mark('core');
    return core;
  });
  const manifestPromise = (async () => {
    try {
      const res = await fetch(MANIFEST_URL);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return await res.json();
    } catch (e) {
      throw new Error(`Could not read the image model list (${MANIFEST_URL.pathname}): ${e.message}`);
    }
  })();
  progress('ort', 0, 0);
  const choicePromise = chooseBackend({
    gpu: self.navigator?.gpu,
    override: msg.override ?? null,
    threads: msg.threads ?? 0,
    crossOriginIsolated: Boolean(self.crossOriginIsolated),
    hardwareConcurrency: self.navigator?.hardwareConcurrency ?? 1,
  });
  const ortPromise = choicePromise.then((choice) => loadOrt(choice, ORT_BASE.href)).then((ort) => (mark('ort bundle'), ort));

  const modelPromise = manifestPromise.then((manifest) => {
    const model = manifest?.models?.[0];
    if (!model?.files?.onnx || !model.files.head || !model.files.labels) {
      throw new Error(`The image model list (${MANIFEST_URL.pathname}) has no model with onnx, head and labels files.`);
    }
    return model;
  });
  const fetchFile = (key, what) => modelPromise.then((model) => {
    const f = model.files[key];
    return fetchVerified(new URL(f.path, MANIFEST_URL).href, {
      sha256: f.sha256,
      bytes: f.bytes,
      what,
      onProgress: ({ loaded: l, total, cached }) => progress(key, l, total, cached),
    });
  });
  const onnxPromise = fetchFile('onnx', 'image model').then((b) => (mark('onnx file'), b));
  const headPromise = fetchFile('head', 'classifier head').then(readImageHead);
  const labelsPromise = fetchFile('labels', 'label list').then((bytes) => {
    const labels = new TextDecoder().decode(bytes).split(/\r?\n/);
    while (labels.length && labels[labels.length - 1] === '') labels.pop();
    return labels;
  });

  // The core's own executor on the same file, for the photos classified before ORT's session is made (null when the
  // core cannot run it: ORT alone then).
  const runnerPromise = Promise.all([corePromise, onnxPromise]).then(([core, bytes]) => {
    const runner = typeof core.OnnxRunner === 'function' ? new core.OnnxRunner(bytes) : null;
    if (runner) mark('core runner');
    return runner;
  }).catch(() => null);
  // ORT's session starts as soon as ORT and the ONNX file are there (its first session fetches and compiles ORT's
  // own wasm): it does not wait for the head or the labels. Making it holds this worker's thread for about a second,
  // so where the core can run the network it first waits for the gate (below): the first photo and its map come first.
  const gated = runnerPromise.then((r) => (r ? sessionGate.promise : null));
  // ORT's runtime (its 13.9 MB wasm fetched, compiled and started: ort-backend.js warmUp) starts beside the model's
  // download and check where the core cannot run the network, else at the gate (starting it holds this thread too);
  // never fails the load.
  Promise.all([ortPromise, choicePromise, gated]).then(([ort, choice]) => warmUp(ort, choice)).then((ran) => ran && mark('ort runtime'), () => {});
  const sessionPromise = Promise.all([ortPromise, onnxPromise, choicePromise, gated]).then(async ([ort, onnxBytes, choice]) => {
    progress('session', 0, 0);
    try {
      const made = await createSession(ort, onnxBytes, choice);
      mark('session');
      return made;
    } catch (e) {
      throw new Error(`ONNX Runtime could not start the model on ${choice.backend}: ${errText(e)}`);
    }
  });
  const sessionOrOrt = Promise.all([ortPromise, sessionPromise]);
  // Whichever engine is ready first; a session that fails while the core can run the network fails only the requests
  // that need ORT later.
  const firstEngine = Promise.race([runnerPromise.then((r) => r ?? sessionOrOrt), sessionOrOrt.catch(() => new Promise(() => {}))]);
  const all = [corePromise, modelPromise, choicePromise, headPromise, labelsPromise, firstEngine];
  let parts;
  try {
    parts = await Promise.all(all);
  } catch (e) {
    // The first failure is the one reported; the session, if one was made, is released.
    await Promise.allSettled([...all, runnerPromise]);
    sessionPromise.then(({ session }) => session.release?.(), () => {});
    runnerPromise.then((r) => r?.delete());
    throw e;
  }
  const [core, model, choice, head, labels] = parts;
  const { C, K } = head;
  if (labels.length !== C) {
    sessionPromise.then(({ session }) => session.release?.(), () => {});
    runnerPromise.then((r) => r?.delete());
    throw new Error(`The label list has ${labels.length} lines, the classifier ${C} classes.`);
  }
  const lab = new core.ImageLab(head.weight, head.bias, C, K);
  const L = { core, ort: null, session: null, ep: null, choice, lab, labels, C, K, bias: head.bias, batch: batchSizeFor(choice.backend), model, runner: await runnerPromise };
  L.sessionReady = sessionOrOrt.then(([ort, { session, ep }]) => {
    Object.assign(L, { ort, session, ep });
    L.runner?.delete();
    L.runner = null;
    return L;
  });
  L.sessionReady.catch(() => {}); // reported by the requests that need the session
  if (L.runner) setTimeout(openSessionGate, SESSION_GATE_MS);
  mark('ready');
  progress('ready', 1, 1);
  return L;
}

export const session = (L) => L.sessionReady;

export async function ready() {
  if (!loaded) throw new Error('The image model is not loaded yet.');
  return loaded;
}

/** Runs the CNN on n images [n*3*224*224] → {features [n*K*49], logits [n*C], fh, fw, engine}. */
export async function forward(L, input, n, wantFeatures = true) {
  if (!L.session && L.runner && n === 1) {
    const out = L.runner.run(input, wantFeatures ? ['features', 'logits'] : ['logits']);
    const [, , fh, fw] = out.features?.dims ?? [0, 0, 7, 7];
    return { features: wantFeatures ? out.features.data : null, logits: out.logits.data, fh, fw, engine: 'core' };
  }
  openSessionGate();
  await L.sessionReady;
  const t = new L.ort.Tensor('float32', input, [n, 3, S, S]); // a fresh tensor for every run
  const out = await L.session.run({ image: t }, wantFeatures ? ['features', 'logits'] : ['logits']);
  const logits = out.logits.data instanceof Float32Array ? out.logits.data : Float32Array.from(out.logits.data);
  let features = null;
  let fh = 7;
  let fw = 7;
  if (wantFeatures) {
    features = out.features.data instanceof Float32Array ? out.features.data : Float32Array.from(out.features.data);
    [, , fh, fw] = out.features.dims;
  }
  for (const v of Object.values(out)) v.dispose?.();
  return { features, logits, fh, fw, engine: 'onnxruntime' };
}

export function top(L, probs, k = 5) {
  return topK(probs, k).map((index) => ({ index, label: L.labels[index], prob: probs[index] }));
}
