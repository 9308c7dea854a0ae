// image-maps.js — the Image lab's maps of the photo the worker holds. The core's ImageLab keeps the photo
// (224² input + features, setPhoto) and every map made from it; a map is made in one call (renderMap: map →
// upsample → normalise → colour, with the pointing game when the photo has a mask) and crosses to the page once,
// as its colour image; the curves and recolouring name a kept map instead of sending it back. No DOM.
//
// Map keys: a feature map (cam | gradcam | gradcampp | random) is `method|class|seed`; a plan's map (scorecam |
// rise | occlusion) `method|class|params` (image-plans.js). The ImageLab keeps a feature map under its method
// name (the latest class and seed); photo.current.kept maps an ImageLab name to the key it holds now.
//
// Contract:
//   FEATURE_METHODS, PLAN_MAPS, POINTING_TOLERANCE (px)
//   featureKey(method, classIndex, seed); ensureKept(L, key) → the ImageLab name holding that map (a feature
//     map is re-made when the kept one is of another class or seed; a plan map must have been made)
//   pageResult(key, r) → {key, rgba, peak, pointing?, grid} (what crosses to the page; grid: mapGrid(r.map01),
//     the 0–1 map as GRID × GRID block means, the map's numbers for the page's report)
//   handlers: image.map {imageId, method, classIndex, seed, colormap} → a page result;
//     image.recolor {imageId, keys, colormap} → {maps: {key: rgba}} (nothing recomputed but stale feature maps);
//     image.sanity {imageId, method, classIndex, seed, colormap} → {method, original, randomized, spearman,
//     n, randomTop1} (the classifier re-drawn: ImageLab.randomized(seed), Adebayo et al. 2018).
//   image.equivalence {imageId, classIndex} → {classIndex, source, ...camEquivalence (analysis/cam-equivalence.js)}:
//     the class score is the network's logit (the ONNX graph's own pooling + Gemm, run by ONNX Runtime — or by the
//     core's executor for a photo classified before ORT's session was made: source), the map the core's raw CAM
//     at feature resolution (h·w) from the same run's features and the head file's weights, plus the head file's bias;
//     and Grad-CAM's factor to ReLU(CAM). Two implementations meet here: a mismatch would show.
import { argmax } from '../image/decode.js';
import { ready, need, checkClass, openSessionGate } from './image-model.js';
import { camEquivalence } from '../../analysis/cam-equivalence.js';

export const FEATURE_METHODS = Object.freeze(['cam', 'gradcam', 'gradcampp', 'random']);
export const PLAN_MAPS = Object.freeze(['scorecam', 'rise', 'occlusion']);
export const POINTING_TOLERANCE = 15;

export const featureKey = (method, classIndex, seed) => `${method}|${classIndex}|${seed >>> 0}`;

// The map's numbers for reports: block means of the 0–1 map (224²) on a GRID × GRID grid (8 × 8 px blocks).
export const GRID = 28;
export function mapGrid(map01, size = 224, grid = GRID) {
  if (!map01 || map01.length !== size * size) return null;
  const b = size / grid;
  const out = new Float32Array(grid * grid);
  for (let y = 0; y < size; y++) {
    const row = Math.floor(y / b) * grid;
    for (let x = 0; x < size; x++) out[row + Math.floor(x / b)] += map01[y * size + x];
  }
  for (let i = 0; i < out.length; i++) out[i] /= b * b;
  return out;
}

export function pageResult(key, r) {
  const out = { key, rgba: r.rgba, peak: r.peak };
  const grid = mapGrid(r.map01);
  if (grid) out.grid = grid;
  if (r.pointing) out.pointing = { ...r.pointing, tolerance: POINTING_TOLERANCE };
  return out;
}

function renderFeature(L, cur, method, c, seed, colormap) {
  if (!FEATURE_METHODS.includes(method)) throw new Error(`Unknown feature-map method "${method}".`);
  const r = L.lab.renderMap(method, c, seed >>> 0, colormap, 1);
  const key = featureKey(method, c, seed);
  cur.kept.set(method, key);
  return { key, r };
}

export function ensureKept(L, cur, key, colormap = 'viridis') {
  const [method, c, seed] = key.split('|');
  if (FEATURE_METHODS.includes(method)) {
    if (cur.kept.get(method) !== key) renderFeature(L, cur, method, Number(c), Number(seed), colormap);
    return method;
  }
  if (cur.kept.get(key) !== key) throw new Error(`The ${method} map is no longer held by the worker; compute it again.`);
  return key;
}

async function map(msg) {
  const L = await ready();
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  const { key, r } = renderFeature(L, cur, msg.method, c, msg.seed ?? 1, msg.colormap ?? 'viridis');
  setTimeout(openSessionGate, 0); // the first map is made: ORT's session may take the thread now (image-model.js)
  return pageResult(key, r);
}

async function recolor(msg) {
  const L = await ready();
  const cur = need(msg.imageId);
  const colormap = msg.colormap ?? 'viridis';
  const maps = {};
  for (const key of msg.keys ?? []) {
    const name = ensureKept(L, cur, key, colormap);
    maps[key] = L.lab.recolor(name, colormap, 1);
  }
  return { maps };
}

async function sanity(msg) {
  const L = await ready();
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  const method = FEATURE_METHODS.includes(msg.method) ? msg.method : 'cam';
  const colormap = msg.colormap ?? 'viridis';
  const rand = L.lab.randomized((msg.seed ?? 1) >>> 0); // a copy of the classifier, redrawn; it keeps the photo too
  try {
    const a = renderFeature(L, cur, method, c, 1, colormap);
    const b = rand.renderMap(method, c, 1, colormap, 1);
    const logits = rand.logits(cur.features, 1, cur.fh, cur.fw);
    const t = argmax(logits);
    return {
      method,
      original: pageResult(a.key, a.r),
      randomized: pageResult(`${a.key}|randomized`, b),
      spearman: L.core.spearmanMaps(a.r.map01, b.map01),
      n: a.r.map01.length, // pixels compared (the maps themselves stay in the worker)
      randomTop1: { index: t, label: L.labels[t] },
    };
  } finally {
    rand.delete();
  }
}

async function equivalence(msg) {
  const L = await ready();
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  const raw = (method) => {
    const m = L.lab.map(method, cur.features, cur.fh, cur.fw, c, 1);
    if (!m || typeof m.length !== 'number') throw new Error(`The core gave no ${method} map.`);
    return m;
  };
  const e = camEquivalence({ cam: raw('cam'), gradcam: raw('gradcam'), bias: L.bias[c], logit: cur.logits[c], hw: cur.fh * cur.fw });
  return { classIndex: c, source: cur.engine ?? 'onnxruntime', h: cur.fh, w: cur.fw, ...e };
}

export const mapHandlers = { 'image.map': map, 'image.recolor': recolor, 'image.sanity': sanity, 'image.equivalence': equivalence };
