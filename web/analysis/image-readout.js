// image-readout.js — the Image lab's numbers in words, and the chance levels they are read against (pure; no
// DOM, works in Node). Every number goes through analysis/format.js.
//
// Contract:
//   maskFromRgba(rgba, size = 224) → Uint8Array [size²], 1 where the mask display is on (R channel ≥ 128; the
//     worker paints the object white, runtime/labs/image.js).
//   pointingChance(mask, width, height, tolerance) → { chance, maskShare, centre: {x, y, hit} }
//     chance     the share of pixels within Euclidean distance `tolerance` of a mask pixel — exactly the
//                probability that the pointing game (core/metrics/localization.cpp: the peak is a hit when a mask
//                pixel lies within `tolerance` px) scores a hit for a peak at a uniformly random pixel;
//     maskShare  the share of pixels on the mask (the chance with tolerance 0);
//     centre     the centre-point baseline: a map whose peak is the centre pixel (⌊w/2⌋, ⌊h/2⌋), hit or not.
//     An empty mask gives chance 0 and centre.hit false.
//   peakText(peak, size = 224) → 'hottest point at x = 48, y = 112 of the 224 × 224 crop the network sees
//     (x from the left, y from the top)'.
//   maskDropText(original, masked) → a sentence on how the class probability changed when only the map-weighted
//     photo was shown (explanation map as a mask): fell / rose / stayed, with both probabilities (format.prob).
//   spearmanText(rho, n) → { text: 'ρ = 0.42 · n = 50,176 pixels', na, reason }: reason (visible text) says what
//     n/a means — one of the two maps is constant, so there is no ranking to compare.
//   curveDomain(ys) → [0, top]: the y range of a deletion / insertion chart scaled to its data (top = the largest
//     probability × 1.1, rounded up to a readable step, at most 1; at least 1e-6), so a low-confidence class's
//     curves fill the chart instead of lying flat on 0.
//   nearUniform(topProb, classes) → null, or { chance: 1/C, ratio: topProb / (1/C), text }: the model's top
//     probability is below 2 × chance — its outputs are near-uniform, so deletion / insertion compare noise.
import { NA, int, num, percent, prob } from './format.js';

export function curveDomain(ys) {
  let m = 0;
  for (const y of ys) if (Number.isFinite(y) && y > m) m = y;
  if (!(m > 0)) return [0, 1];
  const want = Math.min(1, m * 1.1);
  const step = 10 ** Math.floor(Math.log10(want)) / 2; // round up to half a decade's step: 0.35, 0.0065, …
  return [0, Math.max(1e-6, Math.min(1, Math.ceil(want / step) * step))];
}

export function nearUniform(topProb, classes) {
  if (!(Number.isInteger(classes) && classes > 1) || !Number.isFinite(topProb)) return null;
  const chance = 1 / classes;
  if (topProb >= 2 * chance) return null;
  const ratio = topProb / chance;
  return {
    chance, ratio,
    text: `The model’s outputs are near-uniform: its top probability is ${prob(topProb)}, only ${num(ratio, 2)} × ` +
      `the ${prob(chance)} of a uniform guess over ${int(classes)} classes. Deletion and insertion then measure noise — ` +
      'an untrained or unsure model moves its probabilities by chance, whatever the map.',
  };
}

export function maskFromRgba(rgba, size = 224) {
  const n = size * size;
  const out = new Uint8Array(n);
  if (!rgba || rgba.length < 4 * n) return out;
  for (let i = 0; i < n; i++) out[i] = rgba[4 * i] >= 128 ? 1 : 0;
  return out;
}

// Distance along each row to the nearest mask pixel (Infinity when the row has none), then for each pixel the
// smallest dx² + dy² over the rows within the tolerance: exact Euclidean test, O(w·h·(2r + 1)).
export function pointingChance(mask, width, height, tolerance) {
  const w = Math.max(0, Math.floor(width));
  const h = Math.max(0, Math.floor(height));
  const n = w * h;
  const t = Math.max(0, Number(tolerance) || 0);
  const r = Math.floor(t);
  const cx = Math.floor(w / 2);
  const cy = Math.floor(h / 2);
  if (!n || !mask || mask.length < n) return { chance: NaN, maskShare: NaN, centre: { x: cx, y: cy, hit: false } };
  const rowDist = new Float64Array(n);
  let on = 0;
  for (let y = 0; y < h; y++) {
    let last = -Infinity;
    for (let x = 0; x < w; x++) {
      if (mask[y * w + x]) {
        last = x;
        on++;
      }
      rowDist[y * w + x] = x - last;
    }
    last = Infinity;
    for (let x = w - 1; x >= 0; x--) {
      if (mask[y * w + x]) last = x;
      rowDist[y * w + x] = Math.min(rowDist[y * w + x], last - x);
    }
  }
  const t2 = t * t;
  const near = (x, y) => {
    for (let dy = -r; dy <= r; dy++) {
      const yy = y + dy;
      if (yy < 0 || yy >= h) continue;
      const dx = rowDist[yy * w + x];
      if (dx * dx + dy * dy <= t2) return true;
    }
    return false;
  };
  let hits = 0;
  if (on) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (near(x, y)) hits++;
  return { chance: hits / n, maskShare: on / n, centre: { x: cx, y: cy, hit: on > 0 && near(cx, cy) } };
}

export function peakText(peak, size = 224) {
  if (!peak || !Number.isFinite(peak.x) || !Number.isFinite(peak.y)) return 'no hottest point (the map is empty)';
  return `hottest point at x = ${int(peak.x)}, y = ${int(peak.y)} of the ${int(size)} × ${int(size)} crop the network sees (x from the left, y from the top)`;
}

export function maskDropText(original, masked) {
  if (!Number.isFinite(original) || !Number.isFinite(masked)) return `confidence ${NA}`;
  const pair = `from ${prob(original)} to ${prob(masked)}`;
  const rel = original > 0 ? Math.abs(original - masked) / original : NaN;
  if (prob(original) === prob(masked)) return `confidence stayed at ${prob(original)} when only the highlighted region was kept`;
  if (masked > original) return `confidence rose ${pair} when only the highlighted region was kept`;
  return `confidence fell ${pair} when only the highlighted region was kept (${percent(rel, 1)} of it lost)`;
}

export function spearmanText(rho, n) {
  const nText = Number.isFinite(n) ? ` · n = ${int(n)} pixels` : '';
  if (!Number.isFinite(rho)) {
    return {
      text: `ρ ${NA}${nText}`,
      na: true,
      reason: 'n/a: one of the two maps is constant (every pixel the same value), so there is no ranking to compare.',
    };
  }
  return { text: `ρ = ${num(rho, 2)}${nText}`, na: false, reason: '' };
}
