// histogram.js — fixed-width binning and order statistics for the charts. Pure; no DOM.
//
// Contract:
//   histogram(values, { domain: [lo, hi], bins = 20 }) → { bins: [{ x0, x1, count }], n, outside }
//     `bins` equal-width bins over [lo, hi]; bin i holds lo + i·w ≤ v < lo + (i+1)·w, and the last bin also
//     holds v = hi. Non-finite values are ignored; finite values outside [lo, hi] are counted in `outside`
//     (not binned). n = the number of binned values. A domain with lo = hi is widened to [lo, lo + 1e-9]
//     (degenerate data, e.g. all zeros, still gives one visible bar); lo > hi is swapped.
//   extent(values) → [min, max] of the finite values, or null when there are none.
//   quantile(values, q) → the q-quantile (0 ≤ q ≤ 1) of the finite values, linear interpolation between
//     order statistics (q = 0.5: the median; the mean of the two middle values for an even count);
//     NaN when there are none.
//   median(values) = quantile(values, 0.5);  mean(values) → mean of the finite values, NaN when none.
export function histogram(values, { domain, bins = 20 } = {}) {
  let [lo, hi] = domain ?? extent(values) ?? [0, 1];
  if (lo > hi) [lo, hi] = [hi, lo];
  if (hi === lo) hi = lo + 1e-9;
  const k = Math.max(1, Math.floor(bins));
  const w = (hi - lo) / k;
  const out = Array.from({ length: k }, (_, i) => ({ x0: lo + i * w, x1: i === k - 1 ? hi : lo + (i + 1) * w, count: 0 }));
  let n = 0;
  let outside = 0;
  for (const v of values ?? []) {
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    if (v < lo || v > hi) {
      outside++;
      continue;
    }
    const i = Math.min(k - 1, Math.floor((v - lo) / w));
    out[i].count++;
    n++;
  }
  return { bins: out, n, outside };
}

function finite(values) {
  return (values ?? []).filter((v) => typeof v === 'number' && Number.isFinite(v));
}

export function extent(values) {
  const f = finite(values);
  if (!f.length) return null;
  let lo = f[0];
  let hi = f[0];
  for (const v of f) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

export function quantile(values, q) {
  const f = finite(values).sort((a, b) => a - b);
  if (!f.length) return NaN;
  const pos = Math.min(Math.max(q, 0), 1) * (f.length - 1);
  const i = Math.floor(pos);
  const frac = pos - i;
  return i + 1 < f.length ? f[i] + frac * (f[i + 1] - f[i]) : f[i];
}

export function median(values) {
  return quantile(values, 0.5);
}

export function mean(values) {
  const f = finite(values);
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
}
