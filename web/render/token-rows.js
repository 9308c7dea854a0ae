// token-rows.js — draws an explain result as one row per importance measure, one coloured cell per token.
//
// Contract:
//   MEASURES                         — the rows, in order: { key, label, signed, help, kendallKey }
//   TRANSFORMER_MEASURES             — a transformer's rows after them (rollout, flow, relevance, attention_norm,
//                                      AttnLRP and CP-LRP with their conservation line, value zeroing, ALTI),
//                                      drawn when the result has them; measuresOf(result) → the rows drawn
//   renderTokenRows(container, result, { measures, note, legend = true } = {})
//     measures / note (optional, for a model whose rows differ — the Text tab's "Your model"): the rows to draw
//     instead of measuresOf(result) (kendallKey false: no τ beside the row), and an element replacing the note on
//     the explained class; legend false leaves out the unknown-word legend.
//     `result` is the explain JSON (docs/DESIGN.md): tokens, unknown, attention, gradient, leave_one_out,
//     integrated_gradients, kendall. Replaces the container's children with a legend and the rows:
//       .measure-row[data-measure=KEY] > .measure-label + .tokens > .tok  (exactly one .tok per token)
//     Each .tok has data-index, data-value (the exact number), data-token (the model's token) and a title
//     with the value; its text is the token as written (analysis/display.js: -lrb- → "(", `` → “).
//     Unknown words get class `unk` (dotted underline, explained in the legend). Colour = value ÷ row maximum:
//     sequential for non-negative measures, diverging (red −, blue +) for signed integrated gradients; a
//     colour bar with the row's values (.colorbar) beside each row. A scale switch (linear | log | rank,
//     .scale-switch, data-scale on the rows) re-colours the cells when one token takes nearly everything.
//     Kendall τ (p and n) between attention and each other measure is shown beside the row label; "τ n/a"
//     comes with its reason in visible text (.measure-na). A note above the rows names the explained class
//     and gives τ(gradient, leave-one-out). The integrated-gradients row also shows its completeness check in
//     words (sum of attributions vs p(x) − p(baseline); flagged when off by > 5 %).
//     Keyboard / touch: one tab stop per row (roving tabindex), ←/→ move along the row, ↑/↓ across rows,
//     Home/End; the focused (or tapped) token's values in every row are read out in .token-readout
//     (aria-live) — nothing needs a mouse.
//     A measure missing from the result is drawn as a row with a note, never dropped silently.
// All text goes in through textContent; no innerHTML, so user text can never become markup.
// Cells get dir=auto and CSS unicode-bidi: isolate, so RTL/emoji/CJK tokens keep the token order intact.
import { sequentialColor, divergingColor, scaleMax, logScale, rankScale, SEQUENTIAL, DIVERGING } from './colors.js';
import { colorbar } from './colorbar.js';
import { compact, num, tau as tauText } from '../analysis/format.js';
import { displayToken, classNamesFor } from '../analysis/display.js';

export const MEASURES = Object.freeze([
  {
    key: 'attention',
    label: 'Attention',
    signed: false,
    help: 'Attention weight α over the tokens (sums to 1).',
    short: 'the weights the model averages with; they sum to 1',
    kendallKey: null,
  },
  {
    key: 'gradient',
    label: 'Gradient',
    signed: false,
    help: '|gradient × embedding| of the predicted class probability, attention held fixed, normalised to sum 1 (Jain & Wallace).',
    short: 'how sensitive the probability is to each word',
    kendallKey: 'attention_gradient',
  },
  {
    key: 'leave_one_out',
    label: 'Leave-one-out',
    signed: false,
    help: 'How much the predicted class probability changes when this token is removed: |ŷ(x) − ŷ(x without t)|.',
    short: 'how much the probability moves without the word',
    kendallKey: 'attention_leave_one_out',
  },
  {
    key: 'integrated_gradients',
    label: 'Integrated gradients',
    signed: true,
    help: 'Integrated gradients of the predicted class probability from an all-zero embedding baseline; signed: blue raises it, red lowers it. τ uses |value|.',
    short: 'signed: blue raises, red lowers the probability',
    kendallKey: 'attention_integrated_gradients',
  },
]);

