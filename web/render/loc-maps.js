// loc-maps.js — the Localization lab's pictures: probe images (planar RGB floats in [0, 1]) with a class map or
// a CBAM spatial map over them, the object mask's outline, and the erasing strips. Drawing only; the pixel
// helpers are pure (work in Node).
//
// Contract:
//   planarToRgba(planar, S, offset = 0) → Uint8ClampedArray S·S·4 (image k of a batch: offset = k·3·S·S)
//   minmax(map, offset, n) → Float32Array n, min–max normalised (a constant map → zeros)
//   mapToRgba(map01, alphaScale = 1) → Uint8ClampedArray (a perceptual ramp, dark purple → yellow; alpha
//       grows with the value so low values let the image show through)
//   drawPictureWithMap(canvas, { image, S, imageOffset, map, h, w, mapOffset, mask, maskOffset, px }) → draws the
//       image scaled to px, the map (bilinear upscaling by the canvas) on top and the mask outline (white)
//   renderProbes(container, probes, { epoch, classNames, px }) → a table: one column per probe image, rows
//       "image", "class map (CAM)" and one per CBAM stage; the caption holds the label and the prediction.
//       Each canvas has data-probe / data-kind ('image' | 'cam' | 'spatial') and the table data-epoch.
//   renderEraseStrip(container, erase, { px }) → for each kept example a row: for each step 1..k the image as
//       that step sees it (earlier regions erased) with the step's map on top and the object outlined.
import { el } from './dom.js';

const RAMP = [[13, 8, 135], [126, 3, 168], [204, 71, 120], [248, 149, 64], [240, 249, 33]]; // plasma-like

export function planarToRgba(planar, S, offset = 0) {
  const P = S * S;
  const out = new Uint8ClampedArray(P * 4);
  for (let i = 0; i < P; i++) {
    out[4 * i] = planar[offset + i] * 255;
    out[4 * i + 1] = planar[offset + P + i] * 255;
    out[4 * i + 2] = planar[offset + 2 * P + i] * 255;
    out[4 * i + 3] = 255;
  }
  return out;
}

export function minmax(map, offset = 0, n = map.length - offset) {
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = map[offset + i];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const out = new Float32Array(n);
  if (!(hi > lo)) return out;
  for (let i = 0; i < n; i++) out[i] = (map[offset + i] - lo) / (hi - lo);
  return out;
}

export function mapToRgba(map01, alphaScale = 1) {
  const out = new Uint8ClampedArray(map01.length * 4);
  for (let i = 0; i < map01.length; i++) {
    const t = Math.max(0, Math.min(1, map01[i] || 0)) * (RAMP.length - 1);
    const k = Math.min(RAMP.length - 2, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) out[4 * i + c] = RAMP[k][c] * (1 - f) + RAMP[k + 1][c] * f;
    out[4 * i + 3] = 255 * alphaScale * (0.25 + 0.75 * (t / (RAMP.length - 1)));
  }
  return out;
}

function smallCanvas(rgba, w, h) {
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  c.getContext('2d').putImageData(new ImageData(rgba, w, h), 0, 0);
  return c;
}

export function drawPictureWithMap(canvas, { image, S, imageOffset = 0, map = null, h, w, mapOffset = 0, mask = null, maskOffset = 0, px = 96, alpha = 0.75 }) {
  canvas.width = px;
  canvas.height = px;
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(smallCanvas(planarToRgba(image, S, imageOffset), S, S), 0, 0, px, px);
  if (map) {
    ctx.imageSmoothingEnabled = true;
    ctx.globalAlpha = alpha;
    ctx.drawImage(smallCanvas(mapToRgba(minmax(map, mapOffset, h * w)), w, h), 0, 0, px, px);
    ctx.globalAlpha = 1;
  }
  if (mask) {
    // the outline as whole mask pixels on an S×S layer, scaled without smoothing: at any px / S ratio it stays a
    // crisp white line (fractional 1-px rectangles vanished into anti-aliasing at 64×64 → 96 px)
    const rgba = new Uint8ClampedArray(S * S * 4);
    let any = 0;
    for (let y = 0; y < S; y++) {
      for (let x = 0; x < S; x++) {
        const m = mask[maskOffset + y * S + x];
        if (!m) continue;
        const edge = x === 0 || y === 0 || x === S - 1 || y === S - 1 || !mask[maskOffset + y * S + x - 1] ||
          !mask[maskOffset + y * S + x + 1] || !mask[maskOffset + (y - 1) * S + x] || !mask[maskOffset + (y + 1) * S + x];
        if (!edge) continue;
        const k = 4 * (y * S + x);
        rgba[k] = rgba[k + 1] = rgba[k + 2] = rgba[k + 3] = 255;
        any++;
      }
    }
    if (any) {
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(smallCanvas(rgba, S, S), 0, 0, px, px);
    }
    canvas.dataset.outline = String(any);
  }
}

