// dom.js — tiny helpers the render modules share: element creation (text only through textContent, so no
// data can become markup) and number formatting.
//
// Contract:
//   el(tag, className?, text?, attrs?) → a new element; attrs are set with setAttribute (strings).
//   fmt(v, digits = 4) → fixed-point with `digits` decimals for |v| ≥ 10^-digits, else exponential with 2
//     significant decimals (1.2e-7); 0 → '0'; non-finite → 'n/a'.
//   pct(v, digits = 1) → '12.3 %' for a fraction 0.123; non-finite → 'n/a'.
export function el(tag, className, text, attrs) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = text;
  if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export function fmt(v, digits = 4) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'n/a';
  if (v === 0) return '0';
  return Math.abs(v) >= 10 ** -digits ? v.toFixed(digits) : v.toExponential(2);
}

export function pct(v, digits = 1) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'n/a';
  return `${(v * 100).toFixed(digits)} %`;
}
