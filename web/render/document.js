// document.js — draws a HAN explanation (the Documents view): the prediction, the document as paragraphs with a
// sentence bar beside each and word heat on its words, and Kendall τ per level. Drawing only: the numbers and
// scales come from analysis/document.js; all text goes in through textContent (no markup from the document).
//
// Contract:
//   renderDocPrediction(root, result)
//     .doc-label (class name, pos / neg), .doc-probability[data-probability = the exact p] and a two-class bar.
//   renderDocument(root, model, { expanded, onToggle })
//     model = analysis/document.js documentModel(). Replaces root's children with a legend (colour bar of the
//     word heat, what the bars mean) and one .doc-sentence[data-index][data-value] per shown sentence:
//       .doc-bar (role=img, aria-label with the value) > .doc-bar-fill (width = |bar|, .neg when negative)
//         + .doc-bar-value (the number);
//       .doc-words > .doc-word[data-index][data-value][data-heat] (one per token; title = the values; .unk for a
//         word the model does not know).
//     More than COLLAPSE_AT sentences and not expanded: the first COLLAPSED_SHOWN are drawn, then a
//     .doc-toggle button "Show all N sentences" (expanded: "Show fewer"); it calls onToggle().
//   renderKendall(root, table)  table = analysis/document.js kendallTable(); a <table class="doc-kendall-table">
//     with one row per measure compared with attention (.doc-kendall-row[data-pair]) and one column per level:
//     td.doc-tau[data-level][data-pair][data-tau] (τ · p · n); an n/a cell says why in visible text.
import { el } from './dom.js';
import { sequentialColor, divergingColor, cssGradient, SEQUENTIAL, DIVERGING } from './colors.js';
import { colorbar } from './colorbar.js';
import { compact, num, tau as tauText } from '../analysis/format.js';
import { displayToken, classNamesFor } from '../analysis/display.js';
import { COLLAPSE_AT, COLLAPSED_SHOWN } from '../analysis/document.js';
import { pct, formatProbability } from './prediction.js';

export function renderDocPrediction(root, result) {
  const names = classNamesFor(result.model, result.class_names);
  const p = Number(result.probability);
  const predicted = Number.isInteger(result.predicted_class) ? result.predicted_class : p >= 0.5 ? 1 : 0;
  const binary = names.length === 2 && Number.isFinite(p);
  const head = el('div', 'prediction-head');
  const label = el('span', 'prediction-label doc-label', names[predicted] ?? `class ${predicted}`);
  label.classList.toggle('pos', binary && predicted === 1);
  label.classList.toggle('neg', binary && predicted === 0);
  const shownP = formatProbability(p);
  const eq = /^[<>]/.test(shownP) ? '' : '= ';
  const probText = binary ? `p(${names[1]}) ${eq}${shownP}` : `p(${names[predicted] ?? predicted}) ${eq}${shownP}`;
  const prob = el('span', 'probability doc-probability', probText);
  prob.dataset.probability = String(p);
  head.append(label, prob);
  const parts = [head];
  if (binary) {
    const bar = el('div', 'prob-bar', null, { role: 'img', 'aria-label': `${names[0]} ${pct(1 - p)}, ${names[1]} ${pct(p)}` });
    const neg = el('div', 'prob-neg');
    neg.style.width = `${(1 - p) * 100}%`;
    const pos = el('div', 'prob-pos');
    pos.style.width = `${p * 100}%`;
    bar.append(neg, pos);
    const scale = el('div', 'prob-scale');
    scale.append(el('span', '', `${names[0]} ${pct(1 - p)}`), el('span', '', `${names[1]} ${pct(p)}`));
    parts.push(bar, scale);
  }
  root.replaceChildren(...parts);
}

function legend(model) {
  const m = model.measure;
  const box = el('div', 'doc-legend');
  const ticks = m.signed
    ? [{ at: 0, text: `−${compact(model.wordMax)}` }, { at: 0.5, text: '0' }, { at: 1, text: compact(model.wordMax) }]
    : [{ at: 0, text: '0' }, { at: 1, text: compact(model.wordMax) }];
  box.append(colorbar({ stops: m.signed ? DIVERGING : SEQUENTIAL, ticks, label: m.key === 'attention' ? 'words β·α' : 'words' }));
  const barKey = el('span', 'doc-legend-bar');
  const sample = el('span', 'doc-bar doc-bar-sample');
  const fill = el('span', 'doc-bar-fill');
  fill.style.width = '70%';
  sample.append(fill);
  barKey.append(sample, el('span', 'legend-text', m.key === 'attention' ? 'sentence weight β' : `sentence ${m.label.toLowerCase()}`));
  const unk = el('span', 'legend-item');
  unk.append(el('span', 'doc-word unk', 'word'), el('span', 'legend-text', 'unknown word'));
  box.append(barKey, unk, el('p', 'doc-legend-help', m.help));
  if (model.completeness?.length) {
    const line = el('p', 'doc-legend-help doc-completeness');
    line.textContent = 'Completeness check: ' + model.completeness.map((c) =>
      `${c.level}s sum to ${num(c.sum, 4)} vs p(x) − p(baseline) = ${num(c.target, 4)}${c.off ? ' (more than 5 % apart: read with care)' : ''}`).join('; ') + '.';
    box.append(line);
  }
  return box;
}

