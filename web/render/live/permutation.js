// live/permutation.js — draws one permutation row (Jain & Wallace 2019) for a typed sentence: a histogram
// of the output changes |Δŷ| over the random permutations of the attention weights, median marked.
//
// Contract:
//   renderPermutation(body, row, { width })  row = {median_delta, max_attention, deltas:[P], …}.
//   Draws a stats line (median |Δŷ| with data-value, max attention, P) and the Plot histogram (20 bins
//   over [0, max Δ]; data-median on the figure's wrapper). Throws only when Plot is missing.
import { el, fmt } from '../dom.js';
import { getPlot, baseOptions } from '../plot-lib.js';
import { histogram, median } from '../../analysis/histogram.js';

export function renderPermutation(body, row, { width = 560 } = {}) {
  const Plot = getPlot();
  const deltas = (Array.isArray(row.deltas) ? row.deltas : []).filter(Number.isFinite);
  const med = Number.isFinite(row.median_delta) ? row.median_delta : median(deltas);
  const hi = deltas.length ? Math.max(...deltas) : 0;
  const { bins } = histogram(deltas, { domain: [0, hi > 0 ? hi : 1e-3], bins: 20 });

  const stats = el('div', 'stats');
  const s = el('div', 'stat', null, { 'data-stat': 'median' });
  const v = el('span', 'stat-value', fmt(med, 4));
  v.dataset.value = String(med);
  s.append(v, el('span', 'stat-label', `median |Δŷ| over ${deltas.length} permutations`));
  const m = el('div', 'stat', null, { 'data-stat': 'max-attention' });
  m.append(el('span', 'stat-value', fmt(row.max_attention, 3)), el('span', 'stat-label', 'largest attention weight'));
  stats.append(s, m);

  const fig = Plot.plot({
    ...baseOptions(width),
    height: 200,
    x: { label: '|Δŷ| (TVD between permuted and original output) →', domain: [0, bins.at(-1).x1] },
    // headroom above the tallest bar for the median's label (it sat on the bars before)
    y: { label: '↑ permutations', grid: true, domain: [0, Math.max(1, ...bins.map((b) => b.count)) * 1.3], tickFormat: (d) => (Number.isInteger(d) ? String(d) : '') },
    marks: [
      Plot.rectY(bins, { x1: 'x0', x2: 'x1', y: 'count', fill: '#9e9ac8', inset: 0.5, title: (d) => `${fmt(d.x0, 4)}–${fmt(d.x1, 4)}: ${d.count}` }),
      Plot.ruleY([0]),
      Plot.ruleX([med], { stroke: '#b2182b', strokeWidth: 2 }),
      Plot.text([med], { x: (d) => d, frameAnchor: 'top', dy: 6, dx: 4, textAnchor: 'start', text: () => `median ${fmt(med, 4)}`, fill: '#b2182b',
        stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }),
    ],
  });
  const wrap = el('div', 'chart');
  wrap.dataset.median = String(med);
  wrap.append(fig);
  body.replaceChildren(stats, wrap);
}
