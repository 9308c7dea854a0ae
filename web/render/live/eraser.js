// live/eraser.js — draws one ERASER row (DeYoung et al. 2020) for a typed sentence: comprehensiveness and
// sufficiency per importance measure at k = 1, 5, 10, 20, 50 % of the tokens, with their AOPC — and "Which method?":
// the methods ranked on this sentence by the chosen metric.
//
// Contract:
//   renderEraser(body, row)  row = {measures: {NAME: {comprehensiveness:[5], sufficiency:[5],
//     aopc_comprehensiveness, aopc_sufficiency}}, rationale_size?: [5]}.
//   First a verdict (.which-method: the most faithful method on this sentence by the metric, and how many methods
//   beat random) with a metric switch (.which-metric button[data-metric], aria-pressed; kept across sentences), then
//   the AOPC table ranked by that metric (tr[data-measure] with td.rank, then td.aopc: comprehensiveness then
//   sufficiency), the best of each kind in bold (highest comprehensiveness, lowest sufficiency); under it, in a
//   <details>, the values per rationale size: a row per (measure, k) (tr[data-measure][data-k], td[data-kind]). Both
//   narrow, so they fit the panel at any width. Measures the page does not know are shown under their key.
import { el, fmt } from '../dom.js';
import { ERASER_MEASURES, label } from '../../experiments-info.js';
import { rankMethods } from '../../analysis/which-method.js';

const K = [1, 5, 10, 20, 50];
let metric = 'comprehensiveness'; // the reader's choice, kept across sentences

// "Which method?": the verdict on this sentence and the metric switch; onSwitch redraws.
function verdict(measures, onSwitch) {
  const r = rankMethods(measures, metric);
  const box = el('div', 'which-method');
  const head = el('div', 'which-head');
  head.append(el('strong', null, 'Which method? '), el('span', null, 'Rank by '));
  const sw = el('span', 'which-metric', undefined, { role: 'group', 'aria-label': 'rank the methods by' });
  for (const [m, text] of [['comprehensiveness', 'comprehensiveness ↑'], ['sufficiency', 'sufficiency ↓']]) {
    const b = el('button', 'scale-btn', text, { type: 'button', 'data-metric': m, 'aria-pressed': String(m === metric) });
    b.addEventListener('click', () => { metric = m; onSwitch(m); });
    sw.append(b);
  }
  head.append(sw);
  const what = metric === 'comprehensiveness' ? 'removing its top words hurts the prediction most'
    : 'its top words alone keep the prediction best';
  const line = r.best
    ? `On this sentence ${label(r.best.measure)} is the most faithful (${what}; AOPC ${fmt(r.best.value, 3)}). ` +
      (r.random ? `${r.beatRandom} of ${r.scored} methods beat random (${fmt(r.random.value, 3)}).` : '')
    : 'No method could be scored on this sentence.';
  box.append(head, el('p', 'which-line', line));
  return { box, ranked: r.ranked };
}

