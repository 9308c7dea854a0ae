// heads.js — the head view (BertViz-style) of one transformer layer: the n = T + 1 positions ([CLS] first) in two
// columns, a line from each query token (left, "attends from") to each key token (right, "attends to") per shown
// head, in the head's colour, stroke opacity ∝ the attention weight (÷ the largest weight shown in the layer, so that
// one is opaque; svg data-opacity-scale holds the factor). Drawing only: the view owns the state.
//
// Contract:
//   HEAD_COLORS, headColor(h)   — one colour per head (Tableau 10, cycled; heads ≥ 10 get dashed lines)
//   renderHeadView(container, { labels, unknown, n, H, layer, weights, heads, title })
//     labels   n display strings ([CLS] first); unknown: n booleans (dotted underline); H heads in the layer
//     weights  Float32Array [H·n·n] of the layer (row-major: head, query, key); rows sum to 1
//     heads    the shown heads (0-based indices)
//     Replaces the container's children with: an <svg class="hv-svg"> holding .hv-lines: one <g data-head=h> per
//     shown head, of one <path> per opacity band (stroke-opacity: weight × scale to two significant digits; its lines
//     as segments of d, and as "from-to" pairs in data-lines, in the same order; lines under 0.00005 left out), a
//     highlight group (.hv-hl), the token labels (<g class="hv-tok" data-side="from|to"
//     data-index=i>, focusable), and a readout (.hv-readout, aria-live) under it. Hover or keyboard focus on a
//     query token shows its row only: .hv-lines gets display=none (an attribute, so an SVG export matches) and
//     .hv-hl the row's n·|heads| paths (data-head, data-from, data-to, data-weight); the keys are shaded by its
//     weights and the top three read out. On a key token: its column (who attends to it). Keyboard: one tab stop
//     per column (roving tabindex), ↑/↓ (Home/End) move, ←/→ switch column, Enter / Space pins the token (it stays
//     highlighted while the pointer moves on), Escape clears. Returns { svg, focus(side, index), active() }.
// All text goes in through textContent; no markup from data.
import { el, fmt } from './dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
export const HEAD_COLORS = Object.freeze(['#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b07aa1', '#76b7b2', '#edc948',
  '#ff9da7', '#9c755f', '#79706e']);
export const headColor = (h) => HEAD_COLORS[h % HEAD_COLORS.length];

const ROW_H = 22;
const TOP = 30;
const MAX_CHARS = 16;

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

const short = (s) => (s.length > MAX_CHARS ? `${s.slice(0, MAX_CHARS - 1)}…` : s);

