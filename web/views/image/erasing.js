// erasing.js — the Image view's adversarial erasing strip (Wei et al. 2017) as one job. Part of
// views/image-view.js (installErasing(v) adds runErase to v).
import { el } from '../../render/dom.js';
import { renderEraseStrip } from '../../render/image-strip.js';
import { METHOD, FEATURE } from './methods.js';

export function installErasing(v) {
  const { stripEl } = v.ui;
  // ------------------------------------------------------------ adversarial erasing
  async function runErase() {
    if (v.job || !v.photo) return;
    const p = v.photo;
    const method = FEATURE.has(v.st.method) ? v.st.method : 'cam';
    const h = v.client.erase({
      imageId: p.res.imageId, classIndex: v.classIndex, method, steps: v.st.erasesteps, threshold: v.st.erasethr / 100, fill: v.st.erasefill, colormap: v.st.colormap,
    }, (m) => v.jobProgress(m, 'Erasing steps'));
    v.startJob(`Adversarial erasing (${METHOD[method].label})`, [h], 'erase');
    try {
      const r = await h.promise;
      v.endJob();
      if (p !== v.photo) return;
      v.eraseResult = { method, class: v.classIndex, fill: v.st.erasefill, threshold: v.st.erasethr / 100, cancelled: Boolean(r.cancelled), steps: r.steps };
      renderEraseStrip(stripEl, r.steps, { targetLabel: v.labelOf(v.classIndex), opacity: v.st.opacity / 100, colormap: v.st.colormap });
      const note = method !== v.st.method ? ` (${METHOD[v.st.method].label} is slow, so erasing uses CAM)` : '';
      const flips = r.steps.findIndex((s) => s.top1.index !== r.steps[0].top1.index);
      stripEl.append(el('p', 'chart-caption',
        `Each step erases (fill: ${v.st.erasefill}) where the ${METHOD[method].label} map of “${v.labelOf(v.classIndex)}” is ≥ ${v.st.erasethr} % of its range${note}, then runs the model again. ` +
          (flips > 0 ? `The top-1 prediction changes at step ${flips}.` : 'The top-1 prediction never changed.') +
          (r.cancelled ? ' (cancelled)' : '')));
    } catch (e) {
      v.endJob();
      v.showMessage(`Adversarial erasing failed: ${e.message}`);
    }
  }
  Object.assign(v, { runErase });
}
