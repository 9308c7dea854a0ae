// image-strip.js — the adversarial-erasing strip: one tile per step (step 0 = the photo), each with the map
// that will be erased next drawn over it, the top-1 prediction and the probability of the explained class.
// Drawing only.
//
// Contract:
//   renderEraseStrip(container, steps, { targetLabel, opacity, colormap })
//     steps: [{step, display (RGBA 224²), nextMap (RGBA | undefined), top1: {label, prob}, target}]
//     Tiles are .image-tile[data-step=k]; a tile whose top-1 differs from step 0's gets class "flipped".
import { el, pct } from './dom.js';
import { makeTile } from './image-canvas.js';

export function renderEraseStrip(container, steps, { targetLabel = '', opacity = 0.45, colormap = 'viridis' } = {}) {
  const strip = el('div', 'image-strip');
  const first = steps[0]?.top1?.index;
  for (const s of steps) {
    const tile = makeTile({
      title: s.step === 0 ? 'photo' : `after ${s.step} erasing${s.step === 1 ? '' : 's'}`,
      sub: `top-1: ${s.top1.label} ${pct(s.top1.prob)} · “${targetLabel}” ${pct(s.target)}`,
      photoRgba: s.display,
      mapRgba: s.nextMap ?? null,
      opacity,
      colormap,
      attrs: { 'data-step': s.step },
    });
    if (s.top1.index !== first) tile.classList.add('flipped');
    strip.append(tile);
  }
  container.replaceChildren(strip);
}
