// sanity.js — the sanity check (Adebayo et al. 2018): the map again with the weights after its layer shuffled, two
// tiles and Spearman ρ. Part of views/own-model-view.js (installSanity(v) adds runSanity to v).
import { el } from '../../render/dom.js';
import { makeTile } from '../../render/image-canvas.js';
import { METHOD } from './methods.js';

export function installSanity(v) {
  const { ui } = v;
  // ------------------------------------------------------------ sanity check
  async function runSanity() {
    if (v.job || !v.res) return;
    const method = v.method();
    const m = METHOD[method];
    if (v.model?.engine === 'ort') {
      v.showNotice('The sanity check recomputes a gradient or CAM map, and this model has neither (the core cannot run it).');
      return;
    }
    if (m.kind === 'plan') {
      v.showNotice(`The sanity check runs the gradient and CAM methods; pick one of them (not ${m.label}).`);
      return;
    }
    const res = v.res;
    v.sanityKey = v.mapKey();
    ui.sanityRun.disabled = true;
    ui.sanity.hidden = false;
    ui.sanity.replaceChildren(el('p', 'status', `Shuffling the weights and computing ${m.label} again…`));
    try {
      const r = await v.client.sanity({ photoId: res.photoId, method, layer: v.layerOf(), classIndex: v.classIndex, seed: v.st.seed, colormap: v.st.colormap });
      if (res !== v.res) return;
      if (r.shuffled === 0) {
        ui.sanity.replaceChildren(el('p', 'message notice', `No weights follow ${r.layer} (only pooling or reshaping), so there is nothing to shuffle ` +
          'and the map cannot change: pick an earlier layer for the sanity check.'));
        return;
      }
      // an input or attention map: every weight was shuffled (OnnxLab.sanity); a layer map: those after the layer
      const where = r.layer === 'input' || r.layer === 'attention' ? 'every weight of the model' : `every weight after ${r.layer}`;
      const tiles = [
        makeTile({ title: `${m.label}, your model`, sub: `explaining “${v.labelOf(r.classIndex)}”`, photoRgba: res.display, mapRgba: r.original, opacity: v.st.opacity / 100, colormap: v.st.colormap }),
        makeTile({ title: `${m.label}, weights shuffled`, sub: `its top-1 now: “${v.labelOf(r.randomizedClass)}”`, photoRgba: res.display, mapRgba: r.randomized, opacity: v.st.opacity / 100, colormap: v.st.colormap }),
      ];
      const rho = r.spearman;
      const text = el('p', 'chart-caption', `${where[0].toUpperCase()}${where.slice(1)} was shuffled ` +
        `(${r.shuffled} tensors, each a random permutation of its own values; seed ${v.st.seed}), and ${m.label} computed again for the same class. ` +
        `Spearman ρ between the two maps (at ${r.mapShape.join('×')}): ${rho === null ? 'undefined (a constant map)' : rho.toFixed(3)}. ` +
        'A map that explains the model must change (ρ near 0); ρ near 1 means it mostly shows the photo or the layer, not what the network does with it (Adebayo et al. 2018).');
      text.dataset.spearman = rho === null ? '' : String(rho);
      const grid = el('div', 'image-grid');
      grid.append(...tiles);
      ui.sanity.replaceChildren(grid, text);
    } catch (e) {
      ui.sanity.replaceChildren();
      ui.sanity.hidden = true;
      v.showMessage(`The sanity check failed: ${e.message}`);
    } finally {
      ui.sanityRun.disabled = false;
    }
  }

  Object.assign(v, { runSanity });
}
