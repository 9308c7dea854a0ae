// image-model.js — the Image lab's model in one worker: ONNX Runtime Web (MobileNetV2) on the backend chosen
// by ort-backend.js, the core's GAP + linear head (ImageLab) and the labels, loaded once (sha256-checked,
// Cache API); the network forward; and the one current photo. No DOM.
//
// Contract:
//   load(msg, progress) → Promise<L>: {core, ort, session, ep, choice, lab, labels, C, K, bias, batch, model}; loaded
//     once per worker (a failed load is retried); progress(stage, loaded, total, cached) with stage 'core' |
//     'ort' | 'onnx' | 'head' | 'labels' | 'session' | 'ready'. msg: {override: 'wasm'|'webgpu'|null, threads}.
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

export async function loadModel(msg, progress) {
  progress('core', 0, 0);
  const core = await loadCore();
  if (typeof core.ImageLab !== 'function' || typeof core.preprocessImage !== 'function') {
    throw new Error('This WebAssembly core has no image API (ImageLab); rebuild it with `bash scripts/build-wasm.sh`.');
  }

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
  const fileUrl = (f) => new URL(f.path, MANIFEST_URL).href;

  progress('ort', 0, 0);
  const choice = await chooseBackend({
    gpu: self.navigator?.gpu,
    override: msg.override ?? null,
    threads: msg.threads ?? 0,
    crossOriginIsolated: Boolean(self.crossOriginIsolated),
    hardwareConcurrency: self.navigator?.hardwareConcurrency ?? 1,
  });
  const ort = await loadOrt(choice, ORT_BASE.href);

  const fetchFile = (f, stage, what) =>
    fetchVerified(fileUrl(f), {
      sha256: f.sha256,
      bytes: f.bytes,
      what,
      onProgress: ({ loaded: l, total, cached }) => progress(stage, l, total, cached),
    });
  const onnxBytes = await fetchFile(model.files.onnx, 'onnx', 'image model');
  const headBytes = await fetchFile(model.files.head, 'head', 'classifier head');
  const labelBytes = await fetchFile(model.files.labels, 'labels', 'label list');

  const head = readImageHead(headBytes);
  const { C, K } = head;
  const labels = new TextDecoder().decode(labelBytes).split(/\r?\n/);
  while (labels.length && labels[labels.length - 1] === '') labels.pop();
  if (labels.length !== C) throw new Error(`The label list has ${labels.length} lines, the classifier ${C} classes.`);
  const lab = new core.ImageLab(head.weight, head.bias, C, K);

  progress('session', 0, 0);
  let session;
  let ep;
  try {
    ({ session, ep } = await createSession(ort, onnxBytes, choice));
  } catch (e) {
    lab.delete();
    throw new Error(`ONNX Runtime could not start the model on ${choice.backend}: ${errText(e)}`);
  }
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
