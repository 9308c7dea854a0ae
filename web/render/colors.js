// colors.js — colour scales for importance values (pure; no DOM, works in Node).
//
// Contract:
//   SEQUENTIAL, DIVERGING   — the colour stops (hex), light → dark / negative → neutral → positive
//   sequentialColor(t)      → { background, foreground } for t in [0, 1] (clamped; NaN → neutral)
//   divergingColor(t)       → { background, foreground } for t in [-1, 1] (clamped; NaN → neutral)
//   scaleMax(values, signed)→ the row's normaliser: max value (sequential) or max |value| (signed);
//                             0 when the row is all zero/non-finite (then every cell is neutral)
//   cssGradient(stops)      → 'linear-gradient(to right, …)' for legends
// Colours are ColorBrewer "Purples" (sequential) and "RdBu" (diverging): colour-blind safe, print well.
// The foreground is black or white, whichever contrasts more with the cell (WCAG 2 contrast ratio); with pure
// black / white that is ≥ 4.58 : 1 for any background (tests/js/contrast.test.mjs checks the scales).
//   luminance([r, g, b]) → WCAG relative luminance; contrastRatio(rgbA, rgbB) → (L1 + 0.05) / (L2 + 0.05)
//   foregroundFor(rgb) → '#ffffff' | '#1a1a1a' (the page's text colour, where it reaches 4.5 : 1) | '#000000'

export const SEQUENTIAL = Object.freeze(['#fcfbfd', '#dadaeb', '#9e9ac8', '#6a51a3', '#3f007d']);
export const DIVERGING = Object.freeze(['#b2182b', '#ef8a62', '#f7f7f7', '#67a9cf', '#2166ac']);

function hexToRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const SEQ_RGB = SEQUENTIAL.map(hexToRgb);
const DIV_RGB = DIVERGING.map(hexToRgb);

function interpolate(stops, u) {
  // u in [0, 1] across the stops
  const x = Math.min(Math.max(u, 0), 1) * (stops.length - 1);
  const i = Math.min(Math.floor(x), stops.length - 2);
  const f = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
}

export function luminance([r, g, b]) {
  const lin = (c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrastRatio(a, b) {
  const la = luminance(a), lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

export function foregroundFor(rgb) {
  const white = contrastRatio(rgb, [255, 255, 255]);
  const soft = contrastRatio(rgb, [26, 26, 26]);
  if (white >= soft) return white >= 4.5 || white >= contrastRatio(rgb, [0, 0, 0]) ? '#ffffff' : '#000000';
  return soft >= 4.5 ? '#1a1a1a' : '#000000';
}

function toColor(rgb) {
  return {
    background: `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`,
    foreground: foregroundFor(rgb),
    rgb,
  };
}

export function sequentialColor(t) {
  return toColor(interpolate(SEQ_RGB, Number.isFinite(t) ? t : 0));
}

export function divergingColor(t) {
  return toColor(interpolate(DIV_RGB, ((Number.isFinite(t) ? Math.max(-1, Math.min(1, t)) : 0) + 1) / 2));
}

export function scaleMax(values, signed) {
  let m = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    const a = signed ? Math.abs(v) : v;
    if (a > m) m = a;
  }
  return m;
}

// Log view for a row where one token dominates: t = log(1 + k·v/max) / log(1 + k), k = 1000 (values 1/1000 of
// the maximum reach t ≈ 0.1 instead of 0.001). Rank view: t = rank / (n − 1) (smallest 0, largest 1; ties share).
export const LOG_K = 1000;
export function logScale(v, max) {
  if (!(max > 0) || !Number.isFinite(v)) return 0;
  const a = Math.abs(v) / max;
  return Math.sign(v) * Math.log1p(LOG_K * a) / Math.log1p(LOG_K);
}
export function rankScale(values, signed) {
  const key = values.map((v) => (Number.isFinite(v) ? (signed ? Math.abs(v) : v) : -Infinity));
  const order = key.map((_, i) => i).sort((a, b) => key[a] - key[b]);
  const t = new Array(values.length).fill(0);
  const n = values.length;
  for (let r = 0; r < n;) {
    let e = r;
    while (e + 1 < n && key[order[e + 1]] === key[order[r]]) e++;
    const u = n > 1 ? (r + e) / 2 / (n - 1) : 1;
    for (let j = r; j <= e; j++) t[order[j]] = signed ? Math.sign(values[order[j]]) * u : u;
    r = e + 1;
  }
  return t;
}

export function cssGradient(stops) {
  return `linear-gradient(to right, ${stops.join(', ')})`;
}
