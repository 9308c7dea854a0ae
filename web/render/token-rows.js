// token-rows.js — draws an explain result as one row per importance measure, one coloured cell per token.
//
// Contract:
//   MEASURES                         — the rows, in order: { key, label, signed, help, kendallKey }
//   renderTokenRows(container, result)
//     `result` is the explain JSON (docs/DESIGN.md): tokens, unknown, attention, gradient, leave_one_out,
//     integrated_gradients, kendall. Replaces the container's children with a legend and the rows:
//       .measure-row[data-measure=KEY] > .measure-label + .tokens > .tok  (exactly one .tok per token)
//     Each .tok has data-index, data-value (the exact number) and a title with the value; unknown words
//     get class `unk` (dotted underline, explained in the legend). Colour = value ÷ row maximum: sequential
//     for non-negative measures, diverging (red −, blue +) for signed integrated gradients.
//     Kendall τ (and p) between attention and each other measure is shown beside the row label; a note
//     above the rows names the explained class and gives τ(gradient, leave-one-out).
//     The integrated-gradients row also shows its completeness check (Σ vs Δp; flagged when off by > 5 %).
//     A measure missing from the result is drawn as a row with a note, never dropped silently.
// All text goes in through textContent; no innerHTML, so user text can never become markup.
// Cells get dir=auto and CSS unicode-bidi: isolate, so RTL/emoji/CJK tokens keep the token order intact.
import { sequentialColor, divergingColor, scaleMax, cssGradient, SEQUENTIAL, DIVERGING } from './colors.js';

export const MEASURES = Object.freeze([
  {
    key: 'attention',
    label: 'Attention',
    signed: false,
    help: 'Attention weight α over the tokens (sums to 1).',
    kendallKey: null,
  },
  {
    key: 'gradient',
    label: 'Gradient',
    signed: false,
    help: '|gradient × embedding| of the predicted class probability, attention held fixed, normalised to sum 1 (Jain & Wallace).',
    kendallKey: 'attention_gradient',
  },
  {
    key: 'leave_one_out',
    label: 'Leave-one-out',
    signed: false,
    help: 'How much the predicted class probability changes when this token is removed: |ŷ(x) − ŷ(x without t)|.',
    kendallKey: 'attention_leave_one_out',
  },
  {
    key: 'integrated_gradients',
    label: 'Integrated gradients',
    signed: true,
    help: 'Integrated gradients of the predicted class probability from an all-zero embedding baseline; signed: blue raises it, red lowers it. τ uses |value|.',
    kendallKey: 'attention_integrated_gradients',
  },
]);

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function formatValue(v) {
  if (!Number.isFinite(v)) return 'n/a';
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e4 ? String(Number(v.toPrecision(6))) : v.toExponential(4);
}

function formatTau(k) {
  if (!k || !Number.isFinite(k.tau)) return { text: 'τ n/a', title: 'Kendall τ needs at least two tokens with distinct values.' };
  const p = Number.isFinite(k.p) ? (k.p < 0.001 ? 'p < 0.001' : `p = ${k.p.toFixed(3)}`) : 'p n/a';
  return {
    text: `τ = ${k.tau.toFixed(2)} · ${p}`,
    title: `Kendall τ between the attention ranking and this measure's ranking of the tokens: ${k.tau}` +
      (Number.isFinite(k.p) ? ` (p = ${k.p}, test of τ = 0)` : ''),
  };
}

function legend() {
  const box = el('div', 'legend');
  const item = (swatchClass, swatchStyle, label) => {
    const it = el('span', 'legend-item');
    const sw = el('span', 'legend-swatch ' + swatchClass);
    if (swatchStyle) sw.style.background = swatchStyle;
    it.append(sw, el('span', 'legend-text', label));
    return it;
  };
  box.append(
    item('legend-bar', cssGradient(SEQUENTIAL), '0 → row maximum'),
    item('legend-bar', cssGradient(DIVERGING), '−max … 0 … +max (integrated gradients: red lowers, blue raises the explained probability)'),
  );
  const unk = el('span', 'legend-item');
  unk.append(el('span', 'legend-unk tok unk', 'word'), el('span', 'legend-text', 'unknown word (the model sees <unk>)'));
  box.append(unk);
  return box;
}

