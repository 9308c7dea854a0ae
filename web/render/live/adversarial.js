// live/adversarial.js — draws one adversarial-attention row (Jain & Wallace 2019) for a typed sentence.
//
// Contract:
//   renderAdversarial(body, row)  row = the core's adversarial row + tokens, unknown, class_names:
//     {max_jsd, found, tvd, attention:[T], adversarial_attention:[T], probabilities:[C],
//      adversarial_probabilities:[C], candidate_jsd:[K], candidate_tvd:[K], predicted, tokens:[T]}.
//   Draws: the JSD (data-stat="jsd"; .stat-value carries data-value = the exact number) against its bound
//   ln 2 ≈ 0.693, Δŷ (TVD of the outputs, data-stat="tvd"), the class probabilities before/after, and the
//   token strip: for every token one column with the model's attention cell above the adversarial cell
//   (.strip-pair > .tok[data-strip=attention] + .tok[data-strip=adversarial]; same colour scale for both).
//   Missing fields show as 'n/a'; text only through textContent.
import { el, fmt } from '../dom.js';
import { sequentialColor, scaleMax } from '../colors.js';
import { JSD_MAX } from '../../experiments-info.js';
import { displayToken, classNamesFor } from '../../analysis/display.js';

const EPSILON = 0.01; // the core's default ε on the TVD of the outputs

function stat(key, value, label, note) {
  const box = el('div', 'stat', null, { 'data-stat': key });
  const v = el('span', 'stat-value', fmt(value, 4));
  v.dataset.value = String(value);
  v.title = String(value);
  box.append(v, el('span', 'stat-label', label));
  if (note) box.append(note);
  return box;
}

function gauge(value) {
  const g = el('span', 'gauge');
  const fill = el('span', 'gauge-fill');
  fill.style.width = `${Math.max(0, Math.min(1, (Number(value) || 0) / JSD_MAX)) * 100}%`;
  g.append(fill);
  g.title = `${fmt(value, 3)} of the maximum ln 2 = 0.693`;
  return g;
}

function cell(tok, value, max, strip, unknown, i, other) {
  const c = el('span', 'tok', displayToken(tok));
  c.dir = 'auto';
  c.dataset.token = tok;
  c.dataset.index = String(i);
  c.dataset.strip = strip;
  c.dataset.value = String(value);
  const col = sequentialColor(max > 0 && Number.isFinite(value) ? value / max : 0);
  c.style.background = col.background;
  c.style.color = col.foreground;
  if (unknown) c.classList.add('unk');
  c.title = `${displayToken(tok)}\n${strip === 'attention' ? 'model attention' : 'adversarial attention'}: ${fmt(value, 4)}\n` +
    `${strip === 'attention' ? 'adversarial' : 'model'}: ${fmt(other, 4)}`;
  return c;
}

function strips(row) {
  const tokens = Array.isArray(row.tokens) ? row.tokens : [];
  const a = Array.isArray(row.attention) ? row.attention : [];
  const b = Array.isArray(row.adversarial_attention) ? row.adversarial_attention : [];
  const max = Math.max(scaleMax(a, false), scaleMax(b, false));
  const box = el('div', 'strip-box');
  const labels = el('div', 'strip-labels');
  labels.append(el('span', 'strip-label', 'model α'), el('span', 'strip-label', 'adversarial α̃'));
  const pairs = el('div', 'strip-pairs');
  pairs.dir = 'ltr';
  tokens.forEach((tok, i) => {
    const p = el('span', 'strip-pair');
    p.append(cell(tok, a[i], max, 'attention', row.unknown?.[i], i, b[i]), cell(tok, b[i], max, 'adversarial', row.unknown?.[i], i, a[i]));
    pairs.append(p);
  });
  box.append(labels, pairs);
  return box;
}

export function renderAdversarial(body, row) {
  const names = classNamesFor(row.model, row.class_names);
  const c = Number.isInteger(row.predicted) ? row.predicted : 0;
  const p = row.probabilities?.[c];
  const q = row.adversarial_probabilities?.[c];

  const jsdNote = el('span', 'stat-note');
  jsdNote.append(gauge(row.max_jsd), ' ln 2 = 0.693 is the maximum');
  const tvdNote = el('span', 'stat-note', `kept ≤ ε = ${EPSILON} · p(${names[c] ?? c}) ${fmt(p, 4)} → ${fmt(q, 4)}`);
  const stats = el('div', 'stats');
  stats.append(
    stat('jsd', row.max_jsd, 'JSD between the model’s and the adversarial attention', jsdNote),
    stat('tvd', row.tvd, 'Δŷ: TVD between the two outputs', tvdNote),
  );

  const parts = [stats, strips(row)];
  const cand = Array.isArray(row.candidate_jsd) ? row.candidate_jsd : [];
  const foot = el('p', 'panel-foot');
  if (row.found === false) {
    foot.append(el('b', null, 'No candidate kept the output within ε; '), 'the numbers above are for the best one found.');
  } else {
    foot.textContent = cand.length
      ? `${cand.length} candidates searched; JSD of each: ${cand.map((v) => fmt(v, 3)).join(' · ')}. ` +
        'The largest among those whose output stayed within ε is shown.'
      : '';
  }
  parts.push(foot);
  body.replaceChildren(...parts);
}
