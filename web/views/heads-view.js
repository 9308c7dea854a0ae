// heads-view.js — the self-attention lab's head view and model view (BertViz-style) under the text view's rows,
// for transformer models; for other models one sentence says why there is nothing to show.
//
// Contract:
//   mountHeadsView(panel, { client, store, maxTokens }) → { update(result, text), clear(), apply(state) }
//     panel     the #heads-panel element of index.html (filled here)
//     update    after each shown explain result: a result with `attention_layers_shape` (a transformer; the page's
//               explain form leaves the layers out, `attention_layers` in the full form) asks the worker
//               for the attention tensors (client.attention → labs/text.js `attention` → TextLab.attentionMaps:
//               [layers][heads][n][n] as one Float32Array + shape, n = T + 1 with [CLS] first) and draws both
//               views; any other result shows the note instead.
//     apply     redraws with the state's selection (hash change).
//   URL state (web/state.js): hlayer = the head view's layer (1-based), hheads = its shown heads ('all', 'none' or
//   a 1-based list '1,3'). A layer or head the model does not have is replaced, with a notice (.hv-notice).
//   panel.dataset.heads: 'empty' (nothing yet) | 'loading' | 'ready' | 'na' (not a transformer) | 'error'.
//   Controls: a layer <select> (#hv-layer), one toggle per head (.hv-head, aria-pressed, in the head's colour:
//   the colour legend), All / None; a model-view thumbnail click opens that layer and head in the head view.
// Drawing is in render/heads.js (head view) and render/heads-grid.js (model view); no math here beyond
// picking the selected slices.
import { CATALOGUE } from '../catalogue.js';
import { displayToken } from '../analysis/display.js';
import { el } from '../render/dom.js';
import { renderHeadView, headColor } from '../render/heads.js';
import { renderModelView } from '../render/heads-grid.js';

const method = (name) => CATALOGUE.text?.methods?.find((m) => m.name === name);
const named = (key, fallback, short, description) => {
  const m = method(key);
  return { label: m?.label ?? fallback, short, description: m?.description ?? description };
};
export const MAP_NAMES = Object.freeze({
  raw: named('raw_attention', 'Raw attention', 'Mean',
    'Raw attention: the layer’s attention probabilities averaged over its heads'),
  rollout: named('rollout', 'Rollout', 'Rollout',
    'Attention rollout (Abnar & Zuidema 2020): Ã = 0.5·A + 0.5·I (heads averaged, rows renormalised), multiplied through the layers up to this one'),
  flow: named('flow', 'Flow', 'Flow',
    'Attention flow (Abnar & Zuidema 2020): the maximum flow from each token to [CLS] through the residual-augmented attention graph up to this layer'),
});

// '1,3' → [0, 2] (1-based, comma-separated) | 'all' → every head | 'none' → []; unusable parts are reported.
export function parseHeads(text, H) {
  const t = String(text ?? 'all').trim();
  if (t === 'all' || t === '') return { heads: [...Array(H).keys()], bad: t === '' };
  if (t === 'none') return { heads: [], bad: false };
  const heads = new Set();
  let bad = false;
  for (const part of t.split(',')) {
    const k = /^\d{1,3}$/.test(part.trim()) ? Number(part) : NaN;
    if (k >= 1 && k <= H) heads.add(k - 1);
    else bad = true;
  }
  if (bad && heads.size === 0) return { heads: [...Array(H).keys()], bad };
  return { heads: [...heads].sort((a, b) => a - b), bad };
}

export function headsText(heads, H) {
  if (heads.length === H) return 'all';
  if (heads.length === 0) return 'none';
  return heads.map((h) => h + 1).join(',');
}

// The layer and heads a link asks for (URL fields layerKey / headsKey), clamped to the model's L layers and H heads,
// with a note for each value the model does not have. Shared with the Text tab's "Your model" (own-text/attention.js).
export function headSelection(state, layerKey, headsKey, L, H) {
  const notes = [];
  let layer = state[layerKey] - 1;
  if (layer >= L) {
    notes.push(`Layer ${state[layerKey]} of the link: this model has ${L} layer${L === 1 ? '' : 's'}; layer ${L} is shown.`);
    layer = L - 1;
  }
  const { heads, bad } = parseHeads(state[headsKey], H);
  if (bad) notes.push(`${headsKey}=${String(state[headsKey]).slice(0, 40)} in the link names heads this model does not have (it has ${H}); ${headsText(heads, H)} shown.`);
  return { layer, heads, notes };
}

// The layer select and the head toggle buttons (All heads, None) for layer / heads; select(layer, heads) applies a choice.
export function drawHeadControls(layerSelect, headsBox, { L, H, layer, heads, select }) {
  if (layerSelect.options.length !== L) {
    layerSelect.replaceChildren(...Array.from({ length: L }, (_, l) => new Option(`Layer ${l + 1} of ${L}`, String(l))));
  }
  layerSelect.value = String(layer);
  const buttons = [];
  for (let h = 0; h < H; h++) {
    const b = el('button', 'hv-head', undefined, { type: 'button', 'data-head': h, 'aria-pressed': heads.includes(h) });
    b.style.setProperty('--head-color', headColor(h));
    b.append(el('span', 'hv-swatch', '', { 'aria-hidden': 'true' }), `Head ${h + 1}`);
    b.addEventListener('click', () => {
      select(layer, heads.includes(h) ? heads.filter((k) => k !== h) : [...heads, h].sort((a, c) => a - c));
      headsBox.querySelector(`[data-head="${h}"]`)?.focus();
    });
    buttons.push(b);
  }
  const all = el('button', 'hv-all', 'All heads', { type: 'button' });
  all.addEventListener('click', () => select(layer, [...Array(H).keys()]));
  const none = el('button', 'hv-none', 'None', { type: 'button' });
  none.addEventListener('click', () => select(layer, []));
  headsBox.replaceChildren(...buttons, all, none);
}

