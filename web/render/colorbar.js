// colorbar.js — a colour bar with values: the scale beside every heat row and map.
//
// Contract:
//   COLORMAPS                 name → colour stops (hex, low → high) of the image maps' colour maps
//                             (viridis, inferno, gray, jet: matplotlib's tables sampled at 5–6 points).
//   colorbar({ stops, ticks, label, className }) → <div class="colorbar" role="img" aria-label=…>:
//       a gradient strip and the tick values under it. ticks = [{ at: 0…1, text }] (e.g. 0 and the row max);
//       label (optional) is a short caption in front ("α", "normalised map"). The aria-label reads
//       "LABEL colour scale from FIRST to LAST".
//   mapColorbar(colormap, { low = 'low', high = 'high', label }) → colorbar() for an image / localization map
//       in the given colour map (unknown name → viridis), min–max normalised: ticks low, mid, high.
// Drawing only; values arrive already formatted (analysis/format.js).
import { el } from './dom.js';
import { cssGradient } from './colors.js';

export const COLORMAPS = Object.freeze({
  viridis: Object.freeze(['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725']),
  inferno: Object.freeze(['#000004', '#57106e', '#bc3754', '#f98e09', '#fcffa4']),
  gray: Object.freeze(['#000000', '#ffffff']),
  jet: Object.freeze(['#000080', '#0000ff', '#00ffff', '#ffff00', '#ff0000', '#800000']),
  plasma: Object.freeze(['#0d0887', '#7e03a8', '#cc4778', '#f89540', '#f0f921']),
});

export function colorbar({ stops, ticks = [], label = '', className = '' }) {
  const box = el('div', `colorbar${className ? ' ' + className : ''}`);
  box.setAttribute('role', 'img');
  const first = ticks[0]?.text ?? '';
  const last = ticks[ticks.length - 1]?.text ?? '';
  box.setAttribute('aria-label', `${label ? label + ' ' : ''}colour scale from ${first} to ${last}`.trim());
  if (label) box.append(el('span', 'colorbar-label', label));
  const body = el('span', 'colorbar-body');
  const strip = el('span', 'colorbar-strip');
  strip.style.background = cssGradient(stops);
  const scale = el('span', 'colorbar-ticks');
  for (const t of ticks) {
    const s = el('span', 'colorbar-tick', t.text);
    const at = Math.max(0, Math.min(1, t.at));
    s.style.left = `${at * 100}%`;
    s.dataset.at = String(at);
    if (at === 0) s.classList.add('start');
    else if (at === 1) s.classList.add('end');
    scale.append(s);
  }
  body.append(strip, scale);
  box.append(body);
  return box;
}

export function mapColorbar(colormap, { low = 'low', high = 'high', mid = '', label = '' } = {}) {
  const stops = COLORMAPS[colormap] ?? COLORMAPS.viridis;
  const ticks = [{ at: 0, text: low }];
  if (mid) ticks.push({ at: 0.5, text: mid });
  ticks.push({ at: 1, text: high });
  return colorbar({ stops, ticks, label, className: 'colorbar-map' });
}
