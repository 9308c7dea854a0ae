// image-worker.js — dedicated module worker of the Image lab: hosts ONNX Runtime Web (the MobileNetV2 CNN) and
// the WebAssembly core (preprocessing, the GAP + linear head, maps, perturbation plans, metrics).
//
// Contract (messages; no DOM). Every request {type, id, …} gets exactly one reply: {type:'result', id, result}
// or {type:'error', id, message} (a human-readable message; the worker never leaves a request unanswered).
// Requests run one at a time, in arrival order; 'cancel' is handled at once.
//   load {override}            → {backend, ep, reason, numThreads, batch, model, classes, labels}
//                                 progress while loading: {type:'progress', id, stage, loaded, total}
//                                 stage 'core' | 'ort' | 'onnx' | 'head' | 'labels' | 'session' | 'ready'.
//                                 override 'wasm' | 'webgpu' | null (URL backend=…).
//   classify {blob | rgba,width,height, mask?: {blob, positiveLabel}}
//                               → {imageId, top5:[{index,label,prob}], display: RGBA 224×224 (what the model
//                                  sees), width, height (the decoded photo), notes:[…], hasMask, maskDisplay?,
//                                  headCheck (max |core head logits − ORT logits|), ms}
//     The photo is decoded here: header read first (readImageHeader), then createImageBitmap with the EXIF
//     orientation applied, no premultiplication, no colour conversion, and resizeWidth/Height so that the long
//     side is at most MAX_SIDE (a huge photo never becomes a huge RGBA). Not an image / corrupt → Error.
//   map {imageId, method, classIndex, seed, colormap, classifier:'original'|'randomized'}
//                               → a map result (below) for method cam | gradcam | gradcampp | random.
//   runPlan {kind, imageId, classIndex, params, colormap}
//                               → kind scorecam | rise | occlusion: a map result; deletion | insertion |
//                                  explanationMask: the plan's resultJson parsed ({x, y, auc} / {original, masked}).
//                                  params: rise {n, cells, p, seed}; occlusion {window, stride};
//                                  deletion/insertion {saliency: Float32Array 224², steps}; explanationMask
//                                  {saliency}. Progress: {type:'progress', id, stage:'plan', loaded, total}
//                                  after every batch. cancelled → result {cancelled: true}.
//                                  ONE loop for every plan: count() inputs, batches of batchSizeFor(backend),
//                                  inputs(start, n) → a fresh ORT tensor → logits → accept(start, logits);
//                                  the cancel flag is checked between batches.
//   erase {imageId, classIndex, method, steps, threshold, fill, colormap}
//                               → {steps:[{step, display, mapRgba, top1:{index,label,prob}, target}]}: adversarial
//                                  erasing (Wei et al. 2017): step 0 is the photo; each next step erases
//                                  (core eraseRegion) where the previous step's map01 ≥ threshold and re-runs the CNN.
//   sanity {imageId, method, classIndex, seed, colormap}
//                               → {original: map result, randomized: map result, spearman, randomTop1}: the map
//                                  with the classifier re-drawn (ImageLab.randomized(seed), Adebayo et al. 2018).
//   colorize {map01, colormap}  → {rgba}
//   cancel {target}             → no reply; the runPlan/erase request `target` stops before its next batch.
// Map result: {map01 (Float32Array 224², min–max normalised), rgba (colormap), peak:{x,y}, pointing?:
//   {hit, energy, positiveLabel}} — pointing only when the photo has a mask (tolerance 15 px).
// Pure helpers exported for tests: readImageHeader(bytes), fitSize(w, h, maxSide), topK(probs, k),
// argmax(array), planarToRgba(planar, H, W). The head is read by image-head.js. Every plan runs through
// runPlanLoop (web/runtime/plan-runner.js), the loop the Node evaluation uses too.
import { chooseBackend, loadOrt, createSession, batchSizeFor } from './ort-backend.js';
import { fetchVerified } from './model-cache.js';
import { runPlanLoop, yieldToEvents } from './plan-runner.js';
import { readImageHead } from './image-head.js';

