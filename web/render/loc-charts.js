// loc-charts.js — the Localization lab's training charts (Observable Plot via plot-lib.js) and tables:
// the running training loss over (fractional) epochs, train / validation accuracy after each epoch, the
// metrics table and the erasing table. Drawing only.
//
// Contract:
//   renderLocCharts(container, { loss: [{x, loss, epoch}], epochs: [{epoch, train_accuracy, val_accuracy}] },
//                   { epochs, width }) → two .chart elements: data-chart="loc-loss" (data-n = loss points; a note
//                   until the first loss point) and data-chart="loc-accuracy" (data-n = epochs done; a note until the
//                   first epoch ends).
//   renderLocMetrics(container, metrics, { stages }) → a table: one column per test condition (de-correlated,
//                   and confounded when trained with a confounder; td[data-condition]), one row per metric
//                   (tr[data-metric]): n, accuracy, pointing game (0 px; and, when the
//                   metrics have `pointing`, at the standard tolerance and the centre baseline's 0 px / standard-
//                   tolerance hit rates), mask IoU, energy in mask, background energy, object area (the chance level of energy in mask), then CBAM
//                   spatial energy in mask per stage that has CBAM. td.num[data-metric] with data-value.
//   renderEraseTable(container, erase) → a table, one tr[data-step] per step k = 1..K (experiments/cnn_erasing.h):
//                   still correct before the step's erasing, recall of the object by the union of erased regions
//                   |U ∩ M|/|M|, precision |U ∩ M|/|U|, union area, area erased at the step (td.num[data-metric]).
import { el, fmt, pct } from './dom.js';
import { getPlot, baseOptions } from './plot-lib.js';

const intTicks = (d) => (Number.isInteger(d) ? String(d) : '');
const ACC_COLORS = { 'train accuracy': '#e08214', 'validation accuracy': '#5b3fa0' };

function chart(id, n, content) {
  const box = el('div', 'chart', null, { 'data-chart': id, 'data-n': n });
  box.append(content);
  return box;
}

export function renderLocCharts(container, history, { epochs = 4, width = 800 } = {}) {
  const Plot = getPlot();
  const half = Math.max(280, Math.floor((width - 16) / 2));
  const loss = history.loss;
  // before the first step there is nothing to scale the y axis to (Plot would print a 0.000000 tick): a note
  const lossFig = !loss.length ? el('p', 'chart-note', 'The training loss appears here as the model trains.') : Plot.plot({
    ...baseOptions(half),
    height: 220,
    title: 'Training loss (running mean over the epoch)',
    x: { label: 'epochs →', domain: [0, Math.max(1, epochs)], tickFormat: intTicks },
    y: { label: '↑ cross-entropy', grid: true, zero: true, nice: true },
    marks: [
      Plot.ruleY([0]),
      Plot.lineY(loss, { x: 'x', y: 'loss', z: 'epoch', stroke: '#5b3fa0', strokeWidth: 1.6 }),
      Plot.dot(loss.slice(-1), { x: 'x', y: 'loss', fill: '#5b3fa0', r: 3 }),
    ],
  });
  const acc = history.epochs.flatMap((e) => [
    { epoch: e.epoch, value: e.train_accuracy, metric: 'train accuracy' },
    { epoch: e.epoch, value: e.val_accuracy, metric: 'validation accuracy' },
  ]);
  let accContent;
  if (!acc.length) {
    accContent = el('p', 'chart-note', 'Train and validation accuracy appear here after each epoch.');
  } else {
    const keys = Object.keys(ACC_COLORS);
    accContent = Plot.plot({
      ...baseOptions(half),
      height: 220,
      title: 'Accuracy after each epoch (validation: BN in eval mode)',
      x: { label: 'epoch →', domain: [0.5, Math.max(1, epochs) + 0.5], ticks: Math.min(epochs, 10), tickFormat: intTicks },
      y: { label: '↑ accuracy', grid: true, domain: [0, 1] },
      color: { domain: keys, range: keys.map((k) => ACC_COLORS[k]), legend: true },
      marks: [
        Plot.ruleY([0.95], { stroke: '#bbb', strokeDasharray: '4 3' }),
        Plot.lineY(acc, { x: 'epoch', y: 'value', z: 'metric', stroke: 'metric', strokeWidth: 1.6 }),
        Plot.dot(acc, { x: 'epoch', y: 'value', fill: 'metric', r: 3.5, title: (d) => `epoch ${d.epoch}: ${d.metric} ${d.value.toFixed(4)}` }),
      ],
    });
  }
  container.replaceChildren(chart('loc-loss', loss.length, lossFig), chart('loc-accuracy', history.epochs.length, accContent));
}

