// attention.js — the head view and model view of the Text tab's "Your model" (views/own-text-view.js), drawn by the
// same renderers as the shipped transformer's (render/heads.js, render/heads-grid.js); the positions are the graph's
// own, in text order, and the tables read the explained position's row (a causal LM: the last one; a classifier
// whose graph prepends a position: that one).
//
// Contract:
//   mountOwnTextAttention(panel, { store }) → { update(maps, labels), clear(), apply() }
//     maps    OnnxTextLab.attentionMaps (labs/own-text.js): {n, layers, heads, explained, token_of, data, mean,
//             rollout, flow}; labels: n display strings (the graph's positions)
//     URL state: otlayer (1-based layer of the head view), otheads ('all' | 'none' | 1-based list).
//   panel.dataset.heads: 'empty' | 'ready'. Controls: #ot-layer, .hv-head toggles (#ot-heads), All / None.
import { el } from '../../render/dom.js';
import { renderHeadView } from '../../render/heads.js';
import { renderModelView } from '../../render/heads-grid.js';
import { MAP_NAMES, headsText, headSelection, drawHeadControls } from '../heads-view.js';

const NAMES = Object.freeze({
  raw: MAP_NAMES.raw,
  rollout: MAP_NAMES.rollout,
  flow: { ...MAP_NAMES.flow, description: 'Attention flow (Abnar & Zuidema 2020): the maximum flow from each token to the explained position through the residual-augmented attention graph up to this layer' },
});

export function mountOwnTextAttention(panel, { store }) {
  panel.replaceChildren();
  const headCard = el('section', 'card ot-heads-card', undefined, { 'aria-labelledby': 'ot-hv-title' });
  headCard.append(el('h3', '', 'Head view: who attends to whom', { id: 'ot-hv-title' }));
  headCard.append(el('p', 'card-sub',
    'Each line joins a position (left) to a position it attends to (right) in one head of the chosen layer, read from the attention the executor found in your graph; the darker the line, the larger the weight. Rows sum to 1; a causal model attends only backwards.'));
  const controls = el('div', 'hv-controls');
  const layerSelect = el('select', '', undefined, { id: 'ot-layer' });
  const headsBox = el('div', 'hv-heads', undefined, { id: 'ot-heads', role: 'group', 'aria-label': 'Heads shown (colour legend)' });
  controls.append(el('label', 'field-label', 'Layer', { for: 'ot-layer' }), layerSelect, headsBox);
  const notice = el('p', 'message notice hv-notice');
  notice.hidden = true;
  const headBody = el('div', 'hv-body');
  headCard.append(controls, notice, headBody);

  const modelCard = el('section', 'card ot-model-card', undefined, { 'aria-labelledby': 'ot-mv-title' });
  modelCard.append(el('h3', '', 'Model view: every layer and head', { id: 'ot-mv-title' }));
  modelCard.append(el('p', 'card-sub',
    'One small attention map per layer and head (click one to open it in the head view), then the heads averaged and the rollout through each layer; below, what the explained position reads from each other position by raw attention, rollout and flow.'));
  const modelBody = el('div', 'mv-body');
  modelCard.append(modelBody);
  panel.append(headCard, modelCard);

  let current = null;
  const show = (on) => {
    headCard.hidden = !on;
    modelCard.hidden = !on;
    panel.dataset.heads = on ? 'ready' : 'empty';
  };
  show(false);

  function selection() {
    return headSelection(store.get(), 'otlayer', 'otheads', current.maps.layers, current.maps.heads);
  }

  function select(layer, heads) {
    store.update({ otlayer: layer + 1, otheads: headsText(heads, current.maps.heads) });
    draw();
  }

  function drawControls(layer, heads) {
    drawHeadControls(layerSelect, headsBox, { L: current.maps.layers, H: current.maps.heads, layer, heads, select });
  }

  layerSelect.addEventListener('change', () => {
    if (current) select(Number(layerSelect.value), selection().heads);
  });

  function draw() {
    if (!current) return;
    const { maps, labels } = current;
    const { layers: L, heads: H, n } = maps;
    const { layer, heads, notes } = selection();
    drawControls(layer, heads);
    notice.textContent = notes.join('\n');
    notice.hidden = notes.length === 0;
    const chart = el('div', 'chart hv-chart');
    headBody.replaceChildren(chart);
    const size = H * n * n;
    const title = `Head view, layer ${layer + 1} of ${L}, ${heads.length === H ? 'all heads' : heads.length ? `head${heads.length > 1 ? 's' : ''} ${heads.map((h) => h + 1).join(', ')}` : 'no head'}`;
    renderHeadView(chart, { labels, unknown: [], n, H, layer, heads, title, weights: maps.data.subarray(layer * size, (layer + 1) * size) });
    const grid = el('div', 'chart mv-chart');
    modelBody.replaceChildren(grid);
    const e = maps.explained;
    renderModelView(grid, {
      maps, labels, selected: { layer, heads }, names: NAMES, query: e, queryLabel: `the explained position (${labels[e]})`,
      order: e === n - 1 ? 'in text order (the explained position last)' : 'in text order',
      onOpen: (l, h) => {
        select(l, [h]);
        headCard.scrollIntoView({ block: 'start' });
        layerSelect.focus({ preventScroll: true });
      },
    });
  }

  return {
    update(maps, labels) {
      current = maps ? { maps, labels } : null;
      show(Boolean(current));
      draw();
    },
    clear() {
      current = null;
      show(false);
    },
    apply() {
      if (current) draw();
    },
  };
}
