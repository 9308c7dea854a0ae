// image-maps.js — the Image lab's maps from the photo the worker holds: the feature-map methods (CAM,
// Grad-CAM, Grad-CAM++, random; ImageLab.map on the kept features), a finished map result (normalised map,
// colour, peak, pointing game), recolouring and the sanity check. No DOM.
//
// Contract:
//   FEATURE_METHODS, PLAN_MAPS (the methods the perturbation plans give)
//   featureMap(L, lab, method, cur, classIndex, seed) → Float32Array [224²] (upsampled, not normalised)
//   mapResult(L, map224, colormap) → {map01 [224²], rgba (colormap), peak: {x, y}, pointing?}
//   handlers: map {imageId, method, classIndex, seed, colormap} → a map result;
//     colorize {map01, colormap} → {rgba}; sanity {imageId, method, classIndex, seed, colormap} → {method,
//     original, randomized, spearman, randomTop1} (the classifier re-drawn: ImageLab.randomized(seed)).
import { argmax, S } from '../image/decode.js';
import { ready, need, checkClass, photo } from './image-model.js';

export const FEATURE_METHODS = Object.freeze(['cam', 'gradcam', 'gradcampp', 'random']);
export const PLAN_MAPS = Object.freeze(['scorecam', 'rise', 'occlusion']);
const POINTING_TOLERANCE = 15;

export function mapResult(L, map224, colormap) {
  const map01 = L.core.normalizeMap(map224);
  const rgba = L.core.colorizeMap(map01, S, S, colormap);
  const p = argmax(map01);
  const res = { map01, rgba: new Uint8ClampedArray(rgba.buffer ?? rgba), peak: { x: p % S, y: Math.floor(p / S) } };
  const cur = photo.current;
  if (cur?.mask224 && typeof L.core.pointingGame === 'function') {
    res.pointing = {
      hit: Boolean(L.core.pointingGame(map01, cur.mask224, cur.positiveLabel, POINTING_TOLERANCE)),
      energy: L.core.energyInMask(map01, cur.mask224, cur.positiveLabel),
      positiveLabel: cur.positiveLabel,
      tolerance: POINTING_TOLERANCE,
    };
  }
  return res;
}

export function featureMap(L, lab, method, cur, classIndex, seed) {
  if (!FEATURE_METHODS.includes(method)) throw new Error(`Unknown feature-map method "${method}".`);
  const raw = lab.map(method, cur.features, cur.fh, cur.fw, classIndex, seed >>> 0);
  return L.core.upsampleMap(raw, cur.fh, cur.fw, S, S);
}

async function map(msg) {
  const L = await ready();
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  return mapResult(L, featureMap(L, L.lab, msg.method, cur, c, msg.seed ?? 1), msg.colormap ?? 'viridis');
}

async function colorize(msg) {
  const L = await ready();
  return { rgba: new Uint8ClampedArray(L.core.colorizeMap(msg.map01, S, S, msg.colormap ?? 'viridis')) };
}

async function sanity(msg) {
  const L = await ready();
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

export const mapHandlers = { 'image.map': map, 'image.colorize': colorize, 'image.sanity': sanity };