// A transformer's self-attention readings (core/explain/*_importance.cpp; explain gives them for a transformer only):
// drawn after MEASURES when the result has them, one value per token, [CLS] excluded; each with its τ against the
// attention row (explain's kendall `attention_<key>`; the signed rules by |value|).
export const TRANSFORMER_MEASURES = Object.freeze([
  {
    key: 'rollout',
    label: 'Rollout',
    signed: false,
    help: 'Attention rollout (Abnar & Zuidema 2020): each layer’s heads averaged with the residual (0.5·A + 0.5·I), multiplied through the layers; the [CLS] row.',
    short: 'attention multiplied through the layers',
    kendallKey: 'attention_rollout',
  },
  {
    key: 'flow',
    label: 'Attention flow',
    signed: false,
    help: 'Attention flow (Abnar & Zuidema 2020): the maximum flow from each token to [CLS] through the layered attention graph.',
    short: 'the most attention that can flow from the word to [CLS]',
    kendallKey: 'attention_flow',
  },
  {
    key: 'relevance',
    label: 'Relevance',
    signed: false,
    help: 'Chefer et al. 2021: the attention weighted by its gradient (positive part, heads averaged), propagated through the layers; the [CLS] row.',
    short: 'gradient-weighted attention through the layers',
    kendallKey: 'attention_relevance',
  },
  {
    key: 'attention_norm',
    label: 'Attention norm',
    signed: false,
    help: 'Kobayashi et al. 2020: ‖Σ_h α_h · f_h(x)‖ in the last layer — the attention weight times the size of the vector it weighs, so a large weight on a small vector counts little.',
    short: 'the weight times the size of what it weighs (last layer)',
    kendallKey: 'attention_attention_norm',
  },
  {
    key: 'attnlrp',
    label: 'AttnLRP',
    signed: true,
    conservationKey: 'attnlrp_conservation',
    help: 'AttnLRP (Achtibat et al. 2024): the logit of the explained class propagated back layer by layer with rules that keep relevance conserved — half to each side of Q·Kᵀ and A·V, LayerNorm’s scale held fixed, GELU passed through — times the embedding; signed: blue supports the class, red speaks against it. τ uses |value|.',
    short: 'signed: the logit split over the words, rule by rule',
    kendallKey: 'attention_attnlrp',
  },
  {
    key: 'cp_lrp',
    label: 'CP-LRP',
    signed: true,
    conservationKey: 'cp_lrp_conservation',
    help: 'CP-LRP (Ali et al. 2022): like AttnLRP, but the attention is held fixed, so relevance flows only through the values — the attention decides where it goes; signed. τ uses |value|.',
    short: 'signed: relevance through the values, attention held fixed',
    kendallKey: 'attention_cp_lrp',
  },
  {
    key: 'value_zeroing',
    label: 'Value zeroing',
    signed: false,
    help: 'Value zeroing (Mohebbi et al. 2023): in each layer, zero one word’s value vectors and measure how far every output moves (cosine distance); rows normalised, multiplied through the layers; the [CLS] row.',
    short: 'how far [CLS] moves when the word’s values are zeroed',
    kendallKey: 'attention_value_zeroing',
  },
  {
    key: 'alti',
    label: 'ALTI',
    signed: false,
    help: 'ALTI (Ferrando et al. 2022): each layer’s output split exactly into what each input contributes through the values and the residual, scored by how close (‖·‖₁) each part is to the whole; multiplied through the layers; the [CLS] row.',
    short: 'how much of [CLS] each word’s share makes up',
    kendallKey: 'attention_alti',
  },
]);

