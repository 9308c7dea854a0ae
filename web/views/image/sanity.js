// sanity.js — the Image view's sanity check (Adebayo et al. 2018): the map with the classifier re-drawn at
// random, side by side, with Spearman ρ. Part of views/image-view.js (installSanity(v) adds runSanity to v).
import { el } from '../../render/dom.js';
import { spearmanText } from '../../analysis/image-readout.js';
import { makeTile } from '../../render/image-canvas.js';
import { METHOD, FEATURE } from './methods.js';

export function installSanity(v) {
  const { sanityButton, sanityEl } = v.ui;
  // ------------------------------------------------------------ sanity check
  async function runSanity() {
    if (v.job || !v.photo) return;
    const p = v.photo;
    const method = FEATURE.has(v.st.method) ? v.st.method : 'cam';
    sanityButton.disabled = true;
    try {
      const r = await v.client.sanity({ imageId: p.res.imageId, method, classIndex: v.classIndex, seed: v.st.seed, colormap: v.st.colormap });
      if (p !== v.photo) return;
      const row = el('div', 'image-strip');
      row.append(
        makeTile({ title: `${METHOD[method].label}, trained classifier`, photoRgba: p.res.display, mapRgba: r.original.rgba, opacity: v.st.opacity / 100, colormap: v.st.colormap }),
        makeTile({ title: `${METHOD[method].label}, randomised classifier`, sub: `its top-1: ${r.randomTop1.label}`, photoRgba: p.res.display, mapRgba: r.randomized.rgba, opacity: v.st.opacity / 100, colormap: v.st.colormap }),
      );
      const n = r.n ?? NaN;
      const rho = spearmanText(r.spearman, n);
      const verdict = rho.na ? rho.reason : Math.abs(r.spearman) > 0.5
        ? 'High: the map barely depends on what the classifier learned — a warning sign (Adebayo et al. 2018).'
        : 'Low: the map changes when the classifier is randomised, as a faithful map should.';
      sanityEl.replaceChildren(row, el('p', 'sanity-rho', `Spearman ρ between the two maps: ${rho.text}. ${verdict}`),
        el('p', 'chart-caption', `n is the number of pixels compared (the two ${Math.round(Math.sqrt(n)) || 224} × ${Math.round(Math.sqrt(n)) || 224} maps); ` +
          'they are upsampled from the network’s coarse feature grid, so neighbouring pixels are far from independent and no p-value is given.'));
      v.sanityResult = { method, class: v.classIndex, spearman: r.spearman, n, randomTop1: r.randomTop1,
        original: { peak: r.original.peak, grid: r.original.grid }, randomized: { peak: r.randomized.peak, grid: r.randomized.grid } };
      sanityEl.dataset.n = String(n);
      sanityEl.dataset.spearman = String(r.spearman);
      if (method !== v.st.method) sanityEl.append(el('p', 'chart-caption', `${METHOD[v.st.method].label} is a perturbation method; the check uses CAM.`));
    } catch (e) {
      v.showMessage(`Sanity check failed: ${e.message}`);
    } finally {
      sanityButton.disabled = Boolean(v.job);
    }
  }
  Object.assign(v, { runSanity });
}
