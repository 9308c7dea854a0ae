// live/kendall.js — draws one kendall row (Jain & Wallace 2019) for one text: Kendall τ between the attention weights
// and (a) the gradient importance, (b) the leave-one-out importance of the same units, each on a −1 … 1 scale.
//
// Contract:
//   renderKendall(body, row)  row = {tau_gradient, p_gradient, tau_loo, p_loo, num_tokens (the units ranked)}.
//   Draws two .stat boxes (data-stat="tau-gradient" | "tau-loo"; .stat-value carries data-value = the exact τ) with a
//   bar from −1 to 1 and the two-sided p-value; τ null / missing (undefined: a constant ranking) shows as 'n/a' with
//   why. Text only through textContent.
import { el, fmt } from '../dom.js';

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
  body.replaceChildren(stats, foot);
}