export function mountHeadsView(panel, { client, store, maxTokens }) {
  panel.replaceChildren();
  const headCard = el('section', 'card heads-card', undefined, { 'aria-labelledby': 'hv-title' });
  headCard.append(el('h2', '', 'Head view: who attends to whom', { id: 'hv-title' }));
  headCard.append(el('p', 'card-sub',
    'Each line joins a token (left) to a token it attends to (right) in one head of the chosen layer; the darker the line, the larger the attention weight. Rows sum to 1. [CLS] is the position the classifier reads.'));
  const controls = el('div', 'hv-controls');
  const layerLabel = el('label', 'field-label', 'Layer', { for: 'hv-layer' });
  const layerSelect = el('select', '', undefined, { id: 'hv-layer' });
  const headsBox = el('div', 'hv-heads', undefined, { role: 'group', 'aria-label': 'Heads shown (colour legend)' });
  controls.append(layerLabel, layerSelect, headsBox);
  const notice = el('p', 'message notice hv-notice');
  notice.hidden = true;
  const headBody = el('div', 'hv-body');
  headCard.append(controls, notice, headBody);

  const modelCard = el('section', 'card model-card', undefined, { 'aria-labelledby': 'mv-title' });
  modelCard.append(el('h2', '', 'Model view: every layer and head', { id: 'mv-title' }));
  modelCard.append(el('p', 'card-sub',
    'One small attention map per layer and head (click one to open it in the head view), then the heads averaged and the rollout through each layer; below, what [CLS] reads from each token by raw attention, rollout and flow.'));
  const modelBody = el('div', 'mv-body');
  modelCard.append(modelBody);

  const na = el('p', 'heads-na');
  na.hidden = true;
  const message = el('p', 'message error heads-message', '', { role: 'alert' });
  message.hidden = true;
  panel.append(na, message, headCard, modelCard);

  let current = null; // { maps, labels, unknown }
  let seq = 0;

  const setStatus = (s) => { panel.dataset.heads = s; };
  const showCards = (on) => { headCard.hidden = !on; modelCard.hidden = !on; };
  showCards(false);
  setStatus('empty');

  function selection() {
    return headSelection(store.get(), 'hlayer', 'hheads', current.maps.layers, current.maps.heads);
  }

  function select(layer, heads) {
    store.update({ hlayer: layer + 1, hheads: headsText(heads, current.maps.heads) });
    draw();
  }

  function drawControls(layer, heads) {
    drawHeadControls(layerSelect, headsBox, { L: current.maps.layers, H: current.maps.heads, layer, heads, select });
  }

  layerSelect.addEventListener('change', () => {
    if (!current) return;
    select(Number(layerSelect.value), selection().heads);
  });

  function draw() {
    if (!current) return;
    const { maps, labels, unknown } = current;
    const { layers: L, heads: H, n } = maps;
    const { layer, heads, notes } = selection();
    drawControls(layer, heads);
    notice.textContent = notes.join('\n');
    notice.hidden = notes.length === 0;
    const chart = el('div', 'chart hv-chart');
    headBody.replaceChildren(chart);
    const size = H * n * n;
    const title = `Head view, layer ${layer + 1} of ${L}, ${heads.length === H ? 'all heads' : heads.length ? `head${heads.length > 1 ? 's' : ''} ${heads.map((h) => h + 1).join(', ')}` : 'no head'}`;
    renderHeadView(chart, { labels, unknown, n, H, layer, heads, title,
      weights: maps.data.subarray(layer * size, (layer + 1) * size) });
    const grid = el('div', 'chart mv-chart');
    modelBody.replaceChildren(grid);
    renderModelView(grid, {
      maps, labels, selected: { layer, heads }, names: MAP_NAMES,
      onOpen: (l, h) => {
        select(l, [h]);
        headCard.scrollIntoView({ block: 'start' });
        layerSelect.focus({ preventScroll: true });
      },
    });
  }

  async function update(result, text) {
    const my = ++seq;
    message.hidden = true;
    if (!Array.isArray(result?.attention_layers_shape) && !Array.isArray(result?.attention_layers)) {
      current = null;
      showCards(false);
      const name = result?.model ?? 'this model';
      na.textContent = `No head or model view for ${name}: it is a BiLSTM with one attention distribution over its words, so there are no layers or heads of self-attention to show — pick sst2-transformer to see them.`;
      na.hidden = false;
      setStatus('na');
      return;
    }
    na.hidden = true;
    setStatus('loading');
    let maps;
    try {
      maps = await client.attention({ model: result.model, text, maxTokens });
    } catch (e) {
      if (my !== seq) return;
      current = null;
      showCards(false);
      message.textContent = `Could not read the attention of ${result.model}: ${e.message}`;
      message.hidden = false;
      setStatus('error');
      return;
    }
    if (maps === null || my !== seq) return;
    current = {
      maps,
      labels: ['[CLS]', ...maps.tokens.map(displayToken)],
      unknown: [false, ...maps.unknown],
    };
    showCards(true);
    draw();
    setStatus('ready');
  }

  function clear() {
    ++seq;
    current = null;
    showCards(false);
    na.hidden = true;
    message.hidden = true;
    setStatus('empty');
  }

  function apply() {
    if (current) draw();
  }

  return { update, clear, apply };
}
