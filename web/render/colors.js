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
// The foreground switches to white on dark backgrounds so the token text stays readable.

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

function luminance([r, g, b]) {
  const lin = (c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function toColor(rgb) {
  return {
    background: `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`,
    foreground: luminance(rgb) < 0.3 ? '#ffffff' : '#1a1a1a',
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

export function cssGradient(stops) {
  return `linear-gradient(to right, ${stops.join(', ')})`;
}
