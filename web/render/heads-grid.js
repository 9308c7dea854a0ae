// heads-grid.js — the model view of a transformer: a layer × head grid of small attention heat maps (one pixel
// per query × key, [CLS] first), then per layer the heads averaged and the rollout through that layer, and under
// the grid the [CLS] rows of raw attention, rollout and attention flow per layer. Drawing only.
//
// Contract:
//   renderModelView(container, { maps, labels, selected: {layer, heads}, names, onOpen(layer, head), query = 0,
//                    queryLabel = '[CLS]', order = '[CLS] first' })
//     query / queryLabel / order (optional, for a model whose explained position is not [CLS] at 0 — the Text tab's
//              "Your model", a causal LM's last position): the row the tables read, its name, the legend's words on
//              the positions' order; flow then holds [L·(n−1)] values for the positions other than `query`, in order.
//     maps     the `attention` result (TextLab.attentionMaps): layers L, heads H, n, data [L·H·n·n],
//              mean [L·n·n], rollout [L·n·n], flow [L·T]
//     names    {raw, rollout, flow}: {label, description} for the extra maps (the catalogue's when it has them)
//     Replaces the children with a .mv-grid: a header row, one row per layer; the head cells are
//     <button class="mv-thumb" data-layer data-head aria-pressed> holding a <canvas> (n × n pixels, scaled up
//     by CSS); the selected layer's shown heads are pressed. A click (or Enter / Space on the focused button)
//     calls onOpen(layer, head). The averaged and rollout cells are figures (.mv-extra, data-kind). Colour =
//     weight ÷ the map's largest weight (sequential Purples); every thumbnail's title gives its largest weight.
//     Then .mv-cls: a table per layer (side by side where they fit), one row per token (tr[data-token]), one column
//     each for raw [CLS] attention (heads averaged), rollout and flow (td[data-kind], data-value = the exact number).
import { el, fmt } from './dom.js';
import { sequentialColor, SEQUENTIAL } from './colors.js';
import { colorbar } from './colorbar.js';
import { headColor } from './heads.js';

// 256 colours of the sequential scale, computed once (a thumbnail has up to 65² pixels)
let LUT = null;
function lut() {
  if (!LUT) {
    LUT = new Uint8Array(256 * 3);
    for (let k = 0; k < 256; k++) LUT.set(sequentialColor(k / 255).rgb, 3 * k);
  }
  return LUT;
}

