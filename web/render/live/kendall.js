// live/kendall.js — draws one kendall row (Jain & Wallace 2019) for one text: Kendall τ between the attention weights
// and (a) the gradient importance, (b) the leave-one-out importance of the same units, each on a −1 … 1 scale.
//
// Contract:
//   renderKendall(body, row)  row = {tau_gradient, p_gradient, tau_loo, p_loo, num_tokens (the units ranked),
//   readings?: {NAME: {tau_gradient, p_gradient, tau_loo, p_loo}}, readings_note?}.
//   Draws two .stat boxes (data-stat="tau-gradient" | "tau-loo"; .stat-value carries data-value = the exact τ) with a
//   bar from −1 to 1 and the two-sided p-value; τ null / missing (undefined: a constant ranking) shows as 'n/a' with
//   why. With readings (the model's later explanations in attention's place: core/experiments/kendall.cpp), a table
//   below: one row per reading (tr[data-reading=NAME]; attention first, for comparison) with its τ against the gradient,
//   against leave-one-out and against attention (td[data-against=gradient|loo|attention] with data-value = the exact
//   τ; * where p < 0.05; attention's own row has none against itself);
//   readings_note (why this text has none) as a line instead. Text only through textContent.
import { el, fmt } from '../dom.js';
import { label } from '../../experiments-info.js';

function scale(tau) {
  const s = el('span', 'tau-scale');
  s.title = 'τ from −1 (opposite rankings) through 0 (unrelated) to 1 (the same ranking)';
  const zero = el('span', 'tau-zero');
  const fill = el('span', 'tau-fill');
  if (Number.isFinite(tau)) {
    const x = Math.max(-1, Math.min(1, tau));
    fill.style.left = `${50 + Math.min(0, x) * 50}%`;
    fill.style.width = `${Math.abs(x) * 50}%`;
    if (x < 0) fill.classList.add('negative');
  }
  s.append(zero, fill);
  return s;
}

function stat(key, tau, p, label) {
  const box = el('div', 'stat', null, { 'data-stat': key });
  const v = el('span', 'stat-value', Number.isFinite(tau) ? fmt(tau, 3) : 'n/a');
  v.dataset.value = String(tau);
  v.title = String(tau);
  const note = el('span', 'stat-note');
  note.append(scale(tau), ' ', Number.isFinite(tau)
    ? `p = ${fmt(p, 3)}${p < 0.05 ? ' (significant at 0.05)' : ''}`
    : 'undefined: one of the two rankings is constant');
  box.append(v, el('span', 'stat-label', label), note);
  return box;
}

function tauCell(against, tau, p) {
  const td = el('td', 'num', Number.isFinite(tau) ? `${fmt(tau, 3)}${p < 0.05 ? ' *' : ''}` : 'n/a', { 'data-against': against });
  td.dataset.value = String(tau);
  td.title = Number.isFinite(tau) ? `τ ${tau}, p = ${p}` : 'undefined: one of the two rankings is constant';
  return td;
}

// The readings beside attention: a table, or the note that says why there are none (null when neither).
function readingsPart(row) {
  const readings = row?.readings && typeof row.readings === 'object' ? Object.entries(row.readings) : [];
  if (!readings.length) return typeof row?.readings_note === 'string' ? el('p', 'panel-foot', `Later readings: none for this text (${row.readings_note}).`) : null;
  const num = (o, k) => (typeof o?.[k] === 'number' ? o[k] : NaN);
  const table = el('table', 'data-table compact');
  const head = el('tr');
  head.append(el('th', null, 'reading'), el('th', 'num', 'grad.', { title: 'τ against the gradient importance' }),
    el('th', 'num', 'LOO', { title: 'τ against the leave-one-out importance' }), el('th', 'num', 'attn.', { title: 'τ against attention' }));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const [name, r] of [['attention', row], ...readings]) {
    const tr = el('tr', name === 'attention' ? 'reference' : null, null, { 'data-reading': name });
    tr.append(el('th', null, label(name)), tauCell('gradient', num(r, 'tau_gradient'), num(r, 'p_gradient')),
      tauCell('loo', num(r, 'tau_loo'), num(r, 'p_loo')),
      name === 'attention' ? el('td', 'num', '–') : tauCell('attention', num(r, 'tau_attention'), num(r, 'p_attention')));
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  const box = el('div', 'kendall-readings');
  box.append(el('p', 'kendall-readings-caption', 'Kendall τ of each reading in attention’s place against the gradient (grad.), leave-one-out (LOO) and attention (attn.):'),
    wrap, el('p', 'panel-foot', 'Jain & Wallace’s test applied to the explanations that came after the debate: each ranks the ' +
    'tokens by its size |value| in attention’s place, against the same gradient and leave-one-out importances (* p < 0.05). ' +
    'Agreement is not faithfulness itself: the Debate tab’s ERASER run measures that.'));
  return box;
}

export function renderKendall(body, row) {
  const num = (k) => (typeof row?.[k] === 'number' ? row[k] : NaN);
  const stats = el('div', 'stats');
  stats.append(
    stat('tau-gradient', num('tau_gradient'), num('p_gradient'), 'τ(attention, gradient)'),
    stat('tau-loo', num('tau_loo'), num('p_loo'), 'τ(attention, leave-one-out)'),
  );
  const n = Number.isInteger(row?.num_tokens) ? row.num_tokens : null;
  const foot = el('p', 'panel-foot', `${n === null ? 'The' : `${n}`} ranked units${n === null ? '' : ' (the tokens not held fixed)'}. ` +
    'τ = 1: attention ranks the tokens as the other measure does; near 0: unrelated. Jain & Wallace report τ around 0.3–0.4 for the BiLSTM on SST.');
  const readings = readingsPart(row);
  body.replaceChildren(...[stats, foot, readings].filter(Boolean));
}
