// image-model.js — the Image lab's model in one worker: ONNX Runtime Web (MobileNetV2) on the backend chosen
// by ort-backend.js, the core's GAP + linear head (ImageLab) and the labels, loaded once (sha256-checked,
// Cache API); the network forward; and the one current photo. No DOM.
//
// Contract:
//   load(msg, progress) → Promise<L>: {core, ort, session, ep, choice, lab, labels, C, K, bias, batch, model}; loaded
//     once per worker (a failed load is retried; a call during a load joins it: the events so far, then the rest);
//     progress(stage, loaded, total, cached) with stage 'core' | 'ort' | 'onnx' | 'head' | 'labels' | 'session' |
//     'ready'. msg: {override: 'wasm'|'webgpu'|null, threads}.
//   ready() → Promise<L> (Error when not loaded yet)
//   forward(L, input [n·3·224·224], n, wantFeatures) → {features [n·K·h·w] | null, logits [n·C], fh, fw}
//   top(L, probs, k) → [{index, label, prob}]
//   (bias: the classifier head's bias [C], as read from the head file)
//   photo: {current} — the photo being explained ({imageId, input, features, fh, fw, logits (ORT's), probs, mask224,
//     positiveLabel}); need(imageId) → it, or an Error when another photo replaced it; newImageId().
//   checkClass(L, c) → c, or an Error for an index out of range.
import { chooseBackend, loadOrt, createSession, batchSizeFor } from '../ort-backend.js';
import { fetchVerified } from '../model-cache.js';
import { readImageHead } from '../image-head.js';
import { loadCore } from '../host/core.js';
import { errText } from '../host/host.js';
import { topK, S } from '../image/decode.js';

const MANIFEST_URL = new URL('../../../models/image/manifest.json', import.meta.url);
const ORT_BASE = new URL('../../../vendor/ort/', import.meta.url);

const mark = (what) => globalThis.performance?.mark?.(`attnlab:image-load:${what}`); // timelines (tests/bench/cold-start.mjs)

let loaded = null;
export const photo = { current: null };
let nextImageId = 1;
export const newImageId = () => nextImageId++;

// Every caller of a load in progress hears its progress, a late one first the events so far (runtime/boot.js starts
// the load before the page's own image.load request arrives).
let loading = false;
let heard = []; // the progress events of the load in progress
const listeners = new Set();

export function load(msg, progress) {
  if (!loaded) {
    loading = true;
    heard = [];
    loaded = loadModel(msg, (...event) => {
      heard.push(event);
      for (const fn of listeners) fn(...event);
    }).catch((e) => {
      loaded = null; // a failed load can be retried
      throw e;
    }).finally(() => {
      loading = false;
      heard = [];
      listeners.clear();
    });
  } else if (loading) for (const event of heard) progress(...event);
  if (loading) listeners.add(progress);
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

// Everything that does not wait for something else starts at once: the core, the model list and ONNX Runtime's
// bundle together; the ONNX file as soon as the list is there; ORT's session (its own wasm download and compile)
// as soon as ORT and the ONNX file are there, while the head and labels download and the core compiles.
export async function loadModel(msg, progress) {
  const settle = []; // every promise started here, so none is left rejected unhandled when another fails first
  const started = (p) => {
    settle.push(p);
    return p;
  };
  try {
    return await loadParallel(msg, progress, started);
  } finally {
    await Promise.allSettled(settle);
  }
}

async function loadParallel(msg, progress, started) {
  progress('core', 0, 0);
  const coreP = started(loadCore().then((core) => {
    mark('core');
    if (typeof core.ImageLab !== 'function' || typeof core.preprocessImage !== 'function') {
      throw new Error('This WebAssembly core has no image API (ImageLab); rebuild it with `bash scripts/build-wasm.sh`.');
    }
    return core;
  }));

  const modelP = started((async () => {
    let manifest;
    try {
      const res = await fetch(MANIFEST_URL);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      manifest = await res.json();
    } catch (e) {
      throw new Error(`Could not read the image model list (${MANIFEST_URL.pathname}): ${e.message}`);
    }
    const model = manifest?.models?.[0];
    if (!model?.files?.onnx || !model.files.head || !model.files.labels) {
      throw new Error(`The image model list (${MANIFEST_URL.pathname}) has no model with onnx, head and labels files.`);
    }
    return model;
  })());

  const ortP = started((async () => {
    const choice = await chooseBackend({
      gpu: self.navigator?.gpu,
      override: msg.override ?? null,
      threads: msg.threads ?? 0,
      crossOriginIsolated: Boolean(self.crossOriginIsolated),
      hardwareConcurrency: self.navigator?.hardwareConcurrency ?? 1,
    });
    const ort = await loadOrt(choice, ORT_BASE.href);
    mark('ort');
    return { choice, ort };
  })());

  const fetchFile = (f, stage, what) =>
    fetchVerified(new URL(f.path, MANIFEST_URL).href, {
      sha256: f.sha256,
      bytes: f.bytes,
      what,
      onProgress: ({ loaded: l, total, cached }) => progress(stage, l, total, cached),
    });
  const onnxP = started(modelP.then((model) => fetchFile(model.files.onnx, 'onnx', 'image model')).then((bytes) => {
    mark('onnx');
    return bytes;
  }));
  const sessionP = started(Promise.all([ortP, onnxP]).then(async ([{ ort, choice }, onnxBytes]) => {
    progress('session', 0, 0);
    try {
      return await createSession(ort, onnxBytes, choice);
    } catch (e) {
      throw new Error(`ONNX Runtime could not start the model on ${choice.backend}: ${errText(e)}`);
    }
  }));
  // the head and labels after the ONNX file (one download at a time keeps the progress bar honest)
  const filesP = started(onnxP.then(async () => {
    const model = await modelP;
    return Promise.all([fetchFile(model.files.head, 'head', 'classifier head'), fetchFile(model.files.labels, 'labels', 'label list')]);
  }));

  let core; let model; let head; let labels;
  try {
    let headBytes; let labelBytes;
    [core, model, [headBytes, labelBytes]] = await Promise.all([coreP, modelP, filesP]);
    mark('files');
    head = readImageHead(headBytes);
    labels = new TextDecoder().decode(labelBytes).split(/\r?\n/);
    while (labels.length && labels[labels.length - 1] === '') labels.pop();
    if (labels.length !== head.C) throw new Error(`The label list has ${labels.length} lines, the classifier ${head.C} classes.`);
  } catch (e) {
    sessionP.then(({ session }) => session.release?.(), () => {}); // a session made for nothing
    throw e;
  }
  const { C, K } = head;
  const { choice, ort } = await ortP;
  const { session, ep } = await sessionP;
  mark('session');
  const lab = new core.ImageLab(head.weight, head.bias, C, K);
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