export const MAX_SIDE = 1024;
export const MAX_PIXELS = 400e6; // refuse decoding beyond this (even with resizing, the decoder holds it)
export const FEATURE_METHODS = Object.freeze(['cam', 'gradcam', 'gradcampp', 'random']);
export const PLAN_MAPS = Object.freeze(['scorecam', 'rise', 'occlusion']);
const POINTING_TOLERANCE = 15;
const S = 224;

// ---------------------------------------------------------------- pure helpers

const u16be = (b, i) => (b[i] << 8) | b[i + 1];
const u16le = (b, i) => b[i] | (b[i + 1] << 8);
const u32be = (b, i) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
const u32le = (b, i) => b[i] + (b[i + 1] << 8) + (b[i + 2] << 16) + ((b[i + 3] << 24) >>> 0);

function exifOrientation(b, start, end) {
  // start: the byte after 'Exif\0\0' (a TIFF header).
  if (start + 8 > end) return 1;
  const le = b[start] === 0x49 && b[start + 1] === 0x49;
  const be = b[start] === 0x4d && b[start + 1] === 0x4d;
  if (!le && !be) return 1;
  const r16 = (i) => (le ? u16le(b, i) : u16be(b, i));
  const r32 = (i) => (le ? u32le(b, i) : u32be(b, i));
  const ifd = start + r32(start + 4);
  if (ifd + 2 > end) return 1;
  const n = r16(ifd);
  for (let k = 0; k < n; k++) {
    const e = ifd + 2 + 12 * k;
    if (e + 12 > end) break;
    if (r16(e) === 0x0112) {
      const v = r16(e + 8);
      return v >= 1 && v <= 8 ? v : 1;
    }
  }
  return 1;
}

/** Format and size from the first bytes of a file (≥ 64 KB recommended for JPEG with big EXIF blocks).
 * → {format: 'png'|'jpeg'|'gif'|'webp'|'bmp', width, height, orientation (EXIF 1–8; 1 when none)} or null. */
export function readImageHeader(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const n = b.length;
  if (n >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    return { format: 'png', width: u32be(b, 16), height: u32be(b, 20), orientation: 1 };
  }
  if (n >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) {
    return { format: 'gif', width: u16le(b, 6), height: u16le(b, 8), orientation: 1 };
  }
  if (n >= 26 && b[0] === 0x42 && b[1] === 0x4d) {
    const h = u32le(b, 22) | 0;
    return { format: 'bmp', width: u32le(b, 18) | 0, height: Math.abs(h), orientation: 1 };
  }
  if (n >= 30 && u32be(b, 0) === 0x52494646 && u32be(b, 8) === 0x57454250) {
    const chunk = String.fromCharCode(b[12], b[13], b[14], b[15]);
    if (chunk === 'VP8 ') return { format: 'webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, orientation: 1 };
    if (chunk === 'VP8L') {
      const [b0, b1, b2, b3] = [b[21], b[22], b[23], b[24]];
      return { format: 'webp', width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0xf) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)), orientation: 1 };
    }
    if (chunk === 'VP8X') {
      return { format: 'webp', width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)), height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)), orientation: 1 };
    }
    return null;
  }
  if (n >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    let orientation = 1;
    while (i + 4 <= n) {
      if (b[i] !== 0xff) return null; // not at a marker: corrupt
      let m = b[i + 1];
      if (m === 0xff) { i += 1; continue; } // fill byte
      if (m === 0xd8 || (m >= 0xd0 && m <= 0xd7) || m === 0x01) { i += 2; continue; }
      const len = u16be(b, i + 2);
      if (len < 2) return null;
      if (m === 0xe1 && i + 10 <= n && b[i + 4] === 0x45 && b[i + 5] === 0x78 && b[i + 6] === 0x69 && b[i + 7] === 0x66) {
        orientation = exifOrientation(b, i + 10, Math.min(n, i + 2 + len));
      }
      const sof = m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
      if (sof) {
        if (i + 9 > n) return null;
        return { format: 'jpeg', width: u16be(b, i + 7), height: u16be(b, i + 5), orientation };
      }
      if (m === 0xda) return null; // scan before a frame header
      i += 2 + len;
    }
    return null;
  }
  return null;
}

/** The size to decode at: the long side at most maxSide, aspect kept, at least 1 px. */
export function fitSize(width, height, maxSide = MAX_SIDE) {
  const long = Math.max(width, height);
  if (long <= maxSide) return { width, height, scaled: false };
  const s = maxSide / long;
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)), scaled: true };
}

