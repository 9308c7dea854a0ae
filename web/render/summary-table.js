// summary-table.js — draws a data-set run's summary: the experiment's headline numbers (with the paper's
// value where there is one) and, folded, every number of the summary object.
//
// Contract:
//   renderHeadline(container, items)  items from EXPERIMENT_INFO[name].headline(summary):
//     [{label, value, kind: 'num' | 'int' | 'points' | 'pct' | 'mean±std', ref?, note?, seeds?}] → a <dl class="headline">
//     with one .headline-item[data-label] per item (its value in .headline-value, exact number in data-value; the
//     paper's value in .headline-ref; the spread over training seeds (analysis/seed-spread.js) in .headline-seeds,
//     data-value = [mean, std, n]; the note, when given, in .headline-note).
//   renderAllNumbers(container, summary) → a two-column table (the key in words with its unit, value) of every
//     leaf of the summary (arrays of records walked as key.0.…, arrays of numbers shown joined). Each <tr> has
//     data-key = the dotted key (shown in a tooltip and small under the words); each value cell data-value =
//     the exact JSON value; the text is rounded (analysis/format.js, never an exponent or 17 digits).
//     Nothing when the summary is empty.
import { el, fmt, pct } from './dom.js';
import { flatten } from '../analysis/flatten.js';
import { summaryLabel } from '../analysis/display.js';
import { int } from '../analysis/format.js';

function show(item) {
  if (item.kind === 'pct') return pct(item.value);
  if (item.kind === 'int') return Number.isFinite(item.value) ? int(item.value) : 'n/a';
  if (item.kind === 'points') return Number.isFinite(item.value) ? `${fmt(item.value, 1)} points` : 'n/a';
  if (item.kind === 'mean±std') {
    const [m, s] = Array.isArray(item.value) ? item.value : [NaN, NaN];
    return Number.isFinite(m) ? `${fmt(m, 3)} ± ${fmt(s, 3)}` : 'n/a';
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
    if (item.seeds) {
      const { mean, std, n } = item.seeds;
      const text = item.kind === 'pct' ? `${pct(mean)} ± ${pct(std)}` : show({ kind: 'mean±std', value: [mean, std] });
      const spread = el('dd', 'headline-seeds', `over ${n} training seeds (whole test set): ${text}`);
      spread.dataset.value = JSON.stringify([mean, std, n]);
      spread.title = 'Mean ± std of this number over models trained with different seeds, each run on the whole test set: how much of a difference is the training seed’s';
      box.append(spread);
    }
    if (item.note) box.append(el('dd', 'headline-note', item.note));
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
    const tr = el('tr', null, null, { 'data-key': k });
    const th = el('th', null, summaryLabel(k));
    th.scope = 'row';
    th.title = k;
    th.append(el('code', 'summary-key', k));
    const one = (x) => (typeof x === 'number' ? (Number.isInteger(x) && Math.abs(x) >= 1000 ? int(x) : Number.isInteger(x) ? String(x) : fmt(x, 4))
      : x !== null && typeof x === 'object' ? JSON.stringify(x) : String(x));
    const leaf = k.split('.').pop();
    const share = /^(fraction|flip_rate|rate|accuracy)/.test(leaf) && typeof v === 'number' && v >= 0 && v <= 1;
    const text = Array.isArray(v) ? v.map(one).join(', ') : v === null ? 'n/a' : share ? pct(v, 1) : one(v);
    const td = el('td', 'num', text);
    td.dataset.value = JSON.stringify(v);
    tr.append(th, td);
    tbody.append(tr);
  }
  table.append(tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  container.replaceChildren(wrap);
}