export function renderHeadView(container, { labels, unknown = [], n, H, layer, weights, heads, title = '' }) {
  const width = Math.max(300, Math.min(680, container.clientWidth || 600));
  const colW = Math.round(Math.min(150, Math.max(84, width * 0.27)));
  const x1 = colW, x2 = width - colW;
  const height = TOP + n * ROW_H + 6;
  const y = (i) => TOP + i * ROW_H + ROW_H / 2;
  const w = (h, i, j) => weights[(h * n + i) * n + j];

  const svg = svgEl('svg', {
    class: 'hv-svg', viewBox: `0 0 ${width} ${height}`, width, height, role: 'group',
    'aria-label': title || `Head view, layer ${layer + 1}`,
  });
  svg.append(svgEl('title', {}, title || `Head view, layer ${layer + 1}`));
  svg.append(svgEl('text', { x: x1 - 8, y: 14, 'text-anchor': 'end', class: 'hv-colhead' }, 'attends from'));
  svg.append(svgEl('text', { x: x2 + 8, y: 14, class: 'hv-colhead' }, 'attends to'));

  // key shading (behind the lines): a bar per key token, its opacity the focused query's weight
  const shades = svgEl('g', { class: 'hv-shades' });
  const shadeRects = [];
  for (let j = 0; j < n; j++) {
    const r = svgEl('rect', { x: x2 + 2, y: y(j) - ROW_H / 2 + 2, width: colW - 4, height: ROW_H - 4, rx: 4,
      class: 'hv-shade', fill: '#5b3fa0', 'fill-opacity': 0 });
    shadeRects.push(r);
    shades.append(r);
  }
  const fromShades = [];
  for (let i = 0; i < n; i++) {
    const r = svgEl('rect', { x: 2, y: y(i) - ROW_H / 2 + 2, width: colW - 4, height: ROW_H - 4, rx: 4,
      class: 'hv-shade', fill: '#5b3fa0', 'fill-opacity': 0 });
    fromShades.push(r);
    shades.append(r);
  }
  svg.append(shades);

  // opacity ∝ weight, scaled so that the largest weight of the shown heads in this layer is drawn opaque
  let maxW = 0;
  for (const h of heads) for (let k = 0; k < n * n; k++) maxW = Math.max(maxW, weights[h * n * n + k]);
  const scale = maxW > 0 ? 1 / maxW : 0;
  svg.dataset.opacityScale = String(scale);
  const opacity = (h, i, j) => Math.min(1, Math.max(0, w(h, i, j) * scale));
  // The lines of one head are drawn by opacity bands: one <path> per head and band holds every line whose opacity
  // rounds to the band's (two significant digits; a line under 0.00005 is left out, as the per-line paths drew it
  // at 0.0000). A head over 65 positions is ~4,000 lines: one element each cost the page ~0.5 s of style, layout and
  // paint per explanation on 8 heads (docs/BENCHMARKS.md); a band is one element, and the lines it holds are listed
  // in data-lines ("from-to …", in the order of its segments) so that what is drawn can be read back.
  const lines = svgEl('g', { class: 'hv-lines' });
  for (const h of heads) {
    const hg = svgEl('g', { 'data-head': h, stroke: headColor(h) });
    if (h >= HEAD_COLORS.length) hg.setAttribute('stroke-dasharray', '4 3');
    const bands = new Map(); // opacity → { d: [], pairs: [] }
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const o = opacity(h, i, j);
        if (!(o >= 0.00005)) continue;
        const key = o.toPrecision(2);
        let b = bands.get(key);
        if (!b) bands.set(key, (b = { d: [], pairs: [] }));
        b.d.push(`M${x1 + 2} ${y(i)}L${x2 - 2} ${y(j)}`);
        b.pairs.push(`${i}-${j}`);
      }
    }
    for (const key of [...bands.keys()].sort((a, b) => Number(a) - Number(b))) {
      const b = bands.get(key);
      hg.append(svgEl('path', { d: b.d.join(''), 'stroke-opacity': Number(key), 'data-lines': b.pairs.join(' ') }));
    }
    lines.append(hg);
  }
  svg.append(lines);
  // hover / focus: the full set is hidden (one style change) and the focused row's or column's n·|heads| lines are
  // drawn here, one element each (data-head, data-from, data-to, data-weight)
  const highlight = svgEl('g', { class: 'hv-hl' });
  svg.append(highlight);
  const path = (h, i, j) => svgEl('path', {
    d: `M${x1 + 2} ${y(i)}L${x2 - 2} ${y(j)}`, stroke: headColor(h),
    'stroke-opacity': opacity(h, i, j).toFixed(4),
    'data-head': h, 'data-from': i, 'data-to': j, 'data-weight': w(h, i, j),
    ...(h >= HEAD_COLORS.length ? { 'stroke-dasharray': '4 3' } : {}),
  });

  const toks = { from: [], to: [] };
  for (const side of ['from', 'to']) {
    for (let i = 0; i < n; i++) {
      const label = labels[i];
      const g = svgEl('g', {
        class: `hv-tok${unknown[i] ? ' unk' : ''}${i === 0 ? ' cls' : ''}`, 'data-side': side, 'data-index': i,
        tabindex: i === 0 ? 0 : -1, role: 'button',
        'aria-label': `${side === 'from' ? 'query' : 'key'} ${i === 0 ? '[CLS]' : `token ${i} “${label}”`}`,
      });
      const text = svgEl('text', side === 'from'
        ? { x: x1 - 8, y: y(i) + 4, 'text-anchor': 'end' } : { x: x2 + 8, y: y(i) + 4 }, short(label));
      g.append(svgEl('rect', { x: side === 'from' ? 0 : x2, y: y(i) - ROW_H / 2, width: colW, height: ROW_H, class: 'hv-hit', fill: '#ffffff', 'fill-opacity': 0 }));
      g.append(text);
      if (label.length > MAX_CHARS) g.append(svgEl('title', {}, label));
      toks[side].push(g);
      svg.append(g);
    }
  }

  const readout = el('p', 'hv-readout', '', { 'aria-live': 'polite' });
  const idle = heads.length
    ? 'Point at a token, or Tab to the tokens and use the arrow keys, to see only its lines and read its weights.'
    : 'No head is shown: switch one on above.';
  readout.textContent = idle;

  let pinned = null; // {side, index}
  let active = null;
  const meanOver = (i, j, side) => {
    if (!heads.length) return 0;
    let s = 0;
    for (const h of heads) s += side === 'from' ? w(h, i, j) : w(h, j, i);
    return s / heads.length;
  };

  function show(target) {
    active = target;
    svg.classList.toggle('hv-focus', Boolean(target));
    if (target) lines.setAttribute('display', 'none'); // an attribute, so an SVG export shows what the page shows
    else lines.removeAttribute('display');
    highlight.replaceChildren();
    for (const side of ['from', 'to']) for (const g of toks[side]) g.classList.remove('active');
    for (const r of [...shadeRects, ...fromShades]) r.setAttribute('fill-opacity', 0);
    if (!target) {
      readout.textContent = idle;
      return;
    }
    const { side, index } = target;
    toks[side][index].classList.add('active');
    const others = side === 'from' ? shadeRects : fromShades;
    for (const h of heads) for (let j = 0; j < n; j++) highlight.append(side === 'from' ? path(h, index, j) : path(h, j, index));
    const vals = [];
    for (let j = 0; j < n; j++) {
      const v = meanOver(index, j, side);
      others[j].setAttribute('fill-opacity', Math.min(0.85, v).toFixed(3));
      vals.push([j, v]);
    }
    vals.sort((a, b) => b[1] - a[1]);
    const top = vals.slice(0, 3).map(([j, v]) => `${labels[j]} ${fmt(v, 3)}`).join(', ');
    const who = index === 0 && labels[0] === '[CLS]' ? '[CLS]' : `“${labels[index]}”`;
    const over = heads.length === 1 ? `head ${heads[0] + 1}` : `the mean of ${heads.length} heads`;
    readout.textContent = heads.length === 0 ? idle : side === 'from'
      ? `Layer ${layer + 1}, ${over}: ${who} attends most to ${top}.${pinned ? ' (pinned — Escape clears)' : ''}`
      : `Layer ${layer + 1}, ${over}: attending most to ${who}: ${top}.${pinned ? ' (pinned — Escape clears)' : ''}`;
  }

  function focus(side, index) {
    const list = toks[side];
    const i = Math.max(0, Math.min(n - 1, index));
    for (const g of list) g.setAttribute('tabindex', -1);
    list[i].setAttribute('tabindex', 0);
    list[i].focus();
  }

  for (const side of ['from', 'to']) {
    toks[side].forEach((g, i) => {
      g.addEventListener('pointerenter', () => { if (!pinned) show({ side, index: i }); });
      g.addEventListener('pointerleave', () => { if (!pinned) show(null); });
      g.addEventListener('focus', () => { if (!pinned || pinned.side !== side || pinned.index !== i) { pinned = null; show({ side, index: i }); } });
      g.addEventListener('click', () => {
        pinned = pinned && pinned.side === side && pinned.index === i ? null : { side, index: i };
        show(pinned ?? { side, index: i });
      });
      g.addEventListener('keydown', (e) => {
        const other = side === 'from' ? 'to' : 'from';
        if (e.key === 'ArrowDown') focus(side, i + 1);
        else if (e.key === 'ArrowUp') focus(side, i - 1);
        else if (e.key === 'Home') focus(side, 0);
        else if (e.key === 'End') focus(side, n - 1);
        else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
          if ((e.key === 'ArrowRight') === (side === 'from')) focus(other, i);
          else return;
        } else if (e.key === 'Enter' || e.key === ' ') {
          pinned = pinned ? null : { side, index: i };
          show({ side, index: i });
        } else if (e.key === 'Escape') {
          pinned = null;
          show(null);
        } else return;
        e.preventDefault();
      });
    });
  }
  svg.addEventListener('focusout', (e) => {
    if (!svg.contains(e.relatedTarget) && !pinned) show(null);
  });

  const scroller = el('div', 'hv-scroll');
  scroller.append(svg);
  container.replaceChildren(scroller, readout);
  return { svg, focus, active: () => active };
}