// The rows of a result: MEASURES always (a missing one says so), a transformer's rows when it has them.
export function measuresOf(result) {
  const n = Array.isArray(result?.tokens) ? result.tokens.length : -1;
  return [...MEASURES, ...TRANSFORMER_MEASURES.filter((m) => Array.isArray(result?.[m.key]) && result[m.key].length === n)];
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

export const SCALES = Object.freeze(['linear', 'log', 'rank']);
let currentScale = 'linear'; // kept across results, so a student's choice survives typing

export function formatValue(v) {
  return compact(v);
}

function formatTau(k, n) {
  const t = tauText(k, n);
  return {
    text: t.text,
    na: t.na,
    reason: t.reason,
    title: t.na ? `Kendall τ is not defined here: ${t.reason}.`
      : `Kendall τ between the attention ranking and this measure's ranking of the ${n} tokens: ${num(k.tau, 4)}` +
        (Number.isFinite(k.p) ? ` (p = ${num(k.p, 4)}, test of τ = 0)` : ''),
  };
}

function legend() {
  const box = el('div', 'legend');
  const unk = el('span', 'legend-item');
  unk.append(el('span', 'legend-unk tok unk', 'word'), el('span', 'legend-text', 'unknown word (the model sees <unk>)'));
  box.append(unk);
  return box;
}

function scaleSwitch(onChange) {
  const box = el('div', 'scale-switch');
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', 'Colour scale of the rows');
  box.append(el('span', 'field-label', 'Colour by'));
  const help = {
    linear: 'value ÷ the row maximum',
    log: 'log scale: small values stay visible when one token takes nearly all the weight',
    rank: 'rank in the row: darkest = largest, lightest = smallest',
  };
  for (const sc of SCALES) {
    const b = el('button', 'scale-btn', sc === 'linear' ? 'value' : sc);
    b.type = 'button';
    b.dataset.scale = sc;
    b.title = help[sc];
    b.setAttribute('aria-pressed', String(sc === currentScale));
    b.addEventListener('click', () => onChange(sc));
    box.append(b);
  }
  return box;
}

// Integrated gradients' completeness check: Σ attributions vs p(x) − p(baseline); shown so a reader can
// see when the path integral is not trustworthy for this input.
// baseline (optional): a sentence naming a baseline other than the all-zero one, shown after the check.
function completenessNote({ sum, target, baseline = '' }) {
  const gap = Math.abs(sum - target);
  const bad = gap > 0.05 * Math.max(Math.abs(target), 0.01);
  const span = el('span', 'measure-max' + (bad ? ' measure-warn' : ''),
    `sum ${compact(sum)} vs p(x) − p(baseline) ${compact(target)}${bad ? ' — off by > 5 %' : ' ✓'}`);
  span.title = `Completeness: the attributions should add up to p(x) − p(${baseline ? 'baseline' : 'all-zero baseline'}) of the explained class.` +
    (bad ? ' They do not here: treat this row with caution.' : ' They do, to within 5 %.');
  if (!baseline) return span;
  const box = el('span', 'measure-conservation');  // a column whose lines wrap
  box.append(span, el('span', 'measure-max measure-baseline', baseline));
  return box;
}

// A propagation rule's conservation: how much of the explained logit the words carry, how much the [CLS] and
// position embeddings carry, and what the biases (and AttnLRP's softmax rule) absorbed — reported, not assumed.
// rules (optional, a user's ONNX model): what the rules found in the graph, and the operators without one.
function conservationNote({ logit, tokens, embeddings, unexplained }, rules) {
  const box = el('span', 'measure-conservation');
  const text = Number.isFinite(embeddings)
    ? `words ${compact(tokens)} + positions/[CLS] ${compact(embeddings)} + biases ${compact(unexplained)} = logit ${compact(logit)}`
    : `tokens ${compact(tokens)} + positions/biases ${compact(unexplained)} = logit ${compact(logit)}`;
  const span = el('span', 'measure-max', text);
  span.title = 'Conservation: the relevances of the words, of the position embeddings, and what the biases (and, for AttnLRP, the softmax rule’s bias terms) absorbed add up to the explained logit.' +
    (Array.isArray(rules) && rules.length ? ` Rules found in the graph: ${rules.join('; ')}.` : '');
  box.append(span);
  const missing = Array.isArray(rules) ? rules.filter((r) => String(r).startsWith('no rule for')) : [];
  if (missing.length) box.append(el('span', 'measure-max measure-warn', missing.join('; ')));
  return box;
}

function rowColorbar(m, max, scale) {
  if (!(max > 0)) return colorbar({ stops: SEQUENTIAL, ticks: [{ at: 0, text: '0' }, { at: 1, text: 'all 0' }] });
  if (scale === 'rank') {
    return colorbar({ stops: m.signed ? DIVERGING : SEQUENTIAL, ticks: m.signed
      ? [{ at: 0, text: '− top' }, { at: 0.5, text: '0' }, { at: 1, text: '+ top' }]
      : [{ at: 0, text: 'lowest' }, { at: 1, text: 'highest' }], label: 'rank' });
  }
  const pos = (v) => (scale === 'log' ? logScale(v, max) : v / max);
  const ticks = m.signed
    ? [{ at: 0, text: `−${compact(max)}` }, { at: 0.5, text: '0' }, { at: 1, text: `+${compact(max)}` }]
    : [{ at: 0, text: '0' }, ...(scale === 'log' ? [{ at: pos(max / 100), text: compact(max / 100) }] : []), { at: 1, text: compact(max) }];
  const bar = colorbar({ stops: m.signed ? DIVERGING : SEQUENTIAL, ticks, label: scale === 'log' ? 'log' : '' });
  bar.dataset.max = String(max);
  return bar;
}

function cellT(m, values, i, max, scale, ranks) {
  if (scale === 'rank') return ranks[i];
  const v = values[i];
  if (!(max > 0)) return 0;
  return scale === 'log' ? logScale(v, max) : v / max;
}

function measureRow(m, tokens, unknown, values, kendall, completeness, scale, conservation, rules) {
  const row = el('div', 'measure-row');
  row.dataset.measure = m.key;

  const label = el('div', 'measure-label');
  const name = el('span', 'measure-name', m.label);
  name.title = m.help;
  label.append(name);
  if (m.short) label.append(el('span', 'row-help', m.short));
  if (m.kendallKey) {
    const t = formatTau(kendall?.[m.kendallKey], tokens.length);
    const tau = el('span', 'measure-tau', t.text);
    tau.title = t.title;
    label.append(tau);
    if (t.na) label.append(el('span', 'measure-na', `n/a: ${t.reason}.`));
  } else if (m.kendallKey !== false) {
    label.append(el('span', 'measure-tau', 'reference for τ'));
  }

  const cells = el('div', 'tokens');
  cells.dir = 'ltr'; // token order is the sentence order; each cell isolates its own direction
  cells.setAttribute('role', 'group');
  cells.setAttribute('aria-label', `${m.label}, one value per token`);
  const ok = Array.isArray(values) && values.length === tokens.length;
  if (!ok) {
    label.append(el('span', 'measure-max', 'not in this result'));
  }
  const max = ok ? scaleMax(values, m.signed) : 0;
  if (ok) label.append(rowColorbar(m, max, scale));
  if (ok && m.key === 'integrated_gradients' && completeness) label.append(completenessNote(completeness));
  if (ok && conservation && typeof conservation === 'object') label.append(conservationNote(conservation, rules));
  const ranks = ok ? rankScale(values, m.signed) : [];

  const frag = document.createDocumentFragment();
  tokens.forEach((tok, i) => {
    const shown = displayToken(tok);
    const cell = el('span', 'tok', shown);
    cell.dir = 'auto';
    cell.dataset.index = String(i);
    cell.dataset.token = tok;
    const v = ok ? values[i] : NaN;
    cell.dataset.value = String(v);
    cell.tabIndex = i === 0 ? 0 : -1;
    if (ok) {
      const t = cellT(m, values, i, max, scale, ranks);
      const c = m.signed ? divergingColor(t) : sequentialColor(t);
      cell.style.background = c.background;
      cell.style.color = c.foreground;
    }
    const unk = Boolean(unknown?.[i]);
    if (unk) cell.classList.add('unk');
    cell.title = `${shown}\n${m.label}: ${formatValue(v)}` + (unk ? '\nunknown word — the model sees <unk>' : '');
    cell.setAttribute('aria-label', `${shown}: ${m.label} ${formatValue(v)}${unk ? ', unknown word' : ''}`);
    frag.append(cell);
  });
  cells.append(frag);
  row.append(label, cells);
  return row;
}

// Which probability the gradient-based and erasure rows explain, and the τ that has no row of its own.
function note(result) {
  const p = el('p', 'rows-note');
  const names = classNamesFor(result?.model, result?.class_names);
  const c = result?.predicted_class;
  const cls = Number.isInteger(c) ? (names[c] ?? `class ${c}`) : 'the predicted class';
  p.append(
    'Gradient, leave-one-out and integrated gradients explain ',
    el('b', null, `p(${cls})`),
    ', the predicted class. Kendall τ compares each ranking with attention’s (1 = same order, 0 = unrelated). ',
  );
  const k = result?.kendall?.gradient_leave_one_out;
  if (k) {
    const t = formatTau(k, result?.tokens?.length);
    const span = el('span', 'rows-note-tau', `Gradient vs leave-one-out: ${t.text}.`);
    span.title = t.title.replace('the attention ranking and this measure', 'the gradient and the leave-one-out');
    p.append(span);
  }
  return p;
}

// The values of token i in every row, in words (shown on focus / tap; read by screen readers).
function readoutText(result, i, measures = measuresOf(result)) {
  const tokens = result?.tokens ?? [];
  const parts = [];
  for (const m of measures) {
    const vals = result?.[m.key];
    if (!Array.isArray(vals) || vals.length !== tokens.length) continue;
    const key = vals.map((v) => (m.signed ? Math.abs(v) : v));
    const rank = 1 + key.filter((x) => x > key[i]).length;
    parts.push(`${m.label} ${formatValue(vals[i])} (rank ${rank} of ${tokens.length})`);
  }
  const unk = result?.unknown?.[i] ? ' — unknown word' : '';
  return `“${displayToken(tokens[i])}” (token ${i + 1})${unk}: ${parts.join(' · ')}`;
}

function highlight(rows, i) {
  for (const c of rows.querySelectorAll('.tok.hl')) c.classList.remove('hl');
  if (i === undefined || i === null) return;
  for (const c of rows.querySelectorAll(`.tok[data-index="${i}"]`)) c.classList.add('hl');
}

export function renderTokenRows(container, result, options = {}) {
  const measures = options.measures ?? measuresOf(result);
  const tokens = Array.isArray(result?.tokens) ? result.tokens : [];
  const rows = el('div', 'measure-rows');
  rows.dataset.scale = currentScale;
  const readout = el('p', 'token-readout');
  readout.setAttribute('aria-live', 'polite');
  readout.textContent = tokens.length ? 'Tab to a row, then ←/→ (or tap a token) to read its values in every row.' : '';

  const draw = () => {
    rows.dataset.scale = currentScale;
    rows.replaceChildren(...measures.map((m) => measureRow(m, tokens, result?.unknown, result?.[m.key], result?.kendall,
      result?.integrated_gradients_completeness, currentScale, m.conservationKey ? result?.[m.conservationKey] : null,
      m.rulesKey ? result?.[m.rulesKey] : null)));
  };
  draw();
  const sw = scaleSwitch((sc) => {
    currentScale = sc;
    for (const b of sw.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.scale === sc));
    draw();
  });

  const show = (cell) => {
    const i = Number(cell.dataset.index);
    highlight(rows, i);
    readout.textContent = readoutText(result, i, measures);
    readout.dataset.index = String(i);
  };
  // Hovering a token highlights the same token in every row.
  rows.addEventListener('mouseover', (e) => {
    const i = e.target?.dataset?.index;
    if (i === undefined) return;
    highlight(rows, i);
  });
  rows.addEventListener('mouseleave', () => {
    if (!rows.contains(document.activeElement)) highlight(rows, null);
  });
  rows.addEventListener('focusin', (e) => {
    if (e.target?.classList?.contains('tok')) show(e.target);
  });
  rows.addEventListener('click', (e) => {
    const cell = e.target?.closest?.('.tok');
    if (cell) {
      cell.focus();
      show(cell);
    }
  });
  rows.addEventListener('keydown', (e) => {
    const cell = e.target?.closest?.('.tok');
    if (!cell) return;
    const rowEls = [...rows.querySelectorAll('.measure-row')];
    const r = rowEls.indexOf(cell.closest('.measure-row'));
    let i = Number(cell.dataset.index);
    let nr = r;
    if (e.key === 'ArrowRight') i = Math.min(tokens.length - 1, i + 1);
    else if (e.key === 'ArrowLeft') i = Math.max(0, i - 1);
    else if (e.key === 'Home') i = 0;
    else if (e.key === 'End') i = tokens.length - 1;
    else if (e.key === 'ArrowDown') nr = Math.min(rowEls.length - 1, r + 1);
    else if (e.key === 'ArrowUp') nr = Math.max(0, r - 1);
    else return;
    e.preventDefault();
    const next = rowEls[nr]?.querySelector(`.tok[data-index="${i}"]`);
    if (!next) return;
    for (const c of rowEls[nr].querySelectorAll('.tok')) c.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });

  const tools = el('div', 'rows-tools');
  if (options.legend !== false) tools.append(legend());
  tools.append(sw);
  container.replaceChildren(tools, options.note ?? note(result), rows, readout);
}
