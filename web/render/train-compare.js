// train-compare.js — draws a trained model's dev / test accuracy and F1 next to the shipped models' (from
// the manifest). Drawing only.
//
// Contract:
//   renderComparison(container, rows)   rows from analysis/training.js comparisonRows(): one
//     tr[data-model=NAME] per row (the trained one first, with class "trained"), columns model, attention,
//     trained on, dev accuracy, dev F1, test accuracy, test F1; each number a td.num[data-metric] whose
//     data-value is the exact number ('n/a' shown for a missing one).
import { el, fmt, pct } from './dom.js';

const COLUMNS = [
  ['dev_accuracy', 'dev accuracy', (v) => pct(v, 1)],
  ['dev_f1', 'dev F1', (v) => fmt(v, 3)],
  ['test_accuracy', 'test accuracy', (v) => pct(v, 1)],
  ['test_f1', 'test F1', (v) => fmt(v, 3)],
];

export function renderComparison(container, rows) {
  const table = el('table', 'data-table compare-table');
  const head = el('tr');
  head.append(el('th', null, 'model'), el('th', null, 'attention'), el('th', null, 'trained on'));
  for (const [, label] of COLUMNS) head.append(el('th', 'num', label));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const r of rows) {
    const tr = el('tr', r.trained ? 'trained' : null, null, { 'data-model': r.name });
    tr.append(el('td', 'nowrap', r.name), el('td', null, r.attention), el('td', null, r.training));
    for (const [key, , show] of COLUMNS) tr.append(el('td', 'num', show(r[key]), { 'data-metric': key, 'data-value': r[key] }));
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  container.replaceChildren(wrap);
}
