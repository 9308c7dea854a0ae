// maps.js — the photo on the user's model and its maps: classify, the top classes, one map (computed once per
// method, layer and class), its readout, recolouring. Part of views/own-model-view.js (installMaps(v) adds classify,
// renderTop, layerOf, mapKey, mapOf, redraw, renderInfo, renderMap, recolor to v).
import { el } from '../../render/dom.js';
import { drawOverlay } from '../../render/image-canvas.js';
import { renderTop5 } from '../../render/image-top5.js';
import { peakText } from '../../analysis/image-readout.js';
import { percent } from '../../analysis/format.js';
import { METHOD, SCALING_LABELS, sentence } from './methods.js';

export function installMaps(v) {
  const { ui } = v;
  // ------------------------------------------------------------ the photo
  async function classify() {
    if (!v.model || !v.photoSource || !v.client?.loaded) return;
    const seq = ++v.seq;
    v.cancelJob();
    v.setStatus('busy');
    ui.caption.textContent = `Classifying ${v.photoSource.title} with ${v.model.name}…`;
    let res;
    try {
      res = await v.client.classify(v.photoSource.source, v.st.oscale);
    } catch (e) {
      if (seq !== v.seq) return;
      v.setStatus('ready');
      ui.caption.textContent = '';
      v.showMessage(`${v.model.name} could not classify ${v.photoSource.title}: ${e.message}`);
      return;
    }
    if (seq !== v.seq) return;
    v.res = res;
    v.details.ownLogits = res.logits;
    v.maps = new Map();
    v.curves = [];
    v.road = [];
    ui.sanity.replaceChildren();
    ui.sanity.hidden = true;
    v.classIndex = res.top[0];
    const [, C, H, W] = v.model.summary.input_shape;
    ui.caption.textContent = `${v.photoSource.title}: the 224×224 centre crop, resized to the model’s ${H}×${W}` +
      `${C === 1 ? ' (grey)' : ''}, scaled ${SCALING_LABELS[v.st.oscale]}. ${Math.round(res.ms)} ms.`;
    ui.results.hidden = false;
    v.setStatus('ready');
    v.renderTop();
    v.drawCurves();
    await v.renderMap();
  }

  function renderTop() {
    renderTop5(ui.top, v.res.top.map((k) => ({ index: k, label: v.labelOf(k), prob: v.res.probs[k] })), {
      selected: v.classIndex,
      onSelect: (k) => {
        v.classIndex = k;
        v.cancelJob();
        v.renderTop();
        v.drawCurves();
        v.renderMap();
      },
    });
  }

  // ------------------------------------------------------------ maps
  const layerOf = () => ui.layer.value || 'auto';
  function mapKey(method = v.method(), cls = v.classIndex) {
    const m = METHOD[method];
    return `${method}|${m.kind === 'layer' || method === 'scorecam' ? v.layerOf() : 'input'}|${cls}`;
  }

  // The map of `method` for class cls at the chosen layer: the one held, else computed by the worker and kept (the
  // random baseline drawn from the URL's seed); null for a perturbation map not computed yet (a job: computePlan).
  // Throws the worker's message.
  async function mapOf(method, cls = v.classIndex) {
    const key = v.mapKey(method, cls);
    if (v.maps.has(key)) return v.maps.get(key);
    if (METHOD[method].kind === 'plan') return null;
    const res = v.res;
    const r = await v.client.map({ photoId: res.photoId, method, layer: v.layerOf(), classIndex: cls, colormap: v.st.colormap,
      ...(method === 'random' ? { options: { seed: v.st.seed } } : {}) });
    if (res === v.res) v.maps.set(key, r);
    return r;
  }

  function redraw() {
    const r = v.maps.get(v.mapKey());
    if (v.res) drawOverlay(ui.canvas, v.res.display, r?.rgba ?? null, v.st.opacity / 100);
  }

  function renderInfo(r) {
    const method = v.method();
    ui.mapInfo.replaceChildren();
    if (!r) return;
    const a = r.attention;
    const where = r.layer === 'input' ? 'the input pixels'
      : a ? `its attention (${a.layers} layer${a.layers === 1 ? '' : 's'}, ${a.heads} head${a.heads === 1 ? '' : 's'}, ${a.tokens} tokens with ${a.classTokens === 2 ? 'the class and distillation tokens' : 'the class token'})`
      : `layer ${r.layer}`;
    ui.mapInfo.append(el('span', 'image-peak',
      `Explaining “${v.labelOf(r.classIndex)}” with ${METHOD[method].label} at ${where}` +
        `${r.mapShape ? ` (map ${r.mapShape.join('×')})` : ''}: ${peakText(r.peak)}.${r.ms ? ` ${Math.round(r.ms)} ms.` : ''}`));
    if (a?.note) ui.mapInfo.append(el('br'), el('span', 'own-attention-note', `${sentence(a.note.charAt(0).toUpperCase() + a.note.slice(1))}`));
    if (r.conservation) {
      const { logit, pixels, unexplained } = r.conservation;
      ui.mapInfo.append(el('br'), el('span', 'own-conservation',
        `Signed: the pixels carry ${pixels.toFixed(3)} of the logit ${logit.toFixed(3)}; the biases, the class token and the` +
          ` position embeddings carry the other ${unexplained.toFixed(3)}. Rules found in the graph: ${r.rules.join('; ') || 'none'}.`));
    }
    if (r.completeness) {
      const { sum, target } = r.completeness;
      const gap = Math.abs(sum - target) / Math.max(1e-12, Math.abs(target));
      ui.mapInfo.append(el('br'), el('span', gap > 0.05 ? 'point-miss' : 'point-hit',
        `Completeness: the attributions sum to ${sum.toFixed(4)}; the logit minus the logit of an all-zero input is ${target.toFixed(4)}` +
          ` (${percent(gap, 1)} apart${gap > 0.05 ? ': more steps would close the gap' : ''}).`));
    }
  }

  async function renderMap() {
    if (!v.res) return;
    const method = v.method();
    const m = METHOD[method];
    ui.method.value = method;
    ui.about.textContent = m.about;
    ui.curvesRun.textContent = `Run deletion + insertion for ${m.label}`;
    Object.assign(ui.canvas.dataset, { method, layer: '', class: String(v.classIndex), peakX: '', peakY: '', mapShape: '' });
    const key = v.mapKey();
    if (v.sanityKey !== key) { // a sanity check shown is of another map
      ui.sanity.replaceChildren();
      ui.sanity.hidden = true;
    }
    let r = v.maps.get(key);
    if (!r && m.kind !== 'plan') {
      const res = v.res;
      ui.mapInfo.textContent = `Computing ${m.label}…`;
      try {
        r = await mapOf(method);
      } catch (e) {
        if (res !== v.res) return;
        ui.mapInfo.textContent = '';
        v.showMessage(`${m.label} failed: ${e.message}`);
        v.redraw();
        return;
      }
      if (res !== v.res) return;
    }
    if (method !== v.method() || key !== v.mapKey()) return;
    v.redraw();
    if (!r) {
      ui.mapInfo.replaceChildren(el('span', null, `${m.label} runs many network passes of your model. `));
      const b = el('button', 'small', 'Compute', { type: 'button', id: 'own-compute' });
      b.disabled = Boolean(v.job);
      b.addEventListener('click', () => v.computePlan(method));
      ui.mapInfo.append(b);
      return;
    }
    Object.assign(ui.canvas.dataset, { layer: r.layer, peakX: String(r.peak.x), peakY: String(r.peak.y), mapShape: r.mapShape ? r.mapShape.join('×') : '224×224' });
    v.details.ownLastMap = r.raw ?? null;
    v.renderInfo(r);
  }

  // A new colour map: the worker recolours the maps it holds (nothing is recomputed).
  async function recolor() {
    const res = v.res;
    const entries = [...v.maps.entries()];
    if (!entries.length) return v.redraw();
    try {
      const { maps } = await v.client.recolor({ photoId: res.photoId, keys: entries.map(([, r]) => r.key), colormap: v.st.colormap });
      if (res !== v.res) return;
      for (const [key, r] of entries) if (maps[r.key]) v.maps.set(key, { ...r, rgba: maps[r.key] });
    } catch (e) {
      v.showMessage(`The maps could not be recoloured: ${e.message}`);
    }
    v.redraw();
  }

  Object.assign(v, { classify, renderTop, layerOf, mapKey, mapOf, redraw, renderInfo, renderMap, recolor });
}