function table(heads, rows) {
  const t = el('table', 'data-table compact');
  const thead = el('thead');
  const tr = el('tr');
  for (const [text, num] of heads) tr.append(el('th', num ? 'num' : null, text));
  thead.append(tr);
  const tbody = el('tbody');
  for (const r of rows) tbody.append(r);
  t.append(thead, tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(t);
  return wrap;
}

const cell = (metric, v, text) => el('td', 'num', text, { 'data-metric': metric, 'data-value': v ?? '' });

export function renderLocMetrics(container, metrics) {
  const conds = [['de-correlated test', 'decorrelated', metrics.decorrelated]];
  if (metrics.confounded) conds.push([`confounded test (p = ${metrics.confounder})`, 'confounded', metrics.confounded]);
  const stages = (metrics.decorrelated.cbam_spatial?.energy_in_mask ?? []).map((v, s) => [s, v]).filter(([, v]) => v !== null);
  // The pointing game at Zhang et al.'s standard tolerance (15 px at 224 px, scaled to the image) and the
  // centre-point baseline at 0 px / that tolerance, when the core's metrics carry them (train/cnn_options.h).
  const pt = metrics.decorrelated.pointing;
  const tol = Number.isFinite(pt?.standard_tolerance_px) ? pt.standard_tolerance_px : null;
  // one row per metric, one column per test condition: the table stays as narrow as its two or three columns
  // (a row per condition made it ~2,300 px wide with CBAM at every stage)
  const metricRows = [
    ['n', 'n', (m) => [m.n, String(m.n)]],
    ['accuracy', 'accuracy', (m) => [m.accuracy, pct(m.accuracy, 1)], () => ' chance 20 %'],
    ['pointing game', 'pointing_game', (m) => [m.pointing_game, pct(m.pointing_game, 1)], (m) => (Number.isFinite(m.mask_fraction) ? ` chance ${pct(m.mask_fraction, 1)}` : '')],
  ];
  if (tol !== null) {
    metricRows.push([`pointing game, ${fmt(tol, 2)} px tolerance`, 'pointing_standard', (m) => [m.pointing?.hit_standard_tolerance, pct(m.pointing?.hit_standard_tolerance, 1)]],
      ['centre baseline, 0 px', 'pointing_centre_baseline', (m) => [m.pointing?.centre_baseline, pct(m.pointing?.centre_baseline, 1)]],
      [`centre baseline, ${fmt(tol, 2)} px`, 'pointing_centre_baseline_standard', (m) => [m.pointing?.centre_baseline_standard_tolerance,
        pct(m.pointing?.centre_baseline_standard_tolerance, 1)]]);
  }
  metricRows.push(['mask IoU', 'mask_iou', (m) => [m.mask_iou, fmt(m.mask_iou, 3)]],
    ['energy in mask', 'energy_in_mask', (m) => [m.energy_in_mask, fmt(m.energy_in_mask, 3)]],
    ['background energy', 'background_energy', (m) => [m.background_energy, fmt(m.background_energy, 3)]],
    ['object area (chance)', 'mask_fraction', (m) => [m.mask_fraction, fmt(m.mask_fraction, 3)]]);
  for (const [s] of stages) {
    metricRows.push([`CBAM stage ${s + 1}: energy in mask`, `cbam${s + 1}_energy_in_mask`, (m) => {
      const v = m.cbam_spatial?.energy_in_mask?.[s];
      return [v, fmt(v, 3)];
    }]);
  }
  const heads = [['metric', false], ...conds.map(([name]) => [name, true])];
  const rows = metricRows.map(([label, key, value, chance]) => {
    const tr = el('tr', null, null, { 'data-metric': key });
    tr.append(el('th', null, label, { scope: 'row' }));
    for (const [, cond, m] of conds) {
      const [v, text] = value(m);
      const td = cell(key, v, text);
      td.dataset.condition = cond;
      // chance levels beside the metrics that have one: 1 of 5 classes; a peak dropped at random lands on the
      // object with probability = its area (the mask fraction)
      const c = chance?.(m);
      if (c) td.append(el('span', 'chance', c));
      tr.append(td);
    }
    return tr;
  });
  container.replaceChildren(table(heads, rows));
}

export function renderEraseTable(container, erase) {
  const heads = [['step', false], ['still correct (before the step)', true], ['object recovered by the union |U∩M|/|M|', true],
    ['precision of the union |U∩M|/|U|', true], ['union area', true], ['area erased at this step', true]];
  const rows = erase.steps.map((s) => {
    const tr = el('tr', null, null, { 'data-step': s.step });
    tr.append(el('td', null, String(s.step)), cell('still_correct', s.still_correct, pct(s.still_correct, 1)),
      cell('recall', s.recall, pct(s.recall, 1)), cell('precision', s.precision, pct(s.precision, 1)),
      cell('union_area', s.union_area, pct(s.union_area, 1)), cell('step_area', s.step_area, pct(s.step_area, 1)));
    return tr;
  });
  container.replaceChildren(table(heads, rows));
}