export function renderProbes(container, probes, { epoch = null, classNames = [], px = 96 } = {}) {
  const { n, size: S, cam, spatial } = probes;
  const name = (k) => classNames[k] ?? `class ${k}`;
  const table = el('table', 'loc-probes', null, { 'data-epoch': epoch ?? '' });
  const head = el('tr');
  head.append(el('th', null, epoch ? `after epoch ${epoch}` : ''));
  for (let i = 0; i < n; i++) {
    const ok = probes.predicted[i] === probes.labels[i];
    const th = el('th', ok ? 'ok' : 'wrong', `${name(probes.labels[i])} → ${name(probes.predicted[i])}`);
    th.title = `true class ${name(probes.labels[i])}, predicted ${name(probes.predicted[i])}`;
    head.append(th);
  }
  const rows = [['image (object outlined)', 'image', null], ['class map (CAM, true class)', 'cam', cam]];
  for (const s of spatial) rows.push([`CBAM spatial, stage ${s.stage}`, 'spatial', s]);
  const body = el('tbody');
  for (const [label, kind, m] of rows) {
    const tr = el('tr');
    tr.append(el('th', 'row-head', label));
    for (let i = 0; i < n; i++) {
      const td = el('td');
      const canvas = el('canvas', 'loc-canvas', null, { 'data-probe': i, 'data-kind': kind, 'aria-label': `${label}, probe ${i + 1}` });
      drawPictureWithMap(canvas, {
        image: probes.images, S, imageOffset: i * 3 * S * S,
        map: m ? m.data : null, h: m?.h, w: m?.w, mapOffset: m ? i * m.h * m.w : 0,
        mask: kind === 'image' ? probes.masks : null, maskOffset: i * S * S, px,
      });
      td.append(canvas);
      tr.append(td);
    }
    body.append(tr);
  }
  const thead = el('thead');
  thead.append(head);
  table.append(thead, body);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  container.replaceChildren(wrap);
}

export function renderEraseStrip(container, erase, { px = 80 } = {}) {
  const { keep, k, size: S } = erase;
  const P = S * S;
  const table = el('table', 'loc-erase-strip');
  const head = el('tr');
  head.append(el('th', null, ''));
  for (let t = 1; t <= k; t++) head.append(el('th', null, t === 1 ? 'step 1 (clean image)' : `step ${t}`));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (let i = 0; i < keep; i++) {
    const tr = el('tr');
    tr.append(el('th', 'row-head', `example ${i + 1}`));
    for (let t = 0; t < k; t++) {
      const td = el('td');
      const canvas = el('canvas', 'loc-canvas', null, { 'data-example': i, 'data-step': t + 1 });
      // the image as step t+1 sees it (earlier regions erased), that step's map on top, the object outlined
      drawPictureWithMap(canvas, {
        image: erase.images, S, imageOffset: (i * k + t) * 3 * P, map: erase.maps, h: S, w: S, mapOffset: (i * k + t) * P,
        mask: erase.masks, maskOffset: i * P, px, alpha: 0.45,
      });
      td.append(canvas);
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(thead, body);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  container.replaceChildren(wrap);
}
