// debate-figures.js — the paper-style figure of a data-set run, one per experiment, drawn with Observable
// Plot from the rows (so it can grow while the run goes on).
//
// Contract:
//   hasFigure(name)                              → true when `name` has a figure here
//   renderDebateFigure(container, name, rows, { classNames, width, eraserRows })
//     Replaces the container's children with the figure(s) for experiment `name`:
//       conicity          histogram of the hidden states' conicity per sentence, stacked by class, on [0, 1]
//       impermissible     histogram of the attention mass on the impermissible words (sentences that have one), stacked
//                         by whether deleting them changes the prediction
//       kendall           τ histograms (attention–gradient, attention–leave-one-out), stacked by class; with the
//                         later readings (rows' `readings`), a dot chart of each reading's mean τ against both (and
//                         against attention)
//       adversarial       histogram of the max JSD per sentence, stacked by class, on [0, ln 2]
//       permutation       scatter: median |Δŷ| vs max attention, per class
//       erase-max         scatter: JSD after erasing the top weight vs a random one (log–log, diagonal)
//       erase-until-flip  box plots of the fraction of weights removed before the flip, per ranking (S&S's five, then
//                         the later readings the rows have)
//       eraser            bars: mean AOPC comprehensiveness and sufficiency per measure
//       plausibility      bars: mean token F1 and AUPRC per measure; with eraserRows (an ERASER run of the same
//                         model in this tab) a scatter of plausibility (token F1) vs faithfulness (comprehensiveness)
//       randomization     lines: mean Spearman ρ per randomisation stage, per measure
//       attention-flow    lines: mean Spearman ρ of raw attention / rollout / flow per layer, against blank-out
//                         and against input gradients (Abnar & Zuidema 2020, their Table 1 per layer)
//       head-ablation     bars: accuracy change with each head switched off alone; line: accuracy as heads are
//                         switched off one after another (index order), with the 1-point band (Michel et al. 2019)
//     Each chart is a .chart element with data-chart=<id> and data-n = the number of records drawn.
//     With no usable rows yet it shows a short note instead. Throws only when Plot is missing.
import { compact, pow10 } from '../analysis/format.js';
import { el } from './dom.js';
import { getPlot, baseOptions, classColor, measureColor } from './plot-lib.js';
import { histogram } from '../analysis/histogram.js';
import {
  kendallRecords, kendallReadingMeans, valueRecords, pointRecords, rankingKeys, flipRecords, flipRates, eraserMeans, plausibilityMeans,
  randomizationMeans, flowMeans, headAblation, FLOW_TARGETS, usedRows,
} from '../analysis/figure-data.js';
import { JSD_MAX, RANKINGS, ERASER_MEASURES, label } from '../experiments-info.js';

const FLOOR = 1e-7; // log axes: smaller divergences are drawn at this value
const intTicks = (d) => (Number.isInteger(d) ? String(d) : ''); // count axes: no 0.5 sentences

function className(names, c) {
  return c === null || c === undefined ? 'unknown' : (names[c] ?? `class ${c}`);
}

// Per-class histograms of `records` ({value, cls}), stacked, with precomputed bins.
function classHistogram(Plot, records, { domain, bins = 20, names, width, xLabel, title, rules = [] }) {
  const classes = [...new Set(records.map((r) => r.cls))].sort((a, b) => (a ?? -1) - (b ?? -1));
  const data = [];
  for (const c of classes) {
    const { bins: b } = histogram(records.filter((r) => r.cls === c).map((r) => r.value), { domain, bins });
    for (const x of b) data.push({ ...x, cls: className(names, c) });
  }
  const present = classes.map((c) => className(names, c));
  return Plot.plot({
    ...baseOptions(width),
    height: 240,
    title,
    x: { label: xLabel, domain },
    y: { label: '↑ sentences', grid: true, tickFormat: intTicks },
    color: classColor(present.length ? present : names),
    marks: [
      // stacked by class (Plot's rectY stacks): the bar height is the count over all classes
      Plot.rectY(data, { x1: 'x0', x2: 'x1', y: 'count', fill: 'cls', fillOpacity: 0.7, inset: 0.5,
        title: (d) => `${d.cls}: ${d.count} in [${d.x0.toFixed(3)}, ${d.x1.toFixed(3)})` }),
      Plot.ruleY([0]),
      ...rules,
    ],
  });
}

function chart(id, n, figure, caption) {
  const box = el('div', 'chart', null, { 'data-chart': id, 'data-n': n });
  box.append(figure);
  if (caption) box.append(el('p', 'chart-caption', caption));
  return box;
}