export function argmax(a) {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
  return best;
}

export function topK(probs, k = 5) {
  const idx = Array.from(probs.keys());
  idx.sort((a, b) => probs[b] - probs[a] || a - b);
  return idx.slice(0, k);
}

/** Planar RGB float [3,H,W] in 0–255 → RGBA bytes [H*W*4]. */
export function planarToRgba(planar, H = S, W = S) {
  const n = H * W;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    out[4 * i] = planar[i];
    out[4 * i + 1] = planar[n + i];
    out[4 * i + 2] = planar[2 * n + i];
    out[4 * i + 3] = 255;
  }
  return out;
}

// ---------------------------------------------------------------- worker state

const CORE_URL = new URL('../gen/attnlab_core.mjs', import.meta.url);
const MANIFEST_URL = new URL('../../models/image/manifest.json', import.meta.url);
const ORT_BASE = new URL('../../vendor/ort/', import.meta.url);

let loaded = null; // Promise<{core, ort, session, ep, choice, lab, labels, batch, model}>
let current = null; // {imageId, input, features, probs, mask224, positiveLabel}
let nextImageId = 1;
const cancelled = new Set();

function errText(e) {
  if (e instanceof Error) return e.message;
  if (typeof e === 'number') return `internal error in the WebAssembly core (${e})`;
  return String(e);
}

async function loadAll(msg, progress) {
  progress('core', 0, 0);
  let createModule;
  try {
    ({ default: createModule } = await import(CORE_URL.href));
  } catch (e) {
    throw new Error(`The WebAssembly core is missing or broken (${CORE_URL.pathname}): ${e.message}. Build it with \`bash scripts/build-wasm.sh\`.`);
  }
  const core = await createModule({ locateFile: (f) => new URL(f, CORE_URL).href });
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
  return { core, ort, session, ep, choice, lab, labels, C, K, batch: batchSizeFor(choice.backend), model };
}

async function ready() {
  if (!loaded) throw new Error('The image model is not loaded yet.');
  return loaded;
}

