// image-canvas.js — draws the Image lab's pictures: RGBA arrays onto canvases, a map over a photo at a given
// opacity, tiles of the comparison grid, and PNG export. Drawing only; no state, no worker calls.
//
// Contract:
//   drawRgba(canvas, rgba, width = 224, height = 224)     puts the RGBA bytes on the canvas (resized to fit).
//   drawOverlay(canvas, photoRgba, mapRgba, opacity, size = 224)
//                                                          the photo, then the colourised map on top with
//                                                          globalAlpha = opacity (0–1); mapRgba null → photo only.
//   makeTile({ title, sub, photoRgba, mapRgba, opacity, state, action, onAction, attrs, colormap })
//                                                          a <figure class="image-tile"> with a 224 canvas and a
//                                                          caption; state 'ready' | 'pending' | 'running' | 'error'.
//                                                          The canvas is focusable (tabindex 0, role img, an
//                                                          aria-label "TITLE: SUB"); Enter / Space click it. A
//                                                          ready map gets a colour bar (render/colorbar.js) in
//                                                          `colormap` (default viridis; the view should pass
//                                                          state.colormap).
//   colorbar(colormapRgba)                                 a small canvas strip from 0 to 1 (RGBA of 256×1).
//   downloadCanvasPng(canvas, filename)                    saves the canvas as a PNG file (a Blob URL link).
import { el } from './dom.js';
import { mapColorbar } from './colorbar.js';

function imageData(rgba, width, height) {
  const data = rgba instanceof Uint8ClampedArray ? rgba : new Uint8ClampedArray(rgba.buffer ?? rgba, rgba.byteOffset ?? 0, width * height * 4);
  return new ImageData(data, width, height);
}

export function drawRgba(canvas, rgba, width = 224, height = 224) {
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  canvas.getContext('2d').putImageData(imageData(rgba, width, height), 0, 0);
}

const scratch = typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(224, 224) : null;

export function drawOverlay(canvas, photoRgba, mapRgba, opacity, size = 224) {
  if (canvas.width !== size) canvas.width = size;
  if (canvas.height !== size) canvas.height = size;
  const ctx = canvas.getContext('2d');
  ctx.globalAlpha = 1;
  ctx.putImageData(imageData(photoRgba, size, size), 0, 0);
  if (!mapRgba) return;
  const tmp = scratch && scratch.width === size ? scratch : new OffscreenCanvas(size, size);
  tmp.getContext('2d').putImageData(imageData(mapRgba, size, size), 0, 0);
  ctx.globalAlpha = Math.max(0, Math.min(1, opacity));
  ctx.drawImage(tmp, 0, 0);
  ctx.globalAlpha = 1;
}

export function makeTile({ title, sub = '', photoRgba, mapRgba = null, opacity = 0.5, state = 'ready', action = null, onAction = null, attrs = {}, colormap = 'viridis' }) {
  const fig = el('figure', `image-tile tile-${state}`, null, attrs);
  const canvas = el('canvas', 'image-tile-canvas', null, {
    width: 224, height: 224, tabindex: 0, role: 'img',
    'aria-label': `${title}${sub ? `: ${sub}` : ''}${state === 'ready' && mapRgba ? ' (map over the photo; press Enter to show it large)' : ''}`,
  });
  canvas.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      canvas.click();
    }
  });
  if (photoRgba) drawOverlay(canvas, photoRgba, state === 'ready' ? mapRgba : null, opacity);
  const wrap = el('div', 'image-tile-pic');
  wrap.append(canvas);
  if (action) {
    const b = el('button', 'image-tile-action', action, { type: 'button' });
    b.addEventListener('click', () => onAction?.());
    wrap.append(b);
  }
  const cap = el('figcaption');
  cap.append(el('b', null, title));
  if (sub) cap.append(el('span', 'image-tile-sub', sub));
  fig.append(wrap, cap);
  if (state === 'ready' && mapRgba) fig.append(mapColorbar(colormap, { low: 'low', high: 'high', label: '' }));
  fig.canvas = canvas;
  return fig;
}

export function colorbar(rgba256) {
  const c = el('canvas', 'image-colorbar', null, { width: 256, height: 1, 'aria-hidden': 'true' });
  c.getContext('2d').putImageData(imageData(rgba256, 256, 1), 0, 0);
  return c;
}

export function downloadCanvasPng(canvas, filename) {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => {
      if (!blob) {
        reject(new Error('The browser could not encode the PNG.'));
        return;
      }
      const url = URL.createObjectURL(blob);
      const a = el('a', null, null, { href: url, download: filename });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      resolve(blob);
    }, 'image/png');
  });
}
