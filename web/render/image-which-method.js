// image-which-method.js — "Which method?" for a photo: every map of the Images tab ranked by its deletion and
// insertion AUC (RISE's protocol) on this photo and class. Drawing only.
//
// Contract:
//   renderWhichMethod(container, measures, { labelOf, classLabel, note })
//     measures: curveMeasures(...) ({method: {deletion_auc, insertion_auc}}, analysis/which-method.js).
//     A verdict (p.which-line: the most faithful map by deletion and by insertion, and how many maps beat the random
//     map by each), then a table ranked by deletion (tr[data-method] with td.rank[data-kind=deletion|insertion] and
//     td.auc[data-kind][data-value]), the best of each column in bold, the random map's row as the baseline; a line
//     (p.which-same, data-groups: JSON [[method, …], …]) naming the groups of maps whose AUCs agree to 4 decimals
//     (linked pairs joined, each group once); `note` (e.g. what was cancelled or left out) under it. With no measures:
//     a short note.
import { el, fmt } from './dom.js';
import { rankMethods, IMAGE_METRICS } from '../analysis/which-method.js';

export function renderWhichMethod(container, measures, { labelOf = (m) => m, classLabel = '', note = '' } = {}) {
  container.replaceChildren();
  if (!Object.keys(measures).length) {
    container.append(el('p', 'panel-state', 'No map could be scored on this photo.'));
    return;
  }
  const del = rankMethods(measures, 'deletion', IMAGE_METRICS);
  const ins = rankMethods(measures, 'insertion', IMAGE_METRICS);
  const sentence = (r, kind, what) => {
    if (!r.best) return `No map has a ${kind} curve.`;
    const vsRandom = r.random && Number.isFinite(r.random.value)
      ? ` ${r.beatRandom} of ${r.scored} maps beat the random map (${fmt(r.random.value, 3)}).` : '';
    return `By ${kind}, ${labelOf(r.best.measure)} is the most faithful (${what}; AUC ${fmt(r.best.value, 3)}).${vsRandom}`;
  };
  const box = el('div', 'which-method');
  const head = el('div', 'which-head');
  head.append(el('strong', null, 'Which method? '), el('span', null, 'ranked on this photo by deletion ↓ and insertion ↑'));
  box.append(head, el('p', 'which-line',
    `On this photo${classLabel ? `, for “${classLabel}”` : ''}: ` +
      `${sentence(del, 'deletion', 'greying its top pixels first makes the probability fall fastest')} ` +
      `${sentence(ins, 'insertion', 'restoring its top pixels first makes the probability rise fastest')}`));

  const rank = { deletion: new Map(del.ranked.map((x) => [x.measure, x.rank])), insertion: new Map(ins.ranked.map((x) => [x.measure, x.rank])) };
  const finite = (kind) => Object.values(measures).map((m) => m[`${kind}_auc`]).filter(Number.isFinite);
  const best = { deletion: Math.min(...finite('deletion')), insertion: Math.max(...finite('insertion')) };
  const table = el('table', 'data-table which-table');
  const thead = el('thead');
  const cols = el('tr');
  cols.append(el('th', null, 'map', { scope: 'col' }),
    el('th', 'num', 'deletion AUC ↓', { scope: 'col', title: 'area under the deletion curve: lower is more faithful' }),
    el('th', 'num rank', '#', { scope: 'col', title: 'rank by deletion' }),
    el('th', 'num', 'insertion AUC ↑', { scope: 'col', title: 'area under the insertion curve: higher is more faithful' }),
    el('th', 'num rank', '#', { scope: 'col', title: 'rank by insertion' }));
  thead.append(cols);
  const tbody = el('tbody');
  for (const { measure } of del.ranked) {
    const tr = el('tr', measure === 'random' ? 'baseline' : null, null, { 'data-method': measure });
    tr.append(el('th', null, labelOf(measure), { scope: 'row' }));
    for (const kind of ['deletion', 'insertion']) {
      const v = measures[measure][`${kind}_auc`];
      tr.append(el('td', 'num auc' + (v === best[kind] ? ' best' : ''), fmt(v, 4), { 'data-kind': kind, 'data-value': String(v) }),
        el('td', 'num rank', String(rank[kind].get(measure) ?? '–'), { 'data-kind': kind }));
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  box.append(table);
  // Maps that score alike to the shown digits (e.g. CAM and Grad-CAM on a network whose last layer feeds a pooled
  // linear head) get ranks 1 and 2 by a difference the table cannot show: say so.
  // Grouped: maps linked by such agreements form one group (named once, in rank order), not every pair.
  const order = del.ranked.map((x) => x.measure);
  const group = order.map((_, i) => i);
  const root = (i) => (group[i] === i ? i : (group[i] = root(group[i])));
  for (let i = 0; i < order.length; i++)
    for (let j = i + 1; j < order.length; j++) {
      const a = measures[order[i]], b = measures[order[j]];
      if (['deletion_auc', 'insertion_auc'].every((k) => Math.abs(a[k] - b[k]) < 5e-5)) group[root(j)] = root(i);
    }
  const groups = new Map();
  order.forEach((m, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), m]));
  const same = [...groups.values()].filter((g) => g.length > 1);
  const names = (g) => g.map(labelOf).reduce((t, n, k) => (k === 0 ? n : `${t}${k === g.length - 1 ? ' and ' : ', '}${n}`), '');
  if (same.length) {
    box.append(el('p', 'chart-caption which-same', `${same.map(names).join('; ')} score the same to 4 decimals: their maps put the pixels in nearly the same order.`,
      { 'data-groups': JSON.stringify(same) }));
  }
  if (note) box.append(el('p', 'chart-caption', note));
  container.append(box);
}
