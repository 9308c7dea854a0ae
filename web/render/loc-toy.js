// loc-toy.js — the least-squares toy's chart (Observable Plot): fitted weights of the inputs against their
// reliability 1/σ², with the closed-form limit w·s²/(s² + σ²) as a curve and the fits on fewer samples as
// faded dots. Drawing only; the maths is web/analysis/least-squares-toy.js.
//
// Contract:
//   renderToyChart(container, { variances, fits: [{n, w}], weight = 1, signalVar = 1, width }) → one
//     .chart[data-chart="loc-toy"] element (data-n = the largest n shown).
import { el } from './dom.js';
import { getPlot, baseOptions } from './plot-lib.js';

const INPUT_COLORS = ['#5b3fa0', '#e08214', '#1b9e77', '#b2182b', '#2166ac', '#8c8c8c'];

export function renderToyChart(container, { variances, fits, weight = 1, signalVar = 1, width = 640 }) {
  const Plot = getPlot();
  const inv = variances.map((v) => 1 / v);
  const lo = Math.min(0.1, ...inv) * 0.8, hi = Math.max(30, ...inv) * 1.25;
  const curve = Array.from({ length: 120 }, (_, k) => {
    const r = lo * (hi / lo) ** (k / 119);
    return { r, w: (weight * signalVar) / (signalVar + 1 / r) };
  });
  const last = fits[fits.length - 1];
  const names = variances.map((v, i) => `input ${i + 1} (σ² = ${v.toPrecision(2)})`);
  const older = fits.slice(0, -1).flatMap((f) => Array.from(f.w, (w, i) => ({ r: inv[i], w, n: f.n, input: names[i] })));
  const latest = last ? Array.from(last.w, (w, i) => ({ r: inv[i], w, n: last.n, input: names[i] })) : [];
  const fig = Plot.plot({
    ...baseOptions(width),
    height: 260,
    title: `Least-squares weights vs reliability 1/σ² (n = ${last?.n ?? 0} samples; curve: the limit n → ∞)`,
    x: { type: 'log', label: 'reliability 1/σ² →', domain: [lo, hi], ticks: [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100].filter((t) => t >= lo && t <= hi), tickFormat: (d) => String(d) },
    y: { label: '↑ fitted weight (true weight 1)', grid: true, domain: [Math.min(-0.1, ...latest.map((d) => d.w)), Math.max(1.1, ...latest.map((d) => d.w))] },
    color: { domain: names, range: names.map((_, i) => INPUT_COLORS[i % INPUT_COLORS.length]), legend: true },
    marks: [
      Plot.ruleY([0, weight], { stroke: '#ddd' }),
      Plot.line(curve, { x: 'r', y: 'w', stroke: '#999', strokeDasharray: '4 3' }),
      Plot.dot(older, { x: 'r', y: 'w', stroke: 'input', r: 2.5, opacity: 0.35, title: (d) => `n = ${d.n}: ${d.w.toFixed(3)}` }),
      Plot.dot(latest, { x: 'r', y: 'w', fill: 'input', r: 5, title: (d) => `${d.input}, n = ${d.n}: weight ${d.w.toFixed(3)}` }),
    ],
  });
  const box = el('div', 'chart', null, { 'data-chart': 'loc-toy', 'data-n': last?.n ?? 0 });
  box.append(fig);
  container.replaceChildren(box);
}