export function renderEraser(body, row) {
  const measures = row.measures && typeof row.measures === 'object' ? row.measures : {};
  const given = [...ERASER_MEASURES.filter((m) => m in measures), ...Object.keys(measures).filter((m) => !ERASER_MEASURES.includes(m))];
  const ordered = Object.fromEntries(given.map((m) => [m, measures[m]]));
  // The redraw replaces the switch: the focus goes back to the button pressed (a keyboard user stays on it).
  const which = verdict(ordered, (m) => {
    renderEraser(body, row);
    body.querySelector(`.which-metric button[data-metric="${m}"]`)?.focus();
  });
  const rankOf = new Map(which.ranked.map((x) => [x.measure, x.rank]));
  const keys = which.ranked.map((x) => x.measure);
  const sizes = Array.isArray(row.rationale_size) ? row.rationale_size : [];

  const aopcC = keys.map((m) => measures[m]?.aopc_comprehensiveness).filter(Number.isFinite);
  const aopcS = keys.map((m) => measures[m]?.aopc_sufficiency).filter(Number.isFinite);
  const bestC = aopcC.length ? Math.max(...aopcC) : NaN;
  const bestS = aopcS.length ? Math.min(...aopcS) : NaN;

  // The AOPCs (the papers' numbers): a row per measure, two columns — narrow enough for any card.
  const table = el('table', 'data-table eraser-table');
  const thead = el('thead');
  const head = el('tr');
  head.append(el('th', 'num rank', '#', { scope: 'col', title: `rank by ${metric}` }), el('th', null, 'measure', { scope: 'col' }),
    el('th', 'num aopc', 'AOPC compre\u00adhensive\u00adness ↑', { scope: 'col', title: 'the drop without the top k % tokens, averaged over k' }),
    el('th', 'num aopc', 'AOPC suffi\u00adciency ↓', { scope: 'col', title: 'the drop with only the top k % tokens, averaged over k' }));
  thead.append(head);
  const tbody = el('tbody');
  for (const m of keys) {
    const v = measures[m] ?? {};
    const tr = el('tr', m === 'random' ? 'baseline' : null, null, { 'data-measure': m });
    tr.append(el('td', 'num rank', rankOf.get(m) ?? '–'), el('th', null, label(m), { scope: 'row' }));
    for (const [aopc, best] of [[v.aopc_comprehensiveness, bestC], [v.aopc_sufficiency, bestS]]) {
      const td = el('td', 'num aopc' + (aopc === best ? ' best' : ''), fmt(aopc, 3));
      td.dataset.value = String(aopc);
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);

  // Per rationale size: a row per (measure, k) — four narrow columns instead of thirteen.
  const perK = el('table', 'data-table compact eraser-k-table');
  const kh = el('tr');
  kh.append(el('th', null, 'measure', { scope: 'col' }), el('th', 'num', 'top k', { scope: 'col' }),
    el('th', 'num', 'compre\u00adhensive\u00adness ↑', { scope: 'col' }), el('th', 'num', 'suffi\u00adciency ↓', { scope: 'col' }));
  const kHead = el('thead');
  kHead.append(kh);
  const kBody = el('tbody');
  for (const m of keys) {
    const v = measures[m] ?? {};
    K.forEach((k, i) => {
      const tr = el('tr', i === 0 ? 'group-start' : null, null, { 'data-measure': m, 'data-k': k });
      if (i === 0) tr.append(el('th', null, label(m), { scope: 'rowgroup', rowspan: K.length }));
      const kc = el('td', 'num', `${k}\u00a0%`);
      if (sizes[i] !== undefined) kc.append(el('span', 'chance', `${sizes[i]} token${sizes[i] === 1 ? '' : 's'}`));
      const c = Array.isArray(v.comprehensiveness) ? v.comprehensiveness[i] : NaN;
      const su = Array.isArray(v.sufficiency) ? v.sufficiency[i] : NaN;
      tr.append(kc, el('td', 'num', fmt(c, 3), { 'data-kind': 'comprehensiveness', 'data-value': c }),
        el('td', 'num', fmt(su, 3), { 'data-kind': 'sufficiency', 'data-value': su }));
      kBody.append(tr);
    });
  }
  perK.append(kHead, kBody);
  const details = el('details', 'eraser-k');
  details.append(el('summary', null, `Per rationale size (k = ${K.map((k) => `${k}\u00a0%`).join(', ')})`), perK);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  const note = sizes.length
    ? `Rationale sizes for this sentence: ${K.map((k, i) => `${k}\u00a0%\u00a0→\u00a0${sizes[i]}`).join(', ')} token(s). ` +
      'Values are drops in the predicted class’s probability; “< 0.001” is a drop smaller than 0.001. AOPC: the mean over the five k. Bold: the most faithful AOPC of each kind. ' +
      'Signed methods (integrated gradients, AttnLRP, CP-LRP, attention × gradient) put their most positive words first.'
    : 'Bold: the most faithful AOPC of each kind.';
  body.replaceChildren(which.box, wrap, details, el('p', 'panel-foot', note));
}
