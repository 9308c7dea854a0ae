// summary-table.js — draws a data-set run's summary: the experiment's headline numbers (with the paper's
// value where there is one) and, folded, every number of the summary object.
//
// Contract:
//   renderHeadline(container, items)  items from EXPERIMENT_INFO[name].headline(summary):
//     [{label, value, kind: 'num' | 'pct' | 'mean±std', ref?}] → a <dl class="headline"> with one
//     .headline-item[data-label] per item (its value in .headline-value, exact number in data-value).
//   renderAllNumbers(container, summary) → a two-column table (dotted key, value) of every leaf of the
//     summary (arrays of records walked as key.0.…, arrays of numbers shown joined; numbers at full
//     precision); nothing when the summary is empty.
import { el, fmt, pct } from './dom.js';
import { flatten } from '../analysis/flatten.js';

function show(item) {
  if (item.kind === 'pct') return pct(item.value);
  if (item.kind === 'mean±std') {
    const [m, s] = Array.isArray(item.value) ? item.value : [NaN, NaN];
    return `${fmt(m, 3)} ± ${fmt(s, 3)}`;
  }
  return fmt(item.value, 4);
}

export function renderHeadline(container, items) {
  const dl = el('dl', 'headline');
  for (const item of items ?? []) {
    const box = el('div', 'headline-item', null, { 'data-label': item.label });
    const dd = el('dd', 'headline-value', show(item));
    dd.dataset.value = JSON.stringify(item.value);
    box.append(el('dt', null, item.label), dd);
    if (item.ref) box.append(el('dd', 'headline-ref', `paper: ${item.ref}`));
    dl.append(box);
  }
  container.replaceChildren(...(items?.length ? [dl] : []));
}

export function renderAllNumbers(container, summary) {
  const flat = flatten(summary ?? {}, { arrays: 'objects' });
  const keys = Object.keys(flat);
  if (!keys.length) {
    container.replaceChildren();
    return;
  }
  const table = el('table', 'data-table all-numbers');
  const tbody = el('tbody');
  for (const k of keys) {
    const v = flat[k];
    const tr = el('tr');
    const th = el('th', null, k);
    th.scope = 'row';
    const text = Array.isArray(v)
      ? v.map((x) => (typeof x === 'number' ? fmt(x, 4) : x !== null && typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ')
      : typeof v === 'number' ? String(v) : v === null ? 'null' : String(v);
    tr.append(th, el('td', 'num', text));
    tbody.append(tr);
  }
  table.append(tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  container.replaceChildren(wrap);
}
