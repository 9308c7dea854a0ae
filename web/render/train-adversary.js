// train-adversary.js — draws the model-consistent adversaries trained in the tab (Wiegreffe & Pinter 2019,
// §4): their TVD-vs-JSD scatter (their Figure 4: how far the predictions moved against how far the attention
// moved) and a table of their numbers. Drawing only.
//
// Contract:
//   renderAdversaryCurve(container, points, { width })
//     points from analysis/training.js adversaryPoints(). Replaces the container's children with one .chart
//     element data-chart="adversary-curve" (data-n = the number of points drawn): x = mean JSD of attention
//     (0 … ln 2), y = mean TVD of outputs (0 … 1), one dot per adversary coloured by base model and labelled
//     with its λ; with fewer than two λ a note asks for another. Throws only when Plot is missing.
//   renderAdversaryTable(container, points)
//     A table.adversary-table, one tr[data-model=NAME] per point: base, λ, seed, epochs, split, then TVD, JSD,
//     KL, accuracy, F1 as td.num[data-metric] whose data-value is the exact number.
import { el, fmt, pct } from './dom.js';
import { getPlot, baseOptions, CLASS_COLORS } from './plot-lib.js';

export function renderAdversaryCurve(container, points, { width = 640 } = {}) {
  const Plot = getPlot();
  const shown = points.filter((p) => Number.isFinite(p.tvd) && Number.isFinite(p.jsd));
  const bases = [...new Set(shown.map((p) => p.base))];
  const fig = Plot.plot({
    ...baseOptions(Math.min(width, 720)),
    height: 320,
    title: 'Adversaries vs their base model (one dot per trained adversary, labelled λ)',
    x: { label: 'JSD of attention to the base →', domain: [0, Math.log(2)], grid: true },
    y: { label: '↑ TVD of predictions to the base', domain: [0, Math.max(0.2, ...shown.map((p) => p.tvd))], grid: true, nice: true },
    color: { domain: bases, range: CLASS_COLORS.slice(2), legend: bases.length > 0 },
    marks: [
      Plot.ruleY([0]),
      Plot.ruleX([Math.log(2)], { stroke: '#c8c9d4', strokeDasharray: '4,3' }),
      Plot.line(shown, { x: 'jsd', y: 'tvd', z: 'base', stroke: 'base', strokeOpacity: 0.35, sort: { channel: 'x' } }),
      Plot.dot(shown, {
        x: 'jsd', y: 'tvd', fill: 'base', r: 5,
        title: (d) => `${d.name}\nλ ${d.lambda}: TVD ${d.tvd.toFixed(4)}, JSD ${d.jsd.toFixed(4)}, F1 ${d.f1.toFixed(3)} (${d.split})`,
      }),
      Plot.text(shown, { x: 'jsd', y: 'tvd', text: (d) => `λ ${d.lambda}`, dy: -11, fontSize: 11 }),
    ],
  });
  const box = el('div', 'chart', null, { 'data-chart': 'adversary-curve', 'data-n': shown.length });
  box.append(fig);
  const lambdas = new Set(shown.map((p) => p.lambda));
  if (lambdas.size < 2) box.append(el('p', 'chart-note', 'Train the adversary with another λ to see the trade-off as a curve.'));
  container.replaceChildren(box);
}

const COLUMNS = [
  ['tvd', 'TVD to base', (v) => fmt(v, 4)],
  ['jsd', 'JSD to base', (v) => fmt(v, 4)],
  ['kl', 'KL to base', (v) => fmt(v, 3)],
  ['accuracy', 'accuracy', (v) => pct(v, 1)],
  ['f1', 'F1', (v) => fmt(v, 3)],
];

export function renderAdversaryTable(container, points) {
  const table = el('table', 'data-table compact adversary-table');
  const head = el('tr');
  for (const t of ['adversary', 'base', 'λ', 'seed', 'epochs', 'on']) head.append(el('th', null, t));
  for (const [, label] of COLUMNS) head.append(el('th', 'num', label));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const p of points) {
    const tr = el('tr', null, null, { 'data-model': p.name });
    tr.append(el('td', 'nowrap', p.name), el('td', null, p.base), el('td', 'num', String(p.lambda)),
      el('td', 'num', String(p.seed)), el('td', 'num', String(p.epochs_run)), el('td', null, p.split));
    for (const [key, , show] of COLUMNS) tr.append(el('td', 'num', show(p[key]), { 'data-metric': key, 'data-value': p[key] }));
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  container.replaceChildren(wrap);
}
