// live/eraser.js — draws one ERASER row (DeYoung et al. 2020) for a typed sentence: comprehensiveness and
// sufficiency per importance measure at k = 1, 5, 10, 20, 50 % of the tokens, with their AOPC.
//
// Contract:
//   renderEraser(body, row)  row = {measures: {NAME: {comprehensiveness:[5], sufficiency:[5],
//     aopc_comprehensiveness, aopc_sufficiency}}, rationale_size?: [5]}.
//   One table: a row per measure (data-measure), the best AOPC of each kind in bold (highest
//   comprehensiveness, lowest sufficiency). Measures the page does not know are shown under their key.
import { el, fmt } from '../dom.js';
import { ERASER_MEASURES, label } from '../../experiments-info.js';

const K = [1, 5, 10, 20, 50];

export function renderEraser(body, row) {
  const measures = row.measures && typeof row.measures === 'object' ? row.measures : {};
  const keys = [...ERASER_MEASURES.filter((m) => m in measures), ...Object.keys(measures).filter((m) => !ERASER_MEASURES.includes(m))];
  const sizes = Array.isArray(row.rationale_size) ? row.rationale_size : [];

  const table = el('table', 'data-table eraser-table');
  const thead = el('thead');
  const top = el('tr');
  top.append(el('th', null, ''), el('th', 'group', 'comprehensiveness ↑ (drop without the top k\u00a0%)', { colspan: K.length + 1, scope: 'colgroup' }),
    el('th', 'group', 'sufficiency ↓ (drop with only the top k\u00a0%)', { colspan: K.length + 1, scope: 'colgroup' }));
  const sub = el('tr');
  sub.append(el('th', null, 'measure', { scope: 'col' }));
  for (let g = 0; g < 2; g++) {
    K.forEach((k, i) => {
      const th = el('th', 'num', `${k}\u00a0%`, { scope: 'col' });
      if (sizes[i] !== undefined) th.title = `${sizes[i]} token${sizes[i] === 1 ? '' : 's'}`;
      sub.append(th);
    });
    sub.append(el('th', 'num aopc', 'AOPC', { scope: 'col' }));
  }
  thead.append(top, sub);

  const aopcC = keys.map((m) => measures[m]?.aopc_comprehensiveness).filter(Number.isFinite);
  const aopcS = keys.map((m) => measures[m]?.aopc_sufficiency).filter(Number.isFinite);
  const bestC = aopcC.length ? Math.max(...aopcC) : NaN;
  const bestS = aopcS.length ? Math.min(...aopcS) : NaN;

  const tbody = el('tbody');
  for (const m of keys) {
    const v = measures[m] ?? {};
    const tr = el('tr', null, null, { 'data-measure': m });
    const th = el('th', null, label(m));
    th.scope = 'row';
    tr.append(th);
    for (const [arr, aopc, best] of [[v.comprehensiveness, v.aopc_comprehensiveness, bestC], [v.sufficiency, v.aopc_sufficiency, bestS]]) {
      K.forEach((_, i) => tr.append(el('td', 'num', fmt(Array.isArray(arr) ? arr[i] : NaN, 3))));
      const td = el('td', 'num aopc' + (aopc === best ? ' best' : ''), fmt(aopc, 3));
      td.dataset.value = String(aopc);
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  const note = sizes.length
    ? `Rationale sizes for this sentence: ${K.map((k, i) => `${k}\u00a0%\u00a0→\u00a0${sizes[i]}`).join(', ')} token(s). ` +
      'Values are drops in the predicted class’s probability; “< 0.001” is a drop smaller than 0.001. Bold: the most faithful AOPC of each kind.'
    : 'Bold: the most faithful AOPC of each kind.';
  body.replaceChildren(wrap, el('p', 'panel-foot', note));
}
