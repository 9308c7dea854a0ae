// image-model.js — the Image lab's model in one worker: ONNX Runtime Web (MobileNetV2) on the backend chosen
// by ort-backend.js, the core's GAP + linear head (ImageLab) and the labels, loaded once (sha256-checked,
// Cache API); the network forward; and the one current photo. No DOM.
//
// Contract:
//   load(msg, progress) → Promise<L>: {core, ort, session, ep, choice, lab, labels, C, K, bias, batch, model}; loaded
//     once per worker (a failed load is retried); progress(stage, loaded, total, cached) with stage 'core' |
//     'ort' | 'onnx' | 'head' | 'labels' | 'session' | 'ready' (the steps run side by side, so the stages of the
//     three files and the session interleave; 'ready' comes last). msg: {override: 'wasm'|'webgpu'|null, threads}.
//     The first failure is the error (the others are awaited, and a session already made is released).
//   ready() → Promise<L> (Error when not loaded yet)
//   forward(L, input [n·3·224·224], n, wantFeatures) → {features [n·K·h·w] | null, logits [n·C], fh, fw}
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
  // ORT's runtime starts now, beside the model's download and check (ort-backend.js warmUp); never fails the load.
  Promise.all([ortPromise, choicePromise]).then(([ort, choice]) => warmUp(ort, choice)).then((ran) => ran && mark('ort runtime'), () => {});

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

  // ORT's session starts as soon as ORT and the ONNX file are there (its first session fetches and compiles ORT's
  // own wasm): it does not wait for the core, the head or the labels.
  const sessionPromise = Promise.all([ortPromise, onnxPromise, choicePromise]).then(async ([ort, onnxBytes, choice]) => {
    progress('session', 0, 0);
    try {
      const made = await createSession(ort, onnxBytes, choice);
      mark('session');
      return made;
    } catch (e) {
      throw new Error(`ONNX Runtime could not start the model on ${choice.backend}: ${errText(e)}`);
    }
  });
  const all = [corePromise, modelPromise, choicePromise, ortPromise, headPromise, labelsPromise, sessionPromise];
  let parts;
  try {
    parts = await Promise.all(all);
  } catch (e) {
    // The first failure is the one reported; the session, if one was made, is released.
    await Promise.allSettled(all);
    sessionPromise.then(({ session }) => session.release?.(), () => {});
    throw e;
  }
  const [core, model, choice, ort, head, labels, { session, ep }] = parts;
  const { C, K } = head;
  if (labels.length !== C) {
    session.release?.();
    throw new Error(`The label list has ${labels.length} lines, the classifier ${C} classes.`);
  }
  const lab = new core.ImageLab(head.weight, head.bias, C, K);
  mark('ready');
  progress('ready', 1, 1);
  return { core, ort, session, ep, choice, lab, labels, C, K, bias: head.bias, batch: batchSizeFor(choice.backend), model };
}

export async function ready() {
  if (!loaded) throw new Error('The image model is not loaded yet.');
  return loaded;
}

/** Runs the CNN on n images [n*3*224*224] → {features [n*K*49], logits [n*C], fh, fw}. */
export async function forward(L, input, n, wantFeatures = true) {
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
  return { features, logits, fh, fw };
}

export function top(L, probs, k = 5) {
  return topK(probs, k).map((index) => ({ index, label: L.labels[index], prob: probs[index] }));
}