function wordTitle(model, s, w) {
  const m = model.measure;
  if (m.key === 'attention') {
    return `α = ${num(w.value, 4)} within sentence ${s.index + 1} · β·α = ${num(w.shown, 4)} of the document`;
  }
  return `${m.label}: ${num(w.value, 4)}`;
}

function sentenceRow(model, s) {
  const m = model.measure;
  const row = el('div', 'doc-sentence', null, { 'data-index': s.index, 'data-value': s.value });
  const bar = el('div', 'doc-bar', null, {
    role: 'img',
    'aria-label': `sentence ${s.index + 1}: ${m.key === 'attention' ? 'β' : m.label} ${num(s.value, 4)}`,
  });
  const fill = el('span', 'doc-bar-fill');
  fill.style.width = `${Math.min(1, Math.abs(s.bar)) * 100}%`;
  if (s.bar < 0) fill.classList.add('neg');
  bar.append(fill);
  const value = el('span', 'doc-bar-value', compact(s.value));
  value.title = `${m.key === 'attention' ? 'β (sentence attention)' : m.label}: ${num(s.value, 6)}`;
  const side = el('div', 'doc-side');
  side.append(el('span', 'doc-sentence-no', String(s.index + 1)), bar, value);
  const words = el('p', 'doc-words');
  words.dir = 'auto';
  s.words.forEach((w, t) => {
    const c = m.signed ? divergingColor(w.heat) : sequentialColor(w.heat);
    const span = el('span', `doc-word${w.unknown ? ' unk' : ''}`, displayToken(w.text), {
      'data-index': t, 'data-value': w.value, 'data-heat': w.heat,
    });
    span.dir = 'auto';
    span.style.background = c.background;
    span.style.color = c.foreground;
    span.title = wordTitle(model, s, w);
    words.append(span, document.createTextNode(' '));
  });
  row.append(side, words);
  return row;
}

export function renderDocument(root, model, { expanded = false, onToggle = () => {} } = {}) {
  const n = model.sentences.length;
  const collapsed = !expanded && n > COLLAPSE_AT;
  const shown = collapsed ? model.sentences.slice(0, COLLAPSED_SHOWN) : model.sentences;
  const parts = [legend(model)];
  if (model.missing) {
    parts.push(el('p', 'message notice', `${model.measure.label} is not in this result (the core did not compute it).`));
  }
  const body = el('div', 'doc-sentences');
  body.append(...shown.map((s) => sentenceRow(model, s)));
  parts.push(body);
  if (n > COLLAPSE_AT) {
    const b = el('button', 'doc-toggle small', collapsed ? `Show all ${n} sentences (${n - shown.length} more)` : 'Show fewer sentences');
    b.type = 'button';
    b.setAttribute('aria-expanded', String(!collapsed));
    b.addEventListener('click', onToggle);
    parts.push(b);
  }
  root.replaceChildren(...parts);
}

export function renderKendall(root, table) {
  const t = el('table', 'doc-kendall-table');
  const head = el('tr');
  head.append(el('th', '', 'Attention vs'), ...table.map((row) => el('th', '', row.level === 'sentence' ? 'Sentences' : 'Words')));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  table[0].pairs.forEach((pair, j) => {
    const tr = el('tr', 'doc-kendall-row', null, { 'data-pair': pair.key });
    tr.append(el('th', '', pair.label.toLowerCase()));
    for (const row of table) {
      const p = row.pairs[j];
      const text = tauText(p.tau === null ? null : { tau: p.tau, p: p.p }, p.n);
      const td = el('td', text.na ? 'doc-tau na' : 'doc-tau', null, {
        'data-level': row.level, 'data-pair': p.key, 'data-tau': p.tau ?? '',
      });
      // τ, p and n each stay on one line; a narrow screen breaks between them.
      text.text.split(' · ').forEach((part, k) => {
        if (k) td.append(document.createTextNode(' · '));
        td.append(el('span', 'doc-tau-part', part));
      });
      if (text.na) {
        const reason = p.n < 2 ? `needs at least two ${row.level === 'sentence' ? 'sentences' : 'words'}` : text.reason;
        td.append(el('span', 'doc-tau-why', ` (${reason})`));
      }
      tr.append(td);
    }
    tbody.append(tr);
  });
  t.append(thead, tbody);
  root.replaceChildren(t);
}

// Re-exported for the view's static legend of the bars (same gradient as the word heat).
export const wordGradient = (signed) => cssGradient(signed ? DIVERGING : SEQUENTIAL);
