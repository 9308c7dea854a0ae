// dom.js — tiny helpers the render modules share: element creation (text only through textContent, so no
// data can become markup) and number formatting.
//
// Contract:
//   el(tag, className?, text?, attrs?) → a new element; attrs are set with setAttribute (strings).
//   fmt(v, digits = 4) → analysis/format.js num(): fixed-point with `digits` decimals; a non-zero value that
//     rounds to 0 shows a bound ('< 0.0001'); 0 → '0'; non-finite → 'n/a'. Never an exponent.
//   pct(v, digits = 1) → '12.3 %' for a fraction 0.123 (format.js percent); non-finite → 'n/a'.
//   viewStatus(section, statusEl, messageEl) → { setStatus(status, text = ''), showMessage(text) }: a view's
//     status (section's data-status, which the tests wait on, and its status line) and its message box
//     (hidden when empty).
import { num, percent } from '../analysis/format.js';

export function el(tag, className, text, attrs) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = text;
  if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export function fmt(v, digits = 4) {
  if (v === 0) return '0';
  return num(v, digits);
}

export function pct(v, digits = 1) {
  return percent(v, digits);
}

export function viewStatus(section, statusEl, messageEl) {
  return {
    setStatus(status, text = '') {
      section.dataset.status = status;
      statusEl.textContent = text;
    },
    showMessage(text) {
      messageEl.textContent = text;
      messageEl.hidden = !text;
    },
  };
}