const halfWidth = (width) => Math.max(300, Math.floor((width - 16) / 2));

// One horizontal bar per measure (means: [{name, n, [field]}]), its value written at the bar's end.
function measureBars(Plot, means, field, { title, xLabel, width }) {
  const shown = means.filter((m) => Number.isFinite(m[field]));
  return Plot.plot({
    ...baseOptions(width),
    height: 60 + 34 * Math.max(1, shown.length),
    marginLeft: 140,
    marginRight: 52,
    title,
    x: { label: xLabel, grid: true, nice: true },
    y: { label: null, domain: shown.map((m) => m.name) },
    color: { ...measureColor(shown.map((m) => m.measure ?? m.name), label), legend: false }, // the y axis names the measures
    marks: [
      Plot.barX(shown, { x: field, y: 'name', fill: 'name', title: (d) => `${d.name}: ${d[field].toFixed(4)} (n = ${d.n})` }),
      Plot.ruleX([0]),
      Plot.text(shown, { x: field, y: 'name', text: (d) => d[field].toFixed(3), dx: 4, textAnchor: 'start' }),
    ],
  });
}

const FIGURES = {
  // Mohankumar et al. 2020: how parallel the hidden states are, per sentence.
  conicity(Plot, rows, { names, width }) {
    const recs = valueRecords(rows, 'conicity');
    const fig = classHistogram(Plot, recs, {
      domain: [0, 1], names, width, xLabel: 'conicity (1 = all parallel) →',
    });
    return [chart('conicity', recs.length, fig)];
  },

  // Pruthi et al. 2020: the attention mass on the impermissible words, where a sentence has one, by whether deleting
  // them changes the prediction.
  impermissible(Plot, rows, { width }) {
    const split = ['prediction unchanged', 'prediction changes'];
    const recs = usedRows(rows).filter((r) => Number(r.impermissible_tokens) > 0 && Number.isFinite(r.attention_mass))
      .map((r) => ({ value: r.attention_mass, cls: r.changed ? 1 : 0 }));
    const fig = classHistogram(Plot, recs, {
      domain: [0, 1], names: split, width, xLabel: 'attention on those words →',
    });
    return [chart('impermissible', recs.length, fig, 'Colour: whether deleting those words changes the prediction.')];
  },

  kendall(Plot, rows, { names, width }) {
    const recs = kendallRecords(rows);
    const half = Math.max(300, Math.floor((width - 16) / 2));
    const charts = ['gradient', 'leave_one_out'].map((m) => {
      const mine = recs.filter((r) => r.measure === m).map((r) => ({ value: r.tau, cls: r.cls }));
      const fig = classHistogram(Plot, mine, {
        domain: [-1, 1], names, width: half, xLabel: `Kendall τ (attention vs ${label(m)}) →`,
        title: `Attention vs ${label(m)}`, rules: [Plot.ruleX([0], { stroke: '#888', strokeDasharray: '3,3' })],
      });
      return chart(`kendall-${m}`, mine.length, fig);
    });
    const means = kendallReadingMeans(rows);
    if (!means.length) return charts;
    const readings = [...new Set(means.map((d) => label(d.reading)))];
    const pts = means.map((d) => ({ ...d, name: label(d.reading), vs: `vs ${label(d.against)}` }));
    const fig = Plot.plot({
      ...baseOptions(width),
      height: 70 + 26 * readings.length,
      marginLeft: 230,
      title: 'Each later reading in attention’s place: mean τ',
      x: { label: 'mean Kendall τ against the gradient / leave-one-out importance →', domain: [-1, 1], grid: true },
      y: { label: null, domain: readings },
      color: { legend: true, domain: ['vs gradient', 'vs leave-one-out', 'vs attention'], range: ['#5b3fa0', '#1b9e77', '#999999'] },
      marks: [
        Plot.ruleX([0], { stroke: '#888', strokeDasharray: '3,3' }),
        Plot.dot(pts, { x: 'tau', y: 'name', fill: 'vs', r: 5,
          title: (d) => `${d.name} ${d.vs}: mean τ ${d.tau.toFixed(3)} over ${d.n} sentences` }),
      ],
    });
    charts.push(chart('kendall-readings', pts.length, fig,
      'Attention (first) beside the explanations that came after the debate, each ranking the tokens by its size |value|; grey: how each agrees with attention itself.'));
    return charts;
  },

  adversarial(Plot, rows, { names, width }) {
    const recs = valueRecords(rows, 'max_jsd');
    const fig = classHistogram(Plot, recs, {
      domain: [0, JSD_MAX], names, width, xLabel: 'max JSD between the model’s and an adversarial attention (output within ε) →',
      rules: [
        Plot.ruleX([JSD_MAX], { stroke: '#b2182b', strokeDasharray: '4,3' }),
        Plot.text([JSD_MAX], { x: (d) => d, frameAnchor: 'top', textAnchor: 'end', dx: -4, text: () => 'ln 2 (max)', fill: '#b2182b' }),
      ],
    });
    return [chart('adversarial', recs.length, fig)];
  },

  permutation(Plot, rows, { names, width }) {
    const pts = pointRecords(rows, 'max_attention', 'median_delta').map((p) => ({ ...p, cls: className(names, p.cls) }));
    const fig = Plot.plot({
      ...baseOptions(width),
      height: 300,
      x: { label: 'largest attention weight of the sentence →', domain: [0, 1], grid: true },
      y: { label: '↑ median |Δŷ| over 100 permutations', grid: true, nice: true, zero: true },
      color: classColor([...new Set(pts.map((p) => p.cls))].sort()),
      marks: [
        Plot.ruleY([0]),
        Plot.dot(pts, { x: 'x', y: 'y', stroke: 'cls', r: 2.5, strokeOpacity: 0.7, title: (d) => `max α ${d.x.toFixed(3)}, median |Δŷ| ${compact(d.y)}` }),
      ],
    });
    return [chart('permutation', pts.length, fig)];
  },

  'erase-max'(Plot, rows, { width }) {
    const pts = pointRecords(rows, 'jsd_random', 'jsd_max').map((p) => ({ x: Math.max(p.x, FLOOR), y: Math.max(p.y, FLOOR) }));
    const lo = FLOOR;
    const hi = JSD_MAX;
    const side = Math.min(width, 520);
    const ticks = [1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1];
    const tickFormat = (d) => pow10(d);
    const fig = Plot.plot({
      ...baseOptions(side),
      height: side - 40,
      x: { type: 'log', label: 'JSD after erasing a random weight →', domain: [lo, hi], ticks, tickFormat, grid: true },
      y: { type: 'log', label: '↑ JSD after erasing the top weight', domain: [lo, hi], ticks, tickFormat, grid: true },
      marks: [
        Plot.line([[lo, lo], [hi, hi]], { stroke: '#888', strokeDasharray: '4,3' }),
        Plot.dot(pts, { x: 'x', y: 'y', stroke: '#5b3fa0', r: 2.5, strokeOpacity: 0.7, title: (d) => `top ${compact(d.y)}, random ${compact(d.x)}` }),
      ],
    });
    return [chart('erase-max', pts.length, fig, `Values below ${pow10(FLOOR)} are drawn at ${pow10(FLOOR)}. Dashed: top = random.`)];
  },

  'erase-until-flip'(Plot, rows, { width }) {
    const keys = rankingKeys(rows, RANKINGS);
    const recs = flipRecords(rows, keys).map((r) => ({ ...r, ranking: label(r.ranking) }));
    const rates = flipRates(rows, keys);
    const fig = Plot.plot({
      ...baseOptions(width),
      height: 60 + (keys.length > 6 ? 30 : 44) * Math.max(1, keys.length),
      marginLeft: 230,
      x: { label: 'fraction of attention weights removed before the decision flips →', domain: [0, 1], grid: true, tickFormat: '.0%' },
      y: { label: null, domain: keys.map(label) },
      color: { ...measureColor(keys, label), legend: false }, // the y axis names the rankings
      marks: [Plot.boxX(recs, { x: 'fraction', y: 'ranking', fill: 'ranking', fillOpacity: 0.35, stroke: 'ranking', r: 1.5 })],
    });
    const caption = 'Flip rate (sentences whose decision flips at all): ' +
      keys.map((k) => `${label(k)} ${Number.isFinite(rates[k].flip_rate) ? (rates[k].flip_rate * 100).toFixed(0) + ' %' : 'n/a'}`).join(' · ') +
      '. A sentence that never flips counts as fraction 1.';
    return [chart('erase-until-flip', recs.length, fig, caption)];
  },

  eraser(Plot, rows, { width }) {
    const means = eraserMeans(rows, ERASER_MEASURES).map((m) => ({ ...m, name: label(m.measure) }));
    const bars = (field, title, xLabel) => measureBars(Plot, means, field, { title, xLabel, width: halfWidth(width) });
    return [
      chart('eraser-comprehensiveness', means.length, bars('aopc_comprehensiveness', 'Comprehensiveness (higher = more faithful)', 'mean AOPC comprehensiveness →')),
      chart('eraser-sufficiency', means.length, bars('aopc_sufficiency', 'Sufficiency (lower = more faithful)', 'mean AOPC sufficiency →')),
    ];
  },

  plausibility(Plot, rows, { width, eraserRows }) {
    const means = plausibilityMeans(rows, ERASER_MEASURES).map((m) => ({ ...m, name: label(m.measure) }));
    const bars = (field, title, xLabel) => measureBars(Plot, means, field, { title, xLabel, width: halfWidth(width) });
    const charts = [
      chart('plausibility-token-f1', means.length, bars('token_f1', 'Token F1 at top-k (higher = more plausible)', 'mean token F1 →')),
      chart('plausibility-auprc', means.length, bars('auprc', 'AUPRC (higher = more plausible)', 'mean AUPRC →')),
    ];
    const faith = new Map(eraserMeans(eraserRows ?? [], ERASER_MEASURES).map((m) => [m.measure, m]));
    const pts = means.filter((m) => faith.has(m.measure)).map((m) => ({
      measure: m.measure, name: m.name, x: faith.get(m.measure).aopc_comprehensiveness, y: m.token_f1, nx: faith.get(m.measure).n, ny: m.n,
    })).filter((d) => Number.isFinite(d.x) && Number.isFinite(d.y));
    if (!pts.length) {
      charts.push(chart('plausibility-vs-faithfulness', 0, el('p', 'chart-note',
        'Plausibility vs faithfulness: run ERASER on the same model in this tab (any number of sentences), then this run again, to place each measure on both axes.')));
      return charts;
    }
    const fig = Plot.plot({
      ...baseOptions(width),
      height: 300,
      title: 'Plausibility vs faithfulness, per measure',
      x: { label: 'faithfulness: mean ERASER AOPC comprehensiveness →', grid: true, nice: true },
      y: { label: '↑ plausibility: mean token F1 against the human rationale', grid: true, nice: true },
      color: { ...measureColor(pts.map((d) => d.measure), label), legend: false }, // each dot is labelled
      marks: [
        Plot.dot(pts, { x: 'x', y: 'y', fill: 'name', r: 6,
          title: (d) => `${d.name}: comprehensiveness ${d.x.toFixed(3)} (n = ${d.nx}), token F1 ${d.y.toFixed(3)} (n = ${d.ny})` }),
        Plot.text(pts, { x: 'x', y: 'y', text: 'name', dx: 9, textAnchor: 'start' }),
      ],
    });
    const nx = Math.max(...pts.map((d) => d.nx));
    charts.push(chart('plausibility-vs-faithfulness', pts.length, fig,
      `Each measure once: x from this tab's latest ERASER run on the model (${nx} sentences), y from this run (${means[0]?.n ?? 0} sentences with a human rationale). ` +
      'A measure can be faithful without being plausible, and the other way round (Jacovi & Goldberg 2020).'));
    return charts;
  },

  randomization(Plot, rows, { width }) {
    const recs = randomizationMeans(rows).filter((r) => Number.isFinite(r.spearman)).map((r) => ({ ...r, name: label(r.measure) }));
    const stages = [...new Map(recs.map((r) => [r.stageIndex, r.stage])).entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    const keys = [...new Set(recs.map((r) => r.measure))];
    const fig = Plot.plot({
      ...baseOptions(width),
      height: 280,
      x: { label: 'layers randomised, from the top →', domain: stages, type: 'point', padding: 0.3 },
      y: { label: '↑ mean Spearman ρ with the trained model’s explanation', domain: [-0.2, 1], grid: true },
      color: measureColor(keys, label),
      marks: [
        Plot.ruleY([0]),
        Plot.line(recs, { x: 'stage', y: 'spearman', stroke: 'name', strokeWidth: 2 }),
        Plot.dot(recs, { x: 'stage', y: 'spearman', fill: 'name', r: 3.5 }),
      ],
    });
    return [chart('randomization', recs.length, fig)];
  },

  'attention-flow'(Plot, rows, { width }) {
    const recs = flowMeans(rows).map((r) => ({ ...r, name: FLOW_LABELS[r.map] }));
    const layers = Math.max(1, ...recs.map((r) => r.layer));
    return FLOW_TARGETS.map((against) => {
      const mine = recs.filter((r) => r.against === against);
      const fig = Plot.plot({
        ...baseOptions(halfWidth(width)),
        height: 260,
        title: `Against ${FLOW_AGAINST[against]}`,
        x: { label: 'layer →', domain: Array.from({ length: layers }, (_, i) => i + 1), type: 'point', padding: 0.4 },
        y: { label: '↑ mean Spearman ρ', domain: [-0.2, 1], grid: true },
        color: { domain: Object.values(FLOW_LABELS), range: ['#7b3294', '#1b7837', '#e08214'], legend: true },
        marks: [
          Plot.ruleY([0]),
          Plot.line(mine, { x: 'layer', y: 'rho', stroke: 'name', strokeWidth: 2 }),
          Plot.dot(mine, { x: 'layer', y: 'rho', fill: 'name', r: 4, title: (d) => `${d.name}, layer ${d.layer}: ρ = ${d.rho.toFixed(3)} (n = ${d.n})` }),
        ],
      });
      return chart(`attention-flow-${against}`, mine.length, fig);
    });
  },

  'head-ablation'(Plot, rows, { width }) {
    const { n, base, single, curve } = headAblation(rows);
    if (!n) return [chart('head-ablation-single', 0, el('p')), chart('head-ablation-curve', 0, el('p'))];
    const bars = Plot.plot({
      ...baseOptions(halfWidth(width)),
      height: 60 + 26 * single.length,
      marginLeft: 70,
      title: 'One head off at a time',
      x: { label: 'accuracy change (points) →', grid: true, nice: true },
      y: { label: 'layer.head', domain: single.map((d) => d.head) },
      marks: [
        Plot.barX(single, { x: (d) => 100 * d.change, y: 'head', fill: (d) => (d.change < -0.01 ? '#b2182b' : '#8c96c6'),
          title: (d) => `head ${d.head} off: accuracy ${(100 * d.accuracy).toFixed(1)} % (${(100 * d.change).toFixed(1)} points)` }),
        Plot.ruleX([0]),
        Plot.ruleX([-1], { stroke: '#888', strokeDasharray: '3,3' }),
      ],
    });
    const line = Plot.plot({
      ...baseOptions(halfWidth(width)),
      height: 260,
      title: 'Heads switched off one after another',
      x: { label: 'heads switched off (index order: 1.1, 1.2, …) →', grid: true, tickFormat: intTicks },
      y: { label: '↑ accuracy (%)', grid: true, nice: true },
      marks: [
        Plot.rectY([0], { x1: 0, x2: curve.at(-1).removed, y1: 100 * base - 1, y2: 100 * base, fill: '#1b7837', fillOpacity: 0.12 }),
        Plot.line(curve, { x: 'removed', y: (d) => 100 * d.accuracy, stroke: '#3f007d', strokeWidth: 2 }),
        Plot.dot(curve, { x: 'removed', y: (d) => 100 * d.accuracy, fill: '#3f007d', r: 3.5,
          title: (d) => `${d.removed} heads off: accuracy ${(100 * d.accuracy).toFixed(1)} %` }),
      ],
    });
    return [
      chart('head-ablation-single', single.length, bars, `Red: the head costs more than 1 point of accuracy (n = ${n} sentences).`),
      chart('head-ablation-curve', curve.length, line, 'Green band: within 1 point of the full model. Michel et al. prune the least ' +
        'important heads first: the summary’s suggested order, on the command line with --param order=….'),
    ];
  },
};

const FLOW_LABELS = Object.freeze({ raw: 'raw attention', rollout: 'rollout', flow: 'flow' });
const FLOW_AGAINST = Object.freeze({ blankout: 'blank-out (leave-one-out)', gradient: 'input gradients' });

export function hasFigure(name) {
  return Object.hasOwn(FIGURES, name);
}

export function renderDebateFigure(container, name, rows, { classNames = ['negative', 'positive'], width = 900, eraserRows = null } = {}) {
  if (!hasFigure(name)) {
    container.replaceChildren(el('p', 'chart-note', 'This experiment has no figure on this page yet; the summary numbers and the downloads have everything.'));
    return;
  }
  const Plot = getPlot();
  const charts = FIGURES[name](Plot, rows, { names: classNames, width, eraserRows });
  const total = charts.reduce((a, c) => a + Number(c.dataset.n), 0);
  if (total === 0) {
    container.replaceChildren(el('p', 'chart-note', 'Nothing to draw yet: no sentence with a result so far.'));
    return;
  }
  const grid = el('div', `charts charts-${charts.length}`);
  grid.append(...charts);
  container.replaceChildren(grid);
}