// Integrated gradients' completeness check: Σ attributions vs p(x) − p(baseline); shown so a reader can
// see when the path integral is not trustworthy for this input.
function completenessNote({ sum, target }) {
  const gap = Math.abs(sum - target);
  const bad = gap > 0.05 * Math.max(Math.abs(target), 0.01);
  const span = el('span', 'measure-max' + (bad ? ' measure-warn' : ''), `Σ ${formatValue(sum)} vs Δp ${formatValue(target)}`);
  span.title = 'Completeness: the attributions should sum to p(x) − p(all-zero baseline) of the explained class.' +
    (bad ? ' They do not here: treat this row with caution.' : ' They do, to within 5 %.');
  return span;
}

function measureRow(m, tokens, unknown, values, kendall, completeness) {
  const row = el('div', 'measure-row');
  row.dataset.measure = m.key;

  const label = el('div', 'measure-label');
  const name = el('span', 'measure-name', m.label);
  name.title = m.help;
  label.append(name);
  if (m.kendallKey) {
    const t = formatTau(kendall?.[m.kendallKey]);
    const tau = el('span', 'measure-tau', t.text);
    tau.title = t.title;
    label.append(tau);
  } else {
    label.append(el('span', 'measure-tau', 'reference for τ'));
  }

  const cells = el('div', 'tokens');
  cells.dir = 'ltr'; // token order is the sentence order; each cell isolates its own direction
  const ok = Array.isArray(values) && values.length === tokens.length;
  if (!ok) {
    label.append(el('span', 'measure-max', 'not in this result'));
  }
  const max = ok ? scaleMax(values, m.signed) : 0;
  if (ok) label.append(el('span', 'measure-max', `max ${m.signed ? '|v| ' : ''}${formatValue(max)}`));
  if (ok && m.key === 'integrated_gradients' && completeness) label.append(completenessNote(completeness));

  const frag = document.createDocumentFragment();
  tokens.forEach((tok, i) => {
    const cell = el('span', 'tok', tok);
    cell.dir = 'auto';
    cell.dataset.index = String(i);
    const v = ok ? values[i] : NaN;
    cell.dataset.value = String(v);
    if (ok) {
      const t = max > 0 ? v / max : 0;
      const c = m.signed ? divergingColor(t) : sequentialColor(t);
      cell.style.background = c.background;
      cell.style.color = c.foreground;
    }
    const unk = Boolean(unknown?.[i]);
    if (unk) cell.classList.add('unk');
    cell.title = `${tok}\n${m.label}: ${formatValue(v)}` + (unk ? '\nunknown word — the model sees <unk>' : '');
    frag.append(cell);
  });
  cells.append(frag);
  row.append(label, cells);
  return row;
}

// Which probability the gradient-based and erasure rows explain, and the τ that has no row of its own.
function note(result) {
  const p = el('p', 'rows-note');
  const names = result?.class_names ?? [];
  const c = result?.predicted_class;
  const cls = Number.isInteger(c) ? (names[c] ?? `class ${c}`) : 'the predicted class';
  p.append(
    'Gradient, leave-one-out and integrated gradients explain ',
    el('b', null, `p(${cls})`),
    ', the predicted class. ',
  );
  const k = result?.kendall?.gradient_leave_one_out;
  if (k) {
    const t = formatTau(k);
    const span = el('span', 'rows-note-tau', `Gradient vs leave-one-out: ${t.text}.`);
    span.title = t.title.replace('the attention ranking and this measure', 'the gradient and the leave-one-out');
    p.append(span);
  }
  return p;
}

export function renderTokenRows(container, result) {
  const tokens = Array.isArray(result?.tokens) ? result.tokens : [];
  const rows = el('div', 'measure-rows');
  for (const m of MEASURES) rows.append(measureRow(m, tokens, result?.unknown, result?.[m.key], result?.kendall,
    result?.integrated_gradients_completeness));

  // Hovering a token highlights the same token in every row.
  rows.addEventListener('mouseover', (e) => {
    const i = e.target?.dataset?.index;
    if (i === undefined) return;
    for (const c of rows.querySelectorAll('.tok.hl')) c.classList.remove('hl');
    for (const c of rows.querySelectorAll(`.tok[data-index="${i}"]`)) c.classList.add('hl');
  });
  rows.addEventListener('mouseleave', () => {
    for (const c of rows.querySelectorAll('.tok.hl')) c.classList.remove('hl');
  });

  container.replaceChildren(legend(), note(result), rows);
}