/** Runs the CNN on n images [n*3*224*224] → {features [n*K*49], logits [n*C], fh, fw}. */
async function forward(L, input, n, wantFeatures = true) {
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

function top(L, probs, k = 5) {
  return topK(probs, k).map((index) => ({ index, label: L.labels[index], prob: probs[index] }));
}

async function decodeBlob(blob, { allowResize = true } = {}) {
  const notes = [];
  const head = readImageHeader(new Uint8Array(await blob.slice(0, 1 << 20).arrayBuffer()));
  if (!head && (!blob.type || !blob.type.startsWith('image/'))) {
    throw new Error('This file is not an image the page can read (PNG, JPEG, GIF, WebP or BMP).');
  }
  const opts = { imageOrientation: 'from-image', premultiplyAlpha: 'none', colorSpaceConversion: 'none' };
  if (head) {
    if (!(head.width > 0 && head.height > 0)) throw new Error('This image file is corrupt: its header gives no size.');
    if (head.width * head.height > MAX_PIXELS) {
      throw new Error(`This image is too large to decode (${head.width}×${head.height} px; the limit is ${MAX_PIXELS / 1e6} megapixels).`);
    }
    const swap = head.orientation >= 5;
    const w = swap ? head.height : head.width;
    const h = swap ? head.width : head.height;
    const fit = fitSize(w, h);
    if (fit.scaled && allowResize) {
      opts.resizeWidth = fit.width;
      opts.resizeHeight = fit.height;
      opts.resizeQuality = 'high';
      notes.push(`A large photo (${w}×${h} px): decoded at ${fit.width}×${fit.height} before preprocessing.`);
    }
    if (head.orientation !== 1) notes.push(`Rotated upright from its EXIF orientation (${head.orientation}).`);
  }
  let bitmap;
  try {
    bitmap = await createImageBitmap(blob, opts);
  } catch (e) {
    throw new Error(`This image could not be decoded — the file is corrupt or in a format this browser cannot read (${errText(e)}).`);
  }
  const { width, height } = bitmap;
  if (!head && Math.max(width, height) > MAX_SIDE) {
    // no header to read the size from: scale the decoded bitmap down
    const fit = fitSize(width, height);
    const small = await createImageBitmap(bitmap, { resizeWidth: fit.width, resizeHeight: fit.height, resizeQuality: 'high' });
    bitmap.close();
    bitmap = small;
  }
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(bitmap, 0, 0);
  const rgba = new Uint8Array(ctx.getImageData(0, 0, bitmap.width, bitmap.height).data.buffer);
  const out = { rgba, width: bitmap.width, height: bitmap.height, notes };
  bitmap.close();
  return out;
}

function describePixels(rgba, width, height, notes) {
  let gray = true;
  let alpha = false;
  for (let i = 0; i < rgba.length; i += 4) {
    if (gray && (rgba[i] !== rgba[i + 1] || rgba[i] !== rgba[i + 2])) gray = false;
    if (!alpha && rgba[i + 3] !== 255) alpha = true;
    if (!gray && alpha) break;
  }
  if (Math.min(width, height) < S) {
    notes.push(`A small photo (${width}×${height} px): enlarged to fill 224×224, so the model sees a blurred picture.`);
  }
  if (gray) notes.push('A grayscale photo: the model gets the same value in R, G and B.');
  if (alpha) notes.push('A transparent photo: composited over white.');
}

async function classify(msg, L) {
  const t0 = performance.now();
  let img;
  if (msg.blob) img = await decodeBlob(msg.blob);
  else img = { rgba: new Uint8Array(msg.rgba.buffer ?? msg.rgba), width: msg.width, height: msg.height, notes: [] };
  describePixels(img.rgba, img.width, img.height, img.notes);
  const input = L.core.preprocessImage(img.rgba, img.width, img.height);
  const { features, logits, fh, fw } = await forward(L, input, 1);
  const probs = L.lab.softmax(logits, 1);
  const headLogits = L.lab.logits(features, 1, fh, fw);
  let headCheck = 0;
  for (let i = 0; i < logits.length; i++) headCheck = Math.max(headCheck, Math.abs(headLogits[i] - logits[i]));

  let mask224 = null;
  let maskDisplay = null;
  const positiveLabel = msg.mask?.positiveLabel ?? 0;
  if (msg.mask?.blob) {
    const m = await decodeBlob(msg.mask.blob, { allowResize: false });
    if (m.width !== img.width || m.height !== img.height) {
      throw new Error(`The mask is ${m.width}×${m.height} px but the photo ${img.width}×${img.height}.`);
    }
    const labels = new Uint8Array(m.width * m.height);
    for (let i = 0; i < labels.length; i++) labels[i] = m.rgba[4 * i];
    mask224 = L.core.preprocessMask(labels, m.width, m.height);
    maskDisplay = new Uint8ClampedArray(S * S * 4);
    for (let i = 0; i < S * S; i++) {
      const on = mask224[i] === positiveLabel;
      maskDisplay[4 * i] = on ? 255 : 0;
      maskDisplay[4 * i + 1] = on ? 255 : 0;
      maskDisplay[4 * i + 2] = on ? 255 : 0;
      maskDisplay[4 * i + 3] = 255;
    }
  }
  const imageId = nextImageId++;
  current = { imageId, input, features, fh, fw, probs, mask224, positiveLabel };
  return {
    imageId,
    top5: top(L, probs),
    display: planarToRgba(input),
    width: img.width,
    height: img.height,
    notes: img.notes,
    hasMask: Boolean(mask224),
    maskDisplay,
    headCheck,
    ep: L.ep,
    ms: performance.now() - t0,
  };
}

function need(imageId) {
  if (!current || current.imageId !== imageId) throw new Error('That photo is no longer loaded; pick it again.');
  return current;
}

function checkClass(L, c) {
  if (!Number.isInteger(c) || c < 0 || c >= L.C) throw new Error(`Class index ${c} is out of range 0…${L.C - 1}.`);
  return c;
}

function mapResult(L, map224, colormap) {
  const map01 = L.core.normalizeMap(map224);
  const rgba = L.core.colorizeMap(map01, S, S, colormap);
  const p = argmax(map01);
  const res = { map01, rgba: new Uint8ClampedArray(rgba.buffer ?? rgba), peak: { x: p % S, y: Math.floor(p / S) } };
  if (current?.mask224 && typeof L.core.pointingGame === 'function') {
    res.pointing = {
      hit: Boolean(L.core.pointingGame(map01, current.mask224, current.positiveLabel, POINTING_TOLERANCE)),
      energy: L.core.energyInMask(map01, current.mask224, current.positiveLabel),
      positiveLabel: current.positiveLabel,
      tolerance: POINTING_TOLERANCE,
    };
  }
  return res;
}

function featureMap(L, lab, method, cur, classIndex, seed) {
  if (!FEATURE_METHODS.includes(method)) throw new Error(`Unknown feature-map method "${method}".`);
  const raw = lab.map(method, cur.features, cur.fh, cur.fw, classIndex, seed >>> 0);
  return L.core.upsampleMap(raw, cur.fh, cur.fw, S, S);
}

function doMap(msg, L) {
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  return mapResult(L, featureMap(L, L.lab, msg.method, cur, c, msg.seed ?? 1), msg.colormap ?? 'viridis');
}

function makePlan(L, cur, kind, c, p) {
  const core = L.core;
  switch (kind) {
    case 'scorecam': return core.planScoreCam(cur.input, cur.features, cur.fh, cur.fw, c);
    case 'rise': return core.planRise(cur.input, c, p.n ?? 2000, p.cells ?? 7, p.p ?? 0.5, (p.seed ?? 1) >>> 0);
    case 'occlusion': return core.planOcclusion(cur.input, c, p.window ?? 32, p.stride ?? 16);
    case 'deletion': return core.planDeletion(cur.input, p.saliency, c, p.steps ?? 28);
    case 'insertion': return core.planInsertion(cur.input, p.saliency, c, p.steps ?? 28);
    case 'explanationMask': return core.planExplanationMask(cur.input, p.saliency, c);
    default: throw new Error(`Unknown plan "${kind}".`);
  }
}

function runLoop(L, plan, id, progress) {
  return runPlanLoop(plan, {
    batch: L.batch,
    forward: async (input, n) => (await forward(L, input, n, false)).logits,
    isCancelled: () => cancelled.has(id),
    onProgress: (done, total) => progress('plan', done, total),
  });
}

async function runPlan(msg, L, progress) {
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  const params = msg.params ?? {};
  if (['deletion', 'insertion', 'explanationMask'].includes(msg.kind) && !(params.saliency?.length === S * S)) {
    throw new Error(`The ${msg.kind} plan needs a 224×224 saliency map.`);
  }
  const plan = makePlan(L, cur, msg.kind, c, params);
  try {
    const finished = await runLoop(L, plan, msg.id, progress);
    if (!finished) return { cancelled: true };
    if (!plan.done()) throw new Error(`The ${msg.kind} plan did not finish.`);
    if (PLAN_MAPS.includes(msg.kind)) return mapResult(L, plan.result(), msg.colormap ?? 'viridis');
    return JSON.parse(plan.resultJson());
  } finally {
    plan.delete();
  }
}

async function erase(msg, L, progress) {
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  const method = FEATURE_METHODS.includes(msg.method) ? msg.method : 'cam';
  const k = Math.max(1, Math.min(8, msg.steps | 0));
  const threshold = Number(msg.threshold);
  const fill = ['mean', 'blur', 'grey'].includes(msg.fill) ? msg.fill : 'mean';
  let state = { input: cur.input, features: cur.features, fh: cur.fh, fw: cur.fw, probs: cur.probs };
  const steps = [];
  const record = (step, mapRgba) => {
    const t = argmax(state.probs);
    steps.push({ step, display: planarToRgba(state.input), mapRgba, top1: { index: t, label: L.labels[t], prob: state.probs[t] }, target: state.probs[c] });
  };
  record(0, null);
  progress('erase', 0, k);
  for (let s = 1; s <= k; s++) {
    await yieldToEvents();
    if (cancelled.has(msg.id)) return { cancelled: true, steps };
    const map01 = L.core.normalizeMap(featureMap(L, L.lab, method, state, c, 1));
    const mapRgba = new Uint8ClampedArray(L.core.colorizeMap(map01, S, S, msg.colormap ?? 'viridis'));
    const input = L.core.eraseRegion(state.input, map01, threshold, fill);
    const { features, logits, fh, fw } = await forward(L, input, 1);
    state = { input, features, fh, fw, probs: L.lab.softmax(logits, 1) };
    steps[steps.length - 1].nextMap = mapRgba; // the map that was erased after this step
    record(s, mapRgba);
    progress('erase', s, k);
  }
  return { steps, method, threshold, fill };
}

function sanity(msg, L) {
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  const method = FEATURE_METHODS.includes(msg.method) ? msg.method : 'cam';
  const colormap = msg.colormap ?? 'viridis';
  const rand = L.lab.randomized((msg.seed ?? 1) >>> 0);
  try {
    const a = featureMap(L, L.lab, method, cur, c, 1);
    const b = featureMap(L, rand, method, cur, c, 1);
    const logits = rand.logits(cur.features, 1, cur.fh, cur.fw);
    const t = argmax(logits);
    return {
      method,
      original: mapResult(L, a, colormap),
      randomized: mapResult(L, b, colormap),
      spearman: L.core.spearmanMaps(a, b),
      randomTop1: { index: t, label: L.labels[t] },
    };
  } finally {
    rand.delete();
  }
}

// ---------------------------------------------------------------- message loop

let queue = Promise.resolve();
function serial(fn) {
  const p = queue.then(fn);
  queue = p.catch(() => {});
  return p;
}

const HANDLERS = {
  async load(msg, progress) {
    loaded ??= loadAll(msg, progress).catch((e) => {
      loaded = null; // a failed load can be retried
      throw e;
    });
    const L = await loaded;
    return {
      backend: L.choice.backend,
      ep: L.ep,
      reason: L.choice.reason,
      numThreads: L.choice.numThreads,
      batch: L.batch,
      model: L.model.name,
      classes: L.C,
      labels: L.labels,
    };
  },
  async classify(msg) { return classify(msg, await ready()); },
  async map(msg) { return doMap(msg, await ready()); },
  async runPlan(msg, progress) { return runPlan(msg, await ready(), progress); },
  async erase(msg, progress) { return erase(msg, await ready(), progress); },
  async sanity(msg) { return sanity(msg, await ready()); },
  async colorize(msg) {
    const L = await ready();
    return { rgba: new Uint8ClampedArray(L.core.colorizeMap(msg.map01, S, S, msg.colormap ?? 'viridis')) };
  },
};

function transferables(result) {
  const out = [];
  const visit = (v, depth) => {
    if (!v || depth > 4) return;
    if (ArrayBuffer.isView(v)) {
      if (!out.includes(v.buffer) && !(v.buffer instanceof SharedArrayBuffer)) out.push(v.buffer);
    } else if (Array.isArray(v)) v.forEach((x) => visit(x, depth + 1));
    else if (typeof v === 'object') Object.values(v).forEach((x) => visit(x, depth + 1));
  };
  visit(result, 0);
  return out;
}

function onMessage(event) {
  const msg = event.data ?? {};
  if (msg.type === 'cancel') {
    cancelled.add(msg.target);
    return;
  }
  const progress = (stage, l = 0, total = 0, cached = false) =>
    self.postMessage({ type: 'progress', id: msg.id, stage, loaded: l, total, cached });
  serial(async () => {
    const handler = Object.hasOwn(HANDLERS, msg.type) ? HANDLERS[msg.type] : null;
    if (!handler) throw new Error(`Unknown request type "${msg.type}"`);
    return handler(msg, progress);
  }).then(
    (result) => {
      cancelled.delete(msg.id);
      // structured clone copies WASM-heap-backed views; transfer only plain buffers we own
      let list = [];
      try { list = transferables(result); } catch { list = []; }
      try {
        self.postMessage({ type: 'result', id: msg.id, result }, list);
      } catch {
        self.postMessage({ type: 'result', id: msg.id, result });
      }
    },
    (e) => {
      cancelled.delete(msg.id);
      self.postMessage({ type: 'error', id: msg.id, message: errText(e) });
    },
  );
}

if (typeof WorkerGlobalScope !== 'undefined' && typeof self !== 'undefined' && self instanceof WorkerGlobalScope) {
  self.onmessage = onMessage;
}
