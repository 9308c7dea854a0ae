// live/erase-max.js — draws one single-weight erasure row (Serrano & Smith 2019) for a typed sentence:
// erasing the highest attention weight vs a random other one, as a two-line table (JSD of the outputs,
// decision flip) with bars on the JSD's own scale up to ln 2.
//
// Contract:
//   renderEraseMax(body, row)  row = {jsd_max, jsd_random, flip_max, flip_random, max_attention,
//     random_attention, tokens?}. The table has rows [data-erased=max|random]; each JSD cell carries
//   data-value. A one-line verdict says which erasure moved the output more (and by how much).
import { el, fmt } from '../dom.js';
import { JSD_MAX } from '../../experiments-info.js';

function bar(v) {
  const b = el('span', 'hbar');
  const f = el('span', 'hbar-fill');
  // sqrt scale: small divergences stay visible next to large ones
  f.style.width = `${Math.sqrt(Math.max(0, Math.min(1, (Number(v) || 0) / JSD_MAX))) * 100}%`;
  b.append(f);
  return b;
}

function line(kind, label, weight, jsd, flip) {
  const tr = el('tr', null, null, { 'data-erased': kind });
  const name = el('th', null, label);
  name.scope = 'row';
  const w = el('td', 'num nowrap', fmt(weight, 4));
  const j = el('td', 'num nowrap');
  j.dataset.value = String(jsd);
  j.title = String(jsd);
  j.append(el('span', null, fmt(jsd, 6)), bar(jsd));
  const f = el('td', flip ? 'flip yes' : 'flip', flip === undefined ? 'n/a' : flip ? 'yes' : 'no');
  tr.append(name, w, j, f);
  return tr;
}

export function renderEraseMax(body, row) {
  const table = el('table', 'data-table');
  const head = el('tr');
  for (const h of ['erased weight', 'its α', 'JSD of the outputs', 'flips?']) head.append(el('th', null, h, { scope: 'col' }));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  tbody.append(
    line('max', 'the top weight', row.max_attention, row.jsd_max, row.flip_max),
    line('random', 'a random other', row.random_attention, row.jsd_random, row.flip_random),
  );
  table.append(thead, tbody);

  const a = row.jsd_max;
  const b = row.jsd_random;
  let verdict = '';
  if (Number.isFinite(a) && Number.isFinite(b)) {
    const ratio = b > 0 ? a / b : Infinity;
    if (a > b) {
      verdict = ratio >= 1000
        ? 'Erasing the top weight moved the output more than 1,000× as much as erasing a random one.'
        : `Erasing the top weight moved the output ${ratio.toFixed(1)}× as much as erasing a random one.`;
    }
    else if (a < b) verdict = 'Erasing a random weight moved the output more than erasing the top one.';
    else verdict = 'Both erasures moved the output equally.';
  }
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  body.replaceChildren(wrap, el('p', 'panel-foot', `${verdict} Bars: √ scale up to ln 2 ≈ 0.693.`));
}
