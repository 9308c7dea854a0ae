// curves.js — the Image view's deletion / insertion curves (RISE protocol, st.csteps steps: 50 by default) and the
// explanation-as-mask drop, for the selected method's map, as one job. Part of views/image-view.js
// (installCurves(v) adds drawCurves, runCurves, and curvePlans / keepCurves, which "Which method?" shares, to v).
import { el } from '../../render/dom.js';
import { maskDropText } from '../../analysis/image-readout.js';
import { widthOf } from '../../render/plot-lib.js';
import { renderCurves } from '../../render/image-curves.js';
import { METHOD } from './methods.js';

export function installCurves(v) {
  const { curvesEl, drop } = v.ui;
  // ------------------------------------------------------------ deletion / insertion
  function drawCurves() {
    const runs = v.curves.filter((c) => c.cls === v.classIndex && c.steps === v.st.csteps);
    renderCurves(curvesEl, runs, { width: widthOf(curvesEl, 640), labelOf: (m) => METHOD[m]?.label ?? m,
      topProb: v.photo?.res.top5[0]?.prob, classes: v.info?.classes });
    const lines = [];
    for (const [key, r] of v.extra) {
      const [cls, method] = key.split('|');
      if (Number(cls) !== v.classIndex) continue;
      lines.push(`${METHOD[method].label}: ${maskDropText(r.original, r.masked)}`);
    }
    if (lines.length) curvesEl.append(el('p', 'chart-caption', `The photo faded towards grey by the map (the highlighted region kept, the rest faded in proportion to its low map value; Score-CAM’s “average drop / increase in confidence”): ${lines.join(' · ')}.`));
  }

  async function runCurves() {
    if (v.job || !v.photo) return;
    const method = v.st.method;
    const p = v.photo;
    let r;
    try {
      r = await v.mapFor(method);
    } catch (e) {
      v.showMessage(e.message);
      return;
    }
    if (!r) {
      v.showNotice(`Compute the ${METHOD[method].label} map first (it is a slow method).`);
      return;
    }
    const cls = v.classIndex;
    const handles = [];
    v.startJob(`Deletion + insertion (${METHOD[method].label})`, handles, 'curves');
    try {
      const out = await curvePlans(method, r, ['deletion', 'insertion', 'explanationMask'], handles);
      v.endJob();
      if (p !== v.photo || out.deletion?.cancelled || out.insertion?.cancelled) return;
      keepCurves(method, cls, out);
      if (out.explanationMask && !out.explanationMask.cancelled) v.extra.set(`${cls}|${method}`, out.explanationMask);
      v.drawCurves();
    } catch (e) {
      v.endJob();
      v.showMessage(`Deletion / insertion failed: ${e.message}`);
    }
  }
  // The plans of `kinds` on map r (the worker holds it: r.key) for the shown photo and class, one after another in
  // the running job (its handles, its Cancel); → {kind: result}, stopping at a cancelled one. `part` prefixes the
  // progress line (e.g. "2 of 4").
  async function curvePlans(method, r, kinds, handles, part = '') {
    const base = { imageId: v.photo.res.imageId, classIndex: v.classIndex, colormap: v.st.colormap };
    const steps = v.st.csteps;
    const out = { steps };
    for (const kind of kinds) {
      const params = kind === 'explanationMask' ? {} : { steps };
      const h = v.client.runPlan(kind, { ...base, params, map: r.key },
        (m) => v.jobProgress(m, `${part}${METHOD[method].label} ${kind === 'explanationMask' ? 'masked photo' : kind}: network passes`));
      handles.push(h);
      if (v.job?.cancelled) h.cancel();
      out[kind] = await h.promise;
      if (out[kind].cancelled) break;
    }
    return out;
  }
  // Keeps a finished deletion + insertion pair of (method, class), replacing an earlier one (of any steps). A curve
  // remembers its steps (out.steps, from curvePlans): only those of the current steps are drawn and ranked.
  function keepCurves(method, cls, out) {
    v.curves = v.curves.filter((c) => !(c.cls === cls && c.method === method));
    for (const kind of ['deletion', 'insertion']) v.curves.push({ method, kind, cls, steps: out.steps, ...out[kind] });
  }
  Object.assign(v, { drawCurves, runCurves, curvePlans, keepCurves });
}
