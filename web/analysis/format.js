// format.js — the page's one number formatter (pure; no DOM, works in Node).
//
// Contract: every function returns a short string a reader can take in at a glance — fixed decimals or a
// percentage, digit groups for large integers, never an exponent (2.5e-5) and never more than 6 decimals.
//   num(v, digits = 3)    fixed with `digits` decimals (0 … 6). A non-zero value that would round to 0 says
//                         so with a bound: '< 0.001' / '> −0.001'. |v| ≥ 1e6 → grouped integer '1,234,567'.
//                         Negative numbers take the typographic minus U+2212 ('−0.25'), as the charts' axes do
//                         (int, num, signed, percent, compact, tau alike); data keeps ASCII '-'.
//   int(v)                grouped integer '1,821' (rounded).
//   percent(x, digits = 1) a fraction as a percentage '12.3 %'; tiny non-zero → '< 0.1 %'.
//   prob(p)               a probability as a percentage with as many decimals as it needs (≤ 4):
//                         0.93 → '93.0 %', 2.5e-5 → '0.0025 %', 3e-9 → '< 0.0001 %', 1 − 3e-9 → '> 99.9999 %'.
//   pValue(p)             'p < 0.001' | 'p = 0.004'.
//   signed(v, digits = 3) num() with an explicit '+' on positive values.
//   compact(v)            3 significant digits without an exponent (0.000473 → '0.000473', 12345.6 → '12,346';
//                         below 1e-6 → the bound '< 0.000001'); for captions and tooltips of raw values.
//   tau(k, n)             Kendall τ (or Spearman ρ, same shape) with its n and the meaning of "n/a":
//                         { text: 'τ = 0.53 · p = 0.004 · n = 16', na: bool, reason } — reason is visible text.
//   pow10(v)              a power of ten for log axes: 1e-7 → '10⁻⁷', 0.1 → '0.1', 1 → '1', 100 → '100'
//   bytes(n)              a size: '512 B', '22 KB', '3.4 MB' (1,024-based; never '0.0 MB' for a small file).
//   NA                    'n/a'
// Non-finite input → 'n/a' everywhere.
export const NA = 'n/a';
export const MAX_DECIMALS = 6;

const finite = (v) => typeof v === 'number' && Number.isFinite(v);
const clampDigits = (d) => Math.max(0, Math.min(MAX_DECIMALS, Math.round(Number.isFinite(d) ? d : 3)));

// Shown numbers take the typographic minus (U+2212), as the charts' axes do; data (CSV, JSON, data-value) keeps '-'.
const MINUS = '\u2212';
const minus = (t) => t.replace(/^([<>] )?-/, `$1${MINUS}`);

export function int(v) {
  if (!finite(v)) return NA;
  return minus(Math.round(v).toLocaleString('en-US'));
}

export function num(v, digits = 3) {
  if (!finite(v)) return NA;
  const d = clampDigits(digits);
  if (v === 0) return d ? (0).toFixed(d) : '0';
  if (Math.abs(v) >= 1e6) return int(v);
  const s = v.toFixed(d);
  if (Number(s) === 0) {
    const bound = d ? `0.${'0'.repeat(d - 1)}1` : '1';
    return v > 0 ? `< ${bound}` : `> ${MINUS}${bound}`;
  }
  return minus(s);
}

export function signed(v, digits = 3) {
  const s = num(v, digits);
  return finite(v) && v > 0 && !s.startsWith('<') ? `+${s}` : s;
}

export function percent(x, digits = 1) {
  if (!finite(x)) return NA;
  const d = clampDigits(digits);
  return `${num(x * 100, d)} %`;
}

export function prob(p) {
  if (!finite(p)) return NA;
  if (p <= 0) return '0 %';
  if (p >= 1) return '100 %';
  if (p >= 0.001 && p <= 0.999) return `${(p * 100).toFixed(1)} %`;
  if (p < 0.5) {
    if (p < 1e-6) return '< 0.0001 %';
    // two significant digits of the percentage, at most 4 decimals
    const pc = p * 100;
    const d = Math.min(4, Math.max(1, 1 - Math.floor(Math.log10(pc))));
    return `${pc.toFixed(d)} %`;
  }
  const q = 1 - p;
  if (q < 1e-6) return '> 99.9999 %';
  const qc = q * 100;
  const d = Math.min(4, Math.max(1, 1 - Math.floor(Math.log10(qc))));
  return `${(100 - qc).toFixed(d)} %`;
}

export function pValue(p) {
  if (!finite(p)) return 'p n/a';
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;
}

export function compact(v) {
  if (!finite(v)) return NA;
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1000) return int(v);
  if (a < 1e-6) return v > 0 ? '< 0.000001' : `> ${MINUS}0.000001`;
  const d = Math.min(MAX_DECIMALS, Math.max(0, 2 - Math.floor(Math.log10(a))));
  return minus(String(Number(v.toFixed(d))));
}

// Kendall τ / Spearman ρ of a ranking comparison over n items. `k` = {tau, p} or {rho, p} (core JSON).
export function tau(k, n, { symbol = 'τ' } = {}) {
  const value = finite(k?.tau) ? k.tau : finite(k?.rho) ? k.rho : NaN;
  const nText = finite(n) ? ` · n = ${int(n)}` : '';
  if (!finite(value)) {
    const reason = finite(n) && n < 2
      ? 'needs at least two tokens'
      : 'one of the two rankings is all ties (e.g. uniform attention gives every token the same weight), so there is no order to compare';
    return { text: `${symbol} n/a${nText}`, na: true, reason };
  }
  return { text: `${symbol} = ${minus(value.toFixed(2))} · ${pValue(k?.p)}${nText}`, na: false, reason: '' };
}

// True when a string shows a number the way this module never does: an exponent or more than 6 decimals.
export function looksRaw(text) {
  return /\d(?:\.\d+)?e[+-−]?\d/i.test(text) || /\d\.\d{7,}/.test(text);
}

const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
export function pow10(v) {
  if (!finite(v) || v <= 0) return NA;
  const e = Math.round(Math.log10(v));
  if (Math.abs(v / 10 ** e - 1) > 1e-9) return compact(v);
  if (e >= -1 && e <= 3) return String(10 ** e >= 1 ? 10 ** e : Number((10 ** e).toFixed(1)));
  return `10${String(e).split('').map((c) => SUP[c]).join('')}`;
}

// A file or download size in words: '512 B', '22 KB', '3.4 MB', '1.2 GB' (1 KB = 1,024 bytes; one decimal under 10
// of a unit, none above) — a 22 KB model is never "0.0 MB".
export function bytes(n) {
  if (!finite(n) || n < 0) return NA;
  const units = ['B', 'KB', 'MB', 'GB'];
  let u = 0;
  let v = n;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${Math.round(v)} B`;
  const d = v < 10 ? 1 : 0;
  return `${v.toFixed(d).replace(/\.0$/, '')} ${units[u]}`;
}
