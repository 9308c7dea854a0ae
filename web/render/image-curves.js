// image-curves.js — deletion and insertion curves (RISE protocol) of the maps computed so far, with their AUC,
// drawn with Observable Plot. Drawing only.
//
// Contract:
//   renderCurves(container, runs, { width, labelOf, topProb, classes })
//     runs: [{method, kind: 'deletion' | 'insertion', x: [fractions], y: [probabilities], auc}]
//     Two charts side by side (.chart[data-chart=deletion|insertion], data-n = number of curves, data-y-max = the
//     top of its y axis); one line per method (fixed colour per method; a vision transformer's attention maps
//     dashed), AUC in the legend label ("Grad-CAM — AUC
//     0.123"). Deletion: lower is better; insertion: higher is better (said in the titles). The y axis is scaled
//     to the curves' data (analysis/image-readout.js curveDomain; both charts share it, so they compare), and
//     says so when it stops below 1. With topProb (the model's top probability on the photo) and classes (C):
//     a warning p.curves-uniform when the outputs are near-uniform (nearUniform: top < 2 / C). With no runs: a
//     short note.
import { el } from './dom.js';
import { getPlot, baseOptions } from './plot-lib.js';
import { curveDomain, nearUniform } from '../analysis/image-readout.js';
import { num } from '../analysis/format.js';

export const METHOD_COLORS = Object.freeze({
  cam: '#5b3fa0',
  gradcam: '#e08214',
  gradcampp: '#1b9e77',
  scorecam: '#2166ac',
  rise: '#b2182b',
  occlusion: '#66a61e',
  random: '#8c8c8c',
  // "Your model"'s methods (catalogue.onnx)
  hirescam: '#7570b3',
  xgradcam: '#d95f02',
  layercam: '#e7298a',
  eigencam: '#a6761d',
  gradient: '#666666',
  smoothgrad: '#1f78b4',
  'integrated-gradients': '#33a02c',
  ablationcam: '#17becf',
  'gradient-x-input': '#bcbd22',
  // a vision transformer's attention maps: drawn dashed (DASHED), so they stay apart from the CAM family's colours
  attention: '#1a1a1a',
  rollout: '#b35806',
  chefer: '#542788',
  attnlrp: '#c51b7d',
  'cp-lrp': '#01665e',
});
const DASHED = new Set(['attention', 'rollout', 'chefer', 'attnlrp', 'cp-lrp']);

export function renderCurves(container, runs, { width = 640, labelOf = (m) => m, topProb = NaN, classes = 0 } = {}) {
  if (!runs.length) {
    container.replaceChildren(el('p', 'panel-state', 'No curves yet: pick a method and press “Run deletion + insertion”.'));
    return;
  }
  const Plot = getPlot();
  const boxes = [];
  const domain = curveDomain(runs.flatMap((r) => Array.from(r.y)));
  const w = width > 700 ? Math.floor(width / 2) - 12 : width;
  for (const kind of ['deletion', 'insertion']) {
    const these = runs.filter((r) => r.kind === kind);
    const box = el('div', 'chart', null, { 'data-chart': kind, 'data-n': these.length, 'data-y-max': domain[1] });
    if (!these.length) {
      box.append(el('p', 'panel-state', `No ${kind} curve yet.`));
      boxes.push(box);
      continue;
    }
    const name = (r) => `${labelOf(r.method)} — AUC ${num(r.auc, r.auc >= 0.01 || !(r.auc > 0) ? 3 : 5)}`;
    const data = these.flatMap((r) => r.x.map((x, i) => ({ x, y: r.y[i], series: name(r), dashed: DASHED.has(r.method) })));
    box.append(Plot.plot({
      ...baseOptions(w),
      marginLeft: domain[1] < 0.01 ? 62 : domain[1] < 0.1 ? 54 : 48, // room for the ticks' decimals
      height: 240,
      title: kind === 'deletion' ? 'Deletion (most salient pixels first → grey): lower AUC is better'
        : 'Insertion (most salient pixels first onto a blurred copy): higher AUC is better',
      x: { label: kind === 'deletion' ? 'fraction of pixels deleted →' : 'fraction of pixels inserted →', domain: [0, 1] },
      y: { label: domain[1] < 1 ? `↑ probability of the class (axis to ${num(domain[1], 6).replace(/0+$/, '')}, the data’s range)` : '↑ probability of the class', domain, grid: true },
      color: { domain: these.map(name), range: these.map((r) => METHOD_COLORS[r.method] ?? '#444'), legend: true },
      marks: [Plot.line(data.filter((d) => !d.dashed), { x: 'x', y: 'y', stroke: 'series', strokeWidth: 2 }),
        Plot.line(data.filter((d) => d.dashed), { x: 'x', y: 'y', stroke: 'series', strokeWidth: 2, strokeDasharray: '6,3' }),
        Plot.ruleY([0])],
    }));
    boxes.push(box);
  }
  const wrap = el('div', 'image-curves-grid');
  wrap.append(...boxes);
  const u = nearUniform(topProb, classes);
  container.replaceChildren(...(u ? [el('p', 'message notice curves-uniform', u.text, { 'data-ratio': u.ratio })] : []), wrap);
}