function drawMap(values, offset, n) {
  const canvas = el('canvas', 'mv-canvas');
  canvas.width = n;
  canvas.height = n;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(n, n);
  let max = 0;
  for (let k = 0; k < n * n; k++) max = Math.max(max, values[offset + k]);
  const colors = lut();
  for (let k = 0; k < n * n; k++) {
    const c = 3 * Math.round(255 * Math.min(1, Math.max(0, max > 0 ? values[offset + k] / max : 0)));
    img.data[4 * k] = colors[c];
    img.data[4 * k + 1] = colors[c + 1];
    img.data[4 * k + 2] = colors[c + 2];
    img.data[4 * k + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return { canvas, max };
}

// One table per layer: a row per token (tr[data-token], in text order), a column per measure (raw attention, rollout,
// flow; td[data-kind]) — three narrow columns, so the table fits its card at any width (a column per token made a
// 16-token sentence 850 px wide).
function clsTable(maps, layer, labels, names, query = 0, queryLabel = '[CLS]') {
  const { n, mean, rollout, flow } = maps;
  const T = n - 1;
  const pos = Array.from({ length: n }, (_, p) => p).filter((p) => p !== query); // the positions read, in order
  const table = el('table', 'mv-cls-table');
  table.append(el('caption', '', `Layer ${layer + 1}: what ${queryLabel} reads`));
  const kinds = [
    ['raw', pos.map((p) => mean[(layer * n + query) * n + p])],
    ['rollout', pos.map((p) => rollout[(layer * n + query) * n + p])],
    ['flow', Array.from(flow.subarray(layer * T, (layer + 1) * T))],
  ];
  const head = el('tr');
  head.append(el('th', 'mv-cls-corner', 'token', { scope: 'col' }));
  for (const [kind] of kinds) head.append(el('th', 'mv-cls-name', names[kind].label, { scope: 'col', title: names[kind].description, 'data-kind': kind }));
  table.append(el('thead'));
  table.tHead.append(head);
  const max = Object.fromEntries(kinds.map(([kind, vals]) => [kind, Math.max(0, ...vals.filter(Number.isFinite))]));
  const body = el('tbody');
  for (let t = 0; t < T; t++) {
    const p = pos[t];
    const tr = el('tr', '', undefined, { 'data-token': p });
    tr.append(el('th', 'mv-cls-tok', labels[p], { scope: 'row', dir: 'auto', title: labels[p] }));
    for (const [kind, vals] of kinds) {
      const c = sequentialColor(max[kind] > 0 ? vals[t] / max[kind] : 0);
      const td = el('td', 'mv-cls-cell', fmt(vals[t], 2), { 'data-kind': kind, 'data-value': vals[t], title: `${labels[p]}, ${names[kind].label}: ${fmt(vals[t], 4)}` });
      td.style.background = c.background;
      td.style.color = c.foreground;
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  return table;
}

export function renderModelView(container, { maps, labels, selected, names, onOpen, query = 0, queryLabel = '[CLS]', order = '[CLS] first' }) {
  const { layers: L, heads: H, n, data, mean, rollout } = maps;
  const grid = el('div', 'mv-grid', undefined, { role: 'group', 'aria-label': `Attention maps: ${L} layers × ${H} heads` });
  grid.style.setProperty('--mv-cols', String(H + 2));
  const header = el('div', 'mv-row mv-header');
  header.append(el('span', 'mv-corner', ''));
  for (let h = 0; h < H; h++) {
    const c = el('span', 'mv-colhead', `Head ${h + 1}`, { 'aria-hidden': 'true' });
    c.style.setProperty('--head-color', headColor(h));
    header.append(c);
  }
  header.append(el('span', 'mv-colhead mv-colhead-extra', names.raw.short, { 'aria-hidden': 'true', title: names.raw.description }));
  header.append(el('span', 'mv-colhead mv-colhead-extra', names.rollout.short, { 'aria-hidden': 'true', title: names.rollout.description }));
  grid.append(header);
  for (let l = 0; l < L; l++) {
    const row = el('div', 'mv-row', undefined, { 'data-layer': l });
    row.append(el('span', 'mv-rowhead', `Layer ${l + 1}`, { 'aria-hidden': 'true' }));
    for (let h = 0; h < H; h++) {
      const { canvas, max } = drawMap(data, (l * H + h) * n * n, n);
      const on = selected.layer === l && selected.heads.includes(h);
      const b = el('button', `mv-thumb${on ? ' selected' : ''}`, undefined, {
        type: 'button', 'data-layer': l, 'data-head': h, 'aria-pressed': on,
        'aria-label': `Layer ${l + 1}, head ${h + 1}: open in the head view`, title: `Layer ${l + 1}, head ${h + 1} (largest weight ${fmt(max, 3)})`,
      });
      canvas.setAttribute('aria-hidden', 'true');
      canvas.setAttribute('aria-label', ''); // named by its button (page-tools names unnamed canvases)
      b.style.setProperty('--head-color', headColor(h));
      b.append(canvas);
      b.addEventListener('click', () => onOpen(l, h));
      row.append(b);
    }
    for (const [kind, values] of [['raw', mean], ['rollout', rollout]]) {
      const { canvas, max } = drawMap(values, l * n * n, n);
      const f = el('figure', 'mv-extra', undefined, {
        'data-kind': kind, 'data-layer': l,
        title: `${names[kind].label}, layer ${l + 1} (largest weight ${fmt(max, 3)})`,
      });
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', `${names[kind].label}, layer ${l + 1}`);
      f.append(canvas);
      row.append(f);
    }
    grid.append(row);
  }
  const legend = el('div', 'mv-legend');
  legend.append(el('span', '', `Each map: rows = queries (attends from), columns = keys (attends to), ${order}; colour = weight ÷ the map’s largest weight. ${names.raw.short} = the layer’s heads averaged; ${names.rollout.short} = rollout through the layer.`));
  legend.append(colorbar({ stops: SEQUENTIAL, ticks: [{ at: 0, text: '0' }, { at: 1, text: 'max' }], label: 'weight' }));
  const cls = el('div', 'mv-cls');
  for (let l = 0; l < L; l++) cls.append(clsTable(maps, l, labels, names, query, queryLabel));
  const scroll = el('div', 'mv-scroll');
  scroll.append(grid);
  container.replaceChildren(scroll, legend, cls);
}
