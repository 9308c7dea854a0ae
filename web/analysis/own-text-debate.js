// own-text-debate.js — pure helpers of the debate panels on a user's ONNX text model (views/own-text/debate.js). No DOM.
//
// Contract:
//   OWN_DEBATE_PANELS — the panels in order: kendall, erase-max, erase-until-flip, permutation (run on each explained
//     step), eraser ("Which method?": every explanation ranked by ERASER on this text) and adversarial (run on request:
//     they are slow).
//   AUTO_PANELS — the four that run by themselves.
//   unitTokens(special) → the token indices the experiments' units stand for: every token the template did not add
//     (core/explain/onnx_text/onnx_attention_model.h holds the special ones — [CLS], [SEP], BOS — fixed; a position the
//     graph adds itself is no token).
//   cutSpecial(special, kept) → the special flags of the ids the page explained after a cut to `kept` tokens (the
//     binding keeps a closing template token last, as OnnxTextLab's fit does).
//   debateLayer(otdlayer, layers) → {index (0-based found layer, −1 = the last), shown (1-based), note ('' or why the
//     link's layer was not used)}.
//   parseClosed(text) → Set of panel names folded shut (unknown names dropped); closedText(set) → the URL value.
//   withLabels(row, { tokens, special, classText }) → a copy of the core's row with what the shared live renderers
//     (render/live/*.js) read: tokens (one per unit), class_names (a sparse array naming the predicted class).
//   flipText(info) → what "the decision flips" means on this model (a causal LM: the greedy next token changes).
export const OWN_DEBATE_PANELS = Object.freeze(['kendall', 'erase-max', 'erase-until-flip', 'permutation', 'eraser', 'adversarial']);
export const AUTO_PANELS = Object.freeze(['kendall', 'erase-max', 'erase-until-flip', 'permutation']);

export function unitTokens(special) {
  const out = [];
  (Array.isArray(special) ? special : []).forEach((s, i) => {
    if (!s) out.push(i);
  });
  return out;
}

export function cutSpecial(special, kept) {
  const s = (Array.isArray(special) ? special : []).map((v) => (v ? 1 : 0));
  if (!(kept >= 0) || kept >= s.length) return s;
  const keepLast = s.at(-1) === 1 && kept >= 2;
  const out = s.slice(0, kept);
  if (keepLast) out[kept - 1] = 1;
  return out;
}

export function debateLayer(otdlayer, layers) {
  const L = Math.max(0, layers | 0);
  const k = Number.isInteger(otdlayer) ? otdlayer : 0;
  if (k <= 0 || L === 0) return { index: -1, shown: L, note: '' };
  if (k > L) return { index: -1, shown: L, note: `Layer ${k} of the link: this model has ${L} attention layer${L === 1 ? '' : 's'}; the last is used.` };
  return { index: k === L ? -1 : k - 1, shown: k, note: '' };
}

export function parseClosed(text) {
  const set = new Set();
  for (const part of String(text ?? '').split(',')) {
    const name = part.trim();
    if (OWN_DEBATE_PANELS.includes(name)) set.add(name);
  }
  return set;
}

export function closedText(set) {
  return OWN_DEBATE_PANELS.filter((n) => set.has(n)).join(',');
}

export function withLabels(row, { tokens = [], special = [], classText = null } = {}) {
  const units = unitTokens(special);
  const out = { ...row, tokens: units.map((t) => String(tokens[t] ?? '')) };
  if (Number.isInteger(row?.predicted) && classText) {
    const names = [];
    names.length = Math.max(2, row.predicted + 1);
    names[row.predicted] = classText(row.predicted);
    out.class_names = names;
  }
  return out;
}

export function flipText(info) {
  if (info?.causal) {
    return 'On a language model the decision is the greedy next token: a “flip” means the most likely next token changes.';
  }
  return 'A flip means the predicted class changes.';
}
