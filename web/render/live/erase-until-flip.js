// live/erase-until-flip.js — draws one erase-until-flip row (Serrano & Smith 2019) for a typed sentence:
// p of the predicted class vs the number of attention weights removed, one line per ranking, the flip
// point marked, and a small table of where each ranking flips.
//
// Contract:
//   renderEraseUntilFlip(body, row, { width, p0 })
//     row = {<ranking>: {removed, fraction, flipped, curve:[p after 1..removed removals]}, predicted,
//            num_tokens, class_names}; p0 = p of the predicted class before any removal (drawn at x = 0;
//     omitted when not a number). Rankings are found in the row (known ones first, in RANKINGS order).
//     Optional: flipAt (default 0.5: the dashed line where a two-class decision flips; null: no line, e.g. a language
//     model, whose decision flips when another token overtakes) and foot (the note under the table instead of the
//     default one).
//   Lines of rankings are drawn a few pixels apart (rankings often give the same curve). The table rows
//   carry data-ranking and data-removed. Throws only when Plot is missing.
import { el, pct } from '../dom.js';
import { getPlot, baseOptions, measureColor } from '../plot-lib.js';
import { rankingKeys } from '../../analysis/figure-data.js';
import { RANKINGS, label } from '../../experiments-info.js';
import { classNamesFor } from '../../analysis/display.js';

export function renderEraseUntilFlip(body, row, { width = 560, p0, flipAt = 0.5, foot: footText } = {}) {
  const Plot = getPlot();
  const keys = rankingKeys([row], RANKINGS);
  const T = Number.isInteger(row.num_tokens) ? row.num_tokens : null;
  const names = classNamesFor(row.model, row.class_names);
  const cls = names[row.predicted] ?? `class ${row.predicted}`;

  const points = [];
  const flips = [];
  for (const k of keys) {
    const r = row[k];
    const curve = Array.isArray(r.curve) ? r.curve : [];
    if (Number.isFinite(p0)) points.push({ ranking: label(k), step: 0, p: p0 });
    curve.forEach((p, i) => points.push({ ranking: label(k), step: i + 1, p }));
    if (r.flipped && curve.length) flips.push({ ranking: label(k), step: curve.length, p: curve.at(-1) });
  }

  // Rankings often agree (same curve): each is drawn a few pixels apart so none hides another.
  const offset = (i) => (i - (keys.length - 1) / 2) * 3;
  const marks = Number.isFinite(flipAt) ? [Plot.ruleY([flipAt], { stroke: '#999', strokeDasharray: '4,3' })] : [];
  keys.forEach((k, i) => {
    const mine = (d) => d.ranking === label(k);
    marks.push(
      Plot.line(points.filter(mine), { x: 'step', y: 'p', stroke: 'ranking', strokeWidth: 2, curve: 'step-after', dx: offset(i), dy: offset(i) }),
      Plot.dot(flips.filter(mine), { x: 'step', y: 'p', stroke: 'ranking', fill: 'white', r: 5, strokeWidth: 2.5, dx: offset(i), dy: offset(i),
        title: (d) => `${d.ranking}: the decision flips after ${d.step} removal${d.step === 1 ? '' : 's'}` }),
    );
  });
  const fig = Plot.plot({
    ...baseOptions(width),
    height: 240,
    x: { label: 'attention weights removed →', domain: [0, Math.max(1, T ?? 0, ...points.map((d) => d.step))], grid: true },
    y: { label: `↑ p(${cls}) (the predicted class)`, domain: [0, 1] },
    color: measureColor(keys, label),
    marks,
  });

  const table = el('table', 'data-table compact');
  const head = el('tr');
  for (const h of ['ranking', 'weights removed to flip the decision', 'fraction of the weights']) head.append(el('th', null, h, { scope: 'col' }));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const k of keys) {
    const r = row[k];
    const tr = el('tr', null, null, { 'data-ranking': k, 'data-removed': r.removed });
    const th = el('th', null, label(k));
    th.scope = 'row';
    tr.append(th, el('td', 'num', r.flipped ? String(r.removed) : `never (all ${r.removed})`), el('td', 'num', pct(r.fraction, 0)));
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const chart = el('div', 'chart');
  chart.append(fig);
  const foot = el('p', 'panel-foot', footText ?? 'Dashed: p = 0.5, where a two-class decision flips. Circles: the flip point of each ranking.');
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  body.replaceChildren(chart, wrap, foot);
}
