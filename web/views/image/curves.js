// curves.js — the Image view's deletion / insertion curves (RISE protocol, CURVE_STEPS steps) and the
// explanation-as-mask drop, for the selected method's map, as one job. Part of views/image-view.js
// (installCurves(v) adds drawCurves, runCurves to v).
import { el } from '../../render/dom.js';
import { maskDropText } from '../../analysis/image-readout.js';
import { widthOf } from '../../render/plot-lib.js';
import { renderCurves } from '../../render/image-curves.js';
import { METHOD, CURVE_STEPS } from './methods.js';

export function installCurves(v) {
  const { curvesEl, drop } = v.ui;
  // ------------------------------------------------------------ deletion / insertion
  function drawCurves() {
    const runs = v.curves.filter((c) => c.cls === v.classIndex);
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
    const base = { imageId: p.res.imageId, classIndex: cls, colormap: v.st.colormap };
    const handles = [];
    v.startJob(`Deletion + insertion (${METHOD[method].label})`, handles, 'curves');
    try {
      const out = {};
      for (const kind of ['deletion', 'insertion', 'explanationMask']) {
        const params = kind === 'explanationMask' ? {} : { steps: CURVE_STEPS };
        const h = v.client.runPlan(kind, { ...base, params, map: r.key }, // the worker holds the map (r.key)
          (m) => v.jobProgress(m, `${METHOD[method].label} ${kind === 'explanationMask' ? 'masked photo' : kind}: network passes`));
        handles.push(h);
        if (v.job?.cancelled) h.cancel();
        out[kind] = await h.promise;
        if (out[kind].cancelled) break;
      }
      v.endJob();
      if (p !== v.photo || out.deletion?.cancelled || out.insertion?.cancelled) return;
      v.curves = v.curves.filter((c) => !(c.cls === cls && c.method === method));
      for (const kind of ['deletion', 'insertion']) v.curves.push({ method, kind, cls, ...out[kind] });
      if (out.explanationMask && !out.explanationMask.cancelled) v.extra.set(`${cls}|${method}`, out.explanationMask);
      v.drawCurves();
    } catch (e) {
      v.endJob();
      v.showMessage(`Deletion / insertion failed: ${e.message}`);
    }
  }
  Object.assign(v, { drawCurves, runCurves });
}
