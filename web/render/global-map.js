// global-map.js — the Global view's 2-D map as one SVG: the drawn items' PCA coordinates (dots coloured by score),
// the query direction (an arrow from the mean), equal-score lines (perpendicular to the query in the PCA plane)
// with their score, and the selected item ringed and named. Drawing only; what to draw is analysis/global-view.js.
//
// Contract:
//   renderGlobalMap(container, { view, indices, selected = -1, width, noun = 'word' }) → the <svg>; every dot is a
//     <circle class="gv-dot" data-i="ITEM INDEX">; the arrow is <g class="gv-query">, the lines <g class="gv-contours">
//     (data-level on each line). x and y are scaled apart (PC1 usually holds most of the variance), which the
//     axis labels say; lines and arrow are drawn in data coordinates, so they stay true to the score.
import { contourLevels, contourSegment } from '../analysis/global-view.js';

const NS = 'http://www.w3.org/2000/svg';
const mk = (tag, attrs = {}, text) => {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
};

// low score blue → grey → high score red (the page's diverging pair)
function colorOf(t) {
  const lo = [33, 102, 172], mid = [200, 200, 200], hi = [178, 24, 43];
  const [a, b, u] = t < 0.5 ? [lo, mid, t / 0.5] : [mid, hi, (t - 0.5) / 0.5];
  return `rgb(${a.map((v, k) => Math.round(v + (b[k] - v) * u)).join(',')})`;
}

export function renderGlobalMap(container, { view, indices, selected = -1, width = 640, noun = 'word' }) {
  const W = Math.max(280, Math.round(width));
  const H = Math.round(Math.min(460, Math.max(240, W * 0.62)));
  const m = { l: 44, r: 12, t: 14, b: 40 };
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity, s0 = Infinity, s1 = -Infinity;
  for (const i of indices) {
    x0 = Math.min(x0, view.x[i]); x1 = Math.max(x1, view.x[i]);
    y0 = Math.min(y0, view.y[i]); y1 = Math.max(y1, view.y[i]);
    s0 = Math.min(s0, view.score[i]); s1 = Math.max(s1, view.score[i]);
  }
  if (!(x1 > x0)) { x0 -= 1; x1 += 1; }
  if (!(y1 > y0)) { y0 -= 1; y1 += 1; }
  const px = (x1 - x0) * 0.05, py = (y1 - y0) * 0.06;
  const box = { x0: x0 - px, x1: x1 + px, y0: y0 - py, y1: y1 + py };
  const sx = (x) => m.l + ((x - box.x0) / (box.x1 - box.x0)) * (W - m.l - m.r);
  const sy = (y) => H - m.b - ((y - box.y0) / (box.y1 - box.y0)) * (H - m.t - m.b);
  const svg = mk('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'gv-map-svg', 'font-size': 11, 'font-family': 'system-ui, sans-serif' });
  svg.append(mk('rect', { x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, fill: '#fcfcfc', stroke: '#ccc' }));

  // equal-score lines
  const g = mk('g', { class: 'gv-contours' });
  for (const level of contourLevels(view, indices, 5)) {
    const seg = contourSegment(view, level, box);
    if (!seg) continue;
    const [[ax, ay], [bx, by]] = seg;
    g.append(mk('line', { x1: sx(ax), y1: sy(ay), x2: sx(bx), y2: sy(by), stroke: '#aaa', 'stroke-dasharray': '4 3', 'data-level': level }));
    const lx = Math.min(W - m.r - 4, Math.max(m.l + 4, sx(bx))), ly = Math.min(H - m.b - 4, Math.max(m.t + 10, sy(by)));
    g.append(mk('text', { x: lx, y: ly, fill: '#666', 'text-anchor': sx(bx) > W - 40 ? 'end' : 'start' }, `score ${String(level).replace(/^-/, '\u2212')}`));
  }
  svg.append(g);

  // dots, the selected one last
  const dots = mk('g', { class: 'gv-dots' });
  const range = s1 - s0 || 1;
  for (const i of indices) {
    if (i === selected) continue;
    const c = mk('circle', { class: 'gv-dot', 'data-i': i, cx: sx(view.x[i]).toFixed(1), cy: sy(view.y[i]).toFixed(1), r: 3, fill: colorOf((view.score[i] - s0) / range), 'fill-opacity': 0.8 });
    dots.append(c);
  }
  svg.append(dots);

  // the query: from the mean (the origin of the PCA plane) along (q1, q2), a third of the plot wide
  const [q1, q2] = view.query;
  const len = Math.hypot(q1 / (box.x1 - box.x0), q2 / (box.y1 - box.y0)) || 1;
  const k = 0.3 / len;
  const qa = mk('g', { class: 'gv-query' });
  const marker = mk('marker', { id: 'gv-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' });
  marker.append(mk('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#111' }));
  qa.append(mk('defs'));
  qa.firstChild.append(marker);
  qa.append(mk('line', { x1: sx(0), y1: sy(0), x2: sx(k * q1), y2: sy(k * q2), stroke: '#111', 'stroke-width': 2.5, 'marker-end': 'url(#gv-arrow)' }));
  qa.append(mk('text', { x: sx(k * q1), y: sy(k * q2) - 8, 'text-anchor': 'middle', 'font-weight': 'bold', fill: '#111', stroke: '#fff', 'stroke-width': 3, 'paint-order': 'stroke' }, 'query'));
  svg.append(qa);

  if (selected >= 0) {
    const cx = sx(view.x[selected]), cy = sy(view.y[selected]);
    svg.append(mk('circle', { class: 'gv-dot gv-selected', 'data-i': selected, cx: cx.toFixed(1), cy: cy.toFixed(1), r: 6, fill: colorOf((view.score[selected] - s0) / range), stroke: '#111', 'stroke-width': 2 }));
    // as long as the plot's width allows (a sentence is long; a phone's plot is narrow), on a white halo so the dots
    // and the score lines under it do not run through it
    const maxChars = Math.max(16, Math.min(40, Math.floor((W - m.l - m.r) / 2 / 6.5)));
    const label = view.texts[selected].length > maxChars ? `${view.texts[selected].slice(0, maxChars)}…` : view.texts[selected];
    const right = cx > (m.l + W - m.r) / 2;
    svg.append(mk('text', { x: right ? Math.max(m.l + 4, cx - 9) : Math.min(W - m.r - 4, cx + 9), y: Math.max(m.t + 10, cy - 8),
      'text-anchor': right ? 'end' : 'start', 'font-weight': 'bold', class: 'gv-selected-label', stroke: '#fff', 'stroke-width': 3,
      'stroke-linejoin': 'round', 'paint-order': 'stroke' }, label));
  }
  const ev = view.explained_variance ?? [];
  const pct = (v) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : '?');
  svg.append(mk('text', { x: (m.l + W - m.r) / 2, y: H - 8, 'text-anchor': 'middle', fill: '#333' }, `PC1 (${pct(ev[0])} of the variance) →`));
  svg.append(mk('text', { x: 12, y: (m.t + H - m.b) / 2, 'text-anchor': 'middle', fill: '#333', transform: `rotate(-90 12 ${(m.t + H - m.b) / 2})` }, `PC2 (${pct(ev[1])}) →`));
  svg.dataset.points = String(indices.length);
  svg.dataset.noun = noun;
  container.replaceChildren(svg);
  return svg;
}
