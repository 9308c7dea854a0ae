// train-chart.js — draws a training run as it goes: the training loss over (fractional) epochs, the dev
// accuracy / F1 after each epoch (the kept epoch marked), and the per-epoch table. Drawing only.
//
// Contract:
//   renderTrainCharts(container, history, { epochs, width })
//     history from analysis/training.js (createHistory / addProgress); epochs = the epochs asked for (the
//     x axis spans 0 … epochs). Replaces the container's children with two .chart elements:
//     data-chart="train-loss" (data-n = loss points) and data-chart="train-dev" (data-n = epochs done; a note
//     until the first epoch ends). Throws only when Plot is missing.
//     For an adversary's history (epochs with dev_tvd / dev_jsd) the dev chart also draws "dev TVD to base"
//     and "dev JSD to base".
//   renderEpochTable(container, history)
//     A table, one tr[data-epoch] per finished epoch: epoch, mean training loss, dev accuracy, dev F1 (each
//     td.num with data-value = the exact number); the kept (best) epoch's row has class "best". An adversary's
//     history adds dev TVD and dev JSD to the base (td.num[data-metric="tvd"|"jsd"]) after them.
import { el, fmt, pct } from './dom.js';
import { getPlot, baseOptions } from './plot-lib.js';

const DEV_COLORS = { 'dev accuracy': '#5b3fa0', 'dev F1': '#e08214', 'dev TVD to base': '#1b9e77', 'dev JSD to base': '#b2182b' };
const intTicks = (d) => (Number.isInteger(d) ? String(d) : '');

function chart(id, n, content) {
  const box = el('div', 'chart', null, { 'data-chart': id, 'data-n': n });
  box.append(content);
  return box;
}

export function renderTrainCharts(container, history, { epochs = 8, width = 800 } = {}) {
  const Plot = getPlot();
  const half = Math.max(280, Math.floor((width - 16) / 2));
  const xDomain = [0, Math.max(1, epochs)];
  const loss = history.loss;
  const lossFig = Plot.plot({
    ...baseOptions(half),
    height: 220,
    title: 'Training loss (running mean over the epoch)',
    x: { label: 'epochs →', domain: xDomain, tickFormat: intTicks },
    y: { label: '↑ loss per sentence', grid: true, zero: true, nice: true },
    marks: [
      Plot.ruleY([0]),
      ...Array.from({ length: Math.max(0, epochs - 1) }, (_, i) => Plot.ruleX([i + 1], { stroke: '#e1e2ea' })),
      Plot.lineY(loss, { x: 'x', y: 'loss', z: 'epoch', stroke: '#5b3fa0', strokeWidth: 1.6 }),
      Plot.dot(loss.slice(-1), { x: 'x', y: 'loss', fill: '#5b3fa0', r: 3, title: (d) => `loss ${d.loss.toFixed(4)}` }),
    ],
  });

  const dev = history.epochs.flatMap((e) => [
    { epoch: e.epoch, value: e.dev_accuracy, metric: 'dev accuracy', best: e.epoch === history.best_epoch },
    { epoch: e.epoch, value: e.dev_f1, metric: 'dev F1', best: e.epoch === history.best_epoch },
    ...('dev_tvd' in e ? [
      { epoch: e.epoch, value: e.dev_tvd, metric: 'dev TVD to base', best: false },
      { epoch: e.epoch, value: e.dev_jsd, metric: 'dev JSD to base', best: false },
    ] : []),
  ]).filter((d) => Number.isFinite(d.value));
  const adversary = history.epochs.some((e) => 'dev_tvd' in e);
  const colors = Object.keys(DEV_COLORS).slice(0, adversary ? 4 : 2);
  let devContent;
  if (dev.length === 0) {
    devContent = el('p', 'chart-note', 'Dev accuracy and F1 appear here after each epoch.');
  } else {
    const lo = Math.max(0, Math.min(0.5, ...dev.map((d) => d.value)));
    devContent = Plot.plot({
      ...baseOptions(half),
      height: 220,
      title: adversary ? 'Dev set after each epoch (★ = the epoch kept; the last one)' : 'Dev set after each epoch (★ = the epoch kept)',
      x: { label: 'epoch →', domain: [0.5, Math.max(1, epochs) + 0.5], ticks: Math.min(epochs, 10), tickFormat: intTicks },
      y: { label: '↑ score', grid: true, domain: [Math.floor(lo * 10) / 10, 1] },
      color: { domain: colors, range: colors.map((c) => DEV_COLORS[c]), legend: true },
      marks: [
        Plot.lineY(dev, { x: 'epoch', y: 'value', z: 'metric', stroke: 'metric', strokeWidth: 1.6 }),
        Plot.dot(dev, { x: 'epoch', y: 'value', fill: 'metric', r: 3.5, title: (d) => `epoch ${d.epoch}: ${d.metric} ${d.value.toFixed(4)}` }),
        Plot.text(dev.filter((d) => d.best && d.metric === 'dev accuracy'), { x: 'epoch', y: 'value', text: () => '★', dy: -12, fontSize: 16, fill: '#5b3fa0' }),
      ],
    });
  }
  container.replaceChildren(chart('train-loss', loss.length, lossFig), chart('train-dev', history.epochs.length, devContent));
}

export function renderEpochTable(container, history) {
  if (!history.epochs.length) {
    container.replaceChildren();
    return;
  }
  const table = el('table', 'data-table compact epoch-table');
  const head = el('tr');
  const adversary = history.epochs.some((e) => 'dev_tvd' in e);
  const heads = [['epoch', false], ['training loss', true], ['dev accuracy', true], ['dev F1', true]];
  if (adversary) heads.push(['dev TVD to base', true], ['dev JSD to base', true]);
  for (const [t, num] of heads) head.append(el('th', num ? 'num' : null, t));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const e of history.epochs) {
    const best = e.epoch === history.best_epoch;
    const tr = el('tr', best ? 'best' : null, null, { 'data-epoch': e.epoch });
    const cell = (v, text) => el('td', 'num', text, { 'data-value': v });
    tr.append(
      el('td', null, best ? `${e.epoch} ★ kept` : String(e.epoch)),
      cell(e.train_loss, fmt(e.train_loss, 4)),
      cell(e.dev_accuracy, pct(e.dev_accuracy, 2)),
      cell(e.dev_f1, fmt(e.dev_f1, 4)),
    );
    if (adversary) {
      tr.append(el('td', 'num', fmt(e.dev_tvd, 4), { 'data-value': e.dev_tvd, 'data-metric': 'tvd' }),
        el('td', 'num', fmt(e.dev_jsd, 4), { 'data-value': e.dev_jsd, 'data-metric': 'jsd' }));
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  container.replaceChildren(wrap);
}
